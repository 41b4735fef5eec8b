"""llama2.c's Attention, written after it, without grouped heads (`n_kv_heads` = `n_heads`):
maps `wq`, `wk`, `wv`, `wo` without bias, the rotary angles handed in as two tensors,
`forward(x, freqs_cos, freqs_sin)`, rotating pairs of adjacent channels, then
F.scaled_dot_product_attention with is_causal=True. The rotation is handed in at angle 0 (cos 1,
sin 0) through both, so the layer is checked as attention without positions. It exited 2 while
only one-argument rotations (`freqs_cis`, `position_embeddings`) were known.

after: karpathy/llama2.c model.py
commit: 350e04fe35433e6d2941dce5a1f53308f87058eb
licence: MIT
target: attn
expected: ok
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class ModelArgs:
    dim: int = 4096
    n_heads: int = 32
    n_kv_heads: int | None = None
    dropout: float = 0.0


def rotate(x, cos, sin):
    """x (b, n, heads, d) with channels (2i, 2i + 1) a pair; cos and sin (n, d / 2)."""
    even, odd = x.float().unflatten(-1, (-1, 2)).unbind(-1)
    cos, sin = cos[:, None, :], sin[:, None, :]
    turned = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return turned.flatten(-2).type_as(x)


class Attention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_local_heads = args.n_heads
        self.n_kv_heads = args.n_kv_heads or args.n_heads
        self.head_dim = args.dim // args.n_heads
        self.wq, self.wk, self.wv, self.wo = (
            nn.Linear(args.dim, args.dim, bias=False) for _ in range(4)
        )
        self.resid_dropout = nn.Dropout(args.dropout)
        self.dropout = args.dropout

    def forward(self, x, freqs_cos, freqs_sin):
        b, n, _ = x.shape
        q, k, v = (w(x).view(b, n, -1, self.head_dim) for w in (self.wq, self.wk, self.wv))
        q, k = rotate(q, freqs_cos, freqs_sin), rotate(k, freqs_cos, freqs_sin)
        out = F.scaled_dot_product_attention(
            q.transpose(1, 2),
            k.transpose(1, 2),
            v.transpose(1, 2),
            dropout_p=self.dropout if self.training else 0.0,
            is_causal=True,
        )
        return self.resid_dropout(self.wo(out.transpose(1, 2).reshape(b, n, -1)))


torch.manual_seed(0)
attn = Attention(ModelArgs(dim=32, n_heads=4))
