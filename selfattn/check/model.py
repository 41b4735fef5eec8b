"""Probing a model (token ids -> one vector per token): does word order reach the output?"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .facts import Facts
from .frameworks import FRAMEWORKS, CallFailed, Framework, available, framework_of
from .report import Report
from .runner import Runner, TargetError

Array = np.ndarray
ENCODINGS = ("numpy", "torch", "list")  # how token ids are handed over


def encode(encoding: str, ids: Array) -> Any:
    if encoding == "torch":
        import torch  # pyright: ignore[reportMissingImports]

        return torch.from_numpy(np.asarray(ids, dtype=np.int64))
    if encoding == "list":
        return [int(i) for i in ids]
    return np.asarray(ids, dtype=np.int64)


def rows(out: Any, n: int) -> Array:
    """The output as float64 (n, D): one vector per token, or CallFailed. The runner has read
    a tensor into numpy already, and taken the first of a pair (frameworks.materialize)."""
    if not isinstance(out, np.ndarray):
        raise CallFailed(f"returned {type(out).__name__}, not an array")
    if out.ndim == 3 and out.shape[0] == 1:  # a batch of one
        out = out[0]
    if out.ndim != 2 or out.shape[0] != n:
        raise CallFailed(f"returned shape {out.shape}, expected ({n}, D): one vector per token")
    if not (np.issubdtype(out.dtype, np.floating) or np.issubdtype(out.dtype, np.integer)):
        raise CallFailed(f"returned an array of dtype {out.dtype}, not floats")
    return np.asarray(out, dtype=np.float64)


class Model:
    """A target called as model(ids) with ids a 1-D integer array."""

    def __init__(self, runner: Runner, encoding: str, vocab: int, name: str) -> None:
        self.runner, self.encoding, self.vocab, self.name = runner, encoding, vocab, name

    kind = "model"
    reference = "word order reaches the output"  # no output to compare: a property
    imp = ""  # the reproductions' import line, once checked

    def __call__(self, ids: Array) -> Array:
        return rows(self.runner(encode(self.encoding, ids)), len(ids))

    def call(self, ids: Array) -> Array:
        return self(ids)

    @property
    def framework(self) -> Framework:
        """The library its ids are written in: a list is written as numpy's."""
        return FRAMEWORKS["torch" if self.encoding == "torch" else "numpy"]

    @property
    def array(self) -> str:
        """The function a reproduction makes its ids with."""
        return self.framework.array or f"{self.framework.lib}.array"

    def source(self) -> list[str]:
        return [self.framework.imports, self.imp]


def connect(fn: Callable[..., Any], runner: Runner, name: str) -> Model:
    """Find how the model takes ids (numpy, torch, list) and how many token ids it knows."""
    order = [e for e in ENCODINGS if e != "torch" or available("torch")]
    if framework_of(fn) == "torch":
        order.sort(key=lambda e: e != "torch")
    failures = []
    for vocab in (8, 2):  # ids beyond the model's vocabulary would raise
        ids = np.random.default_rng(0).permutation(8) % vocab
        for enc in order:
            try:
                rows(runner(encode(enc, ids)), len(ids))
            except CallFailed as exc:
                failures.append(f"with {enc} ids {ids.tolist()}: {exc}")
                continue
            return Model(runner, enc, vocab, name)
    raise TargetError(f"{name}(ids) could not be called " + "; ".join(failures[:2]))


@dataclass
class ModelRun:
    """One check of a model: what its rules share (rules.State)."""

    model: Model
    rep: Report
    facts: Facts = field(default_factory=Facts)

    @property
    def subject(self) -> Model:
        return self.model


def start(fn: Callable[..., Any], runner: Runner, rep: Report, imp: str, name: str) -> ModelRun:
    """How the model takes token ids, found by calling it."""
    model = connect(fn, runner, name)
    model.imp = imp
    rep.kind = "model"
    rep.backend = f"token ids as {model.encoding}"
    return ModelRun(model, rep)


def finite_output(run: ModelRun) -> None:
    """Finite vectors for 8 token ids (`finite`, with the ids and the output)."""
    model, rep = run.model, run.rep
    rng = np.random.default_rng(1)
    ids = rng.permutation(8) % model.vocab
    out = model(ids)
    run.facts |= {"rng": rng, "ids": ids, "out": out, "finite": bool(np.isfinite(out).all())}
    if run.facts["finite"]:
        rep.check("finite output", "pass", f"ids {ids.tolist()}")
        return
    rep.check("finite output", "fail")
    how = [*model.source(), f"print({model.name}({model.array}({ids.tolist()})))  # has NaN or inf"]
    rep.titled("nonfinite-output", f" (ids {ids.tolist()})", "\n".join(how))


def word_order(run: ModelRun) -> None:
    """Whether permuting the tokens only permutes the output rows."""
    model, rep, rng = run.model, run.rep, run.facts["rng"]
    ids, out, name, arr = run.facts["ids"], run.facts["out"], model.name, model.array
    noise = float(np.max(np.abs(model(ids) - out)))  # a model with dropout on is not repeatable
    tol = 1e-5 * max(1.0, float(np.max(np.abs(out)))) + 4 * noise
    name_ = "word order reaches the output"
    perms = [np.roll(np.arange(8), 1), np.arange(8)[::-1].copy(), rng.permutation(8)]
    for perm in perms:
        if (ids[perm] == ids).all():
            continue
        moved = float(np.max(np.abs(model(ids[perm]) - out[perm])))
        if moved > tol:
            rep.check(name_, "pass", f"reordering the tokens changes the vectors by {moved:.3g}")
            return
    perm = perms[0]
    rep.check(name_, "fail", "permuting the tokens only permutes the output rows")
    lines = [
        *model.source(),
        f"ids = {arr}({ids.tolist()})",
        f"perm = {arr}({perm.tolist()})",
        f"a = {name}(ids)[perm]",
        f"b = {name}(ids[perm])",
        "print(abs(a - b).max())  # 0: shuffling the words only shuffles the vectors",
        f"# got: {float(np.max(np.abs(model(ids[perm]) - out[perm]))):.3g}",
    ]
    rep.titled("order-blind", f" (tried {len(perms)} permutations of 8 tokens)", "\n".join(lines))
