"""What attention costs: bytes of the score matrix, bytes of the tokens, multiply-adds.

Generic in context length n, head width d, layers, heads and bytes per number, with
GPT-2 small as the preset the article quotes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Model:
    """The shape that sets the bill."""

    d_model: int
    layers: int
    heads: int
    bytes_per_number: int = 2  # fp16

    @property
    def d_head(self) -> int:
        return self.d_model // self.heads


GPT2_SMALL = Model(d_model=768, layers=12, heads=12)


def score_bytes(n: int, model: Model = GPT2_SMALL) -> int:
    """One head's n×n score matrix, written out."""
    return n * n * model.bytes_per_number


def all_heads_score_bytes(n: int, model: Model = GPT2_SMALL) -> int:
    """Every head of every layer writing its own n×n matrix."""
    return score_bytes(n, model) * model.layers * model.heads


def token_bytes(n: int, model: Model = GPT2_SMALL) -> int:
    """The tokens themselves: n vectors of width d_model."""
    return n * model.d_model * model.bytes_per_number


def output_bytes(n: int, model: Model = GPT2_SMALL) -> int:
    """One head's output, n vectors of width d_head: all a tiled pass writes (F23, F24)."""
    return n * model.d_head * model.bytes_per_number


def head_macs(n: int, d: int) -> int:
    """Multiply-adds of one head: n² dot products of width d for Q Kᵀ, again for W V."""
    return 2 * n * n * d


def projection_macs(n: int, model: Model = GPT2_SMALL) -> int:
    """One layer's four d_model×d_model projections (Q, K, V and the output) over n tokens."""
    return 4 * n * model.d_model * model.d_model


def layer_score_macs(n: int, model: Model = GPT2_SMALL) -> int:
    """One layer's n² part: every head's 2·n²·d_head, which sums to 2·n²·d_model."""
    return model.heads * head_macs(n, model.d_head)


def projections_dominate_until(model: Model = GPT2_SMALL) -> int:
    """The context length past which the n² part costs more than the projections.

    4·n·d² = 2·n²·d exactly at n = 2·d_model.
    """
    return 2 * model.d_model


def dot_products(n: int) -> int:
    """Every query against every key, its own included."""
    return n * n


def causal_discarded(n: int) -> int:
    """Scores above the diagonal: computed, then thrown away by the causal mask."""
    return n * (n - 1) // 2
