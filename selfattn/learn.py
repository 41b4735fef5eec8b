"""Gradient descent finds cat: part two's pronoun task, trained on the toy head's own plane.

Two sentences, "the cat ate and it ran" and "the dog ate and it barked". The model reads
each up to `it` through the head's causal mask and must guess the word after `it` from
the output of `it` alone: cats run, dogs bark. Everything but the noun is the same in
both sentences, so the only way to guess well is for `it` to look at its noun; nobody
says so. Only W_Q and W_K learn (2 × 2 each), from a seeded random start; the
embeddings, W_V and the readout stay as they are, so every step is a picture on the
plane the reader already knows: the query of `it` and the keys turning until the row
of `it` lands on the noun.

The readout is fixed too: it guesses "ran" with probability σ(g · u·(o − m)), where o is
the output of `it`, u the unit direction from dog's value to cat's, and m their
midpoint: an output nearer cat's value than dog's reads as "ran".

Forward and backward by hand in float64 (`static/js/learn.js` mirrors them step for
step), and a random start the page can redraw: mulberry32, a 32-bit generator short
enough to write identically in Python and JavaScript.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .attention import softmax
from .head import Head, load_head

NOUNS = ("cat", "dog")  # the noun each sentence's `it` refers to
DOG = (1.6, -1.1)  # dog's embedding, two decimals as the head's: a noun near cat
TEMPLATE = ("the", "{noun}", "ate", "and", "it")  # what the model reads, up to `it`
GAIN = 10.0  # the readout's sharpness: how sure an output on a noun's value makes it
START_RANGE = 1.0  # each entry of W_Q and W_K starts uniform in ±1, two decimals
SEED = 9  # the start the page opens on: row `it` begins on "ate" and crosses to the noun
LEARNING_RATE = 0.1  # slow enough to watch at a step a frame, fast enough to finish
RATES = (0.03, LEARNING_RATE, 0.3)  # the rates the page offers: slower, the prose's, faster
STEPS = 200  # "after training": loss and weights the prose states are read here
SEEDS = 20  # the prose says how many of this many random starts end on the noun


@dataclass(frozen=True)
class Task:
    """The two sentences as inputs, their labels, and the fixed value map and readout."""

    X: np.ndarray  # (sentences, n, 2) one embedding per token read
    labels: np.ndarray  # (sentences,) 1 where the word after `it` is "ran"
    W_V: np.ndarray  # (2, 2) the head's own
    direction: np.ndarray  # (2,) u, unit, from dog's value to cat's
    midpoint: np.ndarray  # (2,) m, halfway between the two values

    @property
    def it(self) -> int:
        return TEMPLATE.index("it")

    def to_json(self) -> dict[str, object]:
        """The task under learn.js's names, exact (the page must retrace Python's steps)."""
        return {
            "X": self.X.tolist(),
            "labels": self.labels.tolist(),
            "WV": self.W_V.tolist(),
            "direction": self.direction.tolist(),
            "midpoint": self.midpoint.tolist(),
            "it": self.it,
            "gain": GAIN,
            "startRange": START_RANGE,
            "seed": SEED,
            "rate": LEARNING_RATE,
            "rates": list(RATES),
            "steps": STEPS,
            "seeds": SEEDS,
        }


def pronoun_task(head: Head | None = None) -> Task:
    """The task on the stored head's embeddings and W_V, with dog added."""
    head = head or load_head()
    embed = {t: head.X[head.index(t)] for t in head.tokens} | {"dog": np.array(DOG)}
    X = np.array([[embed[t.format(noun=noun)] for t in TEMPLATE] for noun in NOUNS])
    v_cat, v_dog = embed["cat"] @ head.W_V, embed["dog"] @ head.W_V
    gap = v_cat - v_dog
    return Task(
        X=X,
        labels=np.array([1.0, 0.0]),
        W_V=head.W_V,
        direction=gap / np.linalg.norm(gap),
        midpoint=(v_cat + v_dog) / 2,
    )


def mulberry32(seed: int) -> Iterator[float]:
    """Uniform floats in [0, 1), the same sequence as `mulberry32` in learn.js.

    >>> [round(x, 6) for x, _ in zip(mulberry32(1), range(2))]
    [0.627074, 0.002736]
    """
    a = seed & 0xFFFFFFFF
    while True:
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = ((a ^ (a >> 15)) * (a | 1)) & 0xFFFFFFFF
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF
        yield ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296


def start(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """W_Q and W_K at step 0: eight draws, each uniform in ±START_RANGE, to two decimals.

    Rounded as JavaScript's Math.round rounds (half up, on the same double), not as round().
    """
    draws = mulberry32(seed)
    entries = [math.floor((2 * next(draws) - 1) * START_RANGE * 100 + 0.5) / 100 for _ in range(8)]
    return np.array(entries[:4]).reshape(2, 2), np.array(entries[4:]).reshape(2, 2)


@dataclass(frozen=True)
class Pass:
    """One forward and backward pass over both sentences."""

    loss: float  # mean cross-entropy of the guess after `it`, in nats
    weights: np.ndarray  # (sentences, n) the row of `it`
    dW_Q: np.ndarray  # (2, 2) ∂loss/∂W_Q
    dW_K: np.ndarray  # (2, 2) ∂loss/∂W_K
    dq: np.ndarray  # (sentences, 2) ∂loss/∂q_it through each sentence (F27 draws their sum)
    dK: np.ndarray  # (sentences, n, 2) ∂loss/∂k_j through each sentence: each key's pull


def forward_backward(task: Task, W_Q: np.ndarray, W_K: np.ndarray) -> Pass:
    """The loss, the row of `it` and both gradients, by hand: the chain rule a step at a time."""
    root_d = math.sqrt(W_Q.shape[0])
    X, it = task.X, task.it
    q = X[:, it] @ W_Q  # (s, 2) the query of it
    K = X @ W_K  # (s, n, 2) the keys it may read (the mask leaves it exactly these)
    V = X @ task.W_V  # (s, n, 2)
    w = softmax(np.einsum("snd,sd->sn", K, q) / root_d)  # (s, n) the row of it
    out = np.einsum("sn,snd->sd", w, V)  # (s, 2) the output of it
    z = GAIN * (out - task.midpoint) @ task.direction  # (s,) logit of "ran"
    # −log σ(z) for "ran", −log σ(−z) for "barked", without overflow: log(1 + e^−|z|) + …
    signed = np.where(task.labels == 1, z, -z)
    loss = float(np.mean(np.logaddexp(0.0, -signed)))
    dz = (1 / (1 + np.exp(-z)) - task.labels) / len(z)  # ∂loss/∂z: σ(z) − label, averaged
    d_out = GAIN * dz[:, None] * task.direction  # (s, 2)
    dw = np.einsum("snd,sd->sn", V, d_out)  # (s, n)
    ds = w * (dw - np.sum(w * dw, axis=1, keepdims=True)) / root_d  # softmax's Jacobian, ÷√d
    dq = np.einsum("sn,snd->sd", ds, K)  # (s, 2)
    dK = ds[:, :, None] * q[:, None, :]  # (s, n, 2)
    dW_Q = np.einsum("si,sj->ij", X[:, it], dq)
    dW_K = np.einsum("sni,snj->ij", X, dK)
    return Pass(loss, w, dW_Q, dW_K, dq, dK)


@dataclass(frozen=True)
class Training:
    """A run from one seed: W_Q and W_K at every step, and the loss and row of `it` there."""

    seed: int
    learning_rate: float
    W_Q: np.ndarray  # (steps + 1, 2, 2)
    W_K: np.ndarray  # (steps + 1, 2, 2)
    loss: np.ndarray  # (steps + 1,)
    weights: np.ndarray  # (steps + 1, sentences, n)

    def on_noun(self, step: int = -1) -> bool:
        """Whether, in both sentences, the noun has the largest weight in the row of `it`."""
        noun = TEMPLATE.index("{noun}")
        return bool(np.all(np.argmax(self.weights[step], axis=1) == noun))


def train(
    task: Task, seed: int = SEED, learning_rate: float = LEARNING_RATE, steps: int = STEPS
) -> Training:
    """Plain gradient descent on W_Q and W_K, full batch, from `start(seed)`."""
    W_Q, W_K = start(seed)
    path_Q, path_K, losses, rows = [], [], [], []
    for step in range(steps + 1):
        p = forward_backward(task, W_Q, W_K)
        path_Q.append(W_Q)
        path_K.append(W_K)
        losses.append(p.loss)
        rows.append(p.weights)
        if step < steps:
            W_Q, W_K = W_Q - learning_rate * p.dW_Q, W_K - learning_rate * p.dW_K
    return Training(
        seed, learning_rate, np.array(path_Q), np.array(path_K), np.array(losses), np.array(rows)
    )


@dataclass(frozen=True)
class Outcome:
    """What the prose reads from training on one head: the opening run and the seed count."""

    opening: Training  # from SEED at LEARNING_RATE, STEPS steps
    on_noun: int  # how many of seeds 1..SEEDS end with `it` attending to its noun
    by_rate: dict[float, Training]  # from SEED at each of RATES, STEPS steps (F27's choice)


_outcomes: dict[bytes, Outcome] = {}


def outcome(head: Head | None = None) -> Outcome:
    """Train on `head`'s embeddings and W_V (its W_Q and W_K play no part: training starts
    them afresh), once per distinct head: the claims read it for every head they check."""
    head = head or load_head()
    key = b"".join(np.ascontiguousarray(a, dtype=float).tobytes() for a in (head.X, head.W_V))
    if key not in _outcomes:
        task = pronoun_task(head)
        on_noun = sum(train(task, seed).on_noun() for seed in range(1, SEEDS + 1))
        by_rate = {rate: train(task, SEED, rate) for rate in RATES}
        _outcomes[key] = Outcome(by_rate[LEARNING_RATE], on_noun, by_rate)
    return _outcomes[key]


def opening() -> Training:
    """The run the page opens on, on the stored head: what the prose's numbers read."""
    return outcome().opening


def seeds_on_noun() -> int:
    """How many of seeds 1..SEEDS end, after STEPS, with `it` attending to its noun."""
    return outcome().on_noun
