"""Correct (torch): torch_layer_vit_blog_scale_after_softmax.py scaled before the softmax by the
head size, as FrancescoSaverioZuppichini/ViT#1 asks. Its `qkv` holds q, k, v innermost, (heads,
head_dim, 3): read side by side or per head, it was wrong-output before.

after: FrancescoSaverioZuppichini/ViT README.md
commit: a9b7e146885fb39bc3f8592c54fc01a30e927e66
licence: no licence file in the original repository (style followed, code ours)
target: attn
expected: ok
"""

import torch
from torch import nn
from torch.nn import functional as F


class MultiHeadAttention(nn.Module):
    def __init__(self, emb_size=32, num_heads=4, dropout=0.0):
        super().__init__()
        self.emb_size = emb_size
        self.num_heads = num_heads
        self.qkv = nn.Linear(emb_size, emb_size * 3)
        self.att_drop = nn.Dropout(dropout)
        self.projection = nn.Linear(emb_size, emb_size)

    def forward(self, x, mask=None):
        b, n, _ = x.shape
        # "b n (h d qkv) -> qkv b h n d": the three interleaved innermost
        qkv = self.qkv(x).view(b, n, self.num_heads, -1, 3).permute(4, 0, 2, 1, 3)
        queries, keys, values = qkv[0], qkv[1], qkv[2]
        energy = torch.einsum("bhqd, bhkd -> bhqk", queries, keys)
        if mask is not None:
            energy = energy.masked_fill(~mask, torch.finfo(torch.float32).min)
        scaling = (self.emb_size // self.num_heads) ** (1 / 2)
        att = F.softmax(energy / scaling, dim=-1)
        att = self.att_drop(att)
        out = torch.einsum("bhal, bhlv -> bhav ", att, values)
        out = out.permute(0, 2, 1, 3).reshape(b, n, -1)
        return self.projection(out)


torch.manual_seed(0)
attn = MultiHeadAttention()
