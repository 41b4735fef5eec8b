"""Correct (torch): torch_layer_vit_cifar_unscaled.py scaled by sqrt(feats // head), the head size,
as omihub777/ViT-CIFAR PR #12 proposes.

after: omihub777/ViT-CIFAR layers.py
commit: 3ef5f64f3b2fb38c4dc139ec45feee0b4fbafe8f
licence: MIT
target: attn
expected: ok
"""

import torch
from torch import nn
from torch.nn import functional as F


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, feats: int, head: int = 8, dropout: float = 0.0):
        super().__init__()
        self.head = head
        self.feats = feats
        self.q = nn.Linear(feats, feats)
        self.k = nn.Linear(feats, feats)
        self.v = nn.Linear(feats, feats)
        self.o = nn.Linear(feats, feats)
        self.dropout = nn.Dropout(dropout)
        self.sqrt_d = (self.feats // self.head) ** 0.5

    def forward(self, x):
        b, n, _ = x.size()
        q, k, v = (
            m(x).view(b, n, self.head, self.feats // self.head).transpose(1, 2)
            for m in (self.q, self.k, self.v)
        )
        score = F.softmax(torch.einsum("bhif, bhjf->bhij", q, k) / self.sqrt_d, dim=-1)
        attn = torch.einsum("bhij, bhjf->bihf", score, v)
        return self.dropout(self.o(attn.flatten(2)))


torch.manual_seed(0)
attn = MultiHeadSelfAttention(32, head=4)
