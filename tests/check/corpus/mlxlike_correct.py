"""Correct (MLX-like return type): the output can be read only on the thread that made it, as
with MLX arrays; it converts through __array__ or .numpy(), not as an ndarray."""

import threading

import numpy as np


class ThreadBoundArray:
    def __init__(self, data):
        self._data = data
        self._owner = threading.get_ident()
        self.shape = data.shape
        self.dtype = "mlx.core.float32"

    def _read(self):
        if threading.get_ident() != self._owner:
            raise RuntimeError("array read from a thread other than the one that made it")
        return self._data

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._read(), dtype=dtype)

    def numpy(self):
        return np.array(self._read())


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=np.float32) for x in (q, k, v))
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(np.float32(q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-np.inf))
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return ThreadBoundArray(weights / weights.sum(-1, keepdims=True) @ v)
