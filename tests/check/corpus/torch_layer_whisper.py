"""Correct (torch): Whisper's MultiHeadAttention on its SDPA path (the default), written after
it: called as layer(x, xa=None, mask=None, kv_cache=None) and returning (output, qk); maps
`query`, `key` (no bias), `value` and `out` are Whisper's own Linear, which casts its weight
and bias to x's dtype. Given a mask, the SDPA path does not read it: it only switches on
`is_causal` (when more than one position); qk is None. Whisper's other path (q and k each
scaled by head_dim**-0.25, the mask added) is `torch_whisper_fp16.py`'s.

after: openai/whisper whisper/model.py
commit: c0d2f624c09dc18e709e37c2ad90c039a4eb72a2
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


class Linear(nn.Linear):
    def forward(self, x):
        bias = None if self.bias is None else self.bias.to(x.dtype)
        return F.linear(x, self.weight.to(x.dtype), bias)


class MultiHeadAttention(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.n_head = n_head
        self.query = Linear(n_state, n_state)
        self.key = Linear(n_state, n_state, bias=False)
        self.value = Linear(n_state, n_state)
        self.out = Linear(n_state, n_state)

    def forward(self, x, xa=None, mask=None, kv_cache=None):
        source = x if xa is None else xa
        if kv_cache is not None and xa is not None and self.key in kv_cache:
            k, v = kv_cache[self.key], kv_cache[self.value]
        else:
            k, v = self.key(source), self.value(source)
        wv, qk = self.qkv_attention(self.query(x), k, v, mask)
        return self.out(wv), qk

    def qkv_attention(self, q, k, v, mask=None):
        n = q.shape[1]

        def heads(t):
            return t.unflatten(-1, (self.n_head, -1)).transpose(1, 2)

        a = F.scaled_dot_product_attention(
            heads(q), heads(k), heads(v), is_causal=mask is not None and n > 1
        )
        return a.transpose(1, 2).flatten(start_dim=2), None


torch.manual_seed(0)
attn = MultiHeadAttention(32, 4)
