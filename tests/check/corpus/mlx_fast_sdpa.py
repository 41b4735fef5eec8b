"""Correct (MLX): MLX's fused `mx.fast.scaled_dot_product_attention`, the compiled builtin
itself (nothing of its source is here: the case imports it). It has no Python signature, so
`check` reads its parameters from the first line of its docstring,
`(q, k, v, *, scale, mask=None, ...)`; `scale` is required and keyword-only (`args`), `mask`
a boolean keep mask. Checked with mlx 0.32.4 (mlx[cpu] on Linux x86-64); skipped where mlx is
not installed.

after: ml-explore/mlx python/src/fast.cpp
commit: 3b259a8a9420bbcdd7ad76208440a136274af229
licence: MIT
target: scaled_dot_product_attention
expected: ok
args: {"scale": 0.5}
"""

from mlx.core.fast import scaled_dot_product_attention  # noqa: F401
