"""`check(..., in_process=True)` leaves its target as it found it, and calls it on one thread
(issue 32); the default, a child process, leaves it untouched by construction."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import numpy as np
import pytest

from selfattn.check import check

from .corpus_cases import load


def softmax_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return weights / weights.sum(-1, keepdims=True) @ v


def test_every_call_on_one_thread_check_after_check() -> None:
    """tinygrad's compile cache is an SQLite connection opened on the first call: only that
    thread may use it, in this check and the next."""
    threads: set[threading.Thread] = set()  # the objects: a new thread may reuse an ident
    cache: list[sqlite3.Connection] = []

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        threads.add(threading.current_thread())
        if not cache:
            cache.append(sqlite3.connect(":memory:"))
        cache[0].execute("SELECT 1").fetchone()  # ProgrammingError on another thread
        return softmax_attention(q, k, v)

    first, second = check(attention, in_process=True), check(attention, in_process=True)
    assert first.ok and second.ok, str(second)
    assert len(threads) == 1 and threading.current_thread() not in threads


def test_a_stuck_call_does_not_hold_up_the_next_check() -> None:
    release = threading.Event()

    def stuck(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        release.wait(30)
        return softmax_attention(q, k, v)

    try:
        assert check(stuck, timeout=0.2, in_process=True).verdict == "error"
        assert check(softmax_attention, timeout=2.0, in_process=True).ok
    finally:
        release.set()


def test_module_left_in_training_mode_with_its_buffers() -> None:
    torch = pytest.importorskip("torch")
    nn = torch.nn

    class CachingHead(nn.Module):
        """Counts its calls in a buffer, keeps the last keys as an attribute, has dropout."""

        def __init__(self) -> None:
            super().__init__()
            self.drop = nn.Dropout(0.1)
            self.register_buffer("calls", torch.zeros(()))
            self.last_k = torch.zeros(1)

        def forward(self, q: Any, k: Any, v: Any) -> Any:
            self.calls += 1
            self.last_k = k
            w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1)
            return self.drop(w) @ v

    head = CachingHead()
    calls, last_k = head.calls, head.last_k
    report = check(head, in_process=True)
    assert report.ok, str(report)
    assert head.training and head.drop.training
    assert head.calls is calls and float(head.calls) == 0
    assert head.last_k is last_k and float(head.last_k.abs().sum()) == 0


def test_layer_left_with_its_weights_and_angles() -> None:
    pytest.importorskip("torch")
    layer = load("torch_layer_rotary.py")
    module = getattr(layer, "__self__", layer)
    before = {k: v.clone() for k, v in module.state_dict().items()}
    angles = {n: v.clone() for n, v in vars(module).items() if hasattr(v, "clone")}
    check(layer, in_process=True)
    after = module.state_dict()
    assert all(bool((after[k] == v).all()) for k, v in before.items())
    assert all(bool((vars(module)[n] == v).all()) for n, v in angles.items())
