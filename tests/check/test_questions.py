"""The questions kernels and layers both ask (questions.py), asked one way for both: a NaN
entry in one output is no evidence of randomness, for a layer as for a kernel, and hides none
elsewhere; an output turning NaN when only later positions change has moved."""

from __future__ import annotations

import numpy as np

from selfattn.check.questions import future_moved, repeat_moved

from .published import needs_torch, torch


def test_a_nan_entry_hides_no_change_elsewhere() -> None:
    first = np.array([[np.nan, 1.0], [2.0, 3.0]])
    assert repeat_moved(first, [first.copy()]) == 0.0
    assert repeat_moved(first, [np.array([[5.0, 1.0], [2.0, 3.0]])]) == 0.0  # NaN in one
    assert repeat_moved(first, [np.array([[np.nan, 1.0], [2.0, 3.5]])]) == 0.5


def test_an_output_turning_nan_after_a_later_change_moved() -> None:
    out = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    got = out.copy()
    got[1, 0] = np.nan
    assert future_moved(out, got, 0).tolist() == [0.0]
    assert future_moved(out, got, 1).tolist() == [0.0, np.inf]
    assert future_moved(out[None], got[None], 1).tolist() == [0.0, np.inf]  # a batch of one


@needs_torch
def test_a_layer_with_a_nan_column_and_dropout_on_is_random() -> None:
    """Dropout left on, and one feature NaN on every call: the layer's same-output rule used
    to take NaN for "no change" over the whole output and call it steady."""
    assert torch is not None
    from selfattn.check import check

    class Attn(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.q_proj, self.k_proj, self.v_proj = (torch.nn.Linear(8, 8) for _ in range(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
            w = torch.softmax(q @ k.transpose(-2, -1) / 8**0.5, dim=-1)
            out = torch.nn.functional.dropout(w, 0.5) @ v  # no training=...: always on
            return torch.cat([out[..., :-1], out[..., -1:] * np.nan], dim=-1)

    report = check(Attn().eval())
    assert "random-output" in report.ids, str(report)


def test_same_output_makes_calls_for_kernels_and_layers_alike() -> None:
    """The one determinism question makes questions.CALLS calls, an output already had
    counting as the first; a change on the last call is caught (two calls missed it)."""
    from selfattn.check.questions import CALLS, same_output

    made: list[int] = []

    def call() -> np.ndarray:
        made.append(1)
        return np.full((2, 2), 1.0 if len(made) < CALLS else 1.5)

    assert CALLS == 3
    assert same_output(call) == 0.5 and len(made) == CALLS
    made.clear()
    made.append(1)  # the first output, had before
    assert same_output(call, np.ones((2, 2))) == 0.5 and len(made) == CALLS
