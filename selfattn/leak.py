"""The × 0 causal mask, trained: the leak the article warns about, measured at build time.

Multiplying the scores by the lower-triangular 0/1 matrix leaves every future score at
0, and softmax gives a score of 0 the weight exp(0) = 1, so in training each position
can read the token it must predict. Here a tiny one-head next-token model learns a
random Markov chain twice from the same initialisation, once with the −∞ mask and once
with the × 0 mask. The leaky run's training loss falls faster and lower — below what
the chain itself allows, which is the tell — while on held-out text read through a
correct mask it is worse than the honest model.

Pure numpy, forward and backward by hand, full batch, float64: about a second of one
slow core for both runs, so the site build can afford to train them every time.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np

from .attention import attention, causal_mask, softmax

Mask = Literal["causal", "multiply"]  # attention.py's names: −∞ in the future, or the × 0 bug
Params = dict[str, np.ndarray]

VOCAB = 12  # few enough tokens that a few hundred sequences cover every transition
LENGTH = 8  # short and cheap; the later positions have only a token or two ahead to leak
PEAK = 2.0  # spread of the transition logits: the current token predicts the next one
#             partly (the chain costs about 1.2–1.7 nats a token; a uniform guess, 2.48)
N_TRAIN = 300  # 2,100 targets for ~460 parameters: the honest run overfits only a little
N_HELD_OUT = 1000  # held-out text costs one forward pass, so a precise estimate is cheap
WIDTH = 8  # d: room for a token and a position; wider only overfits and costs time
INIT_SCALE = 0.5  # small logits at the start, so both runs begin near log VOCAB
STEPS = 80  # the honest run's held-out loss bottoms out around here; more only overfits
LEARNING_RATE = 0.03  # full-batch Adam: fast, and steady enough that the curves are smooth
EVERY = 4  # a point of the training curve every 4 steps: 21 points per curve
SEED = 0


@dataclass(frozen=True)
class Run:
    """One training run: its mask, its training curve and how it does on new text."""

    mask: Mask
    steps: tuple[int, ...]
    train_loss: tuple[float, ...]  # read through the run's own mask, as training sees it
    held_out: float  # at the end, on held-out text, always through the correct mask


@dataclass(frozen=True)
class Leak:
    """Both runs, the corpus they learned, and the levels a reader needs to judge them."""

    correct: Run
    leaky: Run
    seconds: float  # wall time of both runs, data included
    floor: float  # the true chain's own loss on the training text; an honest model gets
    #               under it only by memorising, and only a little; the leaky one, far
    chance: float = math.log(VOCAB)  # a uniform guess over the vocabulary
    vocab: int = VOCAB
    length: int = LENGTH
    n_train: int = N_TRAIN
    n_held_out: int = N_HELD_OUT
    width: int = WIDTH

    def to_json(self) -> dict[str, object]:
        """Plain lists and floats, four decimals, for the page to plot. No wall time: the page
        must come out the same from every build (`seconds` is the bench's to print)."""

        def run(r: Run) -> dict[str, object]:
            return {
                "mask": r.mask,
                "steps": list(r.steps),
                "train_loss": [round(x, 4) for x in r.train_loss],
                "held_out": round(r.held_out, 4),
            }

        return {
            "correct": run(self.correct),
            "leaky": run(self.leaky),
            "floor": round(self.floor, 4),
            "chance": round(self.chance, 4),
            "vocab": self.vocab,
            "length": self.length,
            "n_train": self.n_train,
            "n_held_out": self.n_held_out,
            "width": self.width,
        }


# -- the text -------------------------------------------------------------------


def chain(rng: np.random.Generator) -> np.ndarray:
    """A random order-1 Markov chain: row a is the distribution of the token after a."""
    return softmax(PEAK * rng.normal(size=(VOCAB, VOCAB)))


def sample(transitions: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n sequences of LENGTH token ids, the first one uniform.  (n, LENGTH)"""
    tokens = np.empty((n, LENGTH), dtype=np.intp)
    tokens[:, 0] = rng.integers(VOCAB, size=n)
    cumulative = np.cumsum(transitions, axis=1)
    for t in range(1, LENGTH):
        u = rng.random((n, 1))
        # inverse-CDF draw, all n at once; min guards a cumulative sum that ends at 1 − ε
        tokens[:, t] = np.minimum((u > cumulative[tokens[:, t - 1]]).sum(axis=1), VOCAB - 1)
    return tokens


def chain_loss(transitions: np.ndarray, tokens: np.ndarray) -> float:
    """Cross-entropy of the true chain on these sequences: the floor for an honest model."""
    return float(-np.log(transitions[tokens[:, :-1], tokens[:, 1:]]).mean())


# -- the model ------------------------------------------------------------------


def init(seed: int = SEED) -> Params:
    """Token and position embeddings, one head, and the projection to vocabulary logits.

    Its own random stream, apart from the corpus's, so a change to the text's size
    leaves the starting point alone.
    """
    rng = np.random.default_rng([seed, 1])

    def normal(*shape: int, scale: float) -> np.ndarray:
        return rng.normal(scale=scale, size=shape)

    per_width = 1 / math.sqrt(WIDTH)  # keeps x @ W at the size of x
    return {
        "tokens": normal(VOCAB, WIDTH, scale=INIT_SCALE),
        "positions": normal(LENGTH, WIDTH, scale=INIT_SCALE),
        "W_Q": normal(WIDTH, WIDTH, scale=per_width),
        "W_K": normal(WIDTH, WIDTH, scale=per_width),
        "W_V": normal(WIDTH, WIDTH, scale=per_width),
        "W_out": normal(WIDTH, VOCAB, scale=INIT_SCALE * per_width),
        "b_out": np.zeros(VOCAB),
    }


def forward(params: Params, tokens: np.ndarray, mask: Mask) -> dict[str, np.ndarray]:
    """Every intermediate of the model on a batch of sequences (B, n); logits are (B, n, V).

    The mask is the only thing the two runs do differently.
    """
    B, n = tokens.shape
    X = params["tokens"][tokens] + params["positions"][:n]
    head = attention(X, params["W_Q"], params["W_K"], params["W_V"], mask)  # the article's head
    queries, keys, values, weights = head["Q"], head["K"], head["V"], head["W"]
    H = X + head["out"]  # the residual keeps each token's own identity at hand
    logits = (_flat(H) @ params["W_out"] + params["b_out"]).reshape(B, n, VOCAB)
    return {
        "X": X,
        "queries": queries,
        "keys": keys,
        "values": values,
        "weights": weights,
        "H": H,
        "logits": logits,
    }


def _flat(a: np.ndarray) -> np.ndarray:
    """(B, n, k) -> (B·n, k): one BLAS call instead of B small ones."""
    return a.reshape(-1, a.shape[-1])


def _log_probs(logits: np.ndarray) -> np.ndarray:
    """Log-softmax over the vocabulary of every position that has a next token to predict."""
    predicting = logits[:, :-1]
    shifted = predicting - predicting.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _next_tokens(tokens: np.ndarray) -> np.ndarray:
    """Position t's target, token t+1, one-hot.  (B, n − 1, V)"""
    return np.eye(VOCAB)[tokens[:, 1:]]


def _nats(log_probs: np.ndarray, targets: np.ndarray) -> float:
    """Mean cross-entropy over every (sequence, position) that predicts a token."""
    return float(-np.sum(log_probs * targets) / log_probs[..., 0].size)


def loss(params: Params, tokens: np.ndarray, mask: Mask) -> float:
    """Mean cross-entropy of predicting token t+1 at position t, in nats."""
    return _nats(_log_probs(forward(params, tokens, mask)["logits"]), _next_tokens(tokens))


def loss_and_grads(params: Params, tokens: np.ndarray, mask: Mask) -> tuple[float, Params]:
    """The loss and its gradient with respect to every parameter, backpropagated by hand."""
    f = forward(params, tokens, mask)
    X, queries, keys, values, weights, H = (
        f[k] for k in ("X", "queries", "keys", "values", "weights", "H")
    )
    log_probs = _log_probs(f["logits"])
    targets = _next_tokens(tokens)

    d_logits = np.zeros_like(f["logits"])  # the last position adds nothing to the loss
    d_logits[:, :-1] = (np.exp(log_probs) - targets) / log_probs[..., 0].size
    d_H = d_logits @ params["W_out"].T
    d_weights = d_H @ values.swapaxes(-1, -2)
    d_values = weights.swapaxes(-1, -2) @ d_H
    d_masked = weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True))
    # Both masks put a constant (−∞ or 0) in the future, so no gradient reaches those scores.
    d_scores = np.where(causal_mask(tokens.shape[1]), 0.0, d_masked) / math.sqrt(WIDTH)
    d_queries = d_scores @ keys
    d_keys = d_scores.swapaxes(-1, -2) @ queries
    d_X = (
        d_H  # through the residual
        + d_queries @ params["W_Q"].T
        + d_keys @ params["W_K"].T
        + d_values @ params["W_V"].T
    )
    d_positions = np.zeros_like(params["positions"])
    d_positions[: tokens.shape[1]] = d_X.sum(axis=0)
    grads = {
        "tokens": _flat(np.eye(VOCAB)[tokens]).T @ _flat(d_X),
        "positions": d_positions,
        "W_Q": _flat(X).T @ _flat(d_queries),
        "W_K": _flat(X).T @ _flat(d_keys),
        "W_V": _flat(X).T @ _flat(d_values),
        "W_out": _flat(H).T @ _flat(d_logits),
        "b_out": _flat(d_logits).sum(axis=0),
    }
    return _nats(log_probs, targets), grads


# -- training -------------------------------------------------------------------


def fit(
    params: Params, tokens: np.ndarray, mask: Mask, steps: int
) -> tuple[Params, tuple[int, ...], tuple[float, ...]]:
    """Full-batch Adam from params; returns the trained parameters and the training curve.

    The curve's point at step k is the loss the step-k gradient was computed at, read
    through this run's own mask, so recording it costs nothing.
    """
    params = {k: v.copy() for k, v in params.items()}
    first = {k: np.zeros_like(v) for k, v in params.items()}
    second = {k: np.zeros_like(v) for k, v in params.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8  # Adam's usual constants
    curve: list[tuple[int, float]] = []
    for step in range(steps):
        value, grads = loss_and_grads(params, tokens, mask)
        if step % EVERY == 0:
            curve.append((step, value))
        for k, g in grads.items():
            first[k] = beta1 * first[k] + (1 - beta1) * g
            second[k] = beta2 * second[k] + (1 - beta2) * g * g
            m = first[k] / (1 - beta1 ** (step + 1))
            v = second[k] / (1 - beta2 ** (step + 1))
            params[k] -= LEARNING_RATE * m / (np.sqrt(v) + eps)
    curve.append((steps, loss(params, tokens, mask)))
    return params, tuple(s for s, _ in curve), tuple(x for _, x in curve)


def corpus(seed: int = SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The chain, the training sequences and the held-out ones, all from one seed."""
    rng = np.random.default_rng(seed)
    transitions = chain(rng)
    return transitions, sample(transitions, N_TRAIN, rng), sample(transitions, N_HELD_OUT, rng)


def train(steps: int = STEPS, seed: int = SEED) -> Leak:
    """Train the honest and the leaky model from the same start on the same text.

    The seed sets the chain, both text samples and the initialisation, so another seed
    is a fresh check of the whole effect rather than of one lucky start.
    """
    start = time.perf_counter()
    transitions, train_tokens, held_tokens = corpus(seed)
    params = init(seed)

    def run(mask: Mask) -> Run:
        trained, curve_steps, curve = fit(params, train_tokens, mask, steps)
        return Run(mask, curve_steps, curve, loss(trained, held_tokens, "causal"))

    correct, leaky = run("causal"), run("multiply")
    return Leak(
        correct=correct,
        leaky=leaky,
        seconds=time.perf_counter() - start,
        floor=chain_loss(transitions, train_tokens),
    )


@cache
def measured() -> Leak:
    """The default run, once per process: the site build reads it for every mention."""
    return train()
