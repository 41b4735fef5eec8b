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


def kinds() -> dict[str, Kind]:
    """id → what the number is, for every claim and every computed score."""
    return {c.id: c.kind for c in CLAIMS if c.kind is not None} | COMPUTED_SCORES


def named_kind(sentence: str, at: int, lang: str) -> Kind | None:
    """The kind of score a sentence names for the number at `at`: the nearest kind word
    before it, or if there is none, the nearest after it."""
    words = KIND_WORDS[lang]
    found = [(m.start(), kind) for kind, word in words.items() for m in re.finditer(word, sentence)]
    before = [f for f in found if f[0] < at]
    if before:
        return max(before)[1]
    after = [f for f in found if f[0] > at]
    return min(after)[1] if after else None


def unnamed_scores(source: str, lang: str) -> list[str]:
    """What is wrong with how a page's Markdown prints scores: a score whose sentence names
    another kind or none, and a number printed as a score that has no kind at all."""
    known = kinds()
    problems = []
    for paragraph in source.split("\n\n"):
        for sentence in SENTENCE_END[lang].split(paragraph):
            for match in CLAIM.finditer(sentence):
                claim_id, kind = match.group(1), known.get(match.group(1))
                if kind in SCORE_KINDS:
                    said = named_kind(sentence, match.start(), lang)
                    if said != kind:
                        problems.append(
                            f"{lang}: {claim_id} is a {kind}, but its sentence says "
                            f"{said or 'no kind'}: {sentence.strip()!r}"
                        )
                elif kind is None and AS_SCORE[lang].search(sentence[: match.start()]):
                    problems.append(
                        f"{lang}: {claim_id} is printed as a score but has no kind: "
                        f"{sentence.strip()!r}"
                    )
    return problems
