"""The numbers the article picks rather than computes, defined once and shipped to the page.

Each is a choice of the text (a score to push a bar to, a context length to price), so the
figures must use the same value the prose prints: Python owns it, the page reads it. So does
the one random draw a figure reports (F26's spread at initialisation): numpy makes it here, and
the page needs no random numbers of its own.
"""

from __future__ import annotations

from .attention import spread_at_init
from .cost import GPT2_SMALL

FLOOR_SCORE = -30.0  # a score low enough that its weight is invisible yet not zero (F13)
NAMED_RAW = 8.0  # the raw score F21's prose pushes cat's bar to
GPT2_CONTEXT = 1_024  # GPT-2's context length, F23's starting point
LONG_CONTEXT = 131_072  # a long context of today's models, priced in F23 and F24
THOUSAND_TOKENS = 1_000  # 1,000 tokens → 1,000,000 dot products (F23)
HUGE_SHIFT = 1_000  # F11's largest shift: past exp's overflow in float64
INIT_WIDTH = GPT2_SMALL.d_head  # F26 runs its √d assertion at a GPT-2 small head's width, 64
STRETCH = 10.0  # how many times longer F26 makes `and`'s key when nothing keeps keys in check
KEY_LIMIT = 4.0  # the longest key over the median key that F26's assertion allows
ROPE_THETA = 1.0  # radians a position: F26's RoPE, and where F28's θ starts
TURN_SHIFTS = range(11)  # F28 shifts every position together by 0 to 10


def for_page() -> dict[str, float]:
    """The same numbers under the names the browser modules use."""
    return {
        "floorScore": FLOOR_SCORE,
        "namedRaw": NAMED_RAW,
        "gpt2Context": GPT2_CONTEXT,
        "longContext": LONG_CONTEXT,
        "thousandTokens": THOUSAND_TOKENS,
        "hugeShift": HUGE_SHIFT,
        "initWidth": INIT_WIDTH,
        "initSpread": spread_at_init(INIT_WIDTH),
        "stretch": STRETCH,
        "keyLimit": KEY_LIMIT,
        "ropeTheta": ROPE_THETA,
        "turnShift": TURN_SHIFTS[-1],
    }
