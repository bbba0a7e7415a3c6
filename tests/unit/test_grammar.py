"""Unit tests of the Lark grammars and the scanners around them.

The statements are copied from the sample packages (sample_packages/{cpu,cuda}/*):
torch 2.11 for CUDA wrappers with embedded Triton, 2.13 for CPU kernel.cpp.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspector.graph.build import resolve_tmp
from inspector.parse.cpp_kernel import parse_cpp_statement, parse_kernel_cpp
from inspector.parse.message import parse_check_message
from inspector.parse.triton import parse_triton_source, parse_triton_statement
from inspector.parse.statements import (
    CallStmt, CppCheck, CppSignature, CppTmp, Decl, GuardDim, HandleDecl, LoadKernel, RaiiDecl, VecStore,
)
from inspector.parse.statements import ConstantSlot, InputSlot, Moved, SizeOf
from inspector.parse.wrapper_statements import parse_statement

from _members import texts as member_texts
from _paths import ROOT, S


# -- assert messages ---------------------------------------------------------------


def test_message_lower_and_symbolic_bound():
    m = parse_check_message("index out of bounds: 0 <= tmp10 < ks0")
    assert m is not None
    assert (m.index_var, m.lower, m.bound) == ("tmp10", "0", "ks0")
    assert m.static_bound is None


def test_message_static_bound_with_suffix():
    m = parse_check_message("index out of bounds: 0 <= tmp2 < 1000L")
    assert (m.index_var, m.lower, m.bound) == ("tmp2", "0", "1000L")
    assert m.static_bound == 1000


def test_message_without_lower_bound_and_expression_bound():
    m = parse_check_message("index out of bounds: tmp4 < (-1) + ks0")
    assert m.index_var == "tmp4"
    assert m.lower is None
    assert m.bound == "(-1) + ks0"
    assert m.static_bound is None


def test_message_without_lower_bound_static():
    # Real: cpu/transformer kernel.cpp, `AOTI_TORCH_CHECK(tmp6 < 128L, "index out of bounds: tmp6 < 128L");`
    m = parse_check_message("index out of bounds: tmp6 < 128L")
    assert (m.index_var, m.lower, m.bound, m.static_bound) == ("tmp6", None, "128L", 128)


def test_message_quoted_as_in_the_source():
    m = parse_check_message('"index out of bounds: 0 <= tmp2 < 512L"')
    assert (m.index_var, m.static_bound) == ("tmp2", 512)


@pytest.mark.parametrize("text", [
    "expected a non-empty tensor",
    "division by zero",
    "index out of bounds",
    "",
])
def test_message_not_an_index_check(text):
    assert parse_check_message(text) is None


# -- wrapper statements ------------------------------------------------------------------


def test_symbol_definition():
    # cpu/jagged and cuda/jagged wrapper.cpp
    assert parse_statement("int64_t s59 = arg0_1_size[0];", "declaration") == Decl(
        "int64_t", "s59", SizeOf(tensor="arg0_1", kind="size", dim=0), None)
    assert parse_statement("int64_t s7 = arg12_1_stride[1];", "declaration").value == SizeOf("arg12_1", "stride", 1)


@pytest.mark.parametrize("stmt, name, target", [
    ("int64_t s23 = s2;", "s23", "s2"),
    ("int64_t s95 = s77;", "s95", "s77"),  # real: cpu/gather_dynamic wrapper.cpp
])
def test_symbol_alias(stmt, name, target):
    r = parse_statement(stmt, "declaration")
    assert isinstance(r, Decl)
    assert (r.type, r.name, r.value.text, r.value.names, r.tail) == ("int64_t", name, target, (target,), None)


def test_input_unpacking():
    assert parse_statement("auto arg0_1 = std::move(inputs[0]);", "declaration") == Decl("auto", "arg0_1", InputSlot(0))
    assert parse_statement("auto arg149_1 = std::move(inputs[12]);", "declaration").value == InputSlot(12)


def test_buffer_reuse_comment_is_ignored():
    # cpu/transformer wrapper.cpp
    r = parse_statement("auto buf9 = std::move(buf2);  // reuse", "declaration")
    assert (r.name, r.value, r.tail) == ("buf9", Moved("buf2"), None)


def test_view_with_reset_tail():
    # cpu/transformer wrapper.cpp
    s = ("auto buf8 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_12, "
         "int_array_13, 0L)); buf3.reset();  // reuse")
    r = parse_statement(s, "declaration")
    name, value, tail = r.name, r.value, r.tail
    assert name == "buf8"
    assert value.base == "buf3" and [a.text for a in value.args] == ["2", "int_array_12", "int_array_13", "0L"]
    assert tail is not None and tail.text == "buf3.reset()"
    # torch 2.6 (cpu-2.6/cat_index): a bare view into a handle, with an offset expression
    r = parse_statement(
        "auto tmp_tensor_handle_1 = reinterpret_tensor_wrapper(buf2, 2, int_array_2, int_array_1, 4L*s0);", "declaration")
    name, value, tail = r.name, r.value, r.tail
    assert (name, value.base, value.args[-1].names, tail) == ("tmp_tensor_handle_1", "buf2", ("s0",), None)


def test_array_and_constant_declarations():
    r = parse_statement("const int64_t int_array_0[] = {s59, 8L};", "declaration")
    assert (r.name, r.value.text, r.value.names) == ("int_array_0", "{s59, 8L}", ("s59",))
    r = parse_statement("[[maybe_unused]] auto& emb_weight = constants_->at(0);", "declaration")
    assert (r.type, r.name, r.value) == ("auto", "emb_weight", ConstantSlot(0))
    # a size inside a larger expression is not one of the shapes: the statement is skipped, and counted
    from inspector.model import Coverage

    cov = Coverage()
    assert parse_statement("int64_t x = arg0_1_size[0] * 2L;", "declaration", cov, 7) is None
    assert (cov.total, cov.understood, cov.skipped) == (1, 0, [(7, "int64_t x = arg0_1_size[0] * 2L;")])


@pytest.mark.parametrize("stmt, expected", [
    ("if (arg3_1_size[0] < 2) {", GuardDim("arg3_1_size", 0, "<", 2)),  # cpu|cuda/two_models
    ("if (16 != arg5_1_size[1]) {", GuardDim("arg5_1_size", 1, "!=", 16)),
    ("if (16 != arg2_1_size[1]) {", GuardDim("arg2_1_size", 1, "!=", 16)),  # real
    ("if (1 != arg0_1_stride[1]) {", GuardDim("arg0_1_stride", 1, "!=", 1)),  # real
    ("if (65536 < arg0_1_size[0]) {", GuardDim("arg0_1_size", 0, ">", 65536)),  # constant first: op flipped
])
def test_guards(stmt, expected):
    assert parse_statement(stmt, "guard") == expected


def test_guard_rejects_other_statements():
    assert parse_statement("if (x) {", "guard") is None
    assert parse_statement("int64_t s59 = arg0_1_size[0]", "declaration") is None  # no semicolon


def test_extern_call():
    # cpu/jagged wrapper.cpp
    r = parse_statement(
        "AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_cumsum(arg1_1, 0L, &var_0, &buf1_handle));", "checked_call")
    assert isinstance(r, CallStmt)
    callee, args, checked = r.callee, r.args, r.checked
    assert (callee, checked) == ("aoti_torch_cpu_cumsum", True)
    assert [a.text for a in args] == ["arg1_1", "0L", "&var_0", "&buf1_handle"]
    assert args[3].names == ("buf1_handle",)


def test_triton_call_counts_args():
    # cuda/jagged wrapper.cpp
    s = ("call_triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2(buf0, arg0_1, buf1, buf2, s59, s2, "
         "8L, this->device_idx_, stream, kernels, this->cubin_dir_);")
    r = parse_statement(s, "call")
    callee, args, checked = r.callee, r.args, r.checked
    assert callee == "call_triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2" and not checked
    assert len(args) == 11
    assert [a.text for a in args[:7]] == ["buf0", "arg0_1", "buf1", "buf2", "s59", "s2", "8L"]
    assert args[7].text == "this->device_idx_"


def test_triton_call_short_form():
    r = parse_statement(
        "call_triton_poi_fused_x_2(buf0, arg0_1, buf1, buf2, s59, s2, 8L, this->device_idx_, stream, kernels, "
        "this->cubin_dir_);", "call")
    assert (r.callee, len(r.args)) == ("call_triton_poi_fused_x_2", 11)


def test_cpp_kernel_call_with_casts():
    # cpu/jagged wrapper.cpp
    s = ("cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0((const float*)(arg0_1.data_ptr()), "
         "(const int64_t*)(buf1.data_ptr()), (float*)(buf3.data_ptr()), (float*)(buf2.data_ptr()), s59, s2);")
    r = parse_statement(s, "call")
    callee, args = r.callee, r.args
    assert callee == "cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0"
    assert len(args) == 6
    bases = [next(n for n in a.names if n.startswith(("arg", "buf", "s"))) for a in args]
    assert bases == ["arg0_1", "buf1", "buf3", "buf2", "s59", "s2"]
    assert "const" in args[0].text and "float" in args[0].text


def test_constructor_facts():
    r = parse_statement('inputs_info_[0].name = "arg3_1";', "assignment")
    assert (r.target, r.index, r.attr, r.value.text) == ("inputs_info_", 0, "name", '"arg3_1"')
    r = parse_statement("constants_info_[0].shape = {1000, 32};", "assignment")
    assert (r.target, r.index, r.attr, r.value.text) == ("constants_info_", 0, "shape", "{1000, 32}")
    r = parse_statement("output_handles[0] = buf2.release();", "assignment")
    assert (r.target, r.index, r.attr, r.value.names) == ("output_handles", 0, None, ("buf2", "release"))


def test_in_spec_raw_string():
    # cpu/jagged wrapper.cpp (the quotes inside the raw string must not end it)
    s = ('in_spec_ = R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": '
         '"builtins.tuple", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": '
         '[]}, {"type": null, "context": null, "children_spec": []}]}, {"type": "builtins.dict", "context": "[]", '
         '"children_spec": []}]}])";')
    r = parse_statement(s, "assignment")
    value = r.value
    assert (r.target, r.index, r.attr) == ("in_spec_", None, None)
    assert value.text.startswith('R"([1, {"type": "builtins.tuple"')
    assert value.text.endswith(']}])"')
    assert value.names == ()


def test_load_kernel():
    # cuda/jagged wrapper.cpp
    s = ('kernels_.triton_per_fused_cumsum_0 = loadKernel("/tmp/ind_jagged/corcp7fqaeso4ec57bkrg4oultimfqilev5x6hyt'
         'zw5slx2evaun/cjm5zd7hk4ovilqtd5ouihp5duykkavaxzvjqbldwjb5nxzj3iwu.cubin", "triton_per_fused_cumsum_0", 128, '
         'cubin_dir_);')
    assert parse_statement(s, "load_kernel") == LoadKernel(
        "/tmp/ind_jagged/corcp7fqaeso4ec57bkrg4oultimfqilev5x6hytzw5slx2evaun/"
        "cjm5zd7hk4ovilqtd5ouihp5duykkavaxzvjqbldwjb5nxzj3iwu.cubin",
        "triton_per_fused_cumsum_0",
    )


def test_handle_declarations():
    assert parse_statement("AtenTensorHandle buf0_handle;", "handle_decl") == HandleDecl("buf0_handle")
    assert parse_statement("RAIIAtenTensorHandle buf0(buf0_handle);", "handle_decl") == RaiiDecl("buf0", "buf0_handle")


# -- Triton ------------------------------------------------------------------------------


def test_triton_def_with_constexpr():
    # cuda/jagged
    s = ("def triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2(in_ptr0, in_ptr1, out_ptr0, out_ptr1, "
         "ks0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):")
    r = parse_triton_statement(s, "def_stmt")
    name, params = r.name, [(p.name, p.annotation) for p in r.params]
    assert name == "triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2"
    assert [p for p, _ in params] == ["in_ptr0", "in_ptr1", "out_ptr0", "out_ptr1", "ks0", "ynumel", "xnumel",
                                      "YBLOCK", "XBLOCK"]
    assert dict(params)["XBLOCK"] == "tl.constexpr"
    assert dict(params)["ks0"] is None


def test_triton_associative_scan_tuple_target():
    # cuda/jagged, triton_per_fused_cumsum_0
    r = parse_triton_statement("tmp3, = tl.associative_scan((tmp2,), 1, _triton_helper_fn_add0)", "assign_stmt")
    target, value = r.target, r.value
    assert r.targets == ("tmp3",)
    assert value.text.startswith("tl.associative_scan(")
    assert "tmp2" in value.names and "_triton_helper_fn_add0" in value.names


def test_triton_annotated_assignment():
    # cuda/jagged: `R0_BLOCK: tl.constexpr = 1024`
    r = parse_triton_statement("R0_BLOCK: tl.constexpr = 1024", "assign_stmt")
    assert (r.targets, r.annotated, r.value.text) == (("R0_BLOCK",), True, "1024")


def test_triton_load_with_keyword():
    # cuda/jagged
    r = parse_triton_statement("tmp0 = tl.load(in_ptr0 + (y0), ymask, eviction_policy='evict_last')", "assign_stmt")
    target, value = r.target, r.value
    assert target == "tmp0"
    assert "'evict_last'" in value.text
    assert {"in_ptr0", "y0", "ymask"} <= set(value.names)


def test_triton_device_assert():
    # cuda/jagged
    r = parse_triton_statement(
        'tl.device_assert(((0 <= tmp9) & (tmp9 < ks0)) | ~(ymask), "index out of bounds: 0 <= tmp9 < ks0")',
        "call_stmt")
    callee, args = r.callee, r.args
    assert callee == "tl.device_assert"
    assert len(args) == 2
    assert args[1].text.strip('"') == "index out of bounds: 0 <= tmp9 < ks0"
    assert set(args[0].names) == {"tmp9", "ks0", "ymask"}


def test_triton_store():
    r = parse_triton_statement("tl.store(out_ptr0 + (x1 + 8*y0), tmp11, xmask & ymask)", "call_stmt")
    callee, args = r.callee, r.args
    assert callee == "tl.store"
    assert [a.names for a in args][:2] == [("out_ptr0", "x1", "y0"), ("tmp11",)]


def test_triton_rejects_garbage():
    assert parse_triton_statement("def f(:", "def_stmt") is None


CUDA_JAGGED_KERNEL = "triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2"


def _jagged_triton_lines() -> tuple[list[str], int]:
    """The kernel as the wrapper embeds it, from the `async_compile.triton(` line to `''', device_str`."""
    [(name, text)] = member_texts(S / "cuda" / "jagged" / "jagged.pt2", ".wrapper.cpp")
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.strip() == f"async_compile.triton('{CUDA_JAGGED_KERNEL}', '''")
    end = next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith("''', device_str"))
    indent = len(lines[start]) - len(lines[start].lstrip())
    return [l[indent:] for l in lines[start:end + 1]], start + 1


def test_triton_source_assert_line_is_the_py_line():
    src, wrapper_line = _jagged_triton_lines()
    assert src[0].startswith(f"async_compile.triton('{CUDA_JAGGED_KERNEL}'")
    k = parse_triton_source(CUDA_JAGGED_KERNEL, src, "w.cpp", first_line=1)
    [a] = k.assertions
    # Device asserts count the `async_compile.triton(` line as line 1.
    idx = next(i for i, l in enumerate(src) if l.strip().startswith("tl.device_assert("))
    assert a.line == idx + 1
    assert a.line == 38  # the line the real failure printed (manifest.json: `ceyv….py:38`)
    assert k.source_line(a.line).strip().startswith("tl.device_assert(")
    assert (a.index_var, a.lower_bound, a.bound_expr) == ("tmp9", "0", "ks0")
    assert a.message == "index out of bounds: 0 <= tmp9 < ks0"
    assert a.wrapper_line == idx + 1  # first_line=1

    k2 = parse_triton_source(CUDA_JAGGED_KERNEL, src, "w.cpp", first_line=wrapper_line)
    assert k2.assertions[0].line == 38
    assert k2.assertions[0].wrapper_line == wrapper_line + 37


def test_triton_source_params_tmps_and_stores():
    src, _ = _jagged_triton_lines()
    k = parse_triton_source(CUDA_JAGGED_KERNEL, src, "w.cpp", first_line=1)
    assert k.heuristic == "pointwise"
    roles = {p.name: p.role for p in k.params}
    assert roles == {"in_ptr0": "in", "in_ptr1": "in", "out_ptr0": "out", "out_ptr1": "out", "ks0": "size",
                     "ynumel": "size", "xnumel": "size", "YBLOCK": "other", "XBLOCK": "other"}
    assert k.mutated == ["out_ptr1"]
    tmp9 = [t for t in k.tmps if t.name == "tmp9"]
    assert len(tmp9) == 1 and src[tmp9[0].line - 1].strip().startswith("tmp9 = tl.where(")
    assert [s.ptr for s in k.stores] == ["out_ptr0", "out_ptr1"]
    for t in k.tmps:  # every tmp's line is where it is assigned
        assert re.match(rf"{t.name}\s*(,\s*)?(:[^=]*)?=", src[t.line - 1].strip()), (t, src[t.line - 1])


# -- CPU kernel.cpp --------------------------------------------------------------------------

# Modeled on cpu/gather_dynamic's kernel.cpp: two loop nests that both define tmp0 and
# tmp2, one check in each, and the vectorized `[&] { … }()` lambda form.
CRAFTED_KERNEL = """\
// crafted after sample_packages/cpu/gather_dynamic

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_gather_index_0(const int64_t* in_ptr0,
                       const float* in_ptr1,
                       float* out_ptr0,
                       const int64_t ks0)
{
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(1L))
        {
            {
                auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
                auto tmp1 = ks0;
                auto tmp2 = int64_t(tmp0 + tmp1);
                AOTI_TORCH_CHECK((0 <= tmp2) & (tmp2 < ks0), "index out of bounds: 0 <= tmp2 < ks0");
                auto tmp3 = in_ptr1[static_cast<int64_t>(tmp2)];
                out_ptr0[static_cast<int64_t>(x0)] = tmp3;
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(16L))
        {
            {
                auto tmp0 = at::vec::VectorizedN<int64_t,2>::loadu(in_ptr0 + static_cast<int64_t>(16L + x0), static_cast<int64_t>(16));
                auto tmp2 =
                [&]
                {
                    __at_align__ std::array<int64_t, 16> tmpbuf;
                    #pragma GCC unroll 16
                    for (long x0_inner = 0; x0_inner < static_cast<int64_t>(16); x0_inner++)
                    {
                        tmpbuf[x0_inner] = static_cast<int64_t>(tmp0[x0_inner]);
                    }
                    return at::vec::VectorizedN<int64_t,2>::loadu(tmpbuf.data(), static_cast<int64_t>(16));
                }
                ()
                ;
                AOTI_TORCH_CHECK((at::vec::VecMask<int64_t,2>((at::vec::VectorizedN<int64_t,2>(0) <= tmp2) & (tmp2 < at::vec::VectorizedN<int64_t,2>(ks0)))).all_masked(), "index out of bounds: 0 <= tmp2 < ks0");
                auto tmp4 = at::vec::Vectorized<float>(static_cast<float>(1.0));
                tmp4.store(out_ptr0 + static_cast<int64_t>(16L + x0));
            }
        }
    }
}
"""


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    hits = [i + 1 for i, l in enumerate(text.split("\n")) if l.strip().startswith(needle)]
    return hits[nth]


@pytest.fixture
def crafted():
    ks = parse_kernel_cpp(CRAFTED_KERNEL, "crafted.kernel.cpp")
    assert list(ks) == ["cpp_fused_gather_index_0"]
    return ks["cpp_fused_gather_index_0"]


def test_cpp_signature_params(crafted):
    k = crafted
    assert k.backend == "cpp"
    assert k.first_line == _line_of(CRAFTED_KERNEL, 'extern "C"')
    assert [(p.name, p.role, p.position) for p in k.params] == [
        ("in_ptr0", "in", 0), ("in_ptr1", "in", 1), ("out_ptr0", "out", 2), ("ks0", "size", 3)]
    assert [p.ctype for p in k.params] == ["int64_t*", "float*", "float*", "int64_t"]


def test_cpp_signature_roles_from_constness():
    # Names that do not say the role: `const T*` reads, `T*` writes.
    r = parse_cpp_statement('extern "C"  void  cpp_k(const float* a, float* b, const int64_t n)', "signature")
    assert isinstance(r, CppSignature) and r.name == "cpp_k"
    assert [(p.name, p.ctype, p.const) for p in r.params] == [("a", "float*", True), ("b", "float*", False),
                                                              ("n", "int64_t", True)]
    text = 'extern "C"  void  cpp_k(const float* a,\n    float* b,\n    const int64_t ks3)\n{\n}\n'
    k = parse_kernel_cpp(text, "k.cpp")["cpp_k"]
    assert [(p.name, p.role) for p in k.params] == [("a", "in"), ("b", "out"), ("ks3", "size")]


def test_cpp_lambda_definition(crafted):
    k = crafted
    lam_line = _line_of(CRAFTED_KERNEL, "auto tmp2 =", nth=1)
    assert CRAFTED_KERNEL.split("\n")[lam_line - 1].strip() == "auto tmp2 ="
    lam = [t for t in k.tmps if t.line == lam_line]
    assert len(lam) == 1 and lam[0].name == "tmp2"
    assert "loadu" in lam[0].expr.text and "tmpbuf" in lam[0].expr.names
    # Nothing inside the lambda body is taken for a tmp of its own.
    body = range(lam_line + 1, _line_of(CRAFTED_KERNEL, ";", nth=0) + 1)
    assert not [t for t in k.tmps if t.line in body]


def test_cpp_reused_tmp_names(crafted):
    k = crafted
    assert [t.line for t in k.tmps if t.name == "tmp0"] == [
        _line_of(CRAFTED_KERNEL, "auto tmp0 ="), _line_of(CRAFTED_KERNEL, "auto tmp0 =", nth=1)]
    assert [t.line for t in k.tmps if t.name == "tmp2"] == [
        _line_of(CRAFTED_KERNEL, "auto tmp2 ="), _line_of(CRAFTED_KERNEL, "auto tmp2 =", nth=1)]
    defs = [t for t in k.tmps if t.name == "tmp2"]
    assert defs[0].scope != defs[1].scope


def test_cpp_checks_lines_and_scopes(crafted):
    k = crafted
    c1, c2 = k.assertions
    assert c1.line == _line_of(CRAFTED_KERNEL, "AOTI_TORCH_CHECK(")
    assert c2.line == _line_of(CRAFTED_KERNEL, "AOTI_TORCH_CHECK(", nth=1)
    assert c1.scope != c2.scope
    # Both inside the kernel's body block, each in its own loop nest.
    assert len(c1.scope) >= 2 and len(c2.scope) >= 2
    assert c1.scope[0] == c2.scope[0] and c1.scope[1] != c2.scope[1]
    for c in (c1, c2):
        assert (c.index_var, c.lower_bound, c.bound_expr) == ("tmp2", "0", "ks0")
        assert c.message == "index out of bounds: 0 <= tmp2 < ks0"
        assert "tmp2" in c.condition


def test_cpp_resolve_tmp_stays_in_the_nest(crafted):
    k = crafted
    c1, c2 = k.assertions
    d1 = resolve_tmp(k, "tmp2", c1.line, c1.scope)
    d2 = resolve_tmp(k, "tmp2", c2.line, c2.scope)
    assert d1.line == _line_of(CRAFTED_KERNEL, "auto tmp2 =")
    assert d1.expr.text == "int64_t(tmp0 + tmp1)"
    assert d2.line == _line_of(CRAFTED_KERNEL, "auto tmp2 =", nth=1)
    assert resolve_tmp(k, "tmp0", c2.line, c2.scope).line == _line_of(CRAFTED_KERNEL, "auto tmp0 =", nth=1)
    # tmp1 is defined in the first nest only: from the second it is not visible.
    assert resolve_tmp(k, "tmp1", c1.line, c1.scope) is not None
    assert resolve_tmp(k, "tmp1", c2.line, c2.scope) is None
    # A use before the definition sees nothing.
    assert resolve_tmp(k, "tmp3", c1.line, c1.scope) is None


def test_cpp_stores(crafted):
    k = crafted
    assert [(s.ptr, s.line) for s in k.stores] == [
        ("out_ptr0", _line_of(CRAFTED_KERNEL, "out_ptr0[")), ("out_ptr0", _line_of(CRAFTED_KERNEL, "tmp4.store("))]


def test_cpp_statements():
    r = parse_cpp_statement('AOTI_TORCH_CHECK(tmp6 < 128L, "index out of bounds: tmp6 < 128L");', "check")
    assert isinstance(r, CppCheck)
    assert r.condition.text == "tmp6 < 128L" and r.message == "index out of bounds: tmp6 < 128L"
    r = parse_cpp_statement("auto tmp2 = int64_t(tmp0 - tmp1);", "tmp_def")
    assert isinstance(r, CppTmp)
    assert (r.name, r.value.text, r.value.names) == ("tmp2", "int64_t(tmp0 - tmp1)", ("int64_t", "tmp0", "tmp1"))
    r = parse_cpp_statement("tmp0.store(out_ptr0 + static_cast<int64_t>(x0));", "vec_store")
    assert isinstance(r, VecStore) and r.value.text == "tmp0" and "out_ptr0" in r.args[0].names
    assert parse_cpp_statement("auto tmp2 = ;", "tmp_def") is None


def test_real_gather_dynamic_checks_resolve_in_their_nest():
    [(name, text)] = member_texts(S / "cpu" / "gather_dynamic" / "gather_dynamic.pt2", ".kernel.cpp")
    [k] = parse_kernel_cpp(text, name).values()
    assert [p.role for p in k.params] == ["in", "in", "out", "size", "size", "size"]
    c1, c2 = k.assertions
    assert c1.scope != c2.scope
    lines = text.split("\n")
    d1 = resolve_tmp(k, "tmp2", c1.line, c1.scope)
    d2 = resolve_tmp(k, "tmp2", c2.line, c2.scope)
    assert d1.line < c1.line < d2.line < c2.line
    assert lines[d1.line - 1].strip() == lines[d2.line - 1].strip() == "auto tmp2 ="
    assert (c1.bound_expr, c2.bound_expr) == ("ks2", "ks2")


# -- extern calls: checked or not (issue 8: unchecked ones fail with exit 0) -------------------


def test_unchecked_extern_call_is_listed_by_show(tmp_path, capsys):
    """The torch 2.6/2.8 line (FORMAT_NOTES) put into a real 2.13 CPU run_impl, right after its cumsum."""
    import json

    from inspector.cli import main

    (name, text), = member_texts(S / "cpu/jagged/jagged.pt2", ".wrapper.cpp")
    (kname, ktext), = member_texts(S / "cpu/jagged/jagged.pt2", ".kernel.cpp")
    lines = text.split("\n")
    at = next(i for i, l in enumerate(lines) if "aoti_torch_cpu_cumsum(" in l) + 1
    lines.insert(at, '    aoti_torch_cpu_scatter_reduce_two_out(buf0, buf0,0,arg1_1,arg0_1, "sum",1);')
    w = tmp_path / Path(name).name
    w.write_text("\n".join(lines))
    (tmp_path / Path(kname).name).write_text(ktext)
    assert main(["show", str(w), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["models"][0]
    assert m["unchecked_extern_calls"] == [{"name": "aoti_torch_cpu_scatter_reduce_two_out", "line": at + 1}]
    assert main(["show", str(w)]) == 0
    out = capsys.readouterr().out
    assert "unchecked extern calls" in out and "garbage with exit 0" in out


def test_shipped_lark_tables_are_current():
    """grammars/tables.json holds the LALR tables of every grammar as it is now (a --no-cache run loads them
    instead of building them).  After a grammar edit: `python -m inspector.parse.grammar`."""
    import json

    from inspector.parse import grammar

    want = grammar.shipped_tables()
    have = json.loads((ROOT / "grammars" / "tables.json").read_text())
    assert len(want) == len(grammar.STARTS) == 6  # wrapper, triton, cpp_kernel, assert_message, expr, cmake
    assert set(have) == set(want), "grammars/tables.json is stale: run `python -m inspector.parse.grammar`"
    for name, starts in grammar._all_parsers():
        text = grammar._full_text(name)
        assert grammar._shipped(name, starts, text) is not None


def test_canonical_renumbers_names_in_order_and_maps_back():
    from inspector.parse.grammar import canonical

    shape, back = canonical("tmp12 = tl.load(in_ptr0 + (x0 + 16*tmp3), xmask) + 64L + r0_index + buf7_handle")
    assert shape == "tmp0 = tl.load(in_ptr1 + (x1 + 16*tmp2), xmask) + 64L + r1_index + buf3_handle"
    assert back == {"0": "12", "1": "0", "2": "3", "3": "7"}  # digit runs in names; 16 and 64L are numbers
    assert canonical("x + y") == ("x + y", {})


def test_defaults_and_a_hash_inside_a_string():
    # Crafted beside the real ones (a user kernel with defaults failed to build on torch 2.11: its autotuner's
    # launcher lost an argument; issue22_gpu.py's `defaults_multiline`): defaults, a trailing comma, a string
    # annotation; a `#` inside a string is the string's.
    src = ["async_compile.triton('k', '''", "@triton.jit", "def k(", "    x_ptr,", "    n,", "    alpha=1.0,",
           '    BLOCK: "tl.constexpr" = 64,', "    EVEN: tl.constexpr = False,", "):",
           "    x = tl.load(x_ptr + tl.arange(0, BLOCK))  # the first operand",
           '    tl.device_assert(n < 5, "no # comment here")', "    tl.store(x_ptr + tl.arange(0, BLOCK), x * alpha)",
           "''', device_str='cuda')"]
    k = parse_triton_source("k", src, "k.py", 1)
    assert [(q.name, q.ctype) for q in k.params] == [("x_ptr", None), ("n", None), ("alpha", None),
                                                     ("BLOCK", "tl.constexpr"), ("EVEN", "tl.constexpr")]
    assert [a.message for a in k.assertions] == ["no # comment here"]
    assert [s.ptr for s in k.stores] == ["x_ptr"]
