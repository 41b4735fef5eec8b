"""The stored head: six embeddings and W_Q, W_K, W_V, read from and written to head.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np

from .attention import MASK_MODES, MaskMode, attention


@dataclass(frozen=True)
class Head:
    """Six embeddings and three 2x2 matrices, as stored in head.json."""

    tokens: tuple[str, ...]
    X: np.ndarray  # (n, d) one embedding per token
    W_Q: np.ndarray  # (d, d)
    W_K: np.ndarray  # (d, d)
    W_V: np.ndarray  # (d, d)

    def index(self, token: str) -> int:
        return self.tokens.index(token)

    @cached_property
    def _runs(self) -> dict[str, dict[str, np.ndarray]]:
        return {m: attention(self.X, self.W_Q, self.W_K, self.W_V, m) for m in MASK_MODES}

    def run(self, mask: MaskMode = "none") -> dict[str, np.ndarray]:
        """Every intermediate of the head on its own sentence (computed once per mask)."""
        return self._runs[mask]

    @property
    def flat(self) -> np.ndarray:
        """All parameters as one vector: embeddings, then W_Q, W_K, W_V."""
        return np.concatenate([a.ravel() for a in (self.X, self.W_Q, self.W_K, self.W_V)])

    @classmethod
    def from_flat(cls, tokens: tuple[str, ...], p: np.ndarray) -> Head:
        """Inverse of `flat`; a (..., size) array gives a batch of heads with leading axes."""
        n, lead = len(tokens), p.shape[:-1]
        d = round((np.sqrt(n * n + 12 * p.shape[-1]) - n) / 6)  # size = n·d + 3·d²
        X, rest = p[..., : n * d].reshape(*lead, n, d), p[..., n * d :]
        W_Q, W_K, W_V = (
            rest[..., i * d * d : (i + 1) * d * d].reshape(*lead, d, d) for i in range(3)
        )
        return cls(tuple(tokens), X, W_Q, W_K, W_V)

    def to_json(self) -> dict:
        def plain(a: np.ndarray) -> list:
            return [[round(float(v), 2) for v in row] for row in np.atleast_2d(a)]

        return {
            "tokens": list(self.tokens),
            "embeddings": {t: plain(self.X[i])[0] for i, t in enumerate(self.tokens)},
            "W_Q": plain(self.W_Q),
            "W_K": plain(self.W_K),
            "W_V": plain(self.W_V),
        }


def head_from_json(data: dict) -> Head:
    """Build a Head from the head.json schema, checking shapes and finiteness."""
    try:
        tokens = tuple(data["tokens"])
        X = np.array([data["embeddings"][t] for t in tokens], dtype=float)
        mats = [np.array(data[k], dtype=float) for k in ("W_Q", "W_K", "W_V")]
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"head.json does not follow the schema: {err!r}") from None
    d = X.shape[1] if X.ndim == 2 else 0
    if X.ndim != 2 or len(tokens) == 0 or any(m.shape != (d, d) for m in mats):
        raise ValueError("head.json: embeddings must be (n, d) and W_Q, W_K, W_V (d, d)")
    if not all(np.isfinite(a).all() for a in (X, *mats)):
        raise ValueError("head.json: every parameter must be a finite number")
    return Head(tokens, X, *mats)


def load_head(path: str | Path | None = None) -> Head:
    """Load head.json (the packaged one unless a path is given)."""
    if path is None:
        text = resources.files("selfattn").joinpath("head.json").read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    return head_from_json(json.loads(text))
