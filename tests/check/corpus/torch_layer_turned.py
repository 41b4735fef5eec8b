"""Decoder self-attention in the style of PyTorch before `batch_first`: the model hands the
layer (batch, seq, d_model), and the layer turns it to the (seq, batch, d_model) that
nn.MultiheadAttention wants, and back. `turned` hides the future and is correct;
`turned_tril` hands the module `tril` itself, which it reads as the positions to hide.
`as_given` takes (seq, batch, d_model) like the module it holds, and is correct too."""

import torch
from torch import nn


class MaskedSelfAttention(nn.Module):
    def __init__(self, d_model=32, nhead=4, max_len=128, keep_lower=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout=0.0)
        lower = torch.tril(torch.ones(max_len, max_len)).bool()
        self.register_buffer("attn_mask", lower if keep_lower else ~lower)

    def forward(self, x):
        seq_len = x.size(1)
        x = x.permute(1, 0, 2)
        out, _ = self.self_attn(x, x, x, attn_mask=self.attn_mask[:seq_len, :seq_len])
        return out.permute(1, 0, 2)


class MaskedSelfAttentionSeqFirst(MaskedSelfAttention):
    def forward(self, x):
        seq_len = x.size(0)
        return self.self_attn(x, x, x, attn_mask=self.attn_mask[:seq_len, :seq_len])[0]


torch.manual_seed(0)
turned = MaskedSelfAttention()
turned_tril = MaskedSelfAttention(keep_lower=True)
as_given = MaskedSelfAttentionSeqFirst()
