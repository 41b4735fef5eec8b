"""Every claim holds with the committed head, and the check can fail."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from selfattn.attention import softmax
from selfattn.claims import BY_ID, CLAIMS, failing, row, width_mix
from selfattn.head import Head, head_from_json, load_head
from selfattn.site.build import CONTENT, figure_label


@pytest.fixture(scope="module")
def head() -> Head:
    return load_head()


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_holds_with_the_committed_head(head, claim):
    assert claim.holds(head), f"{claim.id} prints {claim.computed(head)}, not {claim.printed}"


def test_claim_ids_are_unique():
    assert len(BY_ID) == len(CLAIMS)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_belongs_to_a_figure_of_the_article(claim):
    """A claim names its figure by the label a reader sees (F07), counted from the page order
    of the figures' slugs, as the builder counts it."""
    captions = json.loads((CONTENT / "figures.json").read_text("utf-8"))
    slugs = re.findall(r"\{\{figure ([a-z][a-z0-9-]*)\}\}", (CONTENT / "en.md").read_text("utf-8"))
    labels = {figure_label(place): slug for place, slug in enumerate(slugs)}
    assert claim.figure in labels and labels[claim.figure] in captions


def test_every_parameter_has_at_most_two_decimals(head):
    np.testing.assert_array_equal(np.round(head.flat, 2), head.flat)


NUDGE = 0.10  # ten cents: the parameters have two decimals


@pytest.mark.parametrize("sign", [1, -1], ids=["up", "down"])
@pytest.mark.parametrize("index", range(load_head().flat.size))
def test_a_ten_cent_nudge_of_any_parameter_breaks_a_claim(head, index, sign):
    """The claims pin the head: no parameter can move a tenth either way unnoticed."""
    nudged = head.flat.copy()
    nudged[index] += sign * NUDGE
    broken = failing(Head.from_flat(head.tokens, nudged))
    assert broken, f"moving parameter {index} by {sign * NUDGE:+.2f} left every claim holding"


def test_orderings_are_checked_not_just_numbers(head):
    """Swap two keys' roles: the printed numbers may survive, the orderings must not."""
    X = head.X.copy()
    X[[1, 3]] = X[[3, 1]]  # cat and `and` trade embeddings
    swapped = Head(head.tokens, X, head.W_Q, head.W_K, head.W_V)
    assert not BY_ID["qk.it.cat.raw"].holds(swapped)


def test_batched_claims_agree_with_single_heads(head):
    rng = np.random.default_rng(0)
    batch = head.flat + rng.normal(scale=0.02, size=(5, head.flat.size))
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


WIDTHS = [2**k for k in range(9)]  # F15 and F16's slider: 1 … 256


def test_the_width_experiment_is_anchored_at_the_toy(head):
    """Width 2 is the toy's raw row ate; divided by √d, every width is the toy's own scaled
    row (F11's), so F16 and F11 print the same top weight (SPEC §2.1)."""
    np.testing.assert_allclose(width_mix(head, 2), softmax(row(head, "R", "ate")))
    toy = row(head, "W", "ate")
    for d in WIDTHS:
        np.testing.assert_allclose(width_mix(head, d, "sqrt"), toy, rtol=1e-12)
    assert BY_ID["sqrtd.held"].computed(head) == "0.44" == f"{toy.max():.2f}"
    # without a divisor the mix collapses: the scores at width d are raw·√(d/2)
    np.testing.assert_allclose(width_mix(head, 16), softmax(row(head, "R", "ate") * 8**0.5))
    assert [BY_ID[f"sqrtd.d{d}"].printed for d in (2, 16, 64)] == ["0.572", "0.959", "0.999"]


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


def test_F03s_question_reads_its_numbers_from_the_head(head):
    """F03's answer: it's own key is the closest and catches the longest shadow, yet cat's,
    longer, scores higher; the numbers its "why" prints are the head's, to the printed digit."""
    from selfattn.claims import shadows
    from selfattn.site.prose_numbers import prose_numbers

    numbers = prose_numbers(head)
    cast = shadows(head, "it")
    for key in ("it", "cat"):
        assert numbers[f"shadow.it.{key}"] == f"{cast[head.index(key)]:.2f}"
    assert float(numbers["angle.it.it"]) < float(numbers["angle.it.cat"])
    assert float(numbers["shadow.it.it"]) > float(numbers["shadow.it.cat"])
    raw = {key: float(BY_ID[f"qk.it.{key}.raw"].computed(head)) for key in ("cat", "it")}
    assert raw["cat"] > raw["it"]
    why = json.loads((CONTENT / "predictions.json").read_text("utf-8"))["query-meets-keys"]
    assert all("{{claim shadow.it.it}}" in why[lang]["why"] for lang in ("en", "zh"))
