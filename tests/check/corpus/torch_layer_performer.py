"""Not softmax attention (torch): Performer's SelfAttention, written after lucidrains'
performer-pytorch: `to_q`, `to_k`, `to_v`, `to_out` as in exact attention, but the weights
come from FAVOR+ positive random features (q and k mapped through exp of a random projection,
a stabiliser subtracted) and are never a softmax: the output approximates softmax attention,
closer the more features. `check` reads wrong-output, and that no softmax ran in the forward.

after: lucidrains/performer-pytorch performer_pytorch/performer_pytorch.py
after: lucidrains/performer-pytorch performer_pytorch/reversible.py
commit: fc8b78441b1e27eb5d9b01fc738a8772cee07127
licence: MIT
target: attn
expected: buggy wrong-output
"""

import math

import torch
from torch import nn


def softmax_kernel(data, projection, is_query, eps=1e-4):
    d = data.shape[-1]
    data = data * d**-0.25
    dash = data @ projection.T
    diag = (data**2).sum(dim=-1, keepdim=True) / 2
    top = dash.amax(dim=-1, keepdim=True) if is_query else dash.amax(dim=(-1, -2), keepdim=True)
    return (torch.exp(dash - diag - top.detach()) + eps) / math.sqrt(projection.shape[0])


class SelfAttention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64, nb_features=None):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        features = nb_features or int(dim_head * math.log(dim_head))
        self.register_buffer("projection_matrix", torch.randn(features, dim_head))
        self.to_q, self.to_k, self.to_v = (nn.Linear(dim, inner, bias=False) for _ in range(3))
        self.to_out = nn.Linear(inner, dim)

    def forward(self, x, mask=None):
        b, n, _ = x.shape
        q, k, v = (
            t(x).view(b, n, self.heads, -1).transpose(1, 2)
            for t in (self.to_q, self.to_k, self.to_v)
        )
        q = softmax_kernel(q, self.projection_matrix, is_query=True)
        k = softmax_kernel(k, self.projection_matrix, is_query=False)
        context = torch.einsum("bhnf,bhnd->bhfd", k, v)
        normaliser = 1.0 / torch.einsum("bhnf,bhf->bhn", q, k.sum(dim=-2))
        out = torch.einsum("bhfd,bhnf,bhn->bhnd", context, q, normaliser)
        return self.to_out(out.transpose(1, 2).reshape(b, n, -1))


torch.manual_seed(0)
attn = SelfAttention(32, heads=4, dim_head=8)
