"""Correct (torch, bfloat16): Hugging Face eager style. (b, h, n, d) in, (b, n, h, d) out; a
required 4-D additive mask and a required `scaling` from the caller; softmax in float32."""

import torch
from torch import nn


def repeat_kv(hidden_states, n_rep):
    if n_rep == 1:
        return hidden_states
    b, h, n, d = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(b, h, n_rep, n, d)
    return hidden_states.reshape(b, h * n_rep, n, d)


def eager_attention_forward(
    module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs
):
    query, key, value = (x.to(torch.bfloat16) for x in (query, key, value))  # a bf16 model
    n_rep = module.num_key_value_groups if module is not None else 1
    key_states = repeat_kv(key, n_rep)
    value_states = repeat_kv(value, n_rep)
    attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = attn_weights + causal_mask
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    training = module.training if module is not None else False
    attn_weights = nn.functional.dropout(attn_weights, p=dropout, training=training)
    attn_output = torch.matmul(attn_weights, value_states)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attn_weights
