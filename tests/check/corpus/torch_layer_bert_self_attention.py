"""Correct (torch): Hugging Face's BertSelfAttention in its classic eager form, written after it:
`query`, `key`, `value` Linears built from a config, heads split by transpose_for_scores,
scores divided by sqrt(attention_head_size), the model's extended `attention_mask` added
(0 to keep, a large negative number to pad, (batch, 1, 1, n)), no map out (BertSelfOutput
holds it); it returns a tuple.

after: huggingface/transformers src/transformers/models/bert/modeling_bert.py
commit: 8ec58104181bfb34d824d89bccc009b4f6be6e0e
licence: Apache-2.0
target: attn
expected: ok
"""

import math
from types import SimpleNamespace

import torch
from torch import nn


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = int(config.hidden_size / config.num_attention_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def transpose_for_scores(self, x):
        x = x.view(*x.size()[:-1], self.num_attention_heads, self.attention_head_size)
        return x.permute(0, 2, 1, 3)

    def forward(
        self,
        hidden_states,
        attention_mask=None,
        head_mask=None,
        encoder_hidden_states=None,
        encoder_attention_mask=None,
        past_key_value=None,
        output_attentions=False,
    ):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            attention_scores = attention_scores + attention_mask
        attention_probs = self.dropout(nn.functional.softmax(attention_scores, dim=-1))
        if head_mask is not None:
            attention_probs = attention_probs * head_mask
        context_layer = torch.matmul(attention_probs, value_layer).permute(0, 2, 1, 3).contiguous()
        context_layer = context_layer.view(*context_layer.size()[:-2], self.all_head_size)
        return (context_layer, attention_probs) if output_attentions else (context_layer,)


torch.manual_seed(0)
config = SimpleNamespace(hidden_size=32, num_attention_heads=4, attention_probs_dropout_prob=0.1)
attn = BertSelfAttention(config)
