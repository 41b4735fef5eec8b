"""Correct (MLX): a Llama attention layer as mlx-lm writes one, an `mlx.nn.Module` with
`q_proj`, `k_proj`, `v_proj`, `o_proj`, grouped-query heads (4 query heads sharing 2 key-value
heads of 8), its own `nn.RoPE` and MLX's fused attention, called as layer(x, mask=None,
cache=None). Its weights are read by name as a torch layer's are, its RoPE held at angle 0 by
its position scale (put back after), and it is checked by effect with mx arrays. Before, the
layer path crashed: 'Attention' object has no attribute 'named_children'. Skipped without
mlx (mlx[cpu] installs on Linux x86-64)."""

import mlx.core as mx
import mlx.nn as nn


class Attention(nn.Module):
    def __init__(self, hidden_size=32, num_attention_heads=4, num_key_value_heads=2):
        super().__init__()
        self.n_heads = n_heads = num_attention_heads
        self.n_kv_heads = n_kv_heads = num_key_value_heads
        head_dim = hidden_size // n_heads
        self.scale = head_dim**-0.5
        self.q_proj = nn.Linear(hidden_size, n_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, n_kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, n_kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * head_dim, hidden_size, bias=False)
        self.rope = nn.RoPE(head_dim, traditional=False, base=10000)

    def __call__(self, x, mask=None, cache=None):
        B, L, _ = x.shape
        queries, keys, values = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        queries = queries.reshape(B, L, self.n_heads, -1).transpose(0, 2, 1, 3)
        keys = keys.reshape(B, L, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
        values = values.reshape(B, L, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
        offset = 0 if cache is None else cache.offset
        queries, keys = self.rope(queries, offset=offset), self.rope(keys, offset=offset)
        if cache is not None:
            keys, values = cache.update_and_fetch(keys, values)
        output = mx.fast.scaled_dot_product_attention(
            queries, keys, values, scale=self.scale, mask=mask
        )
        return self.o_proj(output.transpose(0, 2, 1, 3).reshape(B, L, -1))


mx.random.seed(0)
attn = Attention()
