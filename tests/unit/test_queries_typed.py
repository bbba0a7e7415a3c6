"""Issue 21 §1 on the query side: check and locate hold no sentence (their words are in explain/check.py and
explain/locate.py); the modules this round emptied of regular expressions stay empty; the facts they read
now come from one home each — user-typed specs and device strings (parse/specs.py), a CMake project's
commands (grammars/cmake.lark, parse/binaries.py), a statement's words (parse/tokens.py), run_impl's buffer
statements (parse/buffers.py), the Source Nodes comments (parse/comments.py), the extern-op and FX-target
name rules (naming.py) — each read on real packages.  Fast: the packages are opened as zip files only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from inspector.errors import UsageError
from inspector.naming import aten_op, calls_cublas, calls_cudnn_conv, extern_op, fused_words
from inspector.parse import expr_tree as E
from inspector.parse.binaries import cmake_facts, embedded_kernel_symbols, ptx_target
from inspector.parse.specs import (Device, device_index, device_type, is_int, parse_device, parse_source_line,
                                   parse_spec)
from inspector.parse.tokens import call_args, identifiers, last_string, mentions
from inspector.queries.positions import _calls

from _members import first_bytes
from _paths import ROOT, S

PKG = ROOT / "inspector"

# the modules whose sentences moved to inspector/explain/ (one word or two may stay: names, kinds, keys)
NO_SENTENCE = ("queries/check.py", "queries/arith.py", "queries/size_failures.py", "queries/loop_checks.py",
               "queries/locate.py", "queries/report.py", "queries/report_chain.py", "queries/report_panels.py")
# the modules that hold no word a person reads at all, not even a label's ("bounded by", f"param {p}"): codes,
# keys and generated code's tokens only (their words: explain/report.py)
NO_WORDS = ("queries/report.py", "queries/report_chain.py", "queries/report_panels.py")
# the modules of queries/ this round emptied of `re` (the lead's allowlist in tests/unit/test_queries_no_regex.py
# shrinks by these)
NO_REGEX = ("queries/check.py", "queries/arith.py", "queries/size_failures.py", "queries/loop_checks.py",
            "queries/memory.py", "queries/locate.py", "queries/kernels.py",
            "queries/kernel_binaries.py", "queries/printer.py", "queries/candidates.py", "queries/repro.py",
            "queries/repro_checks.py", "queries/repro_case.py",
            "queries/sweep.py", "queries/show.py", "queries/scan.py", "queries/source.py", "queries/extract.py",
            "queries/nan_constants.py")


def sentences(source: str) -> list[str]:
    """The string constants of three words or more that are not docstrings (f-strings' pieces included)."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
            and len(n.value.split()) >= 3]


def label_words(source: str) -> list[str]:
    """The string constants that are words a person reads, however short (docstrings aside): two words or more
    (``"bounded by"``), or a piece of an f-string that puts a word beside a value (``f"param {p}"``,
    ``f"{k} (signature)"``).  Codes, keys (``f"param:{k}:{p}"``) and code tokens (``'extern "C"'``, ``" = "``) pass."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    pieces = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str)) or id(n) in docs:
            continue
        v = n.value
        if sum(t.isalpha() for t in v.split()) >= 2 or (id(n) in pieces and any(c.isalpha() for c in v)
                                                        and any(c.isspace() for c in v)):
            out.append(v)
    return out


def regex_uses(source: str) -> list[str]:
    """``import re`` / ``from re import …`` / ``re.<anything>`` in a module."""
    out = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Import) and any(a.name == "re" for a in n.names):
            out.append("import re")
        elif isinstance(n, ast.ImportFrom) and n.module == "re":
            out.append("from re import")
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "re":
            out.append(f"re.{n.attr}")
    return out


@pytest.mark.parametrize("rel", NO_SENTENCE)
def test_check_and_locate_hold_no_sentence(rel):
    assert sentences((PKG / rel).read_text()) == [], f"{rel}: its words go to inspector/explain/"


@pytest.mark.parametrize("rel", NO_WORDS)
def test_report_query_holds_no_label_words(rel):
    assert label_words((PKG / rel).read_text()) == [], f"{rel}: a chain's labels are codes; their words go to explain/report.py"


def test_the_label_check_can_fail():
    bad = ('def f(c, k, p):\n    """Docstrings of many words pass."""\n    c.link(k, p, "bounded by")\n'
           '    return [f"param {p}", f"{k} (signature)", f"param:{k}:{p}", \'extern "C"\', f"{p} = {k}", "size_of"]\n')
    assert label_words(bad) == ["bounded by", "param ", " (signature)"]
    from inspector.explain import report as words

    # every word the report's chains draw is in explain/report.py, and each would be caught back in a query
    drawn = [w for w in words.EDGES.values() if w]
    assert drawn and all(label_words(f"x = {w!r}\n") for w in drawn if " " in w)


@pytest.mark.parametrize("rel", NO_REGEX)
def test_emptied_modules_hold_no_regex(rel):
    assert regex_uses((PKG / rel).read_text()) == [], f"{rel}: a pattern over generated code goes to parse/ or dialects/"


def test_the_checks_can_fail():
    bad = 'import re\n\ndef f(x):\n    """A docstring of many words is fine."""\n    return f"dim {x} is not what the package expects"\n'
    assert sentences(bad) == [" is not what the package expects"]
    assert regex_uses(bad) == ["import re"]
    assert regex_uses("from re import sub\n") == ["from re import"]
    assert regex_uses("import re as r\nr.sub('a', 'b', 'c')\n") == ["import re"]


def test_device_strings_have_one_parser():
    assert Device.of("cuda:1") == Device("cuda", 1) and str(Device.of("cuda:1")) == "cuda:1"
    assert Device.of("cpu") == Device("cpu") and Device.of(None) is None and Device.of("") is None
    assert [device_type(d) for d in ("cuda:1", "cuda", "cpu", None, "")] == ["cuda", "cuda", "cpu", "", ""]
    assert [device_index(d) for d in ("cuda:1", "cuda", "xpu:2", "cpu", None)] == [1, 0, 2, None, None]
    assert parse_device(" cuda:1 ", "--device") == "cuda:1"
    for bad in ("cpu:0", "tpu", "cuda:-1", "gpu"):
        with pytest.raises(UsageError, match="unknown device"):
            parse_device(bad, "--device")


def test_input_specs_parse_once_for_cli_api_and_mcp():
    s = parse_spec("item_ids=long[0,32]stride[32,1]@cuda:1")
    assert (s.who, s.dtype, s.shape, s.stride, s.device, s.position) == ("item_ids", "int64", [0, 32], [32, 1],
                                                                           "cuda:1", None)
    assert parse_spec("1=float32").position == 1 and parse_spec("1=float32").shape is None
    assert parse_spec("²=float32").position is None  # a digit int() refuses is a name, not a position
    with pytest.raises(UsageError, match="cannot be negative"):
        parse_spec("0=float32[-1]")
    # the CLI, the API twin and the MCP tools (which run the CLI) all take this parser
    import inspector
    import inspector.cli.check as cli_check
    import inspector.queries.check as q

    assert q.parse_spec is parse_spec and "parse.specs" in Path(cli_check.__file__).read_text()
    assert "parse.specs import parse_spec" in Path(inspector.__file__).read_text()
    assert [is_int(x) for x in (64, "64", "-1", "ks0", "64L", "")] == [True, True, True, False, False, False]


def test_source_line_spec():
    assert (parse_source_line("model.py:84").file, parse_source_line("model.py:84").line) == ("model.py", 84)
    assert parse_source_line("C:/x/model.py:7").file == "C:/x/model.py"
    with pytest.raises(UsageError, match="give FILE:LINE"):
        parse_source_line("model.py")


def test_extern_op_names():
    assert extern_op("aoti_torch_cuda_addmm_out") == "addmm"
    assert extern_op("aoti_torch_cpu_scatter_reduce_two_out") == "scatter_reduce_two"
    assert extern_op("aoti_torch_cpu_mm_out", "cuda") is None and extern_op("triton_poi_fused_0") is None
    assert [calls_cublas(t) for t in ("aoti_torch_cuda_mm_out", "aoti_torch_cuda__scaled_mm", "aoti_torch_cpu_mm_out",
                                      "aoti_torch_cuda_mm_two")] == [True, True, False, False]
    assert [calls_cudnn_conv(t) for t in ("aoti_torch_cuda_convolution", "aoti_torch_cuda__convolution_out",
                                          "aoti_torch_cuda_cudnn_convolution_relu", "aoti_torch_cuda_convolution_backward",
                                          "aoti_torch_cpu_convolution")] == [True, True, True, False, False]
    assert aten_op("torch.ops.aten.gather.default") == "gather" and aten_op("torch.ops.mylib.op.default") is None
    assert fused_words("cpp_fused_add_gather_mul_0") == {"add", "gather", "mul"}
    assert fused_words("triton_poi_fused_index_select_1") == {"index", "select"} and fused_words("aoti_torch_cpu_mm") == set()


def test_statement_words():
    assert identifiers("call_triton_x(buf2, arg0_1, 64L, 0.5)") == ["call_triton_x", "buf2", "arg0_1"]
    assert mentions("f(buf1, buf10)", "buf10") and not mentions("f(buf10)", "buf1")
    assert last_string('AOTI_TORCH_CHECK((0 <= tmp2) & (tmp2 < 64L), "index out of bounds: 0 <= tmp2 < 64L");') \
        == "index out of bounds: 0 <= tmp2 < 64L"
    assert last_string("tl.device_assert(x < 3, 'single quotes')") == "single quotes" and last_string("f(x)") == ""
    assert call_args("f(a, g(b, c), int_array_0[1], d)") == ["a", "g(b, c)", "int_array_0[1]", "d"]


# What each real CMake project of the samples says (read by hand from its CMakeLists.txt): (cmake_min, packages,
# library, cuda, objcopy, defines embed_gpu_kernel, calls it, -gencode targets)
CMAKE = {
    "standalone": ("3.27", ["TorchStandalone"], "aoti_model STATIC", False, False, False, False, []),
    "cpp_only": ("3.27", ["Torch"], "aoti_model SHARED", False, False, False, False, []),
    "standalone_cuda": ("3.27", ["TorchStandalone", "CUDAToolkit"], "gather STATIC", True, True, True, True,
                        ["compute_90a", "sm_90a"]),
    # defines embed_gpu_kernel (and its -gencode flags) but never calls it: its kernels are members
    "cpp_only_cuda": ("3.27", ["Torch", "CUDAToolkit"], "aoti_model SHARED", True, True, True, False,
                      ["compute_90a", "sm_90a"]),
}


@pytest.mark.parametrize("name", sorted(CMAKE))
def test_cmake_projects_read_by_their_grammar(name):
    text = first_bytes(S / "options" / name / f"{name}.pt2", "CMakeLists.txt").decode()
    f = cmake_facts(text)
    assert f.parsed and len(f.commands) > 5
    cmake_min, packages, library, cuda, objcopy, defines, calls, gencode = CMAKE[name]
    assert (f.cmake_min, f.packages, f.library, f.cuda, f.objcopy) == (cmake_min, packages, library, cuda, objcopy)
    # the definition `function(embed_gpu_kernel …)` is no call
    assert any(c.named("function") and c.args[0] == "embed_gpu_kernel" for c in f.commands) == defines
    assert (f.embeds_kernels, f.gencode) == (calls, gencode)


def test_cmake_grammar_refusal_is_said():
    assert not cmake_facts("add_library(x STATIC").parsed
    f = cmake_facts('# c\nCMAKE_MINIMUM_REQUIRED(version 3.18...3.27)\nset(F "-gencode arch=compute_80,code=sm_80")\n'
                    "Add_Library(m SHARED a.cpp) #[[ a bracket comment ]]\nembed_gpu_kernel(k k.ptx)\n")
    assert (f.cmake_min, f.library, f.gencode, f.embeds_kernels) == ("3.18...3.27", "m SHARED", ["sm_80"], True)
    assert [c.line for c in f.commands] == [2, 3, 4, 5]


def test_ptx_target_and_embedded_symbols_on_real_packages():
    t = ptx_target(first_bytes(S / "options/standalone_cuda/standalone_cuda.pt2", ".ptx")[:8192])
    assert t is not None and (t.sm, t.suffix) == (90, "a")
    assert ptx_target(b".version 8.4\n") is None
    wrapper = first_bytes(S / "options/embed_kernel_cuda/embed_kernel_cuda.pt2", "wrapper.cpp").decode()
    syms = embedded_kernel_symbols(wrapper)
    assert syms and all(s.startswith("__") and s.endswith("_start") for s in syms)
    assert embedded_kernel_symbols('kernels_.k = loadKernel("/tmp/k.cubin", "k", 0);') == []


def test_check_evaluates_through_the_typed_tree():
    from inspector.parse import expr_tree as E
    from inspector.queries.arith import evaluate
    from inspector.parse.tokens import lexed_expr
    from inspector.queries.memory import Allocation

    v = {"ks0": 10, "ks1": 3, "s70": 4}
    assert [evaluate(t, v) for t in ("ks0 + ks1", "(-1) + ks0", "ks1*ks0", "64L", "ks0 // ks1", "ks0 % ks1")] \
        == [13, 9, 30, 64, 3, 1]
    assert evaluate(E.parse_expr("ks0*ks1"), v) == 30  # a tree as well as its text
    # not plain arithmetic, an unknown name, a division by zero: no value (never a guess)
    for t in ("c10::div_floor_integer(ks0, ks1)", "ks0 < ks1", "ks0 / ks1", "ks9 + 1", "ks0 // 0", "x[0]", "", "ks0 ks1"):
        assert evaluate(t, v) is None, t
    # C++ semantics where the text is C++: `%` truncates as C's does (Python's ast floored: (-7) % 2 was 1)
    assert evaluate("(-7) % 2", {}) == -1
    # a size (memory): C++'s `/` and integer casts are arithmetic; a call still is not
    def alloc(sizes, strides, dtype=None):
        return Allocation("b", 1, dtype, [lexed_expr(x) for x in sizes], [lexed_expr(x) for x in strides], "alloc")

    a = alloc(["static_cast<int64_t>(s70*s70)", "ks0 / 3"], ["3L", "1L"], "float32")
    assert a.elements(v) == 1 + 15 * 3 + 2 and a.formula() == "4*static_cast<int64_t>(s70*s70)*ks0 / 3"
    # issue 34 §5: a size's floor division, std::max and a float scale are computed as the wrapper computes them
    assert alloc(["c10::div_floor_integer(ks0, 2L)"], ["1L"]).elements(v) == 5
    assert alloc(["(1.0/2.0)*ks0", "std::max(1L, ks1)"], ["3L", "1L"]).elements(v) == 1 + 4 * 3 + 2
    assert alloc(["(-1) + s70", "64L"], ["64L", "1L"]).formula() == "4*((-1) + s70)*64"


def test_repro_reads_tmp_definitions_by_their_tree():
    """Texts as Inductor writes them (taken from the samples' kernels), read by the tree, not by substrings."""
    from inspector.model import Expr, TmpDef
    from inspector.parse import expr_tree as E
    from inspector.queries import repro_checks as R
    from inspector.queries import wraps as W

    def defs(**texts):
        return {n: TmpDef(n, Expr(t, E.names(E.parse_expr(t))), i) for i, (n, t) in enumerate(texts.items())}

    d = defs(tmp0="tl.load(in_ptr0 + (x0), xmask)", tmp1="tl.full([1], 0, tl.int64)", tmp2="tmp0 < tmp1",
             tmp3="tl.full([XBLOCK], 64, tl.int32)", tmp4="tmp0 + tmp3", tmp5="tl.where(tmp2, tmp4, tmp0)",
             tmp6="tl.full([1], 4, tl.int64)", tmp7='tl.where(xmask, tmp0, float("-inf"))',
             tmp8="tl.where((tmp0 < 0) != (tmp6 < 0), tmp0 // tmp6 - 1, tmp0 // tmp6)")
    assert [n for n in d if W._is_zero(d, E.Name(n))] == ["tmp1"]
    assert W.negative_test(d, E.Name("tmp2")) == E.Name("tmp0")
    assert W.wrap_in(d, d["tmp8"].expr.tree) is None  # a floor division's sign test is no wrap
    assert R._unwrap(d, d["tmp5"]) == (True, "tmp0") and R._unwrap(d, d["tmp7"]) == (False, None)
    assert (R._loads(d["tmp0"].expr.tree), R._loads(d["tmp6"].expr.tree)) == (True, False)  # a constant is no load
    assert (R._computes(d["tmp4"].expr.tree), R._computes(d["tmp7"].expr.tree)) == (True, False)  # "-inf" is a string
    c = defs(tmp0="at::vec::Vectorized<int64_t>::loadu(in_ptr0 + static_cast<int64_t>(16L*x0), static_cast<int64_t>(16))",
             tmp1="static_cast<int64_t>(0)", tmp2="at::vec::Vectorized<int64_t>(tmp1)",
             tmp3="at::vec::VecMask<int64_t,2>(tmp0 < tmp2)", tmp4="tmp0 < 0", tmp5="tmp4 ? tmp0 + 64L : tmp0")
    assert W._is_zero(c, E.Name("tmp1")) and W._is_zero(c, E.Name("tmp2"))
    assert W.negative_test(c, E.Name("tmp3")) == E.Name("tmp0")
    assert R._unwrap(c, c["tmp5"]) == (True, "tmp0") and R._loads(c["tmp0"].expr.tree)


def test_a_call_with_template_arguments_is_a_call():
    """``f<float, 1, 2, true>(a, b, x1)`` is a call of ``f`` (the expression grammar keeps the template in its name)."""
    tree = E.parse_expr("argmax_combine_vec<float, 1, 2, true>(tmp_acc0_vec, tmp0, x1)")
    calls = list(_calls(tree))
    assert calls and calls[0][0] == "argmax_combine_vec"
    assert [a.id for a in calls[0][1]] == ["tmp_acc0_vec", "tmp0", "x1"]
    plain = list(_calls(E.parse_expr("argmax_combine(tmp_acc0, argmax_vec_reduce_all(tmp_acc0_vec))")))
    assert [f for f, _ in plain] == ["argmax_combine", "argmax_vec_reduce_all"]
    assert list(_calls(E.parse_expr("tmp0 < ks0"))) == []
