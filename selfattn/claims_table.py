"""`selfattn claims`: every claim of the article as a table, and whether it holds."""

from __future__ import annotations

import sys

from .claims import CLAIMS
from .head import Head, load_head


def rows(head: Head) -> list[tuple[str, str, str, str, bool]]:
    """(id, figure, printed, computed, ok) for every claim."""
    return [(c.id, c.figure, c.printed or "—", c.computed(head), c.holds(head)) for c in CLAIMS]


def print_claims(path: str | None = None) -> int:
    """Print the table; exit status 1 if any claim fails, 2 if the head cannot be read."""
    try:
        head = load_head(path)
    except (OSError, ValueError) as err:
        print(f"selfattn claims: cannot read head: {err}", file=sys.stderr)
        return 2
    table = rows(head)
    header = ("claim", "figure", "printed", "computed", "ok")
    widths = [max(len(str(r[i])) for r in [header, *table]) for i in range(4)]
    line = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    print(line.format(*header))
    for claim_id, figure, printed, computed, ok in table:
        print(line.format(claim_id, figure, printed, computed, "ok" if ok else "FAIL"))
    failed = sum(not r[4] for r in table)
    print(f"\n{len(table) - failed} of {len(table)} claims hold")
    return 1 if failed else 0
