"""multiply-leak's training curves: the two runs leak.py trains at build time, drawn and stated as
measured, the mask in use standing out as the switch flips."""

from __future__ import annotations

import pytest

from selfattn import leak
from selfattn.head import load_head
from selfattn.numbers import fixed
from selfattn.site.prose_numbers import prose_numbers

from .drive import next_frame, set_state, state

RUNS = leak.measured()
PROSE = prose_numbers(load_head())


@pytest.fixture
def page(article_at_start):
    return article_at_start.page


def test_the_curves_end_where_the_runs_ended(page):
    for cls, run, name in (("correct", RUNS.correct, "−∞"), ("leak", RUNS.leaky, "× 0")):
        label = page.locator(f"#multiply-leak .losses text.curve-label.{cls}").text_content()
        assert label == f"{name} {fixed(run.train_loss[-1])}"
        d = page.get_attribute(f"#multiply-leak .losses path.curve.{cls}", "d")
        assert d is not None and d.count("L") == len(run.steps) - 1
    floor = page.locator("#multiply-leak .losses text.reference-label").text_content()
    assert fixed(RUNS.floor) in floor
    # what the prose says, computed by the same runs
    assert PROSE["leak.train.leaky"] == fixed(RUNS.leaky.train_loss[-1])
    assert PROSE["leak.held.leaky"] == fixed(RUNS.leaky.held_out)
    assert RUNS.leaky.train_loss[-1] < RUNS.floor < RUNS.correct.train_loss[-1] + 0.15
    assert RUNS.leaky.held_out > RUNS.chance > RUNS.correct.held_out


def test_the_switch_brings_forward_its_own_run(page):
    set_state(page, "multiply-leak", {"multiply": False})
    for multiply in (True, False):
        page.locator("#multiply-leak label.switch").click()
        next_frame(page)
        assert state(page, "multiply-leak") == {"multiply": multiply}
        current = page.eval_on_selector_all(
            "#multiply-leak .losses path.current", "ps => ps.map(p => p.getAttribute('class'))"
        )
        assert current == [f"curve {'leak' if multiply else 'correct'} current"]
