"""A timm-style layer with a causal flag, `forward(x, attn_mask=None, is_causal=False)`, and
two paths, and QK-norm as an option. Correct: `manual` fills the future with -inf when the
flag is set; `normed` also normalises q and k per head (LayerNorms with learned weights).
Buggy: `fused` calls F.scaled_dot_product_attention without passing the flag on, so
`is_causal=True` does nothing."""

import torch
from torch import nn
from torch.nn import functional as F


class Attention(nn.Module):
    def __init__(
        self, dim: int = 16, num_heads: int = 4, fused_attn: bool = False, qk_norm: bool = False
    ):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, dim // num_heads
        self.scale = self.head_dim**-0.5
        self.fused_attn = fused_attn
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        norm = nn.LayerNorm if qk_norm else lambda _: nn.Identity()
        self.q_norm, self.k_norm = norm(self.head_dim), norm(self.head_dim)
        for layer in (self.q_norm, self.k_norm) if qk_norm else ():
            with torch.no_grad():  # trained, not the identity a norm starts as
                layer.weight.uniform_(0.5, 2.0)
                layer.bias.uniform_(-0.5, 0.5)

    def forward(self, x, attn_mask=None, is_causal=False):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        q, k = self.q_norm(q), self.k_norm(k)
        if self.fused_attn:
            x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        else:
            attn = (q * self.scale) @ k.transpose(-2, -1)
            if is_causal:
                future = torch.ones(N, N, dtype=torch.bool, device=x.device).triu(1)
                attn = attn.masked_fill(future, float("-inf"))
            if attn_mask is not None:
                attn = attn + attn_mask
            x = attn.softmax(dim=-1) @ v
        return self.proj(x.transpose(1, 2).reshape(B, N, C))


torch.manual_seed(0)
manual = Attention()
fused = Attention(fused_attn=True)
normed = Attention(qk_norm=True)
