"""Which printed numbers are scores, of which kind (raw q·k or scaled q·k/√d), and the check
that the prose names the kind in the sentence that prints one."""

from __future__ import annotations

import re

from ..claims import CLAIMS, SCORE_KINDS, Kind

# The prose's computed numbers that are scores (every claim carries its own kind).
COMPUTED_SCORES: dict[str, Kind] = {
    "softmax.floor.score": "scaled score",
    "softmax.shift.max": "scaled score",
    "convex.cat8.raw": "raw score",
}

# The word that names each kind of score, in each language.
KIND_WORDS: dict[str, dict[Kind, str]] = {
    "en": {"raw score": "raw", "scaled score": "scaled"},
    "zh": {"raw score": "原始", "scaled score": "缩放后"},
}

# A number printed as a score: the score word right before it ("scores it at", "得分是").
AS_SCORE = {
    "en": re.compile(r"\bscores?(?: \S+){0,3} (?:at|of|is|to|reaches|=)\s*$"),
    "zh": re.compile(r"(?:分数?|打出?)(?:是|为|到|了|：)?\s*$"),
}
SENTENCE_END = {"en": re.compile(r"(?<=[.!?])\s+(?=[A-Z*])"), "zh": re.compile(r"(?<=[。！？])")}
CLAIM = re.compile(r"\{\{claim ([a-z0-9._]+)\}\}")
CLAUSE_MARKS = ",;:()，；：（）"


def kinds() -> dict[str, Kind]:
    """id → what the number is, for every claim and every computed score."""
    known: dict[str, Kind] = {c.id: c.kind for c in CLAIMS if c.kind is not None}
    known.update(COMPUTED_SCORES)
    return known


def named_kind(words: str, start: int, end: int, lang: str) -> Kind | None:
    """The kind of score a sentence names for the number printed at [start, end): the kind
    word nearest to it in its clause ("a raw 1.72", "1.72 raw"); if the clause names none,
    the nearest one before it in the sentence, else the nearest after."""
    found: list[tuple[int, int, Kind]] = sorted(
        (m.start(), m.end(), kind)
        for kind, word in KIND_WORDS[lang].items()
        for m in re.finditer(word, words)
    )
    opens, closes = _clause(words, start, end)
    clause: list[tuple[int, Kind]] = [
        (start - e if e <= start else s - end, kind) for s, e, kind in found if opens <= s < closes
    ]
    if clause:
        return min(clause)[1]
    before: list[Kind] = [kind for _, e, kind in found if e <= start]
    after: list[Kind] = [kind for s, _, kind in found if s >= end]
    return before[-1] if before else after[0] if after else None


def _clause(words: str, start: int, end: int) -> tuple[int, int]:
    """Where the clause around [start, end) opens and closes (the marks around it)."""
    opens = max((i + 1 for i, c in enumerate(words[:start]) if c in CLAUSE_MARKS), default=0)
    closes = min(
        (end + i for i, c in enumerate(words[end:]) if c in CLAUSE_MARKS), default=len(words)
    )
    return opens, closes


def unnamed_scores(source: str, lang: str) -> list[str]:
    """What is wrong with how a page's Markdown prints scores: a score whose sentence names
    another kind or none, and a number printed as a score that has no kind at all."""
    known = kinds()
    problems = []
    for paragraph in source.split("\n\n"):
        for sentence in SENTENCE_END[lang].split(paragraph):
            # the words are read around the directives, never inside them ("….raw")
            words = CLAIM.sub(lambda m: " " * len(m.group(0)), sentence)
            for match in CLAIM.finditer(sentence):
                claim_id, kind = match.group(1), known.get(match.group(1))
                if kind in SCORE_KINDS:
                    said = named_kind(words, match.start(), match.end(), lang)
                    if said != kind:
                        problems.append(
                            f"{lang}: {claim_id} is a {kind}, but its sentence says "
                            f"{said or 'no kind'}: {sentence.strip()!r}"
                        )
                elif kind is None and AS_SCORE[lang].search(words[: match.start()].rstrip() + " "):
                    problems.append(
                        f"{lang}: {claim_id} is printed as a score but has no kind: "
                        f"{sentence.strip()!r}"
                    )
    return problems
