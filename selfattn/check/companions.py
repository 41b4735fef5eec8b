"""Arguments a layer requires beside x and its rotation, which the model around it hands in:
where the positions are (lit-gpt's `input_pos`, a tensor arange(n)) or how far they may go
(lit-llama's `max_seq_length`, an int at least n). Which one a required argument is, is not
read from its name: each form is tried, positions first (a bound given a tensor fails where it
sizes or slices), and the first the layer runs with is kept for every call."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

FORMS = ("positions", "bound")


@dataclass(frozen=True)
class Companion:
    """What the layer's argument `param` is handed for n positions, as `form` says."""

    param: str
    form: str

    def make(self, n: int) -> Any:
        import torch  # pyright: ignore[reportMissingImports]

        return torch.arange(n) if self.form == "positions" else n

    @property
    def given(self) -> str:
        """The reproductions' keyword argument for the same call."""
        made = "torch.arange(x.shape[1])" if self.form == "positions" else "x.shape[1]"
        return f", {self.param}={made}"

    @property
    def said(self) -> str:
        if self.form == "positions":
            return f"`{self.param}` the positions, arange(n)"
        return f"`{self.param}` the length n, a bound on the positions"


def ways_to_give(open_: list[str]) -> list[tuple[Companion, ...]]:
    """Each way to give the required arguments `open_`, one form each, in the order to try."""
    return [
        tuple(Companion(p, f) for p, f in zip(open_, forms, strict=True))
        for forms in itertools.product(FORMS, repeat=len(open_))
    ]
