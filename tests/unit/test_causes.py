"""The decisions of a traced check (inspector.queries.causes), one test per rule, on constructed matches; and
explain/ words them without deciding (issue 33 §4): no function there names a certainty, and each record kind
the decisions make has its words."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

import inspector.explain as words
from inspector.logs.patterns import ATEN_LAYOUT_ERRORS
from inspector.model import Assertion
from inspector.queries import causes as C
from inspector.queries.positions import PositionBound
from inspector.queries.walk import BoundChain, BoundTerm, IndexOrigin, InputRef, Step

EXPLAIN = Path(__file__).resolve().parents[2] / "inspector" / "explain"


# ---------------------------------------------------------------------------
# Constructed matches
# ---------------------------------------------------------------------------


def _input(i: int = 0, dim: int | None = 0, user: str | None = None) -> InputRef:
    return InputRef(index=i, name=f"arg{i}_1", dim=dim, user_name=user)


def _read(i: int = 0, **kw) -> IndexOrigin:
    """An origin read straight from input ``i``."""
    return IndexOrigin(input=_input(i, **kw), constant=None, path=[Step("tmp", "tmp0"), Step("input", f"arg{i}_1")])


def _computed(i: int = 0, through: tuple[str, ...] = ("triton_k2",), store: str | None = None) -> IndexOrigin:
    """An origin computed from input ``i``: through a buffer written by ``through``, or a store of the kernel."""
    if store:
        path = [Step("tmp", "tmp0"), Step("store", store, role="out"), Step("input", f"arg{i}_1")]
    else:
        path = ([Step("tmp", "tmp0"), Step("buffer", "buf1")] + [Step("kernel", k) for k in through]
                + [Step("input", f"arg{i}_1")])
    return IndexOrigin(input=_input(i), constant=None, path=path)


def _const(name: str = "_tensor_constant0") -> IndexOrigin:
    return IndexOrigin(input=None, constant=name, path=[Step("constant", name)])


def _term(param: str = "ks0", i: int = 0, sym: str = "s0", lo: int | None = 2, hi: int | None = 64,
          traced: bool = True) -> BoundTerm:
    return BoundTerm(param, sym, sym, _input(i) if traced else None, lo, hi)


def _bound(*terms: BoundTerm, limit: str = "input 0's dim 0") -> BoundChain:
    first = terms[0]
    return BoundChain(**{f: getattr(first, f) for f in BoundTerm.__dataclass_fields__}, terms=list(terms), limit=limit)


def _match(*, checks: str = "index", bound_expr: str | None = "ks0", lower: str | None = "0", static: int | None = None,
           bound: BoundChain | None = None, origins=(), kind: str = "triton", wrap: bool | None = True,
           position: PositionBound | None = None, sites=(12,), locations=()):
    a = Assertion(kernel="triton_k", line=30, message="index out of bounds: 0 <= tmp0 < ks0", index_var="tmp0",
                  bound_expr=bound_expr, lower_bound=lower, condition="c", checks=checks)
    return NS(assertion=a, kernel="triton_k", kernel_kind=kind, file_line=30, static_bound=static, bound=bound,
              index_origin=list(origins), negative_wrap=wrap, position=position, table=None,
              call_sites=list(sites), source_locations=list(locations))


def _dynamic(**kw):
    """A check against input 0's dim 0 (``tmp0 < ks0``)."""
    return _match(bound=_bound(_term()), **kw)


def _static(n: int = 512, **kw):
    return _match(bound_expr=f"{n}L", static=n, **kw)


def _pos(op: str = "topk", *, static: int | None = None, symbol: str | None = "s9", max_: int | None = 1024,
         past: int = 0, input_: int | None = 1, loop_index: str | None = None) -> PositionBound:
    return PositionBound(op=op, where="aoti_torch_cpu_topk at wrapper.cpp line 90", input=input_, dim=0,
                         input_name="arg1_1", symbol=symbol, max=max_, static=static, past=past, loop_index=loop_index)


def _kinds(causes) -> list[tuple[str, str]]:
    return [(c.kind, c.certainty) for c in causes]


def _evidence(c) -> list[str]:
    return [e.kind for e in c.evidence]


# ---------------------------------------------------------------------------
# Facts the rules read
# ---------------------------------------------------------------------------


def test_the_source_is_read_computed_a_constant_or_nothing():
    assert C.source_of(_match(origins=[_read(0), _computed(1)])).kind == "read"  # one input read directly
    assert C.source_of(_match(origins=[_computed(0)])).kind == "computed"
    s = C.source_of(_match(origins=[_const("c0"), _const("c1")]))
    assert (s.kind, s.constant, s.has_inputs) == ("constant", "c0", False)
    assert C.source_of(_match()).kind == "none"
    # an input wins over a constant
    assert C.source_of(_match(origins=[_const(), _computed(2)])).inputs == (_input(2),)


def test_a_limit_is_a_number_words_a_parameter_or_unknown():
    assert C.limit_of(_static(512)) == C.Limit(number=512, one_operand=True)
    assert C.limit_of(_static(-3)) == C.Limit(number=-3, one_operand=False)
    assert C.limit_of(_match()) == C.Limit()
    assert C.limit_of(_match(bound=_bound(_term(), limit=""))) == C.Limit(words="ks0")
    assert C.limit_of(_dynamic()) == C.Limit(words="input 0's dim 0", one_operand=False)  # traced: a phrase
    assert C.limit_of(_match(bound=_bound(_term(traced=False), limit="ks0"))).one_operand is True


def test_one_operand_reads_the_tree():
    from inspector.parse.expr_tree import parse_expr

    untraced, traced = [_term(traced=False)], [_term()]
    assert C.one_operand(parse_expr("64"), []) and not C.one_operand(parse_expr("-64"), [])
    assert C.one_operand(parse_expr("(ks0)"), untraced) and not C.one_operand(parse_expr("ks0"), traced)
    assert not C.one_operand(parse_expr("ks0 + 1"), untraced) and not C.one_operand(None, [])


def test_an_element_count_multiplies_and_neither_adds_nor_subtracts():
    from inspector.parse.expr_tree import parse_expr

    assert C.counts_elements(parse_expr("ks0*ks1"))
    assert not C.counts_elements(parse_expr("ks0 + ks1"))
    assert not C.counts_elements(parse_expr("ks0*ks1 - 1"))
    assert not C.counts_elements(parse_expr("ks0")) and not C.counts_elements(None)


def test_whether_a_position_can_exceed_the_bound():
    assert C.position_exceeds(_dynamic()) is None  # no position
    # along the very dim the index is checked against: it stays below
    assert C.position_exceeds(_dynamic(position=_pos(symbol="s0"))) is False
    assert C.position_exceeds(_dynamic(position=_pos(symbol="s9"))) is True
    # a fixed bound: its length (or its max) plus what it runs past, against the bound
    assert C.position_exceeds(_static(512, position=_pos(static=512, past=0))) is False
    assert C.position_exceeds(_static(512, position=_pos(static=512, past=1))) is True
    assert C.position_exceeds(_static(512, position=_pos(max_=1024))) is True
    assert C.position_exceeds(_static(512, position=_pos(max_=None))) is None  # the package does not say


def test_position_kinds():
    assert C.position_kind(_pos("loop", loop_index="x1")) == "loop"
    assert C.position_kind(_pos("reduction")) == "reduction"
    assert C.position_kind(_pos(input_=None, static=50)) == "fixed"
    assert C.position_kind(_pos()) == "sized"


# ---------------------------------------------------------------------------
# The verdict
# ---------------------------------------------------------------------------


def test_a_nan_check_verdict_says_whether_an_input_carries_it():
    assert C.verdict_of(_match(checks="finite", origins=[_read()])).case == "finite_read"
    assert C.verdict_of(_match(checks="finite", origins=[_computed()])).case == "finite_computed"
    assert C.verdict_of(_match(checks="finite", origins=[_const()])).case == "finite_inside"


@pytest.mark.parametrize("checks", C.LAYOUT_CHECKS)
def test_a_layout_error_is_no_index(checks):
    assert C.verdict_of(_match(checks=checks, kind="extern", static=5)).case == "layout"


def test_a_fixed_bound_verdict_names_a_position_that_exceeds_it():
    v = C.verdict_of(_static(512, origins=[_read()]))
    assert (v.case, v.lower, v.range.limit.number) == ("static", True, 512)
    assert C.verdict_of(_static(512, lower=None)).lower is False
    assert C.verdict_of(_static(512, position=_pos(max_=1024))).case == "static_position"
    assert C.verdict_of(_static(512, position=_pos("loop", loop_index="x1"))).case == "loop_position"


@pytest.mark.parametrize("first,position,case", [
    (False, None, "not_empty"),  # thread [0,0,0] passed: the bound is not 0
    (False, _pos(), "not_empty"),  # …before anything else
    (None, _pos(), "position_or_empty"),
    (True, _pos(), "position_or_empty"),  # a position that can exceed outranks a failed thread
    (None, _pos(symbol="s0"), "empty_position_below"),
    (True, None, "empty_as_thread"),
    (None, None, "value_or_empty"),  # no evidence
])
def test_a_bound_of_input_dims_verdict_follows_the_evidence(first, position, case):
    assert C.verdict_of(_dynamic(origins=[_read()], position=position), first).case == case


def test_extern_and_untraced_verdicts():
    assert C.verdict_of(_match(kind="extern", origins=[_read()])).case == "extern_index"
    v = C.verdict_of(_match(bound=_bound(_term(traced=False), limit="ks0")))  # a term not traced to an input
    assert v.case == "untraced" and not v.extern
    assert C.verdict_of(_static(5, kind="extern")).extern is True


def test_an_argmax_position_is_noted_where_the_verdict_does_not_name_it():
    red = _pos("reduction", symbol="s9")
    assert C.verdict_of(_dynamic(position=red), None).position_note is False  # position_or_empty names it
    assert C.verdict_of(_dynamic(position=red), False).position_note is True  # not_empty does not
    assert C.verdict_of(_dynamic(position=_pos()), False).position_note is False  # a topk's: no note
    assert C.verdict_of(_match(checks="finite", position=red)).position_note is True  # every case that does not


# ---------------------------------------------------------------------------
# The causes: which, how sure, in which order
# ---------------------------------------------------------------------------


def test_a_layout_error_has_one_possible_cause():
    assert _kinds(C.causes_of(_match(checks="storage", kind="extern"))) == [("layout", "possible")]


def test_a_nan_read_from_an_input_is_likely_that_input():
    c = C.causes_of(_match(checks="finite", origins=[_read()]))
    assert _kinds(c) == [("finite_input", "likely")] and _evidence(c[0]) == ["failing_check", "read_straight"]
    assert _kinds(C.causes_of(_match(checks="finite", origins=[_computed()]))) == [("finite_computed", "possible")]


@pytest.mark.parametrize("exact,ops,basis", [
    (True, ["load"], "own_message"),  # the check's own message, on the value as read: that input held it
    (True, ["tl_math.abs", "load"], "own_message"),  # |x| is NaN/Inf exactly where x is
    (True, ["neg", "copy", "load"], "own_message"),
    (True, ["tl_math.log", "load"], "read_into_check"),  # log(-1) makes a NaN from a finite input
    (False, ["load"], "read_into_check"),  # matched by message only: which of the checks fired is not known
    (True, None, "read_into_check"),  # the ops were not read
])
def test_a_nan_check_own_message_on_an_unchanged_input_is_certain(exact, ops, basis):
    m = _match(checks="finite", origins=[_read()])
    m.exact, m.value_ops = exact, ops
    c = C.causes_of(m)
    assert [(x.kind, x.basis) for x in c] == [("finite_input", basis)]
    assert c[0].certainty == C.BASES[basis] == ("certain" if basis == "own_message" else "likely")


@pytest.mark.parametrize("origins,position,kind,certainty", [
    ([_read()], _pos("loop", loop_index="x1"), "position", "certain"),
    ([_read()], _pos(max_=1024), "position", "certain"),
    ([_computed()], None, "static_computed_value", "certain"),
    ([_read()], None, "static_read_value", "certain"),
    ([_const()], None, "constant_values", "likely"),  # never loaded, or replaced: not certain
    ([], None, "computed_inside", "certain"),
])
def test_a_fixed_bound_is_never_0_so_its_one_cause_is_a_value(origins, position, kind, certainty):
    c = C.causes_of(_static(512, origins=origins, position=position))
    assert _kinds(c) == [(kind, certainty)]
    assert c[0].evidence[0].kind in ("fixed_bound", "fixed_bound_not_zero") and c[0].evidence[0].number == 512


def test_a_loop_position_rests_on_the_bound_and_the_loop():
    c = C.causes_of(_static(512, position=_pos("loop", loop_index="x1")))[0]
    assert _evidence(c) == ["fixed_bound", "loop_index"] and c.position == "loop"


def test_thread_0_passing_makes_the_value_certain():
    c = C.causes_of(_dynamic(origins=[_read()]), False, "the log: block [1,0,0] …")
    assert _kinds(c) == [("bound_value", "certain")] and _evidence(c[0]) == ["log_line", "thread_passed"]
    c = C.causes_of(_dynamic(origins=[_read()], position=_pos()), False)
    assert _kinds(c) == [("position", "certain")] and _evidence(c[0]) == ["thread_passed", "position_fixed"]
    assert C.causes_of(_dynamic(), False) == []  # no input names a value: nothing is left


def test_a_position_that_can_exceed_is_likelier_than_an_empty_input():
    c = C.causes_of(_dynamic(origins=[_read()], position=_pos()))
    assert _kinds(c) == [("position", "likely"), ("empty_input", "possible")]
    assert _evidence(c[0]) == ["position_fixed", "guard"] and _evidence(c[1]) == ["guard"]


def test_a_position_that_stays_below_leaves_only_an_empty_input():
    c = C.causes_of(_dynamic(origins=[_read()], position=_pos(symbol="s0")))
    assert _kinds(c) == [("empty_input", "likely")] and _evidence(c[0]) == ["position_below", "guard"]


def test_thread_0_failing_makes_an_empty_input_likely():
    c = C.causes_of(_dynamic(origins=[_read()]), True, "the log: thread [0,0,0] of block [0,0,0] failed")
    assert _kinds(c) == [("empty_input", "likely"), ("bound_value", "possible")]
    assert _evidence(c[0]) == ["log_line", "thread_failed", "guard"] and _evidence(c[1]) == ["log_line", "thread_failed"]


def test_without_evidence_both_are_possible_the_value_first():
    c = C.causes_of(_dynamic(origins=[_computed()]))
    assert _kinds(c) == [("bound_value", "possible"), ("empty_input", "possible")]
    assert c[0].source.kind == "computed" and _evidence(c[0]) == ["failing_check"]
    assert _kinds(C.causes_of(_dynamic())) == [("empty_input", "possible")]  # no input: no value to name


def test_an_unguarded_dim_is_told_from_a_guarded_one():
    m = _match(bound=_bound(_term(lo=None, hi=None), _term("ks1", 1, "s1"), limit="a + b"))
    assert _evidence(C.causes_of(m)[0]) == ["no_guard", "guard"]


def test_extern_and_untraced_causes():
    assert _kinds(C.causes_of(_match(kind="extern", origins=[_read()]))) == [("extern_index", "likely")]
    assert C.causes_of(_match(kind="extern", origins=[_const()])) == []
    m = _match(bound=_bound(_term(traced=False), limit="ks0"))
    assert _kinds(C.causes_of(m)) == [("untraced_bound", "possible")]
    assert C.causes_of(_match(bound_expr=None)) == []


# ---------------------------------------------------------------------------
# The verdict's certainty
# ---------------------------------------------------------------------------


def _c(certainty: str) -> C.Cause:
    """A cause of that certainty: the first basis of that level (`causes.BASES`)."""
    return C.Cause("bound_value", next(b for b, level in C.BASES.items() if level == certainty))


@pytest.mark.parametrize("certainties,verdict,confirm", [
    ([], "possible", False),
    (["certain"], "certain", False),
    (["likely"], "likely", False),  # no rival
    (["certain", "possible"], "certain", False),
    (["likely", "possible"], "likely", True),
    (["possible", "possible"], "possible", True),  # rivals as sure as the first
    (["likely", "likely"], "possible", True),
    (["likely", "certain"], "likely", True),  # a certain rival is no rival
])
def test_the_verdict_is_no_surer_than_its_first_cause_and_its_rivals(certainties, verdict, confirm):
    causes = [_c(x) for x in certainties]
    assert C.verdict_certainty(causes) == verdict
    assert C.needs_confirming(verdict, causes) is confirm


# ---------------------------------------------------------------------------
# The notes
# ---------------------------------------------------------------------------


def _notes(m, n_sites: int = 1) -> list[str]:
    return [n.kind for n in C.notes_of(m, n_sites)]


def test_a_nan_check_and_a_layout_error_have_no_notes_but_the_users_line():
    assert C.notes_of(_match(checks="finite", origins=[_computed()]), 3) == []
    assert C.notes_of(_match(checks="dtype", kind="extern"), 3) == []
    loc = NS(file="/x/model.py", line=3, code="emb(ids)", module="m")
    assert _notes(_match(checks="finite", origins=[_computed()], locations=[loc]), 3) == ["user_code"]


def test_a_bound_of_several_terms_is_spelled_out_and_an_element_count_said():
    two = _match(bound=_bound(_term(), _term("ks1", 0, "s1"), limit="a * b"), bound_expr="ks0*ks1")
    [n] = [n for n in C.notes_of(two, 1) if n.kind == "limit_terms"]
    assert n.numel_of == _input(0) and len(n.terms) == 2
    other = _match(bound=_bound(_term(), _term("ks1", 1, "s1"), limit="a * b"), bound_expr="ks0*ks1")
    assert [n.numel_of for n in C.notes_of(other, 1) if n.kind == "limit_terms"] == [None]  # two inputs
    assert "limit_terms" not in _notes(_dynamic())  # one term


def test_the_wrap_note_needs_a_lower_side_and_a_known_wrap():
    assert C.wrap_note(_dynamic(wrap=True)) == C.Note("wrap", limit=C.Limit(words="input 0's dim 0", one_operand=False),
                                                      wraps=True)
    assert C.wrap_note(_dynamic(wrap=False)).wraps is False
    assert C.wrap_note(_dynamic(wrap=None)) is None
    assert C.wrap_note(_dynamic(lower=None)) is None  # Inductor proved it never negative
    assert C.wrap_note(_match(bound=_bound(_term(), limit=""))).limit == C.Limit()  # no words: N


def test_computed_values_are_noted_once_per_input_and_path():
    m = _dynamic(origins=[_computed(0), _computed(0), _computed(0, store="out_ptr1"), _read(1)])
    notes = [n for n in C.notes_of(m, 1) if n.kind.startswith("computed")]
    assert [(n.kind, n.through, n.store) for n in notes] == [("computed_through", ("triton_k2",), None),
                                                            ("computed_inside", (), "out_ptr1")]


def test_several_launches_and_the_users_code_are_noted_last():
    loc = NS(file="/x/model.py", line=3, code="emb(ids)", module="m")
    m = _dynamic(origins=[_read(0, user="ids")], sites=(12, 40), locations=[loc])
    notes = C.notes_of(m, 2)
    assert [n.kind for n in notes][-2:] == ["launches", "user_code"]
    assert notes[-2].lines == (12, 40) and notes[-1].name == "ids"
    assert "launches" not in _notes(m, 1)


# ---------------------------------------------------------------------------
# explain/ words the decisions and decides none
# ---------------------------------------------------------------------------


def test_layout_checks_are_the_log_patterns_and_have_words():
    assert set(C.LAYOUT_CHECKS) == {p.name.removeprefix("aten_") for p in ATEN_LAYOUT_ERRORS}
    assert set(words.LAYOUT_WORDS) == set(words.LAYOUT_CAUSES) == set(C.LAYOUT_CHECKS)


def test_every_record_kind_has_its_words():
    assert set(words._VERDICTS) == set(C.VERDICT_CASES)
    assert set(words._CAUSES) == set(C.CAUSE_KINDS)
    assert set(words._EVIDENCE) == set(C.EVIDENCE_KINDS)
    assert set(words._NOTES) == set(C.NOTE_KINDS)
    assert set(words._POSITION_CAUSES) == set(C.POSITION_KINDS)
    assert set(words._SOURCE_WORDS) == {"read", "computed", "constant", "none"}


def test_the_plural_comes_from_the_source_not_from_the_words():
    m = _static(512, origins=[_const("c0")])
    assert words.verdict_words(C.verdict_of(m), m).startswith("values read from constant c0 hold values ≥ 512")
    m = _static(512, origins=[_read()])
    assert words.verdict_words(C.verdict_of(m), m).startswith("input 0 holds values ≥ 512")


CERTAINTIES = set(C.CERTAINTY)


def certainty_uses(source: str) -> list[str]:
    """Where ``source`` names a certainty (a string constant "certain", "likely" or "possible") or reads one
    (an attribute ``certainty``): ``["line 3: 'likely'", …]``.  explain/ words what queries decided; how sure a
    cause is, and its rank, are decided in inspector.queries.causes."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and node.value in CERTAINTIES:
            out.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.Attribute) and node.attr == "certainty":
            out.append(f"line {node.lineno}: .certainty")
    return out


def _explain_modules() -> list[Path]:
    mods = sorted(EXPLAIN.glob("*.py"))
    assert len(mods) >= 8 and EXPLAIN / "__init__.py" in mods, mods
    return mods


@pytest.mark.parametrize("path", _explain_modules(), ids=lambda p: f"explain/{p.name}")
def test_explain_names_no_certainty(path: Path):
    uses = certainty_uses(path.read_text())
    assert not uses, (f"inspector/explain/{path.name} names or reads a certainty ({'; '.join(uses)}): a cause's "
                      "certainty and rank are decided in inspector.queries.causes; explain only words the cause")


def test_the_certainty_check_can_fail():
    """It flags each way explain could decide a certainty (return one, compare one), and what explain was before
    issue 33 §4 (trace_hypotheses returned ``(text, "possible", evidence)``)."""
    assert certainty_uses('def f(x):\n    return [("a", "possible", [])]\n')
    assert certainty_uses('def f(h):\n    return h.certainty == "x"\n')
    assert certainty_uses('def f(h):\n    return "sure" if h.level == "likely" else "?"\n')
    assert not certainty_uses('def f():\n    return "most likely first"\n')  # a word in a sentence is fine
    before = ('def trace_hypotheses(t, n_sites):\n    causes = []\n    if t.assertion.checks in LAYOUT_WORDS:\n'
              '        return [(LAYOUT_CAUSES[t.assertion.checks], "possible", [at])], []\n    return causes, []\n')
    assert certainty_uses(before) == ["line 4: 'possible'"]


READ_BACK = {"startswith", "endswith", "find", "rfind", "index", "count", "partition"}


def read_backs(source: str) -> list[str]:
    """Where ``source`` inspects a string it could have written: ``s.startswith(…)``, ``"x" in s``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in READ_BACK:
            out.append(f"line {node.lineno}: .{node.func.attr}()")
        elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
              and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)):
            out.append(f"line {node.lineno}: {node.left.value!r} in …")
    return out


def test_explain_reads_no_sentence_back():
    """The words of trace-assert (explain/__init__.py) inspect no string: the plural "hold" once came from
    ``(src or "").startswith("values")``; now from the source's kind."""
    assert read_backs((EXPLAIN / "__init__.py").read_text()) == []
    assert read_backs('verb = "hold" if (src or "").startswith("values") else "holds"\n')
    assert read_backs('if "a position" not in verdict:\n    pass\n')
