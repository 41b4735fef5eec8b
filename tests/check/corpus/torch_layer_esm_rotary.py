"""Correct (torch): ESM's MultiheadAttention (facebookresearch/esm) with rotary embeddings,
written after it: fairseq's calling convention, forward(query, key, value,
key_padding_mask=None, ..., attn_mask=None, ...) on (seq_len, batch, C), every one of query,
key and value required though with `self_attention=True` q, k and v all come from the query;
`q_proj`, `k_proj`, `v_proj`, `out_proj`; q scaled by head_dim**-0.5 right after its map;
the heads folded into the batch, (batch * heads, seq_len, head_dim), and bmm products; with
`use_rotary_embeddings` q and k rotated by `rot_emb` (GPT-NeoX's rotate-half, its cos and sin
cached from `inv_freq` for the last length seen), which is why it does not take
F.multi_head_attention_forward's fast path; the softmax in float32 cast back with
type_as(scores); returns (output, weights averaged over the heads).

after: facebookresearch/esm esm/multihead_attention.py
after: facebookresearch/esm esm/rotary_embedding.py
commit: 2b369911bb5b4b0dda914521b9475cad1656b2ac
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim))
        self._seq_len_cached = self._cos_cached = self._sin_cached = None

    def forward(self, q, k):
        n = k.shape[-2]
        if n != self._seq_len_cached:
            self._seq_len_cached = n
            angles = torch.outer(torch.arange(n).type_as(self.inv_freq), self.inv_freq)
            emb = torch.cat((angles, angles), dim=-1)
            self._cos_cached, self._sin_cached = emb.cos()[None], emb.sin()[None]
        cos, sin = self._cos_cached, self._sin_cached
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, self_attention=False,
                 use_rotary_embeddings=False):  # fmt: skip
        super().__init__()
        self.num_heads, self.head_dim = num_heads, embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.dropout, self.self_attention = dropout, self_attention
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.rot_emb = RotaryEmbedding(self.head_dim) if use_rotary_embeddings else None

    def forward(self, query, key, value, key_padding_mask=None, incremental_state=None,
                need_weights=True, static_kv=False, attn_mask=None, before_softmax=False,
                need_head_weights=False):  # fmt: skip
        t, b, c = query.shape
        source = query if self.self_attention else key
        q = self.q_proj(query) * self.scaling
        k = self.k_proj(source)
        v = self.v_proj(query if self.self_attention else value)
        q, k, v = (
            x.reshape(-1, b * self.num_heads, self.head_dim).transpose(0, 1) for x in (q, k, v)
        )
        if self.rot_emb is not None:
            q, k = self.rot_emb(q, k)
        scores = torch.bmm(q, k.transpose(1, 2))
        if attn_mask is not None:
            scores = scores + attn_mask[None]
        if key_padding_mask is not None:
            scores = scores.view(b, self.num_heads, t, -1)
            scores = scores.masked_fill(key_padding_mask[:, None, None].bool(), float("-inf"))
            scores = scores.view(b * self.num_heads, t, -1)
        weights = F.softmax(scores.float(), dim=-1).type_as(scores)
        out = torch.bmm(F.dropout(weights, p=self.dropout, training=self.training), v)
        out = self.out_proj(out.transpose(0, 1).reshape(t, b, c))
        mean = weights.view(b, self.num_heads, t, -1).mean(dim=1) if need_weights else None
        return out, mean


torch.manual_seed(0)
attn = MultiheadAttention(32, 4, self_attention=True, use_rotary_embeddings=True)
