"""Predict, then see: nothing that gives the answer away shows before the guess, and the
feedback quotes the answer and says why."""

from __future__ import annotations

import json

import pytest

QUESTIONS = ["query-meets-keys", "collapse", "multiply-leak"]
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
    page.locator(f"#{figure_id} .guess").first.click()
    assert not any(hidden(page, figure_id))


@pytest.mark.parametrize("figure_id", QUESTIONS)
def test_a_wrong_guess_is_told_the_answer_and_why(en, figure_id):
    page = en.page
    spec = json.loads(page.text_content("#selfattn-data") or "{}")["predictions"][figure_id]
    wrong = next(i for i in range(len(spec["options"])) if i != spec["answer"])
    page.locator(f"#{figure_id} .guess").nth(wrong).click()
    feedback = page.inner_text(f"#{figure_id} .predict-feedback")
    answer = spec["options"][spec["answer"]]
    assert feedback == f"Not quite. The answer: “{answer}”. {spec['why']}"
    assert spec["why"].count(". ") == 0, "the reason is one sentence"
