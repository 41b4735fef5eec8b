"""Every claim holds with the committed head, and the check can fail."""

import json
import subprocess
import sys

import numpy as np
import pytest

from selfattn.claims import BY_ID, CLAIMS, failing
from selfattn.params import Head, head_from_json, load_head


@pytest.fixture(scope="module")
def head() -> Head:
    return load_head()


def test_every_claim_holds_with_the_committed_head(head):
    assert [c.id for c in failing(head)] == []


def test_every_parameter_has_at_most_two_decimals(head):
    np.testing.assert_array_equal(np.round(head.flat, 2), head.flat)


def test_claims_cover_the_spec_table():
    spec_ids = {
        "qk.it.cat.raw",
        "qk.it.it.raw",
        "asym.cat.ate",
        "asym.ate.cat",
        "mix.full.cat.ate",
        "bars.cat.cat.raw",
        "bars.ate.cat.raw",
        "longkey.and.factor",
        "matrix.it.cat",
        "matrix.the.flattest",
        "softmax.it.cat",
        "softmax.it.the",
        "softmax.floor.minus30",
        "sqrtd.d1",
        "sqrtd.d16",
        "sqrtd.d64",
        "causal.pos0.the",
        "causal.it.cat",
        "mulmask.it.ran",
        "output.it.x",
        "output.it.y",
        "convex.cat8.x",
        "convex.cat8.y",
        "convex.cat8.gap",
        "values.forward",
    }
    assert spec_ids <= set(BY_ID)


@pytest.mark.parametrize("index", range(24))
def test_a_one_cent_nudge_breaks_something_somewhere(head, index):
    """Not every nudge must break a claim, but the claims must notice most of them."""
    nudged = head.flat.copy()
    nudged[index] += 0.05
    broken = failing(Head.from_flat(head.tokens, nudged))
    if index in (0, 1):  # `the`'s embedding moves mostly its own flat row
        return
    assert broken, f"moving parameter {index} by 0.05 left every claim holding"


def test_orderings_are_checked_not_just_numbers(head):
    """Swap two keys' roles: the printed numbers may survive, the orderings must not."""
    X = head.X.copy()
    X[[1, 3]] = X[[3, 1]]  # cat and `and` trade embeddings
    swapped = Head(head.tokens, X, head.W_Q, head.W_K, head.W_V)
    assert not BY_ID["qk.it.cat.raw"].holds(swapped)


def test_batched_claims_agree_with_single_heads(head):
    rng = np.random.default_rng(0)
    batch = head.flat + rng.normal(scale=0.02, size=(5, 24))
    heads = Head.from_flat(head.tokens, batch)
    for claim in CLAIMS:
        inside, condition = claim.margins(heads)
        for k in range(5):
            one = Head.from_flat(head.tokens, batch[k])
            single_inside, single_condition = claim.margins(one)
            if inside is not None:
                assert inside[k] == pytest.approx(float(single_inside), abs=1e-12)
            if condition is not None:
                assert condition[k] == pytest.approx(float(single_condition), abs=1e-12)


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "selfattn", *args], capture_output=True, text=True, timeout=60
    )


def test_cli_prints_the_table_and_passes():
    result = run_cli("claims")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "qk.it.cat.raw" in result.stdout and "1.2 × 10⁻¹⁴" in result.stdout
    assert f"{len(CLAIMS)} of {len(CLAIMS)} claims hold" in result.stdout


def test_cli_fails_on_a_perturbed_head(tmp_path, head):
    data = head.to_json()
    data["W_K"][0][0] += 0.03
    path = tmp_path / "head.json"
    path.write_text(json.dumps(data))
    result = run_cli("claims", "--head", str(path))
    assert result.returncode == 1
    assert "FAIL" in result.stdout


@pytest.mark.parametrize(
    "text",
    [
        "{",
        '{"tokens": ["a"]}',
        '{"tokens": ["a"], "embeddings": {"a": [1, 2]}, "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}',
        "[]",
    ],
)
def test_cli_refuses_a_malformed_head_in_one_line(tmp_path, text):
    path = tmp_path / "head.json"
    path.write_text(text)
    result = run_cli("claims", "--head", str(path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_cli_refuses_a_missing_head():
    result = run_cli("claims", "--head", "/nonexistent/head.json")
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_schema_errors_name_the_problem():
    with pytest.raises(ValueError, match="schema"):
        head_from_json({"tokens": ["a"]})


@pytest.mark.parametrize(
    "args",
    [["fit", "--out", "/nonexistent/folder/head.json"], ["fit", "--seconds", "-1"]],
)
def test_fit_refuses_bad_invocations_at_once(args):
    result = run_cli(*args)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0


def test_unknown_command_is_refused():
    result = run_cli("frobnicate")
    assert result.returncode == 2 and "Traceback" not in result.stderr
