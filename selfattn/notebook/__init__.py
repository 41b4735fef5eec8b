"""The article's figures on your own model's attention, as notebook widgets (`selfattn[notebook]`).

One module per view: map.py (show_map), heads.py (show_heads), lines.py (show_lines),
compare.py (show_compare), qk.py (show, show_layer), several.py (show_map(..., heads=[...])),
text.py (show_tokens); widget.py holds what they share.

>>> from selfattn.notebook import show_map, show
>>> m = show_map(weights, tokens, causal=True)  # doctest: +SKIP
>>> m.row  # the query row the reader picked in the browser  # doctest: +SKIP
>>> m.failed  # every head that breaks an invariant, and what it breaks  # doctest: +SKIP
>>> m.save_html("map.html", layers=[0, 11])  # one file, works offline  # doctest: +SKIP
"""

from selfattn.notebook.compare import Compare, show_compare
from selfattn.notebook.heads import HeadsMap, show_heads
from selfattn.notebook.lines import show_lines
from selfattn.notebook.map import AttentionMap, show_map
from selfattn.notebook.qk import HeadView, show, show_layer
from selfattn.notebook.text import show_tokens

__all__ = [
    "AttentionMap",
    "Compare",
    "HeadView",
    "HeadsMap",
    "show",
    "show_compare",
    "show_heads",
    "show_layer",
    "show_lines",
    "show_map",
    "show_tokens",
]
