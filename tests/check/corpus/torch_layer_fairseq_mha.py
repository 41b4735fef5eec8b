"""Correct (torch): fairseq's MultiheadAttention, written after its path outside a cache:
forward(query, key, value, key_padding_mask=None, incremental_state=None, need_weights=True,
static_kv=False, attn_mask=None, ...) on (seq_len, batch, embed_dim), sequence first, returning
(attn, weights averaged over heads); separate `q_proj`, `k_proj`, `v_proj` and `out_proj` with
biases, `num_heads` and `scaling` = head_dim**-0.5; everything is handed to one call of
F.multi_head_attention_forward with use_separate_proj_weight=True (the q, k, v biases joined),
as fairseq does whenever no cache or export is in play.

The trace cannot look into F.multi_head_attention_forward (one call, its softmax and products
inside), but it sees the call: a layer that makes it is read as nn.MultiheadAttention is, x
handed as query, key and value, sequence first unless it says `batch_first`, with the maps
found by name. It was once read as a kernel (its first parameter is named `query`) whose
weights did not sum to one.

after: facebookresearch/fairseq fairseq/modules/multihead_attention.py
commit: 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99
licence: MIT
target: attn
expected: ok
"""

import torch
import torch.nn.functional as F
from torch import nn


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, self_attention=False):
        super().__init__()
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.self_attention, self.dropout = self_attention, dropout
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        incremental_state=None,
        need_weights=True,
        static_kv=False,
        attn_mask=None,
        before_softmax=False,
        need_head_weights=False,
    ):
        if incremental_state is not None or static_kv or before_softmax:
            raise NotImplementedError("only the path outside a cache is part of this case")
        joined = torch.cat((self.q_proj.bias, self.k_proj.bias, self.v_proj.bias))
        return F.multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            torch.empty([0]),
            joined,
            None,
            None,
            False,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            self.training,
            key_padding_mask.bool() if key_padding_mask is not None else None,
            need_weights or need_head_weights,
            attn_mask,
            use_separate_proj_weight=True,
            q_proj_weight=self.q_proj.weight,
            k_proj_weight=self.k_proj.weight,
            v_proj_weight=self.v_proj.weight,
            average_attn_weights=not need_head_weights,
        )


torch.manual_seed(0)
attn = MultiheadAttention(32, 4, self_attention=True)
