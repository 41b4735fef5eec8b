"""Properties of attention.py over generated inputs (hypothesis): rows are distributions,
masks hold."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from selfattn.attention import MASK_MODES, attention, causal_mask, softmax

finite = st.floats(-1e308, 1e308, allow_nan=False, allow_infinity=False)
scores = st.one_of(finite, st.just(-np.inf))


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 7)), elements=scores))
def test_softmax_rows_are_distributions_or_all_zero(S):
    W = softmax(S)
    assert np.isfinite(W).all() and (W >= 0).all()
    sums = W.sum(axis=-1)
    has_finite = np.isfinite(S).any(axis=-1)
    np.testing.assert_allclose(sums[has_finite], 1.0, rtol=1e-12)
    assert (sums[~has_finite] == 0).all()


small = st.floats(-50, 50, allow_nan=False)


@st.composite
def heads(draw):
    n, d = draw(st.integers(1, 8)), draw(st.integers(1, 6))
    X = draw(arrays(np.float64, (n, d), elements=small))
    mats = [draw(arrays(np.float64, (d, d), elements=small)) for _ in range(3)]
    return X, *mats


@settings(max_examples=200, deadline=None)
@given(heads(), st.sampled_from(MASK_MODES))
def test_outputs_are_convex_mixes_and_masked_weights_are_exactly_zero(head, mask):
    X, W_Q, W_K, W_V = head
    result = attention(X, W_Q, W_K, W_V, mask)
    W, V, out = result["W"], result["V"], result["out"]
    assert np.isfinite(W).all() and np.isfinite(out).all()
    np.testing.assert_allclose(W.sum(axis=-1), 1.0, rtol=1e-12)
    if mask == "causal":
        assert (W[causal_mask(len(X))] == 0).all()
    # inside the values' bounding box: a convex mix cannot leave it
    scale = 1e-9 * (1 + np.abs(V).max())
    assert (out >= V.min(axis=0) - scale).all() and (out <= V.max(axis=0) + scale).all()


@settings(max_examples=100, deadline=None)
@given(heads(), st.randoms(use_true_random=False))
def test_unmasked_attention_is_permutation_equivariant(head, rnd):
    X, W_Q, W_K, W_V = head
    order = list(range(len(X)))
    rnd.shuffle(order)
    out = attention(X, W_Q, W_K, W_V)["out"]
    shuffled = attention(X[order], W_Q, W_K, W_V)["out"]
    np.testing.assert_allclose(shuffled, out[order], rtol=1e-9, atol=1e-9 * (1 + np.abs(out).max()))
