"""The facts rules hand to the rules after them, by name, and what a rule needs of them.

Every name is a member of Fact: a fact set or read under any other name raises (`Facts`), and
a rule needing one (`Need`) is checked when the rule table is made, at import, so a misspelt
fact fails loudly instead of silently never running its rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Fact(StrEnum):
    """A fact's name. The first group are truths rules are run on; the rest hand values on."""

    STEADY = "steady"  # the same output for the same input: else every comparison is noise
    RIGHT = "right"  # the output without a mask is the reference's
    EXPLAINED = "explained"  # the output without a mask matches the reference or a known bug
    NONFINITE = "nonfinite"  # NaN or inf already on ordinary inputs
    FINITE = "finite"  # a model's output is finite
    FLAG_OFF = "flag off"  # a layer sees the future with its causal flag off
    MASK_OFF = "mask off"  # a layer's mask argument was left empty and it sees the future
    FLAG_STUCK = "flag stuck"  # causal=False already masks
    CAUSAL_RIGHT = "causal right"  # the causal mask is carried and has effect
    ERRORS = "errors"  # any error found so far: read off the report, never set
    # values
    PLAIN = "plain"  # a kernel's outputs without the mask, per probe
    BASE = "base"  # the variant the plain outputs match
    DRIVERS = "drivers"  # the parameters that may carry the causal mask
    CARRIERS = "carriers"  # those found to carry it
    CAUSAL = "causal"  # a layer hides the future by itself
    LEAK = "leak"  # where a layer's output saw the future
    X = "x"  # a layer's first input
    FIRST = "first"  # its output
    TOL = "tol"  # the tolerance its outputs are compared within
    LABEL = "label"  # "causal" or "no mask": what the layer was checked as
    RNG = "rng"  # a model's generator
    IDS = "ids"  # its token ids
    OUT = "out"  # its output on them


class Facts(dict[Fact, Any]):
    """What the rules of one check tell each other: a name not in Fact raises ValueError."""

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(Fact(key), value)

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(Fact(key))

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(Fact(key), default)

    def __ior__(self, other: Any) -> Facts:  # type: ignore[override]
        for key, value in dict(other).items():
            self[key] = value
        return self


@dataclass(frozen=True)
class Need:
    """A fact a rule needs true (`~Need(...)`: false or unset) to run."""

    fact: Fact
    holds: bool = True

    def __post_init__(self) -> None:
        Fact(self.fact)  # ValueError for a name that is no fact, when the rule is made

    def __invert__(self) -> Need:
        return Need(self.fact, not self.holds)

    def met(self, facts: Facts, errors: bool) -> bool:
        """Whether the need is met by `facts`, `errors` saying whether any error was found."""
        value = errors if self.fact is Fact.ERRORS else bool(facts.get(self.fact))
        return value == self.holds
