"""The backward pass: the float64 reference's gradients, the known backward bugs as data, and a
Triton kernel checked on a CPU under Triton's interpreter, on the shapes it accepts. What the
gradient check costs is measured by `python -m bench.gradient_cost`, not here."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from selfattn.check import backward as bw
from selfattn.check import check

from .corpus_cases import load, skip_missing

torch = pytest.importorskip("torch")
HAS_TRITON = importlib.util.find_spec("triton") is not None


def _autograd(q, k, v, do, causal):
    """The same gradients from torch's autograd on float64 attention."""
    q, k, v = (torch.tensor(x, requires_grad=True) for x in (q, k, v))
    s = q @ k.T / q.shape[-1] ** 0.5
    if causal:
        s = s.masked_fill(~torch.ones(len(q), len(q), dtype=torch.bool).tril(), float("-inf"))
    (s.softmax(-1) @ v).backward(torch.tensor(do))
    return {"dq": q.grad.numpy(), "dk": k.grad.numpy(), "dv": v.grad.numpy()}


@pytest.mark.parametrize("causal", [False, True])
def test_reference_gradients_are_autograds(causal: bool) -> None:
    q, k, v, do = np.random.default_rng(3).standard_normal((4, 7, 5))
    keep = np.tril(np.ones((7, 7), dtype=bool)) if causal else None
    got = bw.grads(q, k, v, do, 5**-0.5, keep)
    want = _autograd(q, k, v, do, causal)
    for name in bw.NAMES:
        np.testing.assert_allclose(got[name], want[name], atol=1e-12)


def test_every_backward_bug_differs_from_the_right_gradients() -> None:
    q, k, v, do = np.random.default_rng(4).standard_normal((4, 9, 6))
    keep = np.tril(np.ones((9, 9), dtype=bool))
    right = bw.grads(q, k, v, do, 6**-0.5, keep)
    full = bw.grads(q, k, v, do, 6**-0.5, None)
    for bug in bw.BUGS:
        # a mask the backward puts on by itself shows only where the forward had none
        mask, want = (None, full) if bug.recompute == "causal" else (keep, right)
        wrong = bw.grads(q, k, v, do, 6**-0.5, mask, bug)
        assert max(np.abs(wrong[n] - want[n]).max() for n in bw.NAMES) > 1e-3, bug.id


@pytest.mark.skipif(
    not HAS_TRITON, reason="triton is not installed (pip install 'selfattn[triton]')"
)
def test_triton_kernel_on_a_cpu_under_the_interpreter() -> None:
    skip_missing("triton_fused_attention.py")
    report = check(load("triton_fused_attention.py"))
    assert report.verdict == "ok", str(report)
    said = " | ".join(report.notes)
    assert "TRITON_INTERPRET=1" in said
    assert "n x d = 16x16" in said and "refused 6x6" in said
    passed = [c.name for c in report.checks if c.status == "pass"]
    assert any("gradients" in c and "causal" in c for c in passed)


@pytest.mark.skipif(
    not HAS_TRITON, reason="triton is not installed (pip install 'selfattn[triton]')"
)
def test_a_launcher_that_asks_the_driver_runs_on_a_cpu() -> None:
    """Published launchers ask Triton's driver for the device and `is_hip()` at import, and
    autotune over configs some of which the kernel refuses: a stand-in answers, and the first
    config that runs is taken."""
    from selfattn.check.interpret import on_cpu

    on_cpu()  # as the CLI does before the file is imported
    skip_missing("triton_launcher_asks_driver.py")
    report = check(load("triton_launcher_asks_driver.py"))
    assert report.verdict == "ok", str(report)
    said = " | ".join(report.notes)
    assert "stand-in" in said and "first config that runs" in said


def test_layer_weights_gradients_name_a_detached_projection() -> None:
    """nn.MultiheadAttention's gradients pass; called under torch.no_grad() in a wrapper (an
    inference path left in the forward), every weight is named as getting none."""
    nn = torch.nn

    class Detached(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(0)
            self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x):
            with torch.no_grad():
                return self.mha(x, x, x, need_weights=False)[0]

    torch.manual_seed(0)
    right = check(nn.MultiheadAttention(8, 2, batch_first=True))
    assert right.verdict == "ok", str(right)
    assert any("weights match" in c.name and c.status == "pass" for c in right.checks)
    wrong = check(Detached())
    assert "backward-no-gradient" in wrong.ids, str(wrong)
