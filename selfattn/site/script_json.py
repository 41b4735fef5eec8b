"""JSON that may sit inside an HTML `<script>` element, whatever strings it holds.

The HTML parser reads a script's text before JavaScript does: `</script` ends it, and
`<!--` followed later by `<script>` puts the parser in a state where the real `</script>`
no longer ends it (the page then shows nothing and raises no error). JSON may write any
character as `\\uXXXX`, so `<`, `>` and `&` are written so and the parser sees none of them;
U+2028 and U+2029 too, which older JavaScript read as line ends inside a string. The page
reads the same values back with `JSON.parse`.
"""

from __future__ import annotations

import json
import math
from typing import Any

ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
# characters outside strings are JSON's own punctuation, never these: replacing them in the
# whole text changes only what strings hold, and only how they are written


def script_json(value: Any, **dumps: Any) -> str:
    """`json.dumps(value, **dumps)` safe between `<script type="application/json">` tags; a
    number that is not finite is written null (JSON has no NaN or Infinity: `JSON.parse`
    threw on them and a saved map with a 3e38 weight opened blank, hostile pass 7)."""
    try:
        text = json.dumps(value, **{**dumps, "allow_nan": False})
    except ValueError:  # rare: walk the value only then
        text = json.dumps(_finite(value), **{**dumps, "allow_nan": False})
    # one str.replace a character, not str.translate: translate leaves its fast ASCII path at
    # the first character it maps to several (a "<" in the page's CSS) and then writes every
    # other character one by one, 4.6 s of a 16-bit saved map's 18 MB; replace skips at
    # memchr speed to the few it finds
    for found, written in ESCAPES.items():
        text = text.replace(found, written)
    return text


def _finite(value: Any) -> Any:
    """`value` with every float that is not finite replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
