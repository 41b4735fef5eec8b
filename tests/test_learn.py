"""learn.py: the pronoun task is honest, its gradients are the loss's, training finds the noun."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn import learn
from selfattn.head import load_head
from selfattn.site.prose_numbers import prose_numbers


@pytest.fixture(scope="module")
def task() -> learn.Task:
    return learn.pronoun_task()


def test_mulberry32_is_the_published_generator():
    # the first draws of mulberry32(1) and (9), as its reference JavaScript prints them
    first = [x for x, _ in zip(learn.mulberry32(1), range(3), strict=False)]
    assert first == [0.6270739405881613, 0.002735721180215478, 0.5274470399599522]
    assert next(learn.mulberry32(9)) == 0.19872891809791327


def test_a_start_is_two_decimals_within_its_range():
    for seed in range(1, 50):
        for W in learn.start(seed):
            assert W.shape == (2, 2)
            assert np.all(np.abs(W) <= learn.START_RANGE)
            assert np.allclose(W * 100, np.round(W * 100), atol=1e-9)
    assert not np.array_equal(learn.start(1)[0], learn.start(2)[0])


def test_only_the_noun_tells_the_sentences_apart(task):
    differ = np.any(task.X[0] != task.X[1], axis=1)
    assert differ.tolist() == [t == "{noun}" for t in learn.TEMPLATE]
    assert task.labels.tolist() == [1.0, 0.0]


def test_gradients_are_the_loss_s_own(task):
    """Central differences on every entry of W_Q and W_K, at several random starts."""
    h = 1e-6
    for seed in (1, 4, 9, 17):
        W_Q, W_K = learn.start(seed)
        p = learn.forward_backward(task, W_Q, W_K)
        for name, grad in (("Q", p.dW_Q), ("K", p.dW_K)):
            numeric = np.zeros((2, 2))
            for i in range(2):
                for j in range(2):
                    step = np.zeros((2, 2))
                    step[i, j] = h
                    args = {"Q": (W_Q + step, W_K), "K": (W_Q, W_K + step)}[name]
                    back = {"Q": (W_Q - step, W_K), "K": (W_Q, W_K - step)}[name]
                    up = learn.forward_backward(task, *args).loss
                    down = learn.forward_backward(task, *back).loss
                    numeric[i, j] = (up - down) / (2 * h)
            assert np.allclose(grad, numeric, rtol=1e-6, atol=1e-9), (seed, name)


def test_the_pulls_f27_draws_make_up_the_matrix_gradients(task):
    """The chain rule's last link, as the prose tells it: it's query is one vector in both
    sentences, so a step moves it exactly against its pull (times rate·|x_it|²); the keys
    share W_K, so its gradient gathers every key's pull."""
    W_Q, W_K = learn.start(learn.SEED)
    p = learn.forward_backward(task, W_Q, W_K)
    x_it = task.X[0, task.it]
    assert np.array_equal(task.X[1, task.it], x_it)
    pull = p.dq.sum(axis=0)
    np.testing.assert_allclose(p.dW_Q, np.outer(x_it, pull), atol=1e-15)
    np.testing.assert_allclose(p.dW_K, np.einsum("sni,snj->ij", task.X, p.dK), atol=1e-15)
    rate = learn.LEARNING_RATE
    moved = x_it @ (W_Q - rate * p.dW_Q) - x_it @ W_Q
    np.testing.assert_allclose(moved, -rate * (x_it @ x_it) * pull, atol=1e-15)
    h = 1e-6  # and the pull is the loss's own slope along q
    for c in range(2):
        nudge = np.zeros((2, 2))
        nudge[:, c] = h * x_it / (x_it @ x_it)  # moves q_it by h along coordinate c, keys still
        up = learn.forward_backward(task, W_Q + nudge, W_K).loss
        down = learn.forward_backward(task, W_Q - nudge, W_K).loss
        assert (up - down) / (2 * h) == pytest.approx(pull[c], rel=1e-6, abs=1e-10)


def test_the_rate_decides_how_far_200_steps_get():
    """F27's rates: slower stops short of the noun's 0.84, faster goes past it."""
    runs = learn.outcome().by_rate
    assert sorted(runs) == sorted(learn.RATES)
    cat = {rate: run.weights[-1][0, 1] for rate, run in runs.items()}
    assert cat[0.03] == pytest.approx(0.27, abs=0.005)
    assert cat[0.1] == pytest.approx(0.84, abs=0.005)
    assert cat[0.3] == pytest.approx(0.95, abs=0.005)


def test_the_row_of_it_is_a_distribution_over_what_it_may_read(task):
    p = learn.forward_backward(task, *learn.start(3))
    assert p.weights.shape == (2, len(learn.TEMPLATE))
    assert np.allclose(p.weights.sum(axis=1), 1)


def test_training_is_deterministic_for_a_seed(task):
    a, b = learn.train(task, 5, steps=30), learn.train(task, 5, steps=30)
    assert np.array_equal(a.W_Q, b.W_Q) and np.array_equal(a.loss, b.loss)


def test_the_opening_run_starts_elsewhere_and_ends_on_the_noun():
    run = learn.opening()
    noun = learn.TEMPLATE.index("{noun}")
    assert not run.on_noun(0)  # the story: row it starts on another token
    assert run.on_noun()
    assert run.loss[-1] < run.loss[0] / 10
    assert np.all(run.weights[-1][:, noun] > 0.8)
    assert np.all(np.diff(run.loss) < 1e-12)  # small steps: the loss never rises


def test_seeds_that_find_the_noun_are_counted():
    count = learn.seeds_on_noun()
    task = learn.pronoun_task()
    assert count == sum(learn.train(task, s).on_noun() for s in range(1, learn.SEEDS + 1))
    assert 0 < count <= learn.SEEDS


def test_the_first_step_is_a_cliff_because_ate_sits_on_cats_side(task):
    """F27's prose: at step 0 nearly all the loss is the dog sentence's, whose guess is "ran"
    because row it leans on ate and ate's value lies beyond cat's own along u."""
    p = learn.forward_backward(task, *learn.start(learn.SEED))
    V = task.X @ task.W_V
    z = learn.GAIN * (np.einsum("sn,snd->sd", p.weights, V) - task.midpoint) @ task.direction
    per_sentence = np.logaddexp(0.0, -np.where(task.labels == 1, z, -z))
    assert per_sentence[1] > 0.99 * per_sentence.sum()
    along = (V[0] - task.midpoint) @ task.direction
    ate, cat = learn.TEMPLATE.index("ate"), learn.TEMPLATE.index("{noun}")
    assert along[ate] > along[cat] > 0
    printed = prose_numbers(load_head())
    assert printed["learn.z.dog.start"] == f"{z[1]:.2f}"
    assert printed["learn.ran.dog.start"] == f"{1 / (1 + np.exp(-z[1])):.2f}"
    assert printed["learn.ate.along"] == f"{along[ate]:.2f}"


def test_a_step_of_W_K_moves_every_key_along_the_query_s_line(task):
    """F27's prose: Δk_i = −η Σ_j (x_i·x_j) ∂L/∂k_j, and every pull lies along q."""
    run = learn.opening()
    X = task.X.reshape(-1, 2)
    for step in (0, 1, 100):
        p = learn.forward_backward(task, run.W_Q[step], run.W_K[step])
        moved = X @ run.W_K[step + 1] - X @ run.W_K[step]
        rule = -learn.LEARNING_RATE * (X @ X.T) @ p.dK.reshape(-1, 2)
        np.testing.assert_allclose(moved, rule, atol=1e-12)
        q = task.X[0, task.it] @ run.W_Q[step]
        np.testing.assert_allclose(moved[:, 0] * q[1] - moved[:, 1] * q[0], 0, atol=1e-12)
