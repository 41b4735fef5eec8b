"""Buggy (torch), shipped: the Set Transformer's SAB -> MAB (maps `fc_q`, `fc_k`, `fc_v`; heads cut
by `torch.cat(X.split(dim_split, 2), 0)` into the batch; output Q_ + A V_, then O + relu(fc_o(O)))
scales by sqrt(dim_V), the width, not the head size (juho-lee/set_transformer#18, open). The
q residual and the feed-forward map out are read as the layer's tail, and the scale is named.

after: juho-lee/set_transformer modules.py
commit: 6fdae7fb8d085d502326ecb8deea8f1c38eb9cdf
licence: MIT
target: attn
expected: buggy scale-wrong
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


class MAB(nn.Module):
    def __init__(self, dim_Q, dim_K, dim_V, num_heads, ln=False):
        super().__init__()
        self.dim_V = dim_V
        self.num_heads = num_heads
        self.fc_q = nn.Linear(dim_Q, dim_V)
        self.fc_k = nn.Linear(dim_K, dim_V)
        self.fc_v = nn.Linear(dim_K, dim_V)
        self.fc_o = nn.Linear(dim_V, dim_V)

    def forward(self, Q, K):
        Q = self.fc_q(Q)
        K, V = self.fc_k(K), self.fc_v(K)
        split = self.dim_V // self.num_heads
        Q_, K_, V_ = (torch.cat(t.split(split, 2), 0) for t in (Q, K, V))
        A = torch.softmax(Q_.bmm(K_.transpose(1, 2)) / math.sqrt(self.dim_V), 2)  # the shipped bug
        out = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
        return out + F.relu(self.fc_o(out))


class SAB(nn.Module):
    def __init__(self, dim_in, dim_out, num_heads, ln=False):
        super().__init__()
        self.mab = MAB(dim_in, dim_in, dim_out, num_heads, ln=ln)

    def forward(self, X):
        return self.mab(X, X)


torch.manual_seed(0)
attn = SAB(32, 32, 4)
