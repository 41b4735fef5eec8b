"""Predict, then see: nothing that gives the answer away shows before the guess, neither in
the figure nor in the prose around it, and the feedback quotes the answer and says why."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from selfattn.head import load_head
from selfattn.site.prose_numbers import prose_numbers

from .conftest import LANGUAGES, open_page, wait_for_figures
from .drive import settled_click

QUESTIONS = [
    "query-meets-keys",
    "collapse",
    "multiply-leak",
    "gradient-finds-cat",
    "positions-turn",
    "two-heads",
]
# What gives each answer away, written here rather than read from the page's markup, so a
# test of the veil cannot be fooled by the markup it checks: the numbers that settle it
# (claim ids) and, in each language, the words of the prose that state it.
GIVEAWAYS: dict[str, dict[str, list[str]]] = {
    "query-meets-keys": {
        "claims": ["qk.it.cat.raw", "qk.it.it.raw"],
        "en": ["yet the winner is"],
        "zh": ["胜出的却是"],
    },
    "collapse": {
        "claims": ["sqrtd.d16", "sqrtd.d64"],
        "en": ["all but vanished"],
        "zh": ["几乎全被挤没了"],
    },
    "multiply-leak": {
        "claims": ["mulmask.it.ran"],
        "en": ["should have no part in"],
        "zh": ["仍然分走了"],
    },
    "gradient-finds-cat": {
        "claims": ["learn.key.cat", "learn.key.it"],
        "en": ["points at four keys at once", "What sets"],
        "zh": ["同时指着四把键", "胜在长度"],
    },
    "positions-turn": {"claims": [], "en": ["does not move at all"], "zh": ["纹丝不动"]},
    "two-heads": {
        "claims": ["heads.lost.h1"],
        "en": ["came through head 1", "head 1 gives", "first two rows act on head 1"],
        "zh": ["是经头 1 来的", "头 1 给 cat", "两段之和"],
    },
}
SCREENS = {"laptop": (1280, 900), "phone": (390, 844)}
# Every visible piece of text on the screen that holds a giveaway, outside the question's own
# box (its options may name the answer among others). A text node is on the screen when a
# rectangle of it meets the viewport, and visible when its element is (visibility, opacity,
# display, all the way up).
VISIBLE_GIVEAWAYS_JS = """(needles) => {
  const hits = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent || "";
    const found = needles.filter((n) => text.includes(n));
    const el = node.parentElement;
    if (!found.length || !el || el.closest(".predict, script, style")) continue;
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const seen = [...range.getClientRects()].some(
      (r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight,
    );
    if (seen) hits.push(`${found.join(" / ")} in “${text.trim().slice(0, 60)}”`);
  }
  return hits;
}"""
NUMBERS = prose_numbers(load_head())


def giveaways(figure_id: str, lang: str) -> list[str]:
    spec = GIVEAWAYS[figure_id]
    return [NUMBERS[c] for c in spec["claims"]] + spec[lang]


def scrolls_showing_question(page: Page, figure_id: str) -> list[float]:
    """Nine scroll positions, from the question's first lines showing at the screen's foot
    to its last ones at the screen's top: any screen a reader sees it on."""
    top, height, screen = page.evaluate(
        """(id) => {
          const box = document.querySelector(`#${id} .predict`).getBoundingClientRect();
          return [box.top + scrollY, box.height, innerHeight];
        }""",
        figure_id,
    )
    edge = 40  # a line of the question still on the screen
    low, high = top + edge - screen, top + height - edge
    return [low + (high - low) * k / 8 for k in range(9)]


def visible_giveaways(page: Page, figure_id: str, lang: str) -> list[str]:
    hits = []
    for y in scrolls_showing_question(page, figure_id):
        page.evaluate("(y) => window.scrollTo(0, y)", y)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")
        hits += page.evaluate(VISIBLE_GIVEAWAYS_JS, giveaways(figure_id, lang))
    return hits


@pytest.fixture(scope="module", params=[(s, lang) for s in SCREENS for lang in LANGUAGES])
def screen(request, browser: Browser, site_url: str) -> Iterator[tuple[Page, str]]:
    """Each language at each screen size, the page opened once and never answered."""
    name, lang = request.param
    width, height = SCREENS[name]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(site_url + LANGUAGES[lang])
    wait_for_figures(page)
    yield page, lang
    context.close()


@pytest.mark.parametrize("figure_id", QUESTIONS)
def test_no_answer_shows_while_its_question_waits(screen, figure_id):
    """Wherever the reader scrolls with the question on screen, neither the figure nor the
    prose shows the number or the words that answer it."""
    page, lang = screen
    assert page.locator(f"#{figure_id} .predict .guess").first.is_enabled(), "unanswered"
    assert visible_giveaways(page, figure_id, lang) == []


@pytest.mark.parametrize("figure_id", QUESTIONS)
def test_the_giveaways_are_there_once_answered(article, figure_id):
    """The other half, so the test above can fail: after a guess, every giveaway shows in
    the prose the question hid (a word list that matched nothing would pass for ever)."""
    page = article.page
    lang = "en" if page.url.endswith("/en/") else "zh"
    settled_click(page.locator(f"#{figure_id} .skip"))
    texts = page.evaluate(
        """(id) => [...document.querySelectorAll(`[data-answer-for="${id}"]`)]
            .map((e) => e.checkVisibility({ visibilityProperty: true }) ? e.textContent : "")
            .join(" ")""",
        figure_id,
    )
    for needle in giveaways(figure_id, lang):
        assert needle in texts, needle


HIDDEN = ".stage .picture, .stage .readouts, figcaption"


def hidden(page, figure_id: str) -> list[bool]:
    return page.evaluate(
        "([id, sel]) => [...document.querySelectorAll(`#${id} :is(${sel})`)]"
        ".map(e => getComputedStyle(e).visibility === 'hidden')",
        [figure_id, HIDDEN],
    )


@pytest.mark.parametrize("figure_id", QUESTIONS)
def test_the_picture_and_caption_wait_for_the_guess(article, figure_id):
    page = article.page
    assert all(hidden(page, figure_id)) and len(hidden(page, figure_id)) >= 2
    settled_click(page.locator(f"#{figure_id} .guess").first)
    assert not any(hidden(page, figure_id))


@pytest.mark.parametrize("figure_id", QUESTIONS)
def test_a_wrong_guess_is_told_the_answer_and_why(en, figure_id):
    page = en.page
    spec = json.loads(page.text_content("#selfattn-data") or "{}")["predictions"][figure_id]
    wrong = next(i for i in range(len(spec["options"])) if i != spec["answer"])
    settled_click(page.locator(f"#{figure_id} .guess").nth(wrong))
    feedback = page.inner_text(f"#{figure_id} .predict-feedback")
    answer = spec["options"][spec["answer"]]
    assert feedback == f"Not quite. The answer: “{answer}”. {spec['why']}"
    assert spec["why"].count(". ") == 0, "the reason is one sentence"


# the answered line's parts: whole on the screen, the question not cut, and the box in the text
# column (a wide figure outsets past it; its question stays where the reader's eye is)
ANSWERED_JS = """(id) => {
  const box = document.querySelector(`#${id} .predict`);
  const column = document.querySelector('article p').getBoundingClientRect();
  const question = box.querySelector('.predict-question > span');
  const parts = [...box.querySelectorAll('.predict-question > *')].filter((e) => !e.hidden);
  return {
    right: Math.max(...parts.map((e) => e.getBoundingClientRect().right)),
    cut: question.scrollWidth > question.clientWidth + 1,
    left: box.getBoundingClientRect().left - column.left,
    screen: innerWidth,
  };
}"""


@pytest.mark.parametrize("width", [1100, 1280, 390])
def test_an_answered_question_stays_whole_in_the_column(browser, site_url, width):
    """The longest wrong pick, struck through, and the answer after it stay on the screen (at
    1100 px F27's answer and its "why" ran 150 px past it), the question is never cut with
    "…", and the box keeps to the text column in an outset figure (it began 90 px left of it)."""
    watched = open_page(browser, site_url + "en/", width=width)
    page = watched.page
    spec = json.loads(page.text_content("#selfattn-data") or "{}")["predictions"]
    for figure_id in QUESTIONS:
        options = spec[figure_id]["options"]
        wrong = max(
            (i for i in range(len(options)) if i != spec[figure_id]["answer"]),
            key=lambda i: len(options[i]),
        )
        settled_click(page.locator(f"#{figure_id} .guess").nth(wrong))
        seen = page.evaluate(ANSWERED_JS, figure_id)
        assert seen["right"] <= seen["screen"], (figure_id, seen)
        assert not seen["cut"], figure_id
        assert abs(seen["left"]) < 1, (figure_id, seen)
    watched.page.context.close()
