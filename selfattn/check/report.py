"""The report: what was checked, what was found, and its text and JSON renderings."""

from __future__ import annotations

import json
import textwrap
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .findings import BY_ID


@dataclass
class Finding:
    """One problem found, with its stable id and a minimal reproduction."""

    id: str
    message: str
    repro: str = ""

    @property
    def severity(self) -> str:
        return BY_ID[self.id].severity

    def to_dict(self) -> dict[str, Any]:
        spec = BY_ID[self.id]
        return {
            "id": self.id,
            "severity": spec.severity,
            "message": self.message,
            "why": spec.why,
            "fix": spec.fix,
            "repro": self.repro,
        }


@dataclass
class Check:
    """One thing that was checked: status is pass, fail, warn or skip."""

    name: str
    status: str
    detail: str = ""


@dataclass
class Report:
    """Everything `check` learned about one target."""

    target: str
    kind: str | None = None  # "kernel" | "layer" | "model"
    backend: str | None = None  # e.g. "numpy float64"
    called_as: str | None = None
    notes: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # why the target could not be checked at all
    calls: int = 0
    seconds: float = 0.0

    def add(self, id_: str, message: str, repro: str = "") -> None:
        """Record a finding; an id already present is not repeated."""
        if id_ not in self.ids:
            self.findings.append(Finding(id_, message, repro))

    def titled(self, id_: str, after: str = "", repro: str = "") -> None:
        """Record a finding whose message is its title, then `after`."""
        self.add(id_, BY_ID[id_].title + after, repro)

    def check(self, name: str, status: str, detail: str = "") -> None:
        self.checks.append(Check(name, status, detail))

    @property
    def ids(self) -> list[str]:
        return [f.id for f in self.findings]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def verdict(self) -> str:
        """ "ok" | "buggy", or "error" when the target could not be loaded or called."""
        if self.error is not None:
            return "error"
        return "buggy" if self.errors else "ok"

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"

    @property
    def exit_status(self) -> int:
        return {"ok": 0, "buggy": 1, "error": 2}[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "exit_status": self.exit_status,
            "target": self.target,
            "kind": self.kind,
            "backend": self.backend,
            "called_as": self.called_as,
            "error": self.error,
            "findings": [f.to_dict() for f in self.findings],
            "checks": [asdict(c) for c in self.checks],
            "notes": list(self.notes),
            "calls": self.calls,
            "seconds": round(self.seconds, 2),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        """The report `to_dict` wrote (its verdict and exit status follow from the rest)."""
        kept = {f.name: d[f.name] for f in fields(cls) if f.name in d and f.name != "target"}
        kept["checks"] = [Check(**c) for c in d.get("checks", [])]
        said = d["findings"]
        kept["findings"] = [Finding(x["id"], x["message"], x.get("repro", "")) for x in said]
        return cls(d["target"], **kept)

    def to_text(self) -> str:
        return render(self)

    def __str__(self) -> str:
        return render(self)


_MARK = {"pass": "ok  ", "fail": "FAIL", "warn": "warn", "skip": "skip"}


def _wrap(text: str, indent: str) -> str:
    return textwrap.fill(text, 96, initial_indent=indent, subsequent_indent=indent)


def render(r: Report) -> str:
    """The human-readable report: what was checked, what failed, why it matters, the fix."""
    lines = [f"selfattn check {r.target}"]
    if r.error is not None:
        lines += [_wrap(f"could not check the target: {r.error}", "  "), "", "verdict: error"]
        return "\n".join(lines)
    about = [x for x in (r.kind, r.backend, r.called_as) if x]
    if about:
        lines.append(_wrap(" | ".join(about), "  "))
    lines += [_wrap(f"note: {n}", "  ") for n in r.notes]
    lines += ["", "checked:"]
    for c in r.checks:
        lines.append(_wrap(f"{_MARK.get(c.status, c.status)} {c.name}", "  "))
        if c.detail:
            lines.append(_wrap(c.detail, "         "))
    for f in r.findings:
        spec = BY_ID[f.id]
        lines += ["", f"{spec.severity.upper()} [{f.id}] {f.message}"]
        lines.append(_wrap(f"why it matters: {spec.why}", "  "))
        lines.append(_wrap(f"fix: {spec.fix}", "  "))
        if f.repro:
            lines.append("  reproduce:")
            lines += ["    " + x for x in f.repro.splitlines()]
    n_err, n_warn = len(r.errors), len(r.findings) - len(r.errors)
    lines += [
        "",
        f"verdict: {r.verdict} ({n_err} error{'s' * (n_err != 1)}, "
        f"{n_warn} warning{'s' * (n_warn != 1)}; {r.calls} calls, {r.seconds:.1f} s)",
    ]
    return "\n".join(lines)
