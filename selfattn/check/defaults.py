"""Whether a torch layer's score scale was chosen when it was built or set by its defaults.

A layer built with its constructor's defaults must scale by 1/sqrt(d); only a scale handed to
the constructor (timm's `qk_scale=`) is the layer's own. What the layer was built with is gone
once it is built, so a twin is built instead: every constructor parameter the layer holds under
its own name as a plain value passed on as held, a required one it does not hold taken as the
model width, the rest (and any held at the scale itself) left at their defaults. If the twin
holds the same scale, the defaults set it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import sys
from typing import Any

PLAIN = (int, float, bool, str, type(None))
MISSING = object()


def set_by_defaults(module: Any, holder: str, scale: float, width: int) -> bool:
    """Whether a twin of `module` built with its defaults holds `scale` at `holder` (dotted)
    too; False where no twin can be built (a required argument held as an object, a config)."""
    given = _arguments(module, scale, width)
    if given is None:
        return False
    torch = sys.modules["torch"]
    try:
        with torch.random.fork_rng(), contextlib.redirect_stdout(None):
            twin = type(module)(**given)
        held = functools.reduce(getattr, holder.split("."), twin)
        return math.isclose(float(held), scale, rel_tol=1e-3)
    except Exception:  # a constructor that cannot be built so is no evidence either way
        return False


def _arguments(module: Any, scale: float, width: int) -> dict[str, Any] | None:
    """The twin's constructor arguments, read from what `module` holds; None: not knowable."""
    try:
        params = inspect.signature(type(module)).parameters.values()
    except (TypeError, ValueError):
        return None
    given: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        held = vars(module).get(p.name, MISSING)
        at_scale = isinstance(held, float) and math.isclose(held, scale, rel_tol=1e-3)
        if held is not MISSING and not isinstance(held, PLAIN) and p.default is p.empty:
            return None
        if at_scale and p.default is p.empty:  # a scale the constructor requires is chosen
            return None
        if isinstance(held, PLAIN) and not (at_scale and p.default is not p.empty):
            given[p.name] = held
        elif p.default is p.empty:
            given[p.name] = width
    return given
