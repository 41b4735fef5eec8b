"""Predict-then-see: a figure veiled until the reader guesses, or skips."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("figure_id", ["F03", "F15", "F19"])
def test_predict_then_see(en, figure_id):
    page = en.page
    figure = page.locator(f"#{figure_id}")
    assert "veiled" in figure.get_attribute("class")
    guesses = figure.locator(".guess")
    guesses.nth(0).click()
    assert "veiled" not in (figure.get_attribute("class") or "")
    feedback = figure.locator(".predict-feedback").inner_text()
    assert feedback.startswith(("Right", "Not quite"))
    assert figure.locator(".guess.right").count() == 1


def test_a_prediction_can_be_skipped(en):
    page = en.page
    page.click("#F15 .skip")
    assert "veiled" not in (page.get_attribute("#F15", "class") or "")
