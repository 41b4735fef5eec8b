"""Both language pages: every claim equals the Python value, nothing broken, nothing foreign."""

from __future__ import annotations

import re

from selfattn.head import load_head
from selfattn.site.prose_numbers import prose_numbers

from .drive import FIGURES, LABELS


def test_every_claim_on_the_page_equals_the_python_value(article_at_start):
    expected = prose_numbers(load_head())
    claims = article_at_start.page.evaluate(
        "[...document.querySelectorAll('[data-claim]')].map(e => [e.dataset.claim, e.textContent])"
    )
    assert len(claims) > 40
    for claim_id, text in claims:
        assert text == expected[claim_id], claim_id


def test_the_spec_numbers_appear_as_printed(article_at_start):
    text = article_at_start.page.text_content(
        "article"
    )  # innerText leaves out sections not drawn yet
    for printed in ("1.72", "−0.32", "1.2 × 10⁻¹⁴", "0.572", "[0.82, 0.81]", "171", "32.0 GiB"):
        assert printed in text


def test_every_figure_once_each_in_order(article_at_start):
    ids = article_at_start.page.evaluate("[...document.querySelectorAll('figure')].map(f => f.id)")
    assert ids == FIGURES  # the ids are the slugs, in page order
    for fid in FIGURES:
        assert article_at_start.page.get_attribute(f"#{fid}", "data-figure") == fid
        # the label is counted from the page order at build time (F01, F02, …)
        label = article_at_start.page.get_attribute(f"#{fid}", "data-label")
        assert label == LABELS[fid]
        assert article_at_start.page.text_content(f"#{fid} .figure-id") == label


def test_monospace_only_for_code(article_at_start):
    """docs/design.md: labels and read-outs use the page's sans; monospace is for code alone."""
    mono = article_at_start.page.evaluate(
        """[...document.querySelectorAll('body *')]
          .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
          .filter((el) => /mono/i.test(getComputedStyle(el).fontFamily) && !el.closest('code, pre'))
          .filter((el) => !el.closest('svg text.check-code'))  // F26's assertions, code drawn
          .map((el) => el.className || el.tagName)"""
    )
    assert mono == []


def test_figures_speak_one_type_scale(article_at_start):
    """A figure's words come in the scale's four sizes (style.css: --type-tick, -note, -label,
    -figure) and two weights; only the emphasised read-out, the stepper's name, sub- and
    superscripts and the menu's glyph are sized from those."""
    off = article_at_start.page.evaluate(
        """(() => {
          const root = getComputedStyle(document.documentElement);
          const steps = ['tick', 'note', 'label', 'figure']
            .map((s) => parseFloat(root.getPropertyValue(`--type-${s}`)));
          const exempt = '.readout.key output, .step-name, sub, sup, .sub, .sup, math, '
            + '[aria-hidden="true"]';
          const words = (el) => [...el.childNodes]
            .some((n) => n.nodeType === 3 && n.textContent.trim());
          return [...document.querySelectorAll('figure[data-module] *')]
            .filter((el) => words(el) && !el.closest(exempt))
            .map((el) => [el, getComputedStyle(el)])
            // a picture's type is sized times its SVG's --px (kit/stage.js), to render at the step
            .map(([el, s]) => {
              const svg = el.closest('svg');
              const px = svg ? parseFloat(getComputedStyle(svg).getPropertyValue('--px')) || 1 : 1;
              return [el, s, Math.round((parseFloat(s.fontSize) / px) * 100) / 100];
            })
            .filter(([, s, size]) => !steps.includes(size)
              || !['400', '650'].includes(s.fontWeight))
            .map(([el, s]) => `${el.closest('figure').id} ${el.tagName}.${el.getAttribute('class')}`
              + ` ${s.fontSize} ${s.fontWeight}`);
        })()"""
    )
    assert off == [], sorted(set(off))[:20]


def test_maths_is_mathml_and_the_code_shows_four_steps(article_at_start):
    page = article_at_start.page
    assert page.locator("math").count() > 5
    code = page.text_content("pre code")  # as the page has it, drawn or not yet
    assert "softmax" in code and re.search(r"-inf|−inf|-math\.inf|float\(", code)


def test_parameters_are_shown_with_two_decimals(article_at_start):
    head = load_head().to_json()
    cells = article_at_start.page.evaluate(
        "[...document.querySelectorAll('.params mtable.bracketed mtd')].map(e => e.textContent)"
    )
    expected = [f"{v:.2f}".replace("-", "−") for t in head["tokens"] for v in head["embeddings"][t]]
    for name in ("W_Q", "W_K", "W_V"):
        expected += [f"{v:.2f}".replace("-", "−") for row in head[name] for v in row]
    assert cells == expected
    # typeset as the maths around it: X, then W_Q, W_K and W_V, each a bracketed matrix
    names = article_at_start.page.evaluate(
        "[...document.querySelectorAll('.params math')].map(m => m.querySelector('mi').textContent)"
    )
    assert names == ["X", "W", "W", "W"]


def test_language_switch_goes_to_the_other_page(article):
    page = article.page
    lang = page.get_attribute("html", "lang")
    page.click("header nav a")
    page.wait_for_load_state()
    other = page.get_attribute("html", "lang")
    assert {lang, other} == {"zh-CN", "en"}
