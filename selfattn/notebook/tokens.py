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
import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np

# whitespace a label cannot show as itself
VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍", "\u00a0": "␣"}
# Written as escapes, as Python writes them and as bytes that are no text are, so a label
# reads as the token holds, one table by Unicode category: the format characters (Cf: the
# bidi controls, U+202E showing "abc" as "cba" and the labels after it too; zero-width
# marks, the soft hyphen, the byte-order mark, the interlinear annotations, the tags), the
# line and paragraph separators (Zl, Zp) and the control characters (Cc; their pictures,
# ␀ ␡, draw as a box in common fonts), all of which draw nothing, a box or text reordered;
# and FILLERS, letters or marks that draw nothing. The zero-width joiner inside an emoji
# (👩‍🚀) joins it, as the emoji it stands beside are kept: it is escaped elsewhere.
ESCAPED_CATEGORIES = {"Cf", "Zl", "Zp", "Cc"}
FILLERS = {0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0}  # the grapheme joiner, the Hangul fillers
JOINER = 0x200D
KEPT = "\n\t\r"  # drawn visibly where a token is all whitespace (VISIBLE), else kept


def _escape(c: int) -> str:
    """Character `c` as a label shows it: itself, or its escape (\\x00, \\u202e, \\U000e0041)."""
    category = unicodedata.category(chr(c))
    if chr(c) in KEPT or c == JOINER or (c not in FILLERS and category not in ESCAPED_CATEGORIES):
        return chr(c)
    if category == "Cc":
        return f"\\x{c:02x}"
    return f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}"


class _Shown(dict[int, str]):
    """str.translate's table (`_escape`), filled as characters are met: the format
    characters are spread over the whole code space, the tags up at U+E0000."""

    def __missing__(self, c: int) -> str:
        self[c] = shown = _escape(c)
        return shown


SHOWN = _Shown()
_JOINERS = re.compile("\u200d")


def _joiner(match: re.Match[str]) -> str:
    """A joiner kept between an emoji (or its skin tone, or the emoji presentation selector)
    and an emoji, the one an emoji sequence holds; else escaped."""
    text, at = match.string, match.start()
    before = text[at - 1] if at else ""
    after = text[at + 1 : at + 2]
    emoji = after and unicodedata.category(after) == "So"
    if emoji and before and (before == "\ufe0f" or unicodedata.category(before) in ("So", "Sk")):
        return match[0]
    return "\\u200d"


def _shown(text: str) -> str:
    """`text` with every character that draws nothing, a box or text reordered escaped."""
    return _JOINERS.sub(_joiner, text.translate(SHOWN))


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
    return _shown(clean(text))


def label(text: str) -> str:
    """A token's text as a label: trimmed, whitespace it holds alone drawn visibly, and
    characters that draw nothing, a box or text reversed as escapes."""
    text = clean(text)
    trimmed = text.strip(" ")
    if not trimmed.strip():
        shown = "".join(VISIBLE.get(c, c) for c in text) if text else text
    else:
        shown = "".join(VISIBLE.get(c, c) if c in "\n\t\r" else c for c in trimmed)
    return _shown(shown)


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
