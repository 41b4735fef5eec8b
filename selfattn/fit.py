"""Find a two-decimal head that makes every claim of the article hold.

How it works, in two stages:

1. **Continuous solve** (scipy's `least_squares`) from a random start. Each claim
   becomes a residual that is zero once the claim sits well inside its target: a
   printed number stands for the interval of values that print that way, an ordering
   ("the largest of row it") for a positive margin. Soft residuals for looks ride
   along: entries of modest size, embeddings spread around the plane at readable
   lengths. A first pass weighs every miss in the claim's own units, so no tight claim
   dominates the descent; a second pass weighs it in units of its tolerance.
2. **Integer programming on the 0.01 grid.** Rounding all 24 parameters at once throws
   a printed raw score (tolerance ±0.005) out of its interval, because one cent on an
   embedding moves a score by about 0.02. Near the continuous solution every claim is
   close to linear, so finding offsets of a few cents that put every claim back inside
   its interval is a small mixed-integer program (HiGHS via `scipy.optimize.milp`). The
   answer is checked with the real claims; where the linear model was off, it is
   rebuilt at that grid point and solved again.

Every start that ends with all claims holding is scored for looks; the nicest wins.
The result is written to head.json; `selfattn claims` checks it independently.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from .claims import (
    FITTED,
    KEY_GAP_DEGREES,
    QUERY_SWING_DEGREES,
    Claim,
    angle_gaps,
    key_gap_degrees,
    key_gap_margin,
    swing,
    swing_margin,
)
from .files import replace_file
from .head import Head

TOKENS = ("the", "cat", "ate", "and", "it", "ran")
N_PARAMS = 6 * 2 + 3 * 4
ORDERING_TOLERANCE = 0.05  # an ordering counts as comfortable 0.05 past a tie
LOOK_WEIGHT = 0.3  # how much looks may pull against the claims in the continuous solve
CENT = 0.01  # the grid: every parameter has at most two decimals


def _tolerance(claim: Claim) -> float:
    """Half the rounding interval of a printed number; a fixed amount for an ordering."""
    if claim.value is not None and claim.printed is not None:
        lo, hi = claim.fmt.interval(claim.printed)
        return (hi - lo) / 2
    return ORDERING_TOLERANCE


Claims = tuple[Claim, ...]


def claim_margins(heads: Head, claims: Claims = FITTED) -> np.ndarray:
    """Each claim's margin in units of its tolerance: (..., claims); 1 is comfortable, ≤ 0 fails."""
    columns = []
    with np.errstate(all="ignore"):
        for claim in claims:
            tolerance = _tolerance(claim)
            inside, condition = claim.margins(heads)
            scaled = [] if inside is None else [inside / tolerance]
            if condition is not None:
                scaled.append(condition / ORDERING_TOLERANCE)
            columns.append(np.minimum.reduce(scaled))
    margins = np.stack(columns, axis=-1)
    return np.where(np.isfinite(margins), margins, -10.0)


def look_residuals(head: Head) -> np.ndarray:
    """Soft costs for a head that is hard to look at (zero when it is pleasant)."""
    lengths = np.linalg.norm(head.X, axis=-1)
    mats = np.concatenate([head.W_Q.ravel(), head.W_K.ravel(), head.W_V.ravel()])
    reach = np.abs(np.concatenate([head.run()["Q"], head.run()["K"]])).max(axis=-1)
    return np.concatenate(
        [
            np.maximum(0, 24 - angle_gaps(head.X)) / 24,  # six arrows, no two stacked
            np.maximum(0, 0.8 - lengths) / 0.4,
            np.maximum(0, lengths - 2.0) / 0.4,
            np.maximum(0, np.abs(mats) - 1.5) / 0.5,
            np.maximum(0, reach - 2.6) / 0.5,  # queries and keys stay on the drawn plane
        ]
    )


def look_score(head: Head) -> float:
    """Lower is nicer: the look residuals plus a mild preference for small entries."""
    return float(np.sum(look_residuals(head) ** 2) + 0.01 * np.sum(head.flat**2))


def _residuals(p: np.ndarray, coarse: bool = False, claims: Claims = FITTED) -> np.ndarray:
    head = Head.from_flat(TOKENS, p)
    tolerances = np.array([_tolerance(c) for c in claims])
    with np.errstate(all="ignore"):
        # Margins in the claims' own units here: an ordering with both a value and a
        # condition then pulls as hard as its tightest part, which the descent needs.
        margins = np.array([min(m for m in c.margins(head) if m is not None) for c in claims])
        margins = np.where(np.isfinite(margins), margins, -10.0)
        look = LOOK_WEIGHT * look_residuals(head)
    misses = np.maximum(0.0, 0.6 * tolerances - margins)  # aim 60% of the way in
    claim_part = misses / 0.1 if coarse else misses / tolerances
    return np.concatenate([claim_part, look, [0.03 * np.linalg.norm(p)]])


def solve_continuous(rng: np.random.Generator) -> np.ndarray:
    """One random start of the continuous solve; returns the parameter vector."""
    from scipy.optimize import least_squares

    start = rng.uniform(-1.2, 1.2, N_PARAMS)
    rough = least_squares(_residuals, start, kwargs={"coarse": True}, max_nfev=2000)
    return least_squares(_residuals, rough.x, max_nfev=2000).x


def _claim_rows(heads: Head, claims: Claims = FITTED) -> np.ndarray:
    """Every claim's value and every condition's margin, side by side: (..., rows)."""
    rows = []
    with np.errstate(all="ignore"):
        for claim in claims:
            if claim.value is not None and claim.printed is not None:
                rows.append(np.asarray(claim.value(heads), dtype=float))
            if claim.condition is not None:
                rows.append(np.asarray(claim.condition(heads), dtype=float))
    return np.stack(rows, axis=-1)


def _row_bounds(room: float, claims: Claims = FITTED) -> tuple[np.ndarray, np.ndarray]:
    """Bounds for `_claim_rows`: printed intervals shrunk by `room` of their tolerance."""
    lower, upper = [], []
    for claim in claims:
        if claim.value is not None and claim.printed is not None:
            lo, hi = claim.fmt.interval(claim.printed)
            shrink = room * (hi - lo) / 2
            lower.append(lo + shrink)
            upper.append(hi - shrink)
        if claim.condition is not None:
            lower.append(room * ORDERING_TOLERANCE)
            upper.append(np.inf)
    return np.array(lower), np.array(upper)


def round_by_milp(p: np.ndarray, reach: int = 4, rounds: int = 8) -> Head | None:
    """Find a grid point near p where every claim holds, by integer programming.

    Around a point each claim is close to linear over a few cents, so "which offsets of
    at most `reach` cents per parameter put every value inside its printed interval,
    moving as little as possible" is a small mixed-integer program (HiGHS, through
    scipy). The linear model is not exact, so the answer is checked with the real
    claims; if one misses, the model is rebuilt at that grid point and solved again
    with more room and a shorter reach, where the linear model is closer to the truth.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = N_PARAMS
    identity = np.eye(n)
    absolute = LinearConstraint(
        np.block([[identity, -identity], [-identity, -identity]]), -np.inf, 0
    )
    centre, room = p.copy(), 0.2
    for attempt in range(rounds):
        base = np.round(centre, 2)
        nudges = np.vstack([centre, centre + 1e-5 * identity])
        rows = _claim_rows(Head.from_flat(TOKENS, nudges))
        if not np.isfinite(rows).all():
            return None
        J = (rows[1:] - rows[0]).T / 1e-5  # (rows, params)
        at_base = rows[0] + J @ (base - centre)
        lower, upper = _row_bounds(room)
        step = reach if attempt == 0 else 2
        result = milp(  # variables: n offsets in cents, then n bounds on their size
            c=np.r_[np.zeros(n), np.ones(n)],
            constraints=[
                LinearConstraint(
                    np.hstack([J * CENT, np.zeros_like(J)]), lower - at_base, upper - at_base
                ),
                absolute,
            ],
            integrality=np.r_[np.ones(n), np.zeros(n)],
            bounds=Bounds(
                np.r_[-step * np.ones(n), np.zeros(n)], np.r_[step * np.ones(n), step * np.ones(n)]
            ),
            options={"time_limit": 10},
        )
        if result.x is None:
            room /= 2  # asked for too much room: ask for less
            continue
        grid = np.round(base + CENT * np.round(result.x[:n]), 2)
        head = Head.from_flat(TOKENS, grid)
        if all(c.holds(head) for c in FITTED):
            return head
        centre, room = grid, min(0.8, room + 0.15)
    return None


def search(seconds: float, seed: int, log: Callable[[str], None] = print) -> list[Head]:
    """Random starts until the time is up; every two-decimal head found that passes."""
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + seconds
    found, starts = [], 0
    while time.monotonic() < deadline:
        starts += 1
        p = solve_continuous(rng)
        if claim_margins(Head.from_flat(TOKENS, p)).min() < 0:
            continue  # the continuous solve did not get there: rounding cannot save it
        head = round_by_milp(p)
        if head is None:
            log(f"seed {seed}, start {starts}: solved, but no grid point found nearby")
            continue
        log(f"seed {seed}, start {starts}: every claim holds, look score {look_score(head):.3f}")
        found.append(head)
    return found


def fit(seconds: float = 75.0, seed: int = 1, workers: int | None = None, log=print) -> Head:
    """Search on every core at once; return the nicest head that passes every claim."""
    workers = workers or os.cpu_count() or 1
    seeds = [seed + k for k in range(workers)]
    if workers == 1:
        found = search(seconds, seed, log)
    else:
        with ProcessPoolExecutor(workers) as pool:
            found = [h for hs in pool.map(search, [seconds] * workers, seeds) for h in hs]
    if not found:
        raise RuntimeError(f"no two-decimal head found with seeds {seeds}; give it more time")
    return min(found, key=look_score)


def picture_targets(swing_at_least: float, keys_at_least: float) -> Claims:
    """The claims, with F02's swing and F03's key gap asking for the given degrees."""
    conditions = {
        "swing.q.v": partial(swing_margin, least=swing_at_least),
        "keys.apart": partial(key_gap_margin, least=keys_at_least),
    }
    return tuple(
        replace(c, condition=conditions[c.id]) if c.id in conditions else c for c in FITTED
    )


def continue_from(head: Head, steps: int = 20, log: Callable[[str], None] = print) -> Head:
    """Walk a head whose numbers all hold to one whose pictures hold too.

    Random starts rarely land where F02's swing and the spread of F03's keys hold
    together with every printed number. This walk gets there: from where `head` stands,
    raise the swing and key-gap targets a little each step (to a degree and half a degree
    past the article's), solving each step from the last, so every solve starts inside
    the region where everything else already holds; then put the result on the grid.
    """
    from scipy.optimize import least_squares

    q_from, gap_from = float(swing(head)[0]), float(key_gap_degrees(head))
    q_to, gap_to = QUERY_SWING_DEGREES + 1, KEY_GAP_DEGREES + 0.5
    p = head.flat.copy()
    for k in range(1, steps + 1):
        f = k / steps
        targets = picture_targets(q_from + f * (q_to - q_from), gap_from + f * (gap_to - gap_from))
        p = least_squares(_residuals, p, kwargs={"claims": targets}, max_nfev=600).x
        worst = claim_margins(Head.from_flat(TOKENS, p), targets).min()
        log(f"step {k}/{steps}: every claim within {worst:.2f} of its tolerance")
    found = round_by_milp(p)
    if found is None:
        raise RuntimeError("the walk ended where no two-decimal head is near; try more steps")
    return found


def write_head(head: Head, path: str | Path) -> None:
    """Write head.json in the schema of SPEC §2, one line per part so a diff reads well."""
    data = head.to_json()
    embeddings = ", ".join(f'"{t}": {json.dumps(v)}' for t, v in data["embeddings"].items())
    lines = [f'  "tokens": {json.dumps(data["tokens"])}', f'  "embeddings": {{{embeddings}}}']
    lines += [f'  "{name}": {json.dumps(data[name])}' for name in ("W_Q", "W_K", "W_V")]
    replace_file(path, "{\n" + ",\n".join(lines) + "\n}\n")  # whole, or the old one kept
