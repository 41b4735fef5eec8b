"""Why two heads (F29): two 2-D heads read the same sentence, and W_O joins their outputs.

Head 1 is the head F27 trains: the stored embeddings and W_V, with W_Q and W_K as gradient
descent leaves them after the opening run (learn.py). It reads content only, and row `it`
lands on `cat`. Head 2 is fitted, not trained: its W_Q, W_K and W_V (heads.json, two
decimals) were found by a search over two-decimal matrices, and it turns its queries and
keys by position as F28 does (θ radians a position). Content alone cannot point `it` at
`and` (and's embedding lies inside the others' hull, so no query ranks it first); the turn
can, and head 2 puts every row's largest weight on the word before it.

Each head's output is a weighted sum of its own values; the two, side by side, make a 4-D
row that W_O (4 × 2) maps back onto the plane: the output of `it` is head 1's output
through W_O's top half plus head 2's through its bottom half. A head switched off adds
nothing, and the output loses exactly that head's part.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources

import numpy as np

from . import learn
from .attention import apply_mask, softmax
from .bugs import turn
from .head import Head, load_head


@dataclass(frozen=True)
class TwoHeads:
    """Both heads' matrices (W_Q, W_K, W_V as (head, 2, 2) arrays), θ of head 2, and W_O."""

    W_Q: np.ndarray  # (2, d, d) head 1, head 2
    W_K: np.ndarray  # (2, d, d)
    W_V: np.ndarray  # (2, d, d)
    theta: tuple[float, float]  # radians a position each head turns by: 0 for head 1
    W_O: np.ndarray  # (2·d, d)

    def to_json(self) -> dict[str, object]:
        """Under heads.js's names, exact: the page redoes every number from these."""
        return {
            "WQ": self.W_Q.tolist(),
            "WK": self.W_K.tolist(),
            "WV": self.W_V.tolist(),
            "theta": list(self.theta),
            "WO": self.W_O.tolist(),
        }


def two_heads(head: Head | None = None) -> TwoHeads:
    """Head 1 trained on `head`'s embeddings and W_V (F27's opening run), head 2 and W_O
    from heads.json."""
    head = head or load_head()
    fitted = json.loads(resources.files("selfattn").joinpath("heads.json").read_text("utf-8"))
    trained = learn.outcome(head).opening
    # 200 steps of descent end a last bit apart on another numpy or CPU; twelve places are
    # far past what any figure shows, and make the page's data the same everywhere
    return TwoHeads(
        W_Q=np.array([np.round(trained.W_Q[-1], 12), fitted["W_Q"]]),
        W_K=np.array([np.round(trained.W_K[-1], 12), fitted["W_K"]]),
        W_V=np.array([head.W_V, fitted["W_V"]]),
        theta=(0.0, float(fitted["theta"])),
        W_O=np.array(fitted["W_O"]),
    )


@dataclass(frozen=True)
class Joined:
    """The two heads on the sentence, and the output of every token joined through W_O."""

    weights: np.ndarray  # (2, n, n) each head's causal weights
    outputs: np.ndarray  # (2, n, d) each head's output, in its own value space
    parts: np.ndarray  # (2, n, d) each head's output through its half of W_O
    output: np.ndarray  # (n, d) what W_O makes of the heads that are on: the sum of their parts


def join(head: Head, heads: TwoHeads, on: tuple[bool, bool] = (True, True)) -> Joined:
    """Both heads under the causal mask; a head that is off adds no part to the output."""
    X, d = head.X, head.X.shape[-1]
    positions = np.arange(len(head.tokens))
    weights, outputs, parts = [], [], []
    for h in range(2):
        Q = turn(X @ heads.W_Q[h], positions, heads.theta[h])  # (n, d)
        K = turn(X @ heads.W_K[h], positions, heads.theta[h])  # (n, d)
        W = softmax(apply_mask(Q @ K.T / math.sqrt(d), "causal"))  # (n, n)
        out = W @ (X @ heads.W_V[h])  # (n, d)
        weights.append(W)
        outputs.append(out)
        parts.append(out @ heads.W_O[h * d : (h + 1) * d])
    output = np.zeros_like(X)  # (n, d) the parts of the heads that are on, added in order
    for part, is_on in zip(parts, on, strict=True):
        if is_on:
            output = output + part
    return Joined(np.array(weights), np.array(outputs), np.array(parts), output)


def joined(head: Head | None = None, on: tuple[bool, bool] = (True, True)) -> Joined:
    """The two heads of `head` (the stored one unless given), joined with the heads in `on`."""
    head = head or load_head()
    return join(head, two_heads(head), on)
