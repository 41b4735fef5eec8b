"""Correct (torch): Hugging Face's module-first eager path. The function reads what it needs of
the calling layer (`module.num_key_value_groups`, `module.training`) without a None guard, so
it is checked with a stand-in answering those reads.

after: huggingface/transformers src/transformers/models/llama/modeling_llama.py
commit: 5dd4a63548857797727ae73eeb6a6e886ea02a3e
licence: Apache-2.0
target: eager_attention_forward
expected: ok
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
    weights = nn.functional.softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)
    weights = nn.functional.dropout(weights, p=dropout, training=module.training)
    out = torch.matmul(weights, values).transpose(1, 2).contiguous()
    return out, weights
