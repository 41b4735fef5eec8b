"""Buggy (torch): a vision-transformer Attention whose constructor takes its score scale as a
parameter with a number for a default, `softmax_scale=0.125`, 1/sqrt(64): right for the base
model's heads of 64, wrong for any other head size. Built with its defaults in a width of 48
(4 heads of 12) it scales by 0.125 where 1/sqrt(12) = 0.289 is meant. Before the scale rule
it checked ok, 0.125 taken as "the scale the layer was built with"; a twin built with the
constructor's defaults holds the same 0.125, so it is the defaults', and scale-wrong."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, num_heads=4, qkv_bias=True, softmax_scale=0.125):
        super().__init__()
        self.num_heads = num_heads
        self.softmax_scale = softmax_scale  # written for heads of 64
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=qkv_bias)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.to_qkv(x).view(b, n, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        scores = torch.einsum("bhid,bhjd->bhij", q, k) * self.softmax_scale
        out = torch.einsum("bhij,bhjd->bhid", scores.softmax(dim=-1), v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, c))


torch.manual_seed(0)
attn = Attention(48)
