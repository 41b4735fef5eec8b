"""The engine: every check is a rule registered here as data (its id, the subjects it applies
to, the facts it needs), run in this order on one subject. A rule adds checks and findings to
the report and facts for the rules after it; it never reads another rule's findings to decide:
what it needs from an earlier rule is a fact, and whether it runs at all is decided here.

A subject is a kernel (q, k, v -> out), a layer (x -> x, through its own weights: a torch
module, or a JAX function read from its jaxpr) or a model (token ids -> vectors), each with one
protocol: it is called (`call`), compared with its
reference (`reference`), and its reproductions start from its source (`source`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from . import (
    diagnose,
    gradients,
    jax_layer,
    layer_padding,
    layer_rules,
    model,
    stress,
    weight_grads,
)
from .facts import Fact, Facts, Need
from .report import Report


class Subject(Protocol):
    """What every rule sees of the target."""

    kind: str  # "kernel" | "layer" | "jax layer" | "model"

    def call(self, *inputs: Any, **how: Any) -> Any: ...  # the output as float64

    @property
    def reference(self) -> Any: ...  # what the output must be

    def source(self) -> list[str]: ...  # a reproduction's first lines


class State(Protocol):
    """One check of one subject: what its rules share."""

    rep: Report
    facts: Facts

    @property
    def subject(self) -> Subject: ...


@dataclass(frozen=True)
class Rule:
    """One check. `needs`: facts that must hold for it to run; `skip`: when the last of them
    is not met, the check it records as skipped, and why. A need that is not a Need (a fact
    named by a bare string) raises TypeError when the table is made."""

    id: str
    subjects: tuple[str, ...]
    run: Callable[[Any], None]
    needs: tuple[Need, ...] = ()
    skip: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        for need in self.needs:
            if not isinstance(need, Need):
                raise TypeError(f"rule {self.id}: needs {need!r}, not a Need of a Fact")


KERNEL, LAYER, MODEL, JAX = ("kernel",), ("layer",), ("model",), ("jax layer",)
LAYERS = (*LAYER, *JAX)  # a torch layer, or a JAX one read from its jaxpr
STEADY = (Need(Fact.STEADY),)  # the same output for the same input: else every comparison is noise

RULES: tuple[Rule, ...] = (
    Rule("same-output", KERNEL, diagnose.same_output),
    Rule("mask-arguments", KERNEL, diagnose.mask_arguments, STEADY),
    Rule("runs-on-every-shape", KERNEL, diagnose.runs_on_every_shape, STEADY),
    Rule("reference", KERNEL, diagnose.reference, STEADY),
    Rule("tiles", KERNEL, diagnose.long_tiles, (*STEADY, Need(Fact.RIGHT))),
    Rule("said-causal", KERNEL, diagnose.said_causal, (*STEADY, Need(Fact.RIGHT))),
    Rule("causal-mask", KERNEL, diagnose.causal_mask, STEADY),
    Rule("padding", KERNEL, diagnose.padding, STEADY),
    Rule("mask-carrier", KERNEL, diagnose.carrier, STEADY),
    Rule("batched", KERNEL, stress.batched, (*STEADY, Need(Fact.EXPLAINED))),
    Rule(
        "extremes",
        KERNEL,
        stress.extremes,
        (*STEADY, ~Need(Fact.NONFINITE)),
        (stress.EXTREMES_CHECK, "already NaN on ordinary inputs"),
    ),
    Rule(
        "long-key",
        KERNEL,
        stress.long_key,
        (*STEADY, ~Need(Fact.ERRORS)),
        (stress.LONG_KEY_CHECK, "errors above come first"),
    ),
    Rule("gradients", KERNEL, gradients.rule, STEADY),
    Rule("layer-same-output", LAYERS, layer_rules.same_output),
    Rule("layer-causal", LAYER, layer_rules.intent, STEADY),
    Rule("jax-layer-causal", JAX, jax_layer.intent, STEADY),
    Rule("layer-wiring", LAYER, layer_rules.wiring, STEADY),
    Rule("layer-reference", LAYERS, layer_rules.reference, STEADY),
    Rule("weight-gradients", LAYER, weight_grads.rule, (*STEADY, Need(Fact.RIGHT))),
    Rule("causal-flag", LAYERS, layer_rules.flag_on, (*STEADY, Need(Fact.FLAG_OFF))),
    Rule(
        "causal-mask-argument",
        LAYER,
        layer_rules.mask_on,
        (*STEADY, Need(Fact.RIGHT), Need(Fact.MASK_OFF)),
    ),
    Rule("layer-padding", LAYER, layer_padding.padding, (*STEADY, Need(Fact.RIGHT))),
    Rule("layer-batched", LAYERS, layer_rules.batched, STEADY),
    Rule("finite-output", MODEL, model.finite_output),
    Rule("word-order", MODEL, model.word_order, (Need(Fact.FINITE),)),
)


def run(state: State) -> None:
    """Run every rule registered for the subject's kind, in order, on `state`."""
    for rule in RULES:
        if state.subject.kind not in rule.subjects:
            continue
        errors = bool(state.rep.errors)  # the one fact read off the report
        unmet = [need for need in rule.needs if not need.met(state.facts, errors)]
        if not unmet:
            rule.run(state)
        elif rule.skip is not None and unmet == [rule.needs[-1]]:
            state.rep.check(rule.skip[0], "skip", rule.skip[1])
