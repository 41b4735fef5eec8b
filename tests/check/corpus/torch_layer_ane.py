"""Correct (torch): Apple's ANE reference SelfAttention, written after it: x is an image
(batch, C, 1, n), the sequence along the width, as the Neural Engine wants it; `q_proj`,
`k_proj`, `v_proj` and `out_proj` are 1 x 1 convolutions; the heads are split along the
channels into a list and each head's scores are laid out (batch, keys, 1, queries) by einsum
and softmaxed over dim=1, the keys; it returns (output, weights). Before: fed (batch, C, n, 1)
it read each position alone, looked causal and wrong (wrong-output), and the (q, k, v) form
was read as a kernel (weights-not-normalized).

after: apple/ml-ane-transformers ane_transformers/reference/multihead_attention.py
after: apple/ml-ane-transformers ane_transformers/reference/layer_norm.py
commit: da64000fa56cc85b0859bc17cb16a3d753b8304a
licence: Apple Sample Code License
target: attn
expected: ok
"""

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, embed_dim: int, n_head: int = 8, dropout: float = 0.1):
        super().__init__()
        self.n_head, self.d = n_head, embed_dim
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            nn.Conv2d(embed_dim, embed_dim, 1) for _ in range(4)
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, qkv, qk_mask=None):
        b, _, h, w = qkv.shape
        size = self.d // self.n_head
        q, k, v = self.q_proj(qkv), self.k_proj(qkv), self.v_proj(qkv)
        heads_q, heads_v = q.split(size, dim=1), v.split(size, dim=1)
        heads_k = k.transpose(1, 3).split(size, dim=3)
        weights = []
        for qi, ki in zip(heads_q, heads_k, strict=True):
            scores = torch.einsum("bchq,bkhc->bkhq", qi, ki) * size**-0.5
            scores = scores if qk_mask is None else scores + qk_mask
            weights.append(self.dropout(scores.softmax(dim=1)))
        out = torch.cat(
            [
                torch.einsum("bkhq,bchk->bchq", wi, vi)
                for wi, vi in zip(weights, heads_v, strict=True)
            ],
            1,
        )
        return self.out_proj(out.view(b, self.d, h, w)), weights


torch.manual_seed(0)
attn = SelfAttention(32, n_head=4)
