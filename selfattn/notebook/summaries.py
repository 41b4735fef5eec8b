"""One number per head to sort heads by, and each head as a small picture: the heads view's numbers.

Every summary is a mean over the head's query rows, so heads of any length compare:
- `entropy`: −Σ w log w of a row, in nats (0 when a row puts all its weight on one key; a
  diffuse head is high);
- `largest weight`: a row's largest weight (a sharp head is near 1);
- `first token`: the weight on key 0, where many heads park what they do not use;
- `previous token`: the weight on key i − 1 (rows 1 .. n − 1), a previous-token head's mark.

>>> w = np.eye(3)[None]  # one head, each query on itself
>>> {name: round(float(v[0]), 3) for name, v in summaries(w).items()}
{'entropy': 0.0, 'largest weight': 1.0, 'first token': 0.333, 'previous token': 0.0}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

MASKED = 255  # a thumbnail code: every cell of the block is masked; 0..254 are shades
SHADES = 254


def _entropy(stack: np.ndarray) -> np.ndarray:
    """Mean row entropy of each head, in nats, one head at a time (a 512-token stack of 144
    heads is 150 MB; its w log w at once would be as much again)."""
    out = np.empty(len(stack))
    for k, w in enumerate(stack):
        w = np.clip(np.nan_to_num(w, nan=0.0), 0, None)
        logs = np.log(w, out=np.zeros_like(w), where=w > 0)
        out[k] = float(-(w * logs).sum(axis=-1).mean()) + 0.0  # + 0.0: no −0.0
    return out


def summaries(
    stack: np.ndarray, extra: Mapping[str, Callable[[np.ndarray], float]] | None = None
) -> dict[str, np.ndarray]:
    """Each summary of each head of a `(heads, n, n)` stack, plus the reader's own functions
    of one `(n, n)` head."""
    n = stack.shape[-1]
    clean = np.nan_to_num(stack, nan=0.0, posinf=0.0, neginf=0.0)
    rows = np.arange(1, n)
    out = {
        "entropy": _entropy(clean),
        "largest weight": clean.max(axis=-1).mean(axis=-1),
        "first token": clean[:, :, 0].mean(axis=-1),
        "previous token": (
            clean[:, rows, rows - 1].mean(axis=-1) if n > 1 else np.zeros(len(stack))
        ),
    }
    for name, function in (extra or {}).items():
        out[name] = np.array([float(function(w)) for w in stack])
    return out


def thumbnails(stack: np.ndarray, side: int, causal: bool) -> tuple[np.ndarray, int]:
    """Each head of a `(heads, n, n)` stack as a picture at most `side` blocks wide: a block is
    drawn by its largest weight, as the full map draws a block too small for a pixel, shaded
    so that area ∝ weight reads as ink ∝ weight (√ of the weight against the head's 99th
    percentile block, in 0..254), and a block all of whose cells the causal mask removed is
    MASKED. Returns the codes `(heads, m, m)` as uint8 and m."""
    heads, n = stack.shape[0], stack.shape[-1]
    block = -(-n // side)
    m = -(-n // block)
    padded = np.zeros((heads, m * block, m * block), dtype=np.float32)
    padded[:, :n, :n] = np.nan_to_num(stack, nan=0.0, posinf=1.0, neginf=0.0)
    pooled = padded.reshape(heads, m, block, m, block).max(axis=(2, 4))
    top = np.quantile(pooled.reshape(heads, -1), 0.99, axis=1)
    top = np.where(top > 0, top, 1)[:, None, None]
    codes = np.rint(np.sqrt(np.clip(pooled / top, 0, 1)) * SHADES).astype(np.uint8)
    if causal:
        first_key = np.arange(m) * block  # a block is all masked when its lowest row is
        last_query = np.minimum(np.arange(m) * block + block - 1, n - 1)
        codes[:, first_key[None, :] > last_query[:, None]] = MASKED
    return codes, m
