"""The parse side typed all the way (issue 21 §1): expressions as trees (`inspector.parse.expr_tree`), built by
``grammars/expr.lark``; every grammar transformer returns a dataclass.

The snippets are copied from the sample packages (cpu: torch 2.13 kernel.cpp / wrapper.cpp; cuda: torch 2.11
wrappers with embedded Triton); the corpus tests, over every expression of every sample package, are
tests/samples/test_typed_parse_samples.py."""

from __future__ import annotations

import pytest

from inspector.model import Expr
from inspector.parse import expr_tree as E
from inspector.parse.expr_tree import (
    Attr, BinOp, Braced, Call, Cast, Compare, Hole, Index, Int, Keyword, Name, Opaque, Paren, Slice, Str, Ternary,
    Tuple, UnaryOp, evaluate, match, names, parse_expr, substitute, unparse,
)

from _parses import typed
from _paths import ROOT, S


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


# -- every transformer returns a dataclass ------------------------------------------------------------------


def _transformers() -> list[type]:
    """Every Transformer subclass in inspector/parse (the message and tree transformers are built on first use)."""
    import lark

    from inspector.parse import cpp_kernel, expr_tree, grammar, message, triton, wrapper  # noqa: F401

    expr_tree._transformer()
    message._transformer()
    out, todo = [], [lark.Transformer]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("inspector.parse"):
                out.append(sub)
    return out


def test_no_transformer_returns_a_tagged_tuple_in_the_source():
    """No ``return ("decl", …)`` (a tuple whose first item is a string) is left in inspector/parse."""
    import ast

    files = sorted((ROOT / "inspector" / "parse").glob("*.py"))
    assert len(files) > 8
    bad = []
    for f in files:
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and node.value.elts \
                    and isinstance(node.value.elts[0], ast.Constant) and isinstance(node.value.elts[0].value, str):
                bad.append(f"{f.name}:{node.lineno}")
    assert not bad, bad


def test_the_tuple_check_can_fail(tmp_path):
    import ast

    src = 'def decl(self, c):\n    return ("decl", c[0])\n'
    rets = [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Return)]
    assert rets and isinstance(rets[0].value, ast.Tuple) and rets[0].value.elts[0].value == "decl"
    assert not typed(("decl", "x")) and not typed(["a"]) and typed([]) and typed(E.Name("x"))


def test_every_transformer_is_found():
    names = {c.__name__ for c in _transformers()}
    assert {"ExprTransformer", "_WrapperTransformer", "_TritonTransformer", "_CppTransformer",
            "ExprTreeTransformer", "MessageTransformer"} <= names, names


# -- new records: accumulator updates and pointer accesses ------------------------------------------------------


ARGMAX = S / "cpu" / "argmax_embedding" / "argmax_embedding.pt2"


@pytest.fixture(scope="module")
def argmax_kernel():
    import inspector

    with inspector.open_package(ARGMAX) as pkg:
        m = pkg.index(pkg.model_names[0]).full()
    return m.kernels["cpp_fused_argmax_embedding_mul_0"]


def test_cpu_accumulator_updates_are_records(argmax_kernel):
    # cpu/argmax_embedding kernel.cpp lines 26, 31, 35:
    #   tmp_acc0_vec = argmax_combine_vec<float, 1, 2, true>(tmp_acc0_vec, tmp0, x1);   (main loop, tail loop)
    #   tmp_acc0 = argmax_combine(tmp_acc0, argmax_vec_reduce_all(tmp_acc0_vec));
    # (lines 18-19 declare them, with a type first: no update)
    ups = argmax_kernel.acc_updates
    assert [(u.acc, u.base, u.line) for u in ups] == [
        ("tmp_acc0_vec", "tmp_acc0", 26), ("tmp_acc0_vec", "tmp_acc0", 31), ("tmp_acc0", "tmp_acc0", 35)]
    assert ups[0].scope != ups[1].scope and ups[2].scope == ups[0].scope[:len(ups[2].scope)]
    t = ups[0].value.tree
    assert isinstance(t, Call) and t.func == Name("argmax_combine_vec<float,1,2,true>")
    assert names(t)[1:] == ("tmp_acc0_vec", "tmp0", "x1")
    # the updates are no coverage statement: the kernel's figures are what they were
    from inspector.model import AccUpdate

    assert AccUpdate("tmp_acc12_vec_arr", Expr("x"), 1).base == "tmp_acc12"


def test_kernel_accesses_keep_the_kernels_text_and_give_trees(argmax_kernel):
    from inspector.parse.access import kernel_accesses

    acc = kernel_accesses(argmax_kernel)
    assert acc and {a.kind for a in acc} == {"load", "store"}
    store = [a for a in acc if a.kind == "store"]
    # line 36: `out_ptr0[static_cast<int64_t>(x0)] = static_cast<int64_t>(tmp_acc0.index);`, then the second loop nest
    assert [(a.ptr, a.address.text, a.line) for a in store][0] == ("out_ptr0", "static_cast<int64_t>(x0)", 36.5)
    assert store[0].address.tree == Cast("int64_t", Name("x0"))
    assert ("out_ptr1", "x1 + 8L*x0", 51.5) in [(a.ptr, a.address.text, a.line) for a in store]
    loads = [a for a in acc if a.ptr == "in_ptr0"]
    assert any(a.address.text == "x1 + ks1*x0" for a in loads)
    t = next(a for a in loads if a.address.text == "x1 + ks1*x0").address.tree
    assert t == BinOp("+", Name("x1"), BinOp("*", Name("ks1"), Name("x0")))


def test_kernel_accesses_on_a_triton_kernel():
    import inspector
    from inspector.parse.access import kernel_accesses

    with inspector.open_package(S / "cuda/hf_t5_encoder/hf_t5_encoder.pt2") as pkg:
        m = pkg.index(pkg.model_names[0]).full()
    k = m.kernels["triton_poi_fused__unsafe_view_relu_6"]
    acc = kernel_accesses(k)
    # `tmp0 = tl.load(in_out_ptr0 + (x0), xmask)` (its line and its value) and `tl.store(in_out_ptr0 + (x0), …)`
    assert [(a.ptr, a.address.text, a.kind) for a in acc] == [
        ("in_out_ptr0", "x0", "load"), ("in_out_ptr0", "x0", "load"), ("in_out_ptr0", "x0", "store")]
    assert all(a.closed and a.address.tree == Name("x0") for a in acc)
