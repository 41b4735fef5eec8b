"""How numbers print: fixed decimals, U+2212 minus, 1.2 × 10⁻¹⁴, bytes, counts.

The CLI, the page builder and (mirrored in numbers.js) the page all print through
these functions, so a claim reads the same everywhere. Each format also knows the
interval of true values that print as a given text, which is what the fit aims at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MINUS = "\u2212"
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _minus(text: str) -> str:
    return text.replace("-", MINUS)


def fixed(x: float, decimals: int = 2) -> str:
    """`fixed(-0.315, 2)` → '−0.32'; a value that rounds to zero prints without a sign."""
    if not math.isfinite(x):
        return "∞" if x > 0 else MINUS + "∞" if x < 0 else "NaN"
    text = f"{x:.{decimals}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return _minus(text)


def scientific(x: float, digits: int = 2) -> str:
    """`scientific(1.17e-14)` → '1.2 × 10⁻¹⁴' (digits significant figures)."""
    if x == 0 or not math.isfinite(x):
        return fixed(x, digits - 1)
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{_minus(mantissa)} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def grouped(n: int) -> str:
    """`grouped(131072)` → '131,072'."""
    return _minus(f"{n:,}")


def vector(v, decimals: int = 2) -> str:
    """`vector([0.8213, 0.81])` → '[0.82, 0.81]'."""
    return "[" + ", ".join(fixed(float(x), decimals) for x in v) + "]"


def weight(w: float, decimals: int = 3) -> str:
    """A weight: fixed decimals while they show it, scientific below (never a bare 0).

    `weight(0.30412)` → '0.304'; `weight(1.2e-14)` → '1.2 × 10⁻¹⁴'.
    """
    return scientific(w) if 0 < w < 0.5 * 10.0**-decimals else fixed(w, decimals)


def cell_weight(w: float) -> str:
    """A weight in a map cell, five characters at most: '0' (exact), '<0.01' or '0.34'."""
    if w == 0:
        return "0"
    return "<0.01" if w < 0.005 else fixed(w)


def percent(x: float) -> str:
    """A fraction as a whole percentage: `percent(0.0103)` → '1%'."""
    return f"{fixed(100 * x, 0)}%"


_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB")


def size(n_bytes: float, decimals: int = 1) -> str:
    """`size(2 * 1024**2)` → '2.0 MiB': binary units, as the cost figure prints them."""
    unit = 0
    while n_bytes >= 1024 and unit < len(_UNITS) - 1:
        n_bytes /= 1024
        unit += 1
    return f"{fixed(n_bytes, decimals if unit else 0)} {_UNITS[unit]}"


# -- formats that know what interval a printed text stands for ----------------


@dataclass(frozen=True)
class Fixed:
    """A value printed with fixed decimals."""

    decimals: int = 2

    def __call__(self, x: float) -> str:
        return fixed(x, self.decimals)

    def interval(self, printed: str) -> tuple[float, float]:
        centre = float(printed.replace(MINUS, "-"))
        half = 0.5 * 10.0**-self.decimals
        return centre - half, centre + half


@dataclass(frozen=True)
class Scientific:
    """A value printed in scientific notation with `digits` significant figures."""

    digits: int = 2

    def __call__(self, x: float) -> str:
        return scientific(x, self.digits)

    def interval(self, printed: str) -> tuple[float, float]:
        mantissa, power = printed.split(" × 10")
        exponent = int(power.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")))
        centre = float(mantissa.replace(MINUS, "-"))
        half = 0.5 * 10.0 ** -(self.digits - 1)
        return (centre - half) * 10.0**exponent, (centre + half) * 10.0**exponent


@dataclass(frozen=True)
class Percent:
    """A fraction printed as a whole percentage: 0.0103 → '1%'."""

    def __call__(self, x: float) -> str:
        return percent(x)

    def interval(self, printed: str) -> tuple[float, float]:
        centre = float(printed.rstrip("%").replace(MINUS, "-")) / 100
        return centre - 0.005, centre + 0.005


@dataclass(frozen=True)
class FirstStep:
    """A threshold printed as the first slider step strictly past it: 4.37 → '4.4'."""

    step: float = 0.1

    def __call__(self, x: float) -> str:
        if not math.isfinite(x) or x < 0:
            return "—"
        decimals = max(0, -math.floor(math.log10(self.step)))
        return fixed((math.floor(round(x / self.step, 9)) + 1) * self.step, decimals)

    def interval(self, printed: str) -> tuple[float, float]:
        top = float(printed.replace(MINUS, "-"))
        return top - self.step, top
