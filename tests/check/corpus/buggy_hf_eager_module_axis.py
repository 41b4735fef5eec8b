"""Buggy (torch): Hugging Face's module-first eager path with the softmax over the queries
(dim=-2). The function reads `module.num_key_value_groups` and `module.training` without a None
guard, so it is checked with a stand-in answering those reads.
Planted, in the style of torch_hf_eager_module.py.
"""

import torch
from torch import nn


def repeat_kv(states, n_rep):
    b, kv_heads, n, d = states.shape
    if n_rep == 1:
        return states
    return states[:, :, None].expand(b, kv_heads, n_rep, n, d).reshape(b, kv_heads * n_rep, n, d)


def eager_attention_forward(
    module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs
):
    keys = repeat_kv(key, module.num_key_value_groups)
    values = repeat_kv(value, module.num_key_value_groups)
    scores = torch.matmul(query, keys.transpose(2, 3)) * scaling
    if attention_mask is not None:
        scores = scores + attention_mask[:, :, :, : keys.shape[-2]]
    weights = nn.functional.softmax(scores, dim=-2, dtype=torch.float32).to(query.dtype)
    weights = nn.functional.dropout(weights, p=dropout, training=module.training)
    out = torch.matmul(weights, values).transpose(1, 2).contiguous()
    return out, weights
