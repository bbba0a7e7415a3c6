"""A check's limit is decided from typed facts only (`inspector.queries.causes.limit_of`) and worded by explain
(issue 21 §1, "rendering never parses"): whether ``-N`` and ``N - 1`` need parentheses is read off the bound's
expression tree (`Assertion.bound_tree`) and its terms, never off the limit's words with a regular expression.
The crafted bounds below sit beside the real ones of tests/unit/test_trace_issue8.py; on every sample's answers
the typed rule decided as the old regex did (2,998 decisions, the snapshot of every trace, diagnose and report
answer unchanged)."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

import inspector.explain as words
from inspector.model import Assertion
from inspector.queries import causes
from inspector.queries.walk import BoundChain, BoundTerm, InputRef


def _check(bound_expr: str | None, terms=(), limit: str | None = None, static: int | None = None, wrap=True):
    a = Assertion(kernel="k", line=7, message="m", index_var="tmp2", bound_expr=bound_expr, lower_bound="0",
                  condition="c")
    bound = None
    if terms or limit is not None:
        first = terms[0] if terms else BoundTerm("ks0", "s0", "s0", None, None, None)
        bound = BoundChain(**{f: getattr(first, f) for f in BoundTerm.__dataclass_fields__}, terms=list(terms),
                           limit=limit)
    return NS(assertion=a, bound=bound, static_bound=static, negative_wrap=wrap, kernel="k")


def _term(param: str, traced: bool) -> BoundTerm:
    return BoundTerm(param, "s0", "s0", InputRef(0, "arg0_1", 0) if traced else None, 2, 64)


CASES = [
    # (bound_expr, terms, limit words, static) -> what ``-limit`` is written as
    (("512L", [], None, 512), "-512"),
    (("ks0", [_term("ks0", True)], "input 0's dim 0", None), "-(input 0's dim 0)"),
    (("ks0", [_term("ks0", False)], "ks0", None), "-ks0"),  # a term not traced to an input keeps its name
    (("(ks0)", [_term("ks0", False)], "(ks0)", None), "-(ks0)"),  # already in parentheses: none added
    (("ks0 + ks1", [_term("ks0", True), _term("ks1", True)], "input 0's dim 0 + input 0's dim 0", None),
     "-(input 0's dim 0 + input 0's dim 0)"),
    (("8L*ks0", [_term("ks0", False)], "8 * ks0", None), "-(8 * ks0)"),
    (("c10::div_floor_integer(ks0, 2L)", [_term("ks0", True)], "c10::div_floor_integer(ks0, 2L)", None),
     "-(c10::div_floor_integer(ks0, 2L))"),
    ((None, [], None, None), "-N"),  # no bound known
    (("", [], "", None), "-N"),  # a bound without words: the wrap note says N
]


@pytest.mark.parametrize("case,want", CASES, ids=[c[0][0] or "none" for c in CASES])
def test_negated_limit(case, want):
    t = _check(*case)
    note = words.note_words(causes.wrap_note(t), t)
    assert f"only values below {want} fail the check." in note, note


def _outside(t, last=None) -> str:
    return words.outside_words(causes.Range(causes.limit_of(t), bool(t.negative_wrap), last))


def test_the_range_a_value_stays_in():
    t = _check("512L", static=512)
    assert _outside(t, last=511) == "-512..511"
    t = _check("ks0", [_term("ks0", True)], "input 0's dim 0")
    assert _outside(t) == "-(input 0's dim 0)..(input 0's dim 0) - 1"
    t.negative_wrap = False
    assert _outside(t) == "0..(input 0's dim 0) - 1"
    t = _check("ks0", [_term("ks0", False)], "ks0", wrap=False)
    rng = causes.Range(causes.limit_of(t), False)
    assert _outside(t) == "0..ks0 - 1" and words.below_words(rng) == "< 0"
    assert causes.one_operand(None, []) is False  # no tree: nothing to say it is one word


def test_the_words_are_never_read_back():
    """The same words, told apart by the tree alone: `ks0` named as it is, and a term whose words happen to be
    one word (a user name that is a plain identifier would be one) still says what the tree says."""
    a = _check("ks0", [_term("ks0", False)], "ks0")
    b = _check("ks0", [_term("ks0", True)], "ks0")
    assert causes.limit_of(a) == causes.Limit(words="ks0", one_operand=True)
    assert causes.limit_of(b) == causes.Limit(words="ks0", one_operand=False)
