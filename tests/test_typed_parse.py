"""The parse side typed all the way (issue 21 §1): expressions as trees (`inspector.parse.expr_tree`), built by
``grammars/expr.lark``; every grammar transformer returns a dataclass.

The snippets are copied from the sample packages (cpu: torch 2.13 kernel.cpp / wrapper.cpp; cuda: torch 2.11
wrappers with embedded Triton); the corpus tests read every expression of every sample package."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.model import Expr
from inspector.parse import expr_tree as E
from inspector.parse.expr_tree import (
    Attr, BinOp, Braced, Call, Cast, Compare, Hole, Index, Int, Keyword, Name, Opaque, Paren, Slice, Str, Ternary,
    Tuple, UnaryOp, evaluate, match, names, parse_expr, substitute, unparse,
)

ROOT = Path(__file__).resolve().parents[1]


# -- trees of real expressions ------------------------------------------------------------------


def test_triton_device_assert_condition():
    # cuda/hf_t5_encoder: `tl.device_assert(((0 <= tmp9) & (tmp9 < ks0)) | ~(ymask), "…")`, as the parser keeps it
    t = parse_expr("((0 <= tmp9) &(tmp9 < ks0)) | ~(ymask)")
    assert t == BinOp("|", Paren(BinOp("&", Paren(Compare(("<=",), (Int(0), Name("tmp9")))),
                                      Paren(Compare(("<",), (Name("tmp9"), Name("ks0")))))),
                      UnaryOp("~", Paren(Name("ymask"))))
    assert names(t) == ("tmp9", "ks0", "ymask")


def test_cpp_suffixes_dropped_once_and_kept_for_the_text():
    t = parse_expr("(0 <= tmp2) &(tmp2 < 64L)")
    bound = t.right.inner.operands[1]
    assert bound == Int(64) and bound.text == "64L"
    assert unparse(t) == "(0 <= tmp2) &(tmp2 < 64L)"


def test_triton_load_with_keyword_and_slice():
    t = parse_expr("tl.load(in_ptr0 +(x0), xmask, eviction_policy = 'evict_last')")
    assert isinstance(t, Call) and E.dotted(t.func) == "tl.load"
    assert t.args[0] == BinOp("+", Name("in_ptr0"), Paren(Name("x0")))
    assert t.args[2] == Keyword("eviction_policy", Str("evict_last"))
    r = parse_expr("tl.arange(0, R0_BLOCK)[None, :]")
    assert isinstance(r, Index) and r.index == Tuple((Name("None"), Slice()))


def test_cpp_casts_templates_and_pointer_indexing():
    t = parse_expr("in_ptr0[static_cast < int64_t >(x0)]")
    assert t == Index(Name("in_ptr0"), Cast("int64_t", Name("x0")))
    v = parse_expr("at::vec::VectorizedN < int64_t, 2 >::loadu(in_ptr0 + static_cast < int64_t >(x0), "
                   "static_cast < int64_t >(16))")
    assert isinstance(v, Call) and v.func == Name("at::vec::VectorizedN<int64_t,2>::loadu")
    c = parse_expr("(const float *)(arg0_1.data_ptr())")
    assert c == Cast("const float*", Paren(Call(Attr(Name("arg0_1"), "data_ptr"))), style="c")
    d = parse_expr("decltype(tmp4)::blendv(tmp0, tmp4, tmp7.template cast < int64_t, 2 >())")
    assert d.func == Name("decltype(tmp4)::blendv") and d.args[2].func == Attr(Name("tmp7"), "template cast<int64_t,2>")


def test_ternary_floor_division_and_braces():
    assert parse_expr("tmp0 < 0 ? tmp0 + 64L : tmp0") == Ternary(
        Compare(("<",), (Name("tmp0"), Int(0))), BinOp("+", Name("tmp0"), Int(64)), Name("tmp0"))
    assert parse_expr("c10::div_floor_integer(static_cast < int64_t >(x0), static_cast < int64_t >(ks0))").func == \
        Name("c10::div_floor_integer")
    assert parse_expr("{s23, 8L}") == Braced((Name("s23"), Int(8)))


def test_what_the_grammar_does_not_read_is_opaque():
    # a launch argument the wrapper grammar cut at a template comma (cpu/two_models); a lambda's statements
    for text in ["std::array < const AtenTensorHandle *", "tmpbuf[i] = tmp0; return x;", ""]:
        t = parse_expr(text)
        assert isinstance(t, Opaque) and t.text == text and unparse(t) == text


# -- the helpers ------------------------------------------------------------------------------------


def test_evaluate_c_semantics_for_slash_and_percent():
    env = {"a": -7, "b": 2}
    assert evaluate(parse_expr("a / b"), env) == -3  # C truncates
    assert evaluate(parse_expr("a % b"), env) == -1
    assert evaluate(parse_expr("a // b"), env) == -4  # Python floors
    assert evaluate(parse_expr("c10::div_floor_integer(a, b)"), env) == -4
    assert evaluate(parse_expr("(-1) + ks0"), {"ks0": 10}) == 9
    assert evaluate(parse_expr("ks0*ks1"), {"ks0": 3, "ks1": 4}) == 12
    assert evaluate(parse_expr("1000L"), {}) == 1000
    assert evaluate(parse_expr("(0 <= x) & (x < 8L)"), {"x": 8}) == 0
    assert evaluate(parse_expr("0 <= x < 8"), {"x": 7}) == 1
    assert evaluate(parse_expr("x < 0 ? x + 64L : x"), {"x": -1}) == 63
    assert evaluate(parse_expr("static_cast < int64_t >(ks0)"), {"ks0": 5}) == 5


def test_evaluate_raises_typed_errors():
    with pytest.raises(E.UnknownName) as e:
        evaluate(parse_expr("ks0 + ks1"), {"ks0": 1})
    assert e.value.name == "ks1"
    for text in ["tl.load(in_ptr0 + x0)", "1.5", "'a'", "std::array < const AtenTensorHandle *"]:
        with pytest.raises(E.NotEvaluable):
            evaluate(parse_expr(text), {})
    with pytest.raises(E.EvalError):
        evaluate(parse_expr("a / b"), {"a": 1, "b": 0})


def test_substitute_and_match():
    t = parse_expr("yindex % ks0")
    assert unparse(substitute(t, {"ks0": 8})) == "yindex % 8"
    assert evaluate(substitute(t, {"ks0": 8}), {"yindex": 11}) == 3
    # `y0 = (yindex % ks0)`: the size a loop index runs below
    pat = BinOp("%", Hole("i", Name), Hole("n", Name))
    assert match(pat, parse_expr("(yindex % ks0)")) == {"i": Name("yindex"), "n": Name("ks0")}
    assert match(pat, parse_expr("(yindex % ks0)"), parens=True) is None
    assert match(pat, parse_expr("yindex // ks0")) is None
    assert match(BinOp("+", Hole("x"), Hole("x")), parse_expr("a + a")) == {"x": Name("a")}
    assert match(BinOp("+", Hole("x"), Hole("x")), parse_expr("a + b")) is None


def test_expr_tree_is_lazy_and_shared():
    e = Expr("tmp0 + 64L", ("tmp0",))
    assert e.tree is Expr("tmp0 + 64L").tree  # one tree per text
    assert e == Expr("tmp0 + 64L", ("tmp0",))  # the tree is no field: equality and the cache format unchanged


# -- the corpus: every expression of every sample ------------------------------------------------------


def _corpus() -> dict[str, set[str]]:
    """Expression texts by kind, from the full index of every sample package (and, through the statement
    recorder, every `Expr` any transformer returned: ``normalized``)."""
    import dataclasses

    import inspector
    from inspector.parse import grammar
    from tests._samples import PACKAGES

    kinds: dict[str, set[str]] = {k: set() for k in (
        "condition", "bound", "launch_arg", "store_value", "tmp", "local", "normalized")}
    grammar.RECORD = seen = []
    try:
        for p in PACKAGES:
            with inspector.open_package(p) as pkg:
                for n in pkg.model_names:
                    m = pkg.index(n).full()
                    for k in m.kernels.values():
                        for a in k.assertions:
                            kinds["condition"].add(a.condition)
                            kinds["bound"].update(x for x in (a.bound_expr, a.lower_bound) if x)
                        kinds["tmp"].update(t.expr.text for t in k.tmps)
                        kinds["store_value"].update(s.value.text for s in k.stores)
                    kinds["launch_arg"].update(a.text for c in m.calls for a in c.args)
                    kinds["local"].update(e.text for e in m.locals.values() if e.text)
    finally:
        grammar.RECORD = None

    def exprs(r):
        if isinstance(r, Expr):
            yield r
        elif isinstance(r, (list, tuple)):
            for x in r:
                yield from exprs(x)
        elif dataclasses.is_dataclass(r) and not isinstance(r, type):
            for f in dataclasses.fields(r):
                yield from exprs(getattr(r, f.name))

    for *_, r in seen:
        kinds["normalized"].update(e.text for e in exprs(r) if e.text)
    return kinds


@pytest.fixture(scope="module")
def corpus():
    return _corpus()


@pytest.mark.samples
@pytest.mark.slow
def test_tree_coverage_on_every_sample(corpus):
    """How many real expressions read to a tree with no `Opaque` node (the figure in the round's report).
    Measured: conditions 98/98, bounds 34/34, store values 58/58, tmps 2,118/2,118, launch args 3,009/3,010,
    every Expr a transformer returned 6,929/6,931 (the misses: a template cut at its comma by the statement
    grammar, `std::array<const AtenTensorHandle*, …>`)."""
    figures = {}
    for kind, texts in corpus.items():
        assert texts, kind
        trees = sum(not E.has_opaque(parse_expr(t)) for t in texts)
        figures[kind] = (trees, len(texts))
    print(figures)
    for kind in ("condition", "bound", "launch_arg", "store_value", "tmp", "normalized"):
        trees, total = figures[kind]
        assert trees >= 0.99 * total, (kind, trees, total)
    assert figures["condition"][1] > 50 and figures["launch_arg"][1] > 1000, figures


@pytest.mark.samples
@pytest.mark.slow
def test_unparse_gives_every_normalized_text_back(corpus):
    """``unparse(tree)`` is the parsers' own text for every Expr they made, so rendering from the tree changes
    no answer; for raw texts (a message's bound `ks0*ks1`, a lambda's return) it is a fixed point."""
    checked = 0
    for text in sorted(corpus["normalized"] | corpus["launch_arg"] | corpus["condition"]):
        t = parse_expr(text)
        if not E.has_opaque(t):
            assert unparse(t) == text
            checked += 1
    assert checked > 5000, checked
    for text in sorted(corpus["bound"] | corpus["tmp"]):
        once = unparse(parse_expr(text))
        assert unparse(parse_expr(once)) == once, text
