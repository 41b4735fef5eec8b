"""Correct (torch): the encoder self-attention of bentrevett's "Attention is All You Need" notebook
(MultiHeadAttentionLayer: fc_q, fc_k, fc_v, fc_o, scores divided by sqrt(head_dim), masked_fill
with -1e10 where mask == 0), here taking the (batch, n) source mask of ones and zeros itself and
spreading it over the keys. Its twin spreads it over the queries
(torch_layer_seq2seq_query_padding.py).

after: bentrevett/pytorch-seq2seq 6 - Attention is All You Need.ipynb
commit: 7faa64a895fe4b76cb87409d66a0ba349a78298e
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn


class MultiHeadAttentionLayer(nn.Module):
    def __init__(self, hid_dim, n_heads, dropout):
        super().__init__()
        assert hid_dim % n_heads == 0
        self.hid_dim = hid_dim
        self.n_heads = n_heads
        self.head_dim = hid_dim // n_heads
        self.fc_q = nn.Linear(hid_dim, hid_dim)
        self.fc_k = nn.Linear(hid_dim, hid_dim)
        self.fc_v = nn.Linear(hid_dim, hid_dim)
        self.fc_o = nn.Linear(hid_dim, hid_dim)
        self.dropout = nn.Dropout(dropout)
        self.scale = self.head_dim**0.5

    def forward(self, query, key, value, mask=None):
        batch_size = query.shape[0]
        Q, K, V = self.fc_q(query), self.fc_k(key), self.fc_v(value)
        Q = Q.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        K = K.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        V = V.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        energy = torch.matmul(Q, K.permute(0, 1, 3, 2)) / self.scale
        if mask is not None:
            mask = mask[:, None, None, :]  # (batch, 1, 1, n): over the keys
            energy = energy.masked_fill(mask == 0, -1e10)
        attention = torch.softmax(energy, dim=-1)
        x = torch.matmul(self.dropout(attention), V)
        x = x.permute(0, 2, 1, 3).contiguous().view(batch_size, -1, self.hid_dim)
        return self.fc_o(x), attention


torch.manual_seed(0)
attn = MultiHeadAttentionLayer(32, 4, 0.0)
