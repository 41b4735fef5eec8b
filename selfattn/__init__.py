"""selfattn: the article on self-attention, `selfattn check` and the notebook widgets.

`import selfattn` loads nothing else: `selfattn.check` and `selfattn.notebook` are imported
when first named (the checker pulls in numpy; the widgets need the notebook extra), so
`import selfattn; selfattn.check.check(fn)` works as `from selfattn.check import check` does.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from types import ModuleType

LAZY = ("check", "notebook")


def __getattr__(name: str) -> ModuleType:
    if name in LAZY:  # nothing imported before: `selfattn` starts its command with this module
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *LAZY])
