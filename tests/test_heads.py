"""heads.py: two heads against a naive loop, head 1 is F27's, head 2 needs its turn, and a
head switched off takes exactly its part of the output away."""

from __future__ import annotations

import math

import numpy as np
import pytest

from selfattn import heads, learn
from selfattn.head import load_head

HEAD = load_head()
IT = HEAD.index("it")
ON: list[tuple[bool, bool]] = [(True, True), (True, False), (False, True), (False, False)]


@pytest.fixture(scope="module")
def two() -> heads.TwoHeads:
    return heads.two_heads(HEAD)


def naive(two: heads.TwoHeads, on: tuple[bool, bool]) -> np.ndarray:
    """The output of every token with plain loops: turn, score, mask, softmax, sum, W_O."""
    X, n, d = HEAD.X, len(HEAD.tokens), HEAD.X.shape[1]
    out = np.zeros((n, d))
    for h in range(2):
        if not on[h]:
            continue
        for i in range(n):

            def turned(v: np.ndarray, p: int, h: int = h) -> np.ndarray:
                a = p * two.theta[h]
                return np.array(
                    [
                        v[0] * math.cos(a) - v[1] * math.sin(a),
                        v[0] * math.sin(a) + v[1] * math.cos(a),
                    ]
                )

            q = turned(X[i] @ two.W_Q[h], i)
            scores = [q @ turned(X[j] @ two.W_K[h], j) / math.sqrt(d) for j in range(i + 1)]
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            mix = sum(e[j] / sum(e) * (X[j] @ two.W_V[h]) for j in range(i + 1))
            out[i] += mix @ two.W_O[h * d : (h + 1) * d]
    return out


@pytest.mark.parametrize("on", ON, ids=lambda on: "-".join("on" if o else "off" for o in on))
def test_join_is_the_naive_loop(two, on):
    np.testing.assert_allclose(heads.join(HEAD, two, on).output, naive(two, on), atol=1e-12)


def test_head_1_is_the_head_f27_trains(two):
    run = learn.opening()
    # to the twelve places two_heads keeps
    np.testing.assert_allclose(two.W_Q[0], run.W_Q[-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(two.W_K[0], run.W_K[-1], rtol=0, atol=1e-12)
    assert np.array_equal(two.W_V[0], HEAD.W_V) and two.theta[0] == 0
    # its row it over the sentence is F27's row it over "the cat ate and it": the mask hides ran
    row = heads.joined().weights[0, IT]
    np.testing.assert_allclose(row[: IT + 1], run.weights[-1][0], atol=1e-12)
    assert row[IT + 1] == 0


def test_fitted_parameters_have_two_decimals(two):
    for W in (two.W_Q[1], two.W_K[1], two.W_V[1], two.W_O):
        np.testing.assert_array_equal(np.round(W, 2), W)


def test_without_the_turn_no_query_ranks_and_first():
    """and's embedding lies inside the others' hull: for every direction a query could point,
    some other word row it reads scores higher, so head 2 needs positions."""
    read = HEAD.X[: IT + 1]
    and_ = HEAD.index("and")
    angles = np.linspace(0, 2 * np.pi, 3600, endpoint=False)
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    scores = directions @ read.T  # (directions, tokens): a key is linear in its embedding
    assert np.all(np.argmax(scores, axis=1) != and_)


def test_head_2_looks_one_word_back_in_every_row():
    W = heads.joined().weights[1]
    for i in range(1, len(HEAD.tokens)):
        assert np.argmax(W[i]) == i - 1


def test_a_head_off_takes_exactly_its_part():
    both = heads.joined()
    for h, on in ((0, (False, True)), (1, (True, False))):
        np.testing.assert_allclose(
            both.output - heads.joined(on=on).output, both.parts[h], atol=1e-15
        )
    np.testing.assert_array_equal(heads.joined(on=(False, False)).output, 0)


def test_every_row_is_a_causal_distribution():
    W = heads.joined().weights
    np.testing.assert_allclose(W.sum(axis=-1), 1)
    assert np.all(np.triu(W, k=1) == 0)
