"""The array libraries as one table (frameworks.FRAMEWORKS): every entry makes its arrays, reads
them back, and writes the reproductions' masks and literals as its own arrays; a new library is
one entry, and these tests run on it as they stand."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.check.frameworks import FRAMEWORKS, Backend, available, materialize

KINDS = ("keep", "block", "additive")


def _run(name: str, lines: list[str]) -> dict:
    """The names the source lines define, run with the library's own import."""
    scope: dict = {}
    exec("\n".join(["import numpy as np", FRAMEWORKS[name].imports, *lines]), scope)
    return scope


def _own(name: str, x: object) -> bool:
    """Whether x is an array of library `name` (JAX's arrays are jaxlib's type)."""
    return type(x).__module__.split(".")[0] in {"jax": {"jax", "jaxlib"}}.get(name, {name})


@pytest.mark.parametrize("name", FRAMEWORKS)
@pytest.mark.parametrize("kind", KINDS)
def test_mask_text_makes_the_library_s_own_array(name: str, kind: str) -> None:
    fw = FRAMEWORKS[name]
    text = fw.mask(kind, fw.array_text("[[True, True, False]]"))
    # tinygrad and MLX build the mask in numpy and hand it over: the text says so
    assert fw.wrap == "{}" or text.startswith(fw.wrap.split("{")[0]), text
    if not available(name):
        pytest.skip(f"{name} is not installed")
    made = _run(name, [f"mask = {text}"])["mask"]
    assert _own(name, made), type(made)
    read = materialize(made).value
    want = {"keep": [[1, 1, 0]], "block": [[0, 0, 1]], "additive": [[0, 0, -np.inf]]}[kind]
    assert np.array_equal(np.asarray(read, dtype=float), want)


@pytest.mark.parametrize("name", FRAMEWORKS)
def test_literals_and_handing_over_round_trip(name: str) -> None:
    if not available(name):
        pytest.skip(f"{name} is not installed")
    x = np.array([[1.5, -2.0], [0.25, 3.0]])
    b = Backend(name, "float32")
    scope = _run(
        name, [f"a = {b.literal(x)}", f"c = {b.from_numpy('np.array(' + repr(x.tolist()) + ')')}"]
    )
    for made in (scope["a"], scope["c"], b.floats(x)):
        assert _own(name, made), type(made)
        assert np.allclose(np.asarray(materialize(made).value, dtype=float), x)


@pytest.mark.parametrize("name", FRAMEWORKS)
@pytest.mark.parametrize("form", ["additive", "keep", "block"])
def test_a_layer_s_causal_mask_and_input_run_as_written(name: str, form: str) -> None:
    """The layer's words of each entry (draw, triangle, lowest), as repro.py writes them: the
    mask `causal(n)` keeps the past (the lowest value on the future, when added) and x has
    the shape asked for."""
    if not available(name):
        pytest.skip(f"{name} is not installed")
    from selfattn.check.layer import CausalMask
    from selfattn.check.repro import causal_def, drawn

    fw = FRAMEWORKS[name]
    scope = _run(name, [*causal_def(fw, CausalMask("mask", form, True), "float32")])
    scope |= _run(name, [drawn(fw, "x", (2, 3, 4), 0, "float32")])
    made = np.asarray(materialize(scope["causal"](3)).value, dtype=float)
    keep = np.tril(np.ones((3, 3), dtype=bool))
    want = {"keep": keep, "block": ~keep, "additive": np.where(keep, 0.0, np.finfo("f4").min)}
    assert np.array_equal(made, want[form]), made
    assert tuple(materialize(scope["x"]).value.shape) == (2, 3, 4)
