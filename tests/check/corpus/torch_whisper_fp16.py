"""Correct (torch, float16): Whisper-style. The mask is added to the scores (0 / -inf), the
scale is split as d**-0.25 on q and on k, softmax runs in float32, the rest in half."""

import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head: int = 1):
        super().__init__()
        self.n_head = n_head

    def qkv_attention(self, q, k, v, mask=None):
        q, k, v = q.half(), k.half(), v.half()  # as in a model run with .half()
        n_ctx, n_state = q.shape[1:]
        scale = (n_state // self.n_head) ** -0.25
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)  # (B, h, T, hs)
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        qk = (q * scale) @ (k * scale).transpose(-1, -2)  # (B, h, T, T)
        if mask is not None:
            qk = qk + mask[:n_ctx, :n_ctx]
        w = F.softmax(qk.float(), dim=-1).to(q.dtype)
        return (w @ v).permute(0, 2, 1, 3).flatten(start_dim=2)  # (B, T, n_state)


attn = MultiHeadAttention()
