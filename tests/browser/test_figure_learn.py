"""gradient-finds-cat driven through its real controls: every step the page shows is learn.py's
step, to the precision it prints; the loss curve's dot steps through the run; Train runs to
the end by the clock (at once, for a reader who asked for no motion); a draw reads no layout;
the prose's numbers are the claims'."""

from __future__ import annotations

import time

import pytest

from selfattn import learn
from selfattn.claims import BY_ID
from selfattn.head import load_head
from selfattn.numbers import fixed, grouped

from .conftest import open_page
from .drive import click, readouts, set_state, settled_click, state

TASK = learn.pronoun_task()
NOUN = learn.TEMPLATE.index("{noun}")
READ = ["the", "cat", "ate", "and", "it"]
KNOB = "#gradient-finds-cat svg.losses .handle"


@pytest.fixture(scope="module")
def page(browser, site_url):
    watched = open_page(browser, site_url + "en/")
    watched.page.locator("#gradient-finds-cat").scroll_into_view_if_needed()
    # the picture, the loss's dot with it, waits behind its question's veil until answered
    settled_click(watched.page.locator("#gradient-finds-cat .predict .skip"))
    veiled = watched.page.locator("#gradient-finds-cat.veiled")
    assert veiled.count() == 0, "the skip revealed nothing"
    yield watched.page
    assert watched.errors == [], watched.errors
    assert watched.foreign == [], watched.foreign
    watched.page.context.close()


def expected(run: learn.Training, step: int) -> dict[str, str]:
    """What gradient-finds-cat prints at a step of a run: its seed, the loss, the step and row it's
    weights."""
    row = run.weights[step][0]
    return {
        "seed": grouped(run.seed),
        "loss": fixed(run.loss[step], 3),
        "step": f"{grouped(step)} / {grouped(learn.STEPS)}",
        **{f"w.{token}": fixed(w) for token, w in zip(READ, row, strict=True)},
    }


def shown(page) -> dict[str, str]:
    return {k: v for k, v in readouts(page, "gradient-finds-cat").items() if k != "angle"}


@pytest.mark.parametrize("seed, rate", [(learn.SEED, 0.1), (4, 0.3), (17, 0.03)])
@pytest.mark.parametrize("step", [0, 1, 37, 120, learn.STEPS])
def test_a_step_in_the_page_is_python_s_step(page, seed, rate, step):
    run = learn.train(TASK, seed, rate)
    set_state(page, "gradient-finds-cat", {"seed": seed, "rate": rate, "step": step})
    assert shown(page) == expected(run, step)


def test_step_presses_retrace_python(page):
    """Home on the loss's dot, then N presses of → on it: the page's N-th step, to print
    precision (the dot is the only stepper: no Step button beside the run's controls)."""
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 30}
    )
    page.locator(KNOB).focus()
    page.keyboard.press("Home")
    page.wait_for_timeout(50)
    assert state(page, "gradient-finds-cat")["step"] == 0
    run = learn.opening()
    assert page.locator("#gradient-finds-cat button[name=next]").count() == 0
    for step in range(1, 13):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(50)
        assert shown(page) == expected(run, step), step


def test_the_loss_s_dot_is_the_step(page):
    """The dot on the loss curve is a slider over the steps: arrows step one, Page Up ten, End
    the last; it stands on the curve at the step shown."""
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 0}
    )
    knob = page.locator(KNOB)
    knob.focus()
    for key, step in (("ArrowRight", 1), ("PageUp", 11), ("ArrowLeft", 10), ("End", learn.STEPS)):
        page.keyboard.press(key)
        page.wait_for_timeout(50)
        assert state(page, "gradient-finds-cat")["step"] == step, key
        assert knob.get_attribute("aria-valuenow") == str(step)
    assert shown(page) == expected(learn.opening(), learn.STEPS)


def test_the_loss_is_on_a_log_axis_and_the_weights_in_the_value_hue(page):
    """One log axis for every run (decades 0.01, 0.1, 1, equally spaced), and row it's weights
    drawn as weights, with their values before training as pale bars beside them (not an
    outline over the bar: the bar's number sat on the outline's top and read as its)."""
    ticks = page.evaluate(
        """() => [...document.querySelectorAll('#gradient-finds-cat svg.losses text.tick.end')]
            .map(t => [t.textContent, Number(t.getAttribute('y'))])"""
    )
    assert [name for name, _ in ticks] == ["0.01", "0.1", "1"]
    (_, a), (_, b), (_, c) = ticks
    assert abs((a - b) - (b - c)) < 0.01
    assert page.locator("#gradient-finds-cat svg.bars.weights .ghost").count() == len(READ)
    assert page.locator("#gradient-finds-cat svg.bars.weights .ghost.outline").count() == 0


def test_training_plays_by_the_clock(page):
    """Train asks for the step the time since the press has reached, however many that skips:
    a main thread held for half a second comes back some 30 steps on, not one."""
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 0}
    )
    jumped = page.evaluate(
        """async () => {
          const f = document.getElementById('gradient-finds-cat');
          const frame = () => new Promise((r) => requestAnimationFrame(r));
          f.querySelector('button[name=play]').click();
          await frame();
          const t0 = performance.now();
          while (performance.now() - t0 < 500) {}  // a slow phone's frame, and then some
          await frame(); await frame();
          const step = f.figure.state.step;
          f.querySelector('button[name=play]').click();  // pause
          return step;
        }"""
    )
    assert jumped >= 25, jumped


def test_a_draw_reads_no_layout(page):
    """Stepping through a run measures nothing: no box, length, style or rect read after the
    draw's writes (issue 50: that forced a layout every frame). place.js reads a mark's stroke
    width once, the first time that mark is drawn: a first pass over the run lets it."""
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 0}
    )
    reads = page.evaluate(
        """() => {
          const f = document.getElementById('gradient-finds-cat').figure;
          const count = { n: 0 };
          for (let k = 0; k <= 200; k += 1) { f.set({ step: k }); f.redraw(); }
          const spy = (owner, name) => {
            const real = owner[name];
            owner[name] = function (...a) { count.n += 1; return real.apply(this, a); };
            return () => { owner[name] = real; };
          };
          const undo = [
            spy(SVGGraphicsElement.prototype, 'getBBox'),
            spy(SVGGeometryElement.prototype, 'getTotalLength'),
            spy(SVGGeometryElement.prototype, 'getPointAtLength'),
            spy(Element.prototype, 'getBoundingClientRect'),
            spy(window, 'getComputedStyle'),
          ];
          try {
            for (let k = 0; k <= 200; k += 1) { f.set({ step: k }); f.redraw(); }
          } finally { undo.forEach((u) => u()); }
          return count.n;
        }"""
    )
    assert reads == 0


def test_a_new_seed_starts_a_new_run_at_step_zero(page):
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 80}
    )
    click(page, "#gradient-finds-cat .stepper .step-next")
    assert state(page, "gradient-finds-cat") == {"seed": learn.SEED + 1, "rate": 0.1, "step": 0}
    assert shown(page) == expected(learn.train(TASK, learn.SEED + 1), 0)


def test_a_rate_keeps_the_step_and_reads_its_own_run(page):
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 60}
    )
    click(page, "#gradient-finds-cat label.chip:has(input[value='0.3'])")
    assert state(page, "gradient-finds-cat") == {"seed": learn.SEED, "rate": 0.3, "step": 60}
    assert shown(page) == expected(learn.train(TASK, learn.SEED, 0.3), 60)


def test_train_runs_to_the_end_and_lands_on_the_claims(page):
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 0}
    )
    click(page, "#gradient-finds-cat button[name=play]")
    page.wait_for_timeout(300)
    partway = state(page, "gradient-finds-cat")["step"]
    assert 0 < partway < learn.STEPS  # it runs, and not all at once
    deadline = time.monotonic() + 15
    while state(page, "gradient-finds-cat")["step"] < learn.STEPS:
        assert time.monotonic() < deadline, "training did not reach the last step"
        page.wait_for_timeout(100)
    page.wait_for_timeout(50)
    r = readouts(page, "gradient-finds-cat")
    head = load_head()
    assert r["loss"] == BY_ID["learn.loss.end"].computed(head)
    assert r["w.cat"] == BY_ID["learn.it.cat.end"].computed(head)


def test_train_with_reduced_motion_jumps_to_the_end(browser, site_url):
    watched = open_page(browser, site_url + "en/", reduced_motion="reduce")
    p = watched.page
    p.locator("#gradient-finds-cat").scroll_into_view_if_needed()
    click(p, "#gradient-finds-cat button[name=play]")
    assert state(p, "gradient-finds-cat")["step"] == learn.STEPS
    assert watched.errors == []
    p.context.close()


def test_the_prose_states_the_training_claims(page):
    head = load_head()
    for claim_id in (
        "learn.loss.start",
        "learn.loss.end",
        "learn.it.cat.start",
        "learn.it.cat.end",
        "learn.seeds.noun",
    ):
        spans = page.locator(f"[data-claim='{claim_id}']")
        assert spans.count() >= 1, claim_id
        assert spans.first.text_content() == BY_ID[claim_id].computed(head)
    # and what the page opens on is the run the prose reads
    set_state(
        page, "gradient-finds-cat", {"seed": learn.SEED, "rate": learn.LEARNING_RATE, "step": 0}
    )
    r = readouts(page, "gradient-finds-cat")
    assert r["w.cat"] == BY_ID["learn.it.cat.start"].computed(head)
    assert fixed(float(r["loss"]), 2) == BY_ID["learn.loss.start"].computed(head)
