"""The × 0 mask leak: the hand-written gradients, the masks, and the measured effect."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from selfattn import leak

MASKS: tuple[leak.Mask, ...] = ("causal", "multiply")


def _tiny_problem(seed: int = 0) -> tuple[leak.Params, np.ndarray]:
    """Initial parameters pushed off their start, and 3 sequences shorter than LENGTH."""
    rng = np.random.default_rng(seed)
    params = {k: v + rng.normal(scale=0.3, size=v.shape) for k, v in leak.init(seed).items()}
    tokens = rng.integers(leak.VOCAB, size=(3, 5))
    return params, tokens


@pytest.mark.parametrize("mask", MASKS)
def test_backward_matches_central_differences(mask):
    params, tokens = _tiny_problem()
    value, grads = leak.loss_and_grads(params, tokens, mask)
    assert value == leak.loss(params, tokens, mask)
    rng = np.random.default_rng(1)
    h = 1e-6
    for name, p in params.items():
        assert grads[name].shape == p.shape
        # rows of the positions this batch never reaches must get exactly no gradient
        entries = [tuple(rng.integers(s) for s in p.shape) for _ in range(4)]
        if name == "positions":
            entries.append((tokens.shape[1] - 1, 0))  # the last position, still in the batch
        for entry in entries:
            saved = p[entry]
            p[entry] = saved + h
            up = leak.loss(params, tokens, mask)
            p[entry] = saved - h
            down = leak.loss(params, tokens, mask)
            p[entry] = saved
            numeric = (up - down) / (2 * h)
            analytic = grads[name][entry]
            scale = max(abs(numeric), abs(analytic), 1e-6)
            assert abs(numeric - analytic) / scale < 1e-5, (name, entry, numeric, analytic)
    assert np.all(grads["positions"][tokens.shape[1] :] == 0)


def test_gradients_differ_between_the_masks():
    """The check above would pass for a backward that ignored the mask if both agreed."""
    params, tokens = _tiny_problem()
    causal = leak.loss_and_grads(params, tokens, "causal")[1]
    multiply = leak.loss_and_grads(params, tokens, "multiply")[1]
    assert np.abs(causal["W_Q"] - multiply["W_Q"]).max() > 1e-4


@pytest.mark.parametrize("t", range(leak.LENGTH - 1))
def test_only_the_multiply_mask_lets_later_tokens_reach_position_t(t):
    params, tokens = _tiny_problem()
    tokens = np.random.default_rng(2).integers(leak.VOCAB, size=(4, leak.LENGTH))
    changed = tokens.copy()
    changed[:, t + 1 :] = (changed[:, t + 1 :] + 1) % leak.VOCAB  # every later token differs

    def logits(mask: leak.Mask, x: np.ndarray) -> np.ndarray:
        return leak.forward(params, x, mask)["logits"][:, : t + 1]

    np.testing.assert_allclose(logits("causal", changed), logits("causal", tokens), rtol=1e-12)
    assert np.abs(logits("multiply", changed) - logits("multiply", tokens)).max() > 1e-3


def test_multiply_mask_gives_the_future_weight_exp0():
    """With the × 0 bug a query's future keys all get weight e⁰ / Σ, never 0."""
    params, tokens = _tiny_problem()
    weights = leak.forward(params, tokens, "multiply")["weights"]
    future = np.triu(np.ones(weights.shape[-2:], dtype=bool), k=1)
    assert np.all(weights[:, future] > 0)
    assert np.all(leak.forward(params, tokens, "causal")["weights"][:, future] == 0)


def test_default_run_shows_the_leak():
    result = leak.measured()
    correct, leaky = result.correct, result.leaky
    assert (correct.mask, leaky.mask) == ("causal", "multiply")
    assert correct.steps == leaky.steps
    assert correct.steps[0] == 0 and correct.steps[-1] == leak.STEPS
    assert len(correct.steps) == len(correct.train_loss) == len(leaky.train_loss)
    assert all(math.isfinite(x) for x in correct.train_loss + leaky.train_loss)
    # the tell: training loss ends far lower, and far under what the chain itself scores
    assert leaky.train_loss[-1] < correct.train_loss[-1] - 0.5
    assert leaky.train_loss[-1] < result.floor - 0.5
    assert correct.train_loss[-1] > result.floor - 0.15  # memorising buys the honest run little
    # and it falls faster: from halfway on, every recorded point is lower
    half = len(correct.steps) // 2
    assert all(
        b < a for a, b in zip(correct.train_loss[half:], leaky.train_loss[half:], strict=True)
    )
    # on held-out text through a correct mask the leaky model is worse than a uniform guess
    assert correct.held_out < result.chance
    assert leaky.held_out > correct.held_out + 1.0
    assert leaky.held_out > result.chance
    assert result.chance == pytest.approx(math.log(leak.VOCAB))


def test_both_runs_start_from_the_same_parameters():
    """Step 0 of each curve is the shared initialisation read through that run's own mask.

    So the first points differ only by what the mask changes, which at the start (small
    scores, a weak head) is a few hundredths of a nat around log VOCAB.
    """
    result = leak.measured()
    _, train_tokens, _ = leak.corpus(leak.SEED)
    start = leak.init(leak.SEED)
    assert result.correct.train_loss[0] == leak.loss(start, train_tokens, "causal")
    assert result.leaky.train_loss[0] == leak.loss(start, train_tokens, "multiply")
    assert abs(result.correct.train_loss[0] - result.leaky.train_loss[0]) < 0.1
    for first in (result.correct.train_loss[0], result.leaky.train_loss[0]):
        assert abs(first - result.chance) < 0.25


def test_training_is_deterministic():
    again = leak.train()  # a second default run, apart from the cached one
    first = leak.measured()
    assert again.correct == first.correct
    assert again.leaky == first.leaky
    assert again.floor == first.floor


def test_to_json_is_plain_and_rounded():
    data = leak.measured().to_json()
    assert json.loads(json.dumps(data)) == data
    for run in ("correct", "leaky"):
        curve = data[run]["train_loss"]
        assert len(curve) == len(data[run]["steps"])
        assert all(round(x, 4) == x for x in curve)
    assert data["vocab"] == leak.VOCAB and data["n_train"] == leak.N_TRAIN


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_leak_holds_for_other_seeds(seed):
    """A fresh chain, fresh text and a fresh start each; full default length (~1 s each)."""
    result = leak.train(seed=seed)
    correct, leaky = result.correct, result.leaky
    assert leaky.train_loss[-1] < correct.train_loss[-1] - 0.5
    assert leaky.train_loss[-1] < result.floor - 0.5
    assert leaky.held_out > correct.held_out + 1.0
