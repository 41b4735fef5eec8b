"""A kernel returning (weights, output) is read by its first element, as (output, weights)
kernels are; the report says so and how to check the output instead (issue 48)."""

from __future__ import annotations

import numpy as np

from selfattn.check import check


def weights_then_output(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple:
    s = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return w, w @ v


def test_a_weights_first_pair_is_named_with_the_way_out() -> None:
    report = check(weights_then_output)
    assert report.verdict == "buggy"
    said = " ".join(report.notes)
    assert "(weights, output)" in said and "weights_then_output(q, k, v)[1]" in said
    assert check(lambda q, k, v: weights_then_output(q, k, v)[1]).ok


def test_an_output_first_pair_that_is_right_gets_no_such_note() -> None:
    report = check(lambda q, k, v: weights_then_output(q, k, v)[::-1])
    assert report.ok and not any("(weights, output)" in n for n in report.notes)
