"""Correct (torch): MMCV's MultiheadAttention (open-mmlab/mmcv, the DETR family's attention),
written after it: a thin wrapper holding nn.MultiheadAttention as `attn`, called as
attn(query, key=None, value=None, identity=None, query_pos=None, key_pos=None,
attn_mask=None, key_padding_mask=None): key defaults to the query and value to the key, the
positional encodings are added to query and key, not value; (n, batch, C) unless
`batch_first`, when it turns the inputs for nn.MultiheadAttention and the output back; it
returns identity (the query by default) + dropout(proj_drop(attention)), a residual.

after: open-mmlab/mmcv mmcv/cnn/bricks/transformer.py
commit: a8073c74bf83d62ec36a103f835faa4837fb6585
licence: Apache-2.0
target: attn
expected: ok
"""

import torch
from torch import nn


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dims, num_heads, attn_drop=0.0, proj_drop=0.0, drop_prob=0.0,
                 batch_first=False, **kwargs):  # fmt: skip
        super().__init__()
        self.embed_dims, self.num_heads, self.batch_first = embed_dims, num_heads, batch_first
        self.attn = nn.MultiheadAttention(embed_dims, num_heads, attn_drop, **kwargs)
        self.proj_drop = nn.Dropout(proj_drop)
        self.dropout_layer = nn.Dropout(drop_prob)

    def forward(self, query, key=None, value=None, identity=None, query_pos=None, key_pos=None,
                attn_mask=None, key_padding_mask=None, **kwargs):  # fmt: skip
        key = query if key is None else key
        value = key if value is None else value
        identity = query if identity is None else identity
        if key_pos is None and query_pos is not None and query_pos.shape == key.shape:
            key_pos = query_pos
        query = query if query_pos is None else query + query_pos
        key = key if key_pos is None else key + key_pos
        if self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        out = self.attn(
            query=query, key=key, value=value, attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
        )[0]  # fmt: skip
        out = out.transpose(0, 1) if self.batch_first else out
        return identity + self.dropout_layer(self.proj_drop(out))


torch.manual_seed(0)
attn = MultiheadAttention(32, 4)
