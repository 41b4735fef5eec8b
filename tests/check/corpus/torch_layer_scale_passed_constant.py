"""Correct: the layer of torch_layer_scale_default_constant.py's style (a score scale taken by
the constructor, `softmax_scale=0.125` by default) built with a scale of the caller's own,
`softmax_scale=0.25`, in a width of 48 (4 heads of 12, where 1/sqrt(12) = 0.289). A scale
handed to the constructor is the layer's own: a twin built with the defaults holds 0.125, not
0.25, so the scale was chosen when it was built, and the reference scales by it too."""

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, embed_dim, n_heads=4, softmax_scale=0.125):
        super().__init__()
        self.n_heads = n_heads
        self.softmax_scale = softmax_scale
        self.wq = nn.Linear(embed_dim, embed_dim, bias=False)
        self.wk = nn.Linear(embed_dim, embed_dim, bias=False)
        self.wv = nn.Linear(embed_dim, embed_dim, bias=False)
        self.wo = nn.Linear(embed_dim, embed_dim, bias=False)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = (
            w(x).view(b, n, self.n_heads, -1).transpose(1, 2) for w in (self.wq, self.wk, self.wv)
        )
        weights = torch.softmax(q @ k.transpose(-2, -1) * self.softmax_scale, dim=-1)
        return self.wo((weights @ v).transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = SelfAttention(48, softmax_scale=0.25)
