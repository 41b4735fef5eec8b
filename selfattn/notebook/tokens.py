"""Tokens as a reader reads them: a tokenizer's markers turned back into the text they stand for.

GPT-2's byte-level alphabet writes a space as "Ġ" and a newline as "Ċ"; SentencePiece writes a
space as "▁" and a byte it has no piece for as "<0x0A>"; WordPiece starts a piece inside a word
with "##". A label shows the text, trimmed, with whitespace that is all a token holds drawn as a
visible mark (␣ ↵ ⇥), a control that reorders the text around it or draws nothing as its
escape (\u202e, \u2028), a control character too (\x00, \x7f);
the raw token stays beside it for the hover. Pure Python: no tokenizer
library is imported, a tokenizer passed in is used by what it can do (duck typing).

>>> readable(["Ġthe", "Ġcat", "Ċ"])
['the', 'cat', '↵']
>>> readable(["▁the", "▁cat", "<0x0A>"])
['the', 'cat', '↵']
>>> readable(["[CLS]", "play", "##ing"])
['[CLS]', 'play', 'ing']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

# whitespace a label cannot show as itself
VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍", "\u00a0": "␣"}
# the controls of bidirectional text: U+202E shows "abc" as "cba", and the labels after it too;
# the line and paragraph separators, the byte-order mark and zero-width marks draw nothing;
# control characters draw as a box or nothing (their pictures, ␀ ␡, are a box too in common
# fonts). Written as escapes, as Python writes them and as bytes that are no text are, so a
# label reads as the token holds.
ESCAPED = [0x061C, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F)]
ESCAPED += [0x2060, *range(0x2066, 0x206A), 0xFEFF]
CONTROLS = [c for c in range(0x20) if chr(c) not in "\n\t\r"] + list(range(0x7F, 0xA0))
SHOWN = str.maketrans({c: f"\\u{c:04x}" for c in ESCAPED} | {c: f"\\x{c:02x}" for c in CONTROLS})
SENTENCEPIECE_SPACE = "▁"
BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def _byte_alphabet() -> dict[str, int]:
    """GPT-2's byte-level alphabet, read backwards: the character that stands for each byte.

    Printable bytes stand for themselves; the other 68 (space, control bytes, a few
    Latin-1 ones) are moved up to U+0100 and beyond, in byte order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    kept += range(ord("®"), ord("ÿ") + 1)
    moved = [b for b in range(256) if b not in kept]
    alphabet = {chr(b): b for b in kept}
    alphabet.update({chr(256 + k): b for k, b in enumerate(moved)})
    return alphabet


BYTE_LEVEL = _byte_alphabet()
MOVED = {c for c in BYTE_LEVEL if ord(c) >= 256}  # "Ġ", "Ċ", ...: only byte-level tokens hold them


def scheme(tokens: Sequence[str]) -> str:
    """Which tokenizer wrote the tokens, from the markers they carry: "byte-level",
    "sentencepiece", "wordpiece", or "plain". Decided for the whole sequence, since a word
    such as "cat" carries no marker in any of them."""
    if any(c in MOVED for t in tokens for c in t):
        return "byte-level"
    if any(SENTENCEPIECE_SPACE in t or BYTE_PIECE.fullmatch(t) for t in tokens):
        return "sentencepiece"
    if any(t.startswith("##") and len(t) > 2 for t in tokens):
        return "wordpiece"
    return "plain"


def _text(token: str, kind: str) -> str:
    """The text one token stands for, whitespace kept."""
    if kind == "byte-level" and all(c in BYTE_LEVEL for c in token):
        # a character cut between tokens leaves bytes that are no text alone: shown as \xNN
        return bytes(BYTE_LEVEL[c] for c in token).decode("utf-8", "backslashreplace")
    if kind == "sentencepiece":
        if match := BYTE_PIECE.fullmatch(token):
            return bytes([int(match[1], 16)]).decode("utf-8", "backslashreplace")
        return token.replace(SENTENCEPIECE_SPACE, " ")
    if kind == "wordpiece" and token.startswith("##") and len(token) > 2:
        return token[2:]
    return token


def clean(text: str) -> str:
    """Text that UTF-8 can write: a lone surrogate (a string decoded with "surrogateescape",
    a character cut in two) as its escape, \\udce9, as bytes that are no text are shown."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def visible(text: str) -> str:
    """Text with every character that draws nothing, a box or text reversed as its escape."""
    return clean(text).translate(SHOWN)


def label(text: str) -> str:
    """A token's text as a label: trimmed, whitespace it holds alone drawn visibly, and
    characters that draw nothing, a box or text reversed as escapes."""
    text = clean(text)
    trimmed = text.strip(" ")
    if not trimmed.strip():
        shown = "".join(VISIBLE.get(c, c) for c in text) if text else text
    else:
        shown = "".join(VISIBLE.get(c, c) if c in "\n\t\r" else c for c in trimmed)
    return shown.translate(SHOWN)


def readable(tokens: Sequence[str]) -> list[str]:
    """Each token as the text it stands for, ready to label an axis."""
    kind = scheme(tokens)
    return [label(_text(t, kind)) for t in tokens]


def _ints(ids: Any) -> list[int]:
    """Token ids as ints, from a list, numpy or torch, one sequence (n,)."""
    if hasattr(ids, "detach"):
        ids = ids.detach().cpu()
    if hasattr(ids, "tolist"):
        ids = ids.tolist()
    return [int(i) for i in ids]


def from_tokenizer(tokenizer: Any, ids: Any) -> list[str]:
    """The raw tokens of `ids`, by whatever the tokenizer offers: Hugging Face's
    `convert_ids_to_tokens`, TransformerLens's `to_str_tokens`, or `decode` one id at a time."""
    ints = _ints(ids)
    if hasattr(tokenizer, "convert_ids_to_tokens"):
        return [str(t) for t in tokenizer.convert_ids_to_tokens(ints)]
    if hasattr(tokenizer, "to_str_tokens"):
        # TransformerLens reads a list as a list of texts ("Invalid input type to
        # to_str_tokens: <class 'int'>" from TransformerLens 4's bridge); ids go as an array
        return [str(t) for t in tokenizer.to_str_tokens(np.asarray(ints, dtype=np.int64))]
    if hasattr(tokenizer, "decode"):
        return [str(tokenizer.decode([i])) for i in ints]
    raise TypeError(
        f"{type(tokenizer).__name__} has neither convert_ids_to_tokens, to_str_tokens nor decode"
    )
