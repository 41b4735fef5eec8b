"""Attention as a method of a GPT-2-style module, checked as `gpt2._attn`. The module is in
training mode with dropout on the weights; the causal mask is its own boolean buffer, filled
with the dtype's lowest value; `attention_mask` is added to the scores (Hugging Face's padding
mask, 0 or a large negative number); `head_mask` scales whole heads. It returns the output
and the weights.

Correct as `gpt2`. Buggy as `gpt2_refactored`: a refactor lost the line adding
`attention_mask`. The built-in causal mask still works, so generation looks right; but padded
keys get weight, and a batch's outputs change with its padding."""

import torch
from torch import nn


class GPT2Attention(nn.Module):
    def __init__(self, n_positions: int = 64, p_drop: float = 0.1, refactored: bool = False):
        super().__init__()
        keep = torch.tril(torch.ones(n_positions, n_positions, dtype=torch.bool))
        self.register_buffer("bias", keep[None, None], persistent=False)
        self.attn_dropout = nn.Dropout(p_drop)
        self.refactored = refactored

    def _attn(self, query, key, value, attention_mask=None, head_mask=None):
        scores = query @ key.transpose(-1, -2) / value.size(-1) ** 0.5
        t_q, t_k = query.size(-2), key.size(-2)
        causal = self.bias[:, :, t_k - t_q : t_k, :t_k]
        lowest = torch.tensor(torch.finfo(scores.dtype).min, dtype=scores.dtype)
        scores = torch.where(causal, scores, lowest)
        if attention_mask is not None and not self.refactored:  # BUG when refactored
            scores = scores + attention_mask
        weights = self.attn_dropout(scores.softmax(dim=-1).type(value.dtype))
        if head_mask is not None:
            weights = weights * head_mask
        return weights @ value, weights


gpt2 = GPT2Attention()
gpt2_refactored = GPT2Attention(refactored=True)
