"""Printing: fixed decimals, U+2212, scientific notation, sizes, and the intervals behind them."""

import pytest

from selfattn.numbers import FirstStep, Fixed, Percent, Scientific, fixed, grouped, size, vector


def test_fixed_uses_a_real_minus_and_no_negative_zero():
    assert fixed(-0.316) == "−0.32"
    assert fixed(-0.001) == "0.00"
    assert fixed(1.0, 3) == "1.000"


def test_scientific_uses_superscripts():
    assert Scientific(2)(1.17e-14) == "1.2 × 10⁻¹⁴"
    assert Scientific(2)(-3.0e5) == "−3.0 × 10⁵"


@pytest.mark.parametrize(
    ("fmt", "printed"),
    [
        (Fixed(2), "−0.45"),
        (Fixed(3), "0.572"),
        (Scientific(2), "1.2 × 10⁻¹⁴"),
        (Percent(), "1%"),
        (FirstStep(0.1), "4.4"),
    ],
)
def test_interval_edges_print_as_the_text(fmt, printed):
    lo, hi = fmt.interval(printed)
    assert fmt(lo + (hi - lo) * 1e-6) == printed
    assert fmt(hi - (hi - lo) * 1e-6) == printed
    assert fmt(hi + (hi - lo) * 0.1) != printed


def test_first_step_is_the_first_grid_point_past_the_threshold():
    assert FirstStep(0.1)(4.31) == "4.4"
    assert FirstStep(0.1)(4.3) == "4.4"  # a tie at 4.3 does not beat: 4.4 is first


def test_sizes_counts_and_vectors():
    assert size(2 * 1024**2) == "2.0 MiB"
    assert size(32 * 1024**3) == "32.0 GiB"
    assert grouped(131072) == "131,072"
    assert vector([0.8213, -0.81]) == "[0.82, −0.81]"
