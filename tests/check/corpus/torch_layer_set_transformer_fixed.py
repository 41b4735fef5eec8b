"""Correct (torch): the Set Transformer's MAB scaled by the head size. Its output is Q_ + A V_
(the q map's output added, not x) and then O + relu(fc_o(O)), a feed-forward map out: read
from the run as the layer's tail (a known miss, wrong-output, until issue 47's eighth round).

after: juho-lee/set_transformer modules.py
commit: 6fdae7fb8d085d502326ecb8deea8f1c38eb9cdf
licence: MIT
target: attn
expected: ok
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
        A = torch.softmax(Q_.bmm(K_.transpose(1, 2)) / math.sqrt(split), 2)
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
