"""Correct (torch): Gemma 2's module-first eager path, `scaling=None` read off
`module.head_dim ** -0.5` and a `softcap=None`: exit 2 before (`module` required); with a
stand-in for the module the check passes the scale itself (the stand-in's answer is no head
size) and the function checks ok.

after: huggingface/transformers src/transformers/models/gemma2/modeling_gemma2.py
commit: 9a80143ca26066ee3266749a57c7b3850d8843be
licence: Apache-2.0
target: eager_attention_forward
expected: ok
"""

import torch
from torch import nn


def repeat_kv(states, n_rep):
    b, kv, n, d = states.shape
    if n_rep == 1:
        return states
    return states[:, :, None].expand(b, kv, n_rep, n, d).reshape(b, kv * n_rep, n, d)


def eager_attention_forward(
    module, query, key, value, attention_mask, dropout=0.0, scaling=None, softcap=None, **kwargs
):
    if scaling is None:
        scaling = module.head_dim**-0.5
    keys = repeat_kv(key, module.num_key_value_groups)
    values = repeat_kv(value, module.num_key_value_groups)
    scores = torch.matmul(query, keys.transpose(2, 3)) * scaling
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    if attention_mask is not None:
        scores = scores + attention_mask[:, :, :, : keys.shape[-2]]
    weights = nn.functional.softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)
    weights = nn.functional.dropout(weights, p=dropout, training=module.training)
    return torch.matmul(weights, values).transpose(1, 2).contiguous(), weights
