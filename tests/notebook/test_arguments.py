"""Arguments a user can get wrong are refused in one line, never taken loosely: bits=0 was
read as "the default", heads=True as head 1, heads=2.7 as 2; a title's control characters
went raw into the saved page's <title>."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from selfattn.notebook import show_map
from selfattn.notebook.capture import head_count

WEIGHTS = np.full((1, 2, 3, 3), 1 / 3)


@pytest.mark.parametrize("bits", [0, 3, 32, True, 8.0])
def test_bits_other_than_8_or_16_are_refused(tmp_path: Path, bits) -> None:
    with pytest.raises(ValueError, match="bits must be 8 or 16"):
        show_map(WEIGHTS, ["a", "b", "c"]).save_html(tmp_path / "x.html", bits=bits)
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("heads", [True, 2.7, [0.0], ["1"]])
def test_heads_to_keep_are_whole_numbers(tmp_path: Path, heads) -> None:
    with pytest.raises(ValueError, match="whole numbers"):
        show_map(WEIGHTS, ["a", "b", "c"]).save_html(tmp_path / "x.html", heads=heads)


def test_a_numpy_index_is_a_whole_number(tmp_path: Path) -> None:
    show_map(WEIGHTS, ["a", "b", "c"]).save_html(tmp_path / "x.html", heads=np.int64(1))


@pytest.mark.parametrize("heads", [True, 2.7, 0, -1])
def test_a_layer_said_to_have_no_whole_count_of_heads_is_refused(heads) -> None:
    with pytest.raises(ValueError, match="whole number ≥ 1"):
        head_count(object(), heads)


def test_a_titles_control_characters_show_as_escapes_in_the_saved_pages_title(
    tmp_path: Path,
) -> None:
    path = show_map(WEIGHTS, ["a", "b", "c"], title="t\x1b[31m\u202ex").save_html(
        tmp_path / "x.html"
    )
    title = re.search(r"<title>(.*?)</title>", path.read_text("utf-8"), re.S)
    assert title and title.group(1) == "t\\x1b[31m\\u202ex"


def test_show_map_opens_on_the_layer_and_head_asked_for_as_the_readme_says() -> None:
    """show_map(head=0) raised TypeError, though the README says layer= and head= open a view."""
    stack = np.full((3, 4, 5, 5), 1 / 5)
    m = show_map(stack, list("abcde"), layer=2, head=3)
    assert (m.layer, m.head) == (2, 3)
    assert (show_map(stack, list("abcde"), head=-1).head, m.layer) == (3, 2)
