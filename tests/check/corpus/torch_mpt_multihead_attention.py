"""Correct (torch): MPT's scaled_multihead_dot_product_attention, written after llm-foundry's:
q, k, v of (batch, n, heads * d) with `n_heads` to split them by (k split straight into
(b, h, d, s)), `softmax_scale` None for 1/sqrt(d), an additive `attn_bias` (where ALiBi goes),
a boolean `key_padding_mask` (True = keep) and `is_causal`, both filled with the dtype's
lowest value; it returns (out, weights or None, past_key_value).

after: mosaicml/llm-foundry llmfoundry/models/layers/attention.py
commit: 11d3d7066fa22766b8f9ce5f72372a90a9b25a82
licence: Apache-2.0
target: scaled_multihead_dot_product_attention
expected: ok
"""

import math

import torch


def scaled_multihead_dot_product_attention(
    query,
    key,
    value,
    n_heads,
    past_key_value=None,
    softmax_scale=None,
    attn_bias=None,
    key_padding_mask=None,
    is_causal=False,
    dropout_p=0.0,
    training=False,
    needs_weights=False,
    multiquery=False,
):
    kv_n_heads = 1 if multiquery else n_heads
    b, s_q = query.shape[:2]
    q = query.view(b, s_q, n_heads, -1).permute(0, 2, 1, 3)
    k = key.view(b, key.size(1), kv_n_heads, -1).permute(0, 2, 3, 1)
    v = value.view(b, value.size(1), kv_n_heads, -1).permute(0, 2, 1, 3)
    if past_key_value is not None:
        k = torch.cat([past_key_value[0], k], dim=3)
        v = torch.cat([past_key_value[1], v], dim=2)
        past_key_value = (k, v)
    d, s_k = q.size(-1), k.size(-1)
    if softmax_scale is None:
        softmax_scale = 1 / math.sqrt(d)
    attn_weight = q.matmul(k) * softmax_scale
    if attn_bias is not None:
        attn_bias = attn_bias[
            :, :, max(0, attn_bias.size(2) - s_q) :, max(0, attn_bias.size(3) - s_k) :
        ]
        attn_weight = attn_weight + attn_bias
    min_val = torch.finfo(q.dtype).min
    if key_padding_mask is not None:
        attn_weight = attn_weight.masked_fill(~key_padding_mask.view((b, 1, 1, s_k)), min_val)
    if is_causal and q.size(2) != 1:
        s = max(s_q, s_k)
        causal_mask = ~attn_weight.new_ones(s, s, dtype=torch.float16).tril().to(torch.bool)
        causal_mask = causal_mask[-s_q:, -s_k:]
        attn_weight = attn_weight.masked_fill(causal_mask.view(1, 1, s_q, s_k), min_val)
    attn_weight = torch.softmax(attn_weight, dim=-1)
    if dropout_p:
        attn_weight = torch.nn.functional.dropout(attn_weight, p=dropout_p, training=training)
    out = attn_weight.to(v.dtype).matmul(v)
    out = out.permute(0, 2, 1, 3).reshape(b, s_q, -1)
    return out, (attn_weight if needs_weights else None), past_key_value
