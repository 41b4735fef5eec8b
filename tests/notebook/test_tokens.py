"""Tokens as a reader reads them: every tokenizer's markers turned back into text."""

from __future__ import annotations

import pytest

from selfattn.notebook.tokens import BYTE_LEVEL, from_tokenizer, readable, scheme


def test_the_byte_level_alphabet_is_a_one_to_one_map_of_the_256_bytes() -> None:
    assert sorted(BYTE_LEVEL.values()) == list(range(256))
    assert BYTE_LEVEL["Ġ"] == 0x20 and BYTE_LEVEL["Ċ"] == 0x0A and BYTE_LEVEL["a"] == ord("a")


@pytest.mark.parametrize(
    ("raw", "kind", "shown"),
    [
        (
            ["The", "Ġcat", "Ġate", ".", "Ċ", "ĠĠ"],
            "byte-level",
            ["The", "cat", "ate", ".", "↵", "␣␣"],
        ),
        (["ĠcafÃ©", "Ġä½"], "byte-level", ["café", "\\xe4\\xbd"]),  # a character cut in two
        (
            ["<s>", "▁The", "▁cat", "<0x0A>", "<0x20>", "▁"],
            "sentencepiece",
            ["<s>", "The", "cat", "↵", "␣", "␣"],
        ),
        (
            ["[CLS]", "the", "play", "##ing", "#", "[SEP]"],
            "wordpiece",
            ["[CLS]", "the", "play", "ing", "#", "[SEP]"],
        ),
        (["the", "cat", "", " it", "a\tb"], "plain", ["the", "cat", "", "it", "a⇥b"]),
    ],
)
def test_each_scheme_reads_back_to_its_text(raw: list[str], kind: str, shown: list[str]) -> None:
    assert scheme(raw) == kind and readable(raw) == shown


def test_a_plain_word_is_never_touched_by_another_schemes_rule() -> None:
    # "é" is a byte-level character too, but with no byte-level marker in the sequence it is text
    assert readable(["café", "##", "<0x0A"]) == ["café", "##", "<0x0A"]


class Spelled:
    """A tokenizer that offers only what one kind of library offers."""

    def __init__(self, method: str) -> None:
        vocabulary = {0: "Ġthe", 1: "Ġcat"}
        if method == "hf":
            self.convert_ids_to_tokens = lambda ids: [vocabulary[i] for i in ids]
        elif method == "lens":
            self.to_str_tokens = lambda ids: [vocabulary[i].replace("Ġ", " ") for i in ids]
        elif method == "decode":
            self.decode = lambda ids: "".join(vocabulary[i].replace("Ġ", " ") for i in ids)


@pytest.mark.parametrize("method", ["hf", "lens", "decode"])
def test_any_tokenizer_gives_its_tokens_by_what_it_offers(method: str) -> None:
    raw = from_tokenizer(Spelled(method), [1, 0])
    assert readable(raw) == ["cat", "the"]
    with pytest.raises(TypeError, match="neither"):
        from_tokenizer(object(), [0])
