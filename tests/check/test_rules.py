"""The rule engine's facts are typed: a misspelt fact, in a rule's needs or where a rule sets
one, fails loudly (at import, or on the first check) instead of silently never running a rule."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from selfattn.check import rules
from selfattn.check.facts import Fact, Facts, Need

SOURCE = Path(rules.__file__).read_text()


def _import_planted(source: str) -> None:
    """rules.py's text imported as a module of the package, as `import` would."""
    module = types.ModuleType("selfattn.check._planted_rules")
    module.__package__ = "selfattn.check"
    sys.modules[module.__name__] = module  # dataclasses look their module up there
    try:
        exec(compile(source, rules.__file__, "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]


def test_the_table_as_it_stands_imports() -> None:
    _import_planted(SOURCE)
    assert all(isinstance(n, Need) for rule in rules.RULES for n in rule.needs)


@pytest.mark.parametrize(
    ("written", "planted", "error"),
    [
        # the rule that silently never ran when `"mask off"` was misspelt in its needs
        ("Need(Fact.MASK_OFF)", "Need(Fact.MASK_OF)", AttributeError),
        ("Need(Fact.MASK_OFF)", 'Need("mask of")', ValueError),
        ("Need(Fact.MASK_OFF)", '"mask off"', TypeError),  # a bare string, as before
    ],
)
def test_a_planted_typo_in_a_fact_name_fails_at_import(
    written: str, planted: str, error: type[Exception]
) -> None:
    assert SOURCE.count(written) == 1
    with pytest.raises(error):
        _import_planted(SOURCE.replace(written, planted))


def test_a_fact_set_under_another_name_raises() -> None:
    facts = Facts()
    facts["right"] = True
    assert facts[Fact.RIGHT] is True and facts.get("right") is True
    with pytest.raises(ValueError):
        facts["rigth"] = True
    with pytest.raises(ValueError):
        facts |= {"mask of": True}
    with pytest.raises(ValueError):
        facts.get("steadу")  # a Cyrillic у


def test_needs_read_true_false_unset_and_the_report() -> None:
    facts = Facts()
    facts["nonfinite"] = False
    assert not Need(Fact.RIGHT).met(facts, errors=False)  # unset is not true
    assert (~Need(Fact.RIGHT)).met(facts, errors=False)
    assert (~Need(Fact.NONFINITE)).met(facts, errors=False)
    assert (~Need(Fact.ERRORS)).met(facts, errors=False)
    assert not (~Need(Fact.ERRORS)).met(facts, errors=True)
