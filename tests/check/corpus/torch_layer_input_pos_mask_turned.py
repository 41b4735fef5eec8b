"""Buggy (torch): a causal layer written as gpt-fast's is, rotated by `freqs_cis` (cos and sin
in a last axis of two) and requiring `input_pos`, the positions of the tokens it is handed,
from which it builds its own causal mask: key j is kept for query i when pos[j] <= pos[i].
Here the comparison is turned, pos[i] <= pos[j], so each query sees itself and the future.
`input_pos` is found as a positions tensor, arange(n), by what the layer runs with (an int
fails where it is indexed); the verdict is the turned triangle. Before, the check exited 2
asking for `input_pos`."""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def apply_rotary_emb(x: Tensor, freqs_cis: Tensor) -> Tensor:
    xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
    freqs_cis = freqs_cis.view(1, xshaped.size(1), 1, xshaped.size(3), 2)
    x_out = torch.stack(
        [
            xshaped[..., 0] * freqs_cis[..., 0] - xshaped[..., 1] * freqs_cis[..., 1],
            xshaped[..., 1] * freqs_cis[..., 0] + xshaped[..., 0] * freqs_cis[..., 1],
        ],
        -1,
    )
    return x_out.flatten(3).type_as(x)


class CausalAttention(nn.Module):
    def __init__(self, dim: int = 32, n_head: int = 4):
        super().__init__()
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.n_head, self.head_dim, self.dim = n_head, dim // n_head, dim

    def forward(self, x: Tensor, freqs_cis: Tensor, input_pos: Tensor) -> Tensor:
        bsz, seqlen, _ = x.shape
        q, k, v = self.wqkv(x).split([self.dim, self.dim, self.dim], dim=-1)
        q = q.view(bsz, seqlen, self.n_head, self.head_dim)
        k = k.view(bsz, seqlen, self.n_head, self.head_dim)
        v = v.view(bsz, seqlen, self.n_head, self.head_dim)
        q, k = apply_rotary_emb(q, freqs_cis), apply_rotary_emb(k, freqs_cis)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        mask = input_pos[:, None] <= input_pos[None, :]  # the slip: pos[j] <= pos[i] is meant
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[None, None])
        return self.wo(y.transpose(1, 2).contiguous().view(bsz, seqlen, self.dim))


torch.manual_seed(0)
attn = CausalAttention()
