"""learn.js retraces learn.py: the same start for a seed, the same loss, row and weights after
every step, run in Chromium on the task Python ships."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn import learn

from .test_attention_js import run_js

STEPS = 60  # past the opening run's crossing onto the noun, at a larger rate to get there

TRAIN = """
  const [task, seed, rate, steps] = arg;
  let [WQ, WK] = m.start(seed, task.startRange);
  const out = { start: [WQ, WK], loss: [], weights: [] };
  for (let k = 0; k <= steps; k += 1) {
    const p = m.forwardBackward(task, WQ, WK);
    out.loss.push(p.loss);
    out.weights.push(p.weights);
    if (k < steps) { WQ = m.descend(WQ, p.dWQ, rate); WK = m.descend(WK, p.dWK, rate); }
  }
  out.end = [WQ, WK];
  return out;
"""


@pytest.fixture
def page(shared_en):
    return shared_en.page


@pytest.mark.parametrize("seed, rate", [(learn.SEED, 0.3), (4, 0.1), (123, 1.0)])
def test_steps_in_the_page_match_python(page, seed, rate):
    task = learn.pronoun_task()
    want = learn.train(task, seed, rate, STEPS)
    got = run_js(page, "learn.js", TRAIN, [task.to_json(), seed, rate, STEPS])
    assert np.array_equal(np.array(got["start"]), np.array([want.W_Q[0], want.W_K[0]]))
    assert np.allclose(got["loss"], want.loss, rtol=1e-10, atol=1e-12)
    assert np.allclose(got["weights"], want.weights, rtol=1e-10, atol=1e-12)
    assert np.allclose(got["end"], [want.W_Q[-1], want.W_K[-1]], rtol=1e-10, atol=1e-12)


def test_every_start_matches_python_s(page):
    seeds = list(range(1, 200))
    got = run_js(
        page,
        "learn.js",
        "return arg.map((s) => m.start(s, 1));",
        seeds,
    )
    want = [np.array(learn.start(s)).tolist() for s in seeds]
    assert got == want


def test_the_pulls_f27_draws_are_python_s(page):
    """∂loss/∂q_it and each key's ∂loss/∂k_j, sentence by sentence, at a step mid-run."""
    task = learn.pronoun_task()
    run = learn.train(task, learn.SEED, learn.LEARNING_RATE, 30)
    want = learn.forward_backward(task, run.W_Q[-1], run.W_K[-1])
    got = run_js(
        page,
        "learn.js",
        "const p = m.forwardBackward(arg[0], arg[1], arg[2]); return [p.dq, p.dK];",
        [task.to_json(), run.W_Q[-1].tolist(), run.W_K[-1].tolist()],
    )
    assert np.allclose(got[0], want.dq, rtol=1e-10, atol=1e-14)
    assert np.allclose(got[1], want.dK, rtol=1e-10, atol=1e-14)
