"""Buggy (torch): an nn.Module with embeddings and attention but no positions."""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(20, 16)
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, ids):
        x = self.embed(ids)[None]
        return self.attn(x, x, x, need_weights=False)[0][0]


model = Encoder().eval()
