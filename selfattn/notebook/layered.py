"""A model's layers of attention held as they came, not copied into one array: Hugging Face's
`outputs.attentions` is 12 tensors of (1, 12, 1,024, 1,024), and stacking them copied 600 MB
(peak 579 MB over baseline, 1.6 s) before anything was drawn. Each layer stays a view of its
own tensor (float32 torch memory, read by `__array__` without a copy); a head is one of them.

>>> s = Layered([np.zeros((2, 3, 3)), np.ones((2, 3, 3))])
>>> s.shape, s.reshape(-1, 3, 3)[3][0, 0]
((2, 2, 3, 3), 1.0)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


class Layered:
    """`(layers, heads, q, k)` as one `(heads, q, k)` array per layer, or, flattened by
    `reshape(-1, q, k)`, `(layers·heads, q, k)`: what the views index a head at a time
    (`stack[k]`, `for w in stack`). Anything else reads it as one array (`np.asarray`),
    copied then."""

    def __init__(self, layers: list[np.ndarray], flat: bool = False) -> None:
        self._layers = layers
        self._flat = flat
        heads, q, k = layers[0].shape
        self.dtype = layers[0].dtype
        self.shape = (len(layers) * heads, q, k) if flat else (len(layers), heads, q, k)
        self.ndim = len(self.shape)

    def __len__(self) -> int:
        return self.shape[0]

    def reshape(self, *shape: int) -> Any:
        """Flattened to a stack of heads; any other shape is the array's own reshape."""
        if len(shape) == 3 and shape[0] == -1 and tuple(shape[1:]) == self.shape[-2:]:
            return Layered(self._layers, flat=True)
        return np.asarray(self).reshape(*shape)

    def __getitem__(self, at: Any) -> Any:
        if isinstance(at, int | np.integer):
            k = int(at) % len(self) if -len(self) <= at < len(self) else len(self)
            if k >= len(self):
                raise IndexError(f"index {at} is outside {len(self)}")
            if not self._flat:
                return self._layers[k]
            heads = self._layers[0].shape[0]
            return self._layers[k // heads][k % heads]
        return np.asarray(self)[at]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[k] for k in range(len(self)))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.stack(self._layers)
        out = out.reshape(self.shape)
        return out if dtype is None else out.astype(dtype)
