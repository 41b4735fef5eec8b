"""Every printed score says whether it is raw (q·k) or scaled (q·k/√d), and the build refuses
a page where one does not; the title's markup renders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from selfattn.claims import CLAIMS, SCORE_KINDS
from selfattn.site import build as builder
from selfattn.site.score_kinds import kinds, unnamed_scores


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.printed], ids=lambda c: c.id)
def test_every_printed_claim_has_a_kind(claim):
    assert claim.kind is not None


def test_the_raw_and_scaled_claims_are_what_their_kind_says():
    """A raw score's id says raw, a scaled one's never does: the kind is not a guess."""
    for claim in CLAIMS:
        if claim.kind in SCORE_KINDS:
            assert claim.id.endswith(".raw") == (claim.kind == "raw score"), claim.id


@pytest.mark.parametrize(
    ("lang", "sentence", "problem"),
    [
        ("en", "It scores cat at {{claim qk.it.cat.raw}}.", "says no kind"),
        ("en", "It scores cat at a scaled {{claim qk.it.cat.raw}}.", "says scaled score"),
        ("en", "The raw score was {{claim matrix.it.cat}}.", "says raw score"),
        ("en", "A score of {{claim counts.dot}} here.", "has no kind"),
        ("zh", "it 给 cat 打的分是 {{claim qk.it.cat.raw}}。", "says no kind"),
        ("zh", "缩放后的分数是 {{claim qk.it.cat.raw}}。", "says scaled score"),
        ("zh", "它的得分是 {{claim counts.dot}}。", "has no kind"),
    ],
)
def test_a_score_that_does_not_say_its_kind_is_refused(lang, sentence, problem):
    problems = unnamed_scores(f"Before.\n\n{sentence}\n\nAfter.", lang)
    assert len(problems) == 1 and problem in problems[0], problems


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        (
            "en",
            "It scores cat at a raw {{claim qk.it.cat.raw}}, and scaled, {{claim matrix.it.cat}}.",
        ),
        ("en", "The scaled score {{claim matrix.it.cat}} is {{claim qk.it.cat.raw}} raw."),
        ("zh", "原始分是 {{claim qk.it.cat.raw}}，缩放后的分数是 {{claim matrix.it.cat}}。"),
        ("en", "Six tokens take {{claim counts.dot}} dot products."),
    ],
)
def test_a_score_that_says_its_kind_passes(lang, sentence):
    assert unnamed_scores(sentence, lang) == []


def test_the_kind_is_read_per_sentence():
    """A kind named in one sentence does not cover a score in the next."""
    text = "The raw score is {{claim qk.it.cat.raw}}. It scores it at {{claim qk.it.it.raw}}."
    assert [p.split(" is ")[0] for p in unnamed_scores(text, "en")] == ["en: qk.it.it.raw"]


def test_the_computed_scores_have_kinds_too():
    assert kinds()["convex.cat8.raw"] == "raw score"
    assert kinds()["softmax.floor.score"] == "scaled score"


def test_the_real_article_names_every_kind():
    for lang in ("en", "zh"):
        source = (builder.CONTENT / f"{lang}.md").read_text("utf-8")
        assert unnamed_scores(source, lang) == []


def test_the_build_refuses_a_page_with_an_unnamed_score(tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    sample = Path(__file__).parent / "sample"
    for path in sample.iterdir():
        (content / path.name).write_text(path.read_text("utf-8"), "utf-8")
    en = content / "en.md"
    en.write_text(en.read_text("utf-8").replace("The raw score", "The score"), "utf-8")
    with pytest.raises(builder.BuildError, match=r"qk\.it\.cat\.raw"):
        builder.build(tmp_path / "site", head=None, content=content)


def test_the_title_renders_its_markup_and_the_tab_gets_plain_text(tmp_path):
    builder.build(tmp_path / "site")
    page = (tmp_path / "site" / "en" / "index.html").read_text("utf-8")
    assert "<h1>Following <em>it</em> through self-attention</h1>" in page
    title = re.search(r"<title>(.*?)</title>", page)
    assert title and title.group(1) == "Following it through self-attention"
