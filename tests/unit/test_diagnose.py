"""`diagnose` on real logs: each category with the log it was tested on.

Real logs: sample_packages/*/*/error.log (build.py) and sample_packages/*/*/logs/*.log
(sample_packages/make_logs.py, torch 2.13 CPU).  Where a CUDA log of a kind is not shipped yet, a real
log is cut (lines deleted, never written) or a line quoted in /work/shared/FORMAT_NOTES.md is used, and
the test says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector
from inspector.cli import main

from _cli import run_child
from _paths import S
from _queries import diagnose_pkg, steps_ok
from _samples import pkg_for, sample_of

IMA_PKG = S / "cpu/ima_embedding/package/ima_embedding.pt2"


def _fired(log: Path) -> bool:
    return sample_of(log).fired


@pytest.mark.parametrize("name,inp,kind,dim,symbol,got,expected", [
    ("cpu/jagged/logs/check_inputs_too_small.log", 0, "range", 0, "s59", 0, ">= 2"),
    ("cpu/jagged/logs/check_inputs_too_large.log", 0, "range", 0, "s59", 70000, "<= 65536"),
    ("cpu/jagged/logs/check_inputs_dtype.log", 1, "dtype", None, None, "int32", "int64"),
    ("cuda/jagged/logs/check_inputs_too_small.log", 0, "range", 0, "s59", 0, ">= 2"),
    ("cuda/jagged/logs/check_inputs_too_large.log", 0, "range", 0, "s59", 70000, "<= 65536"),
    ("cuda/jagged/logs/check_inputs_dtype.log", 1, "dtype", None, None, "int32", "int64"),
    ("cuda/embedding/logs/check_inputs_static.log", 0, "dtype", None, None, "float32", "int64"),
    ("cpu/embedding/logs/check_inputs_batch_one.log", 0, "range", 0, "s23", 1, ">= 2"),
    ("cpu/gather_dynamic/logs/check_inputs_too_large.log", 0, "range", 1, "s27", 5000, "<= 4096"),
    ("cpu/embedding/logs/check_inputs_dtype.log", 0, "dtype", None, None, "int32", "int64"),
    ("cpu/gather_dynamic/logs/check_inputs_unequal.log", 1, "equal", 0, "s77", 3, 4),
])
def test_input_check_failures(name, inp, kind, dim, symbol, got, expected):
    log = S / name
    d = diagnose_pkg(pkg_for(log), log.read_text())
    assert d.category == "input_check"
    ic = d.input_check.to_dict()
    assert (ic["input"], ic["kind"], ic["dim"], ic["symbol"], ic["got"], ic["expected"]) == (inp, kind, dim, symbol, got, expected)
    assert ic["wrapper_name"].startswith("arg") and ic["fix"]
    assert d.verdict.startswith(f"input {inp} ")
    steps_ok(d)


def test_input_check_range_names_the_export_range_and_empty_input():
    log = S / "cpu/jagged/logs/check_inputs_too_small.log"
    d = diagnose_pkg(pkg_for(log), log.read_text())
    assert (d.input_check.min, d.input_check.max) == (2, 65536)
    assert "empty input" in d.input_check.fix
    assert "2..65536" in d.verdict


def test_cpu_isa_difference_in_the_log_is_compared_with_the_package():
    log = S / "cpu/jagged/logs/check_inputs_too_small.log"
    d = diagnose_pkg(pkg_for(log), log.read_text())
    # Real warning: "AVX512 AVX512_VNNI vs AVX512 AVX512_VNNI AMX_TILE"; the package says AMX_TILE.
    assert any("lacks AMX_TILE" in n for n in d.notes)


def test_illegal_memory_access_cpu_segfault_names_the_unchecked_load():
    log = S / "cpu/ima_embedding/logs/segfault_unchecked_index.log"
    d = diagnose_pkg(IMA_PKG, log.read_text())
    assert d.category == "illegal_memory_access"
    assert d.suspects, "the package indexes item.weight with no bounds check"
    s = d.suspects[0]
    assert s["kernel"] == "cpp_fused_embedding_relu_0" and s["access"] == "load"
    assert s["table"]["kind"] == "constant" and s["table"]["fqn"] == "item.weight" and s["table"]["rows"] == 1000
    assert [o["input"] for o in s["index_origin"]] == [0]
    assert "item.weight" in d.verdict and "input 0" in d.verdict
    envs = {k: s2.when for s2 in d.steps for k in s2.env}
    assert envs["AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER"] == "compile"
    filt = next(s2 for s2 in d.steps if "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT" in s2.env)
    assert filt.env["AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT"] == "cpp_fused_embedding_relu_0"
    steps_ok(d)


def test_unchecked_vectorized_gather_from_an_input_is_a_suspect():
    """ima_gather: the CPU gather reads x inside a vectorized lambda (`in_ptr1[tmp1[x1_inner] + ks2*x0]`)."""
    from inspector.queries.suspects import unchecked_indirect

    with inspector.open_package(S / "cpu/ima_gather/package/ima_gather.pt2") as p:
        (s,) = unchecked_indirect(p.model(), p.graph())
    assert (s["kernel"], s["pointer"], s["index_var"]) == ("cpp_fused_add_gather_mul_0", "in_ptr1", "tmp1")
    assert s["table"]["kind"] == "input" and s["table"]["index"] == 0
    assert [o["input"] for o in s["index_origin"]] == [1]


@pytest.mark.parametrize("log", ["ima_async.log", "ima_blocking.log"])
def test_illegal_memory_access_cuda_names_the_unchecked_load(log):
    """Real torch 2.11 H200 runs of embedding_noassert (assert_indirect_indexing=False) with a huge id."""
    d = diagnose_pkg(S / "cuda/embedding_noassert/embedding_noassert.pt2", (S / "cuda/embedding_noassert/logs" / log).read_text())
    assert d.category == "illegal_memory_access"
    s = d.suspects[0]
    assert s["kernel"].startswith("triton_") and s["table"]["fqn"] == "emb.weight" and s["table"]["rows"] == 1000
    assert [o["input"] for o in s["index_origin"]] == [0]
    # CPU tensors print the same text: the device question comes first.
    assert "cuda" in d.steps[0].do and "AOTI_DEVICE_KEY" in d.steps[0].do
    assert any(st.env.get("CUDA_LAUNCH_BLOCKING") == "1" and st.when == "run" for st in d.steps)
    steps_ok(d)


@pytest.mark.parametrize("log", ["cpu_inputs.log", "cpu_inputs_blocking.log"])
def test_cpu_tensors_into_a_cuda_package_read_as_an_illegal_access_whose_likeliest_cause_is_a_host_pointer(log):
    # No kernel of jagged has an unchecked indirect access: the illegal access can only be a host pointer
    # (tests/unit/test_arithmetic_fault.py holds every real cpu_inputs log).  The log names no device, so it is no
    # device_mismatch (issue 34 §2): an illegal memory access whose first hypothesis is an input on the CPU.
    d = diagnose_pkg(S / "cuda/jagged/jagged.pt2", (S / "cuda/jagged/logs" / log).read_text())
    assert d.category == "illegal_memory_access" and d.certainty == "likely"
    assert d.async_error.hypotheses[0].kind == "host_input"
    assert d.suspects == []
    assert "on the CPU" in d.verdict
    assert "AOTI_RUNTIME_CHECK_INPUTS=1" in d.steps[0].do
    steps_ok(d)


def test_device_mismatch_named_by_the_runtime_check():
    d = diagnose_pkg(S / "cuda/jagged/jagged.pt2", (S / "cuda/jagged/logs/cpu_inputs_checked.log").read_text())
    assert d.category == "device_mismatch"
    assert (d.input_check.input, d.input_check.kind, d.input_check.got, d.input_check.expected) == \
        (0, "device", "cpu", "cuda")
    steps_ok(d)


def test_device_mismatch_text_has_its_own_category():
    # A line quoted in the issue (no real run here prints it).
    d = diagnose_pkg(S / "cuda/embedding/embedding.pt2", "RuntimeError: Expected out tensor to have device cuda:0, but got cpu\n")
    assert d.category == "device_mismatch" and "cuda" in d.verdict
    steps_ok(d)


def test_device_side_assert_without_its_line_lists_candidates():
    """The real cuda/transformer log with its Assertion lines deleted: what two of five HF runs printed."""
    text = "\n".join(l for l in (S / "cuda/transformer/error.log").read_text().splitlines() if "Assertion" not in l)
    d = diagnose_pkg(S / "cuda/transformer/transformer.pt2", text)
    assert d.category == "device_assert"
    assert "symptom" in d.verdict and "cuBLAS" in d.verdict
    assert d.candidates[0].kernel == json.loads((S / "cuda/transformer/manifest.json").read_text())["expect"]["kernel"]
    assert d.candidates[0].index_origin == ["input 0 (arg149_1)"]
    assert all(c.launched_at < 3751 for c in d.candidates)  # before the addmm that noticed it
    assert any(s.env == {"CUDA_LAUNCH_BLOCKING": "1"} and s.when == "run" for s in d.steps)


def test_trace_assert_message_device_side_assert_gives_candidates(capsys):
    pkg = str(S / "cuda/embedding/embedding.pt2")
    assert main(["trace-assert", pkg, "--message", "CUDA error: device-side assert triggered", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["matches"] == [] and len(r["candidates"]) == 1
    assert r["candidates"][0]["kernel"] == "triton_poi_fused_embedding_relu_0"
    assert "CUDA_LAUNCH_BLOCKING=1" in r["verdict"]


def test_load_failure_cuda_package_on_a_cpu_host():
    log = S / "cuda/jagged/logs/load_cuda_package_on_cpu_host.log"
    d = diagnose_pkg(S / "cuda/jagged/jagged.pt2", log.read_text())
    assert d.category == "load"
    assert "cuda" in d.verdict and "90" in d.verdict
    steps_ok(d)


def test_load_failure_of_a_truncated_package():
    """Real: the jagged package repacked without its wrapper.so, loaded by torch 2.13 (make_logs.py)."""
    log = S / "cpu/jagged/logs/load_without_wrapper_so.log"
    d = diagnose_pkg(S / "cpu/jagged/jagged.pt2", log.read_text())
    assert d.category == "load"
    assert d.verdict.startswith("the package did not load: RuntimeError: File not found:")
    assert any("missing from the archive" in n for n in d.notes)
    assert any("older torch" in n for n in d.notes)  # "Loading outdated pt2 file" in the same log
    steps_ok(d)


def test_deprecated_api():
    log = S / "cpu/jagged/logs/deprecated_aot_load.log"
    d = diagnose_pkg(S / "cpu/jagged/jagged.pt2", log.read_text())
    assert d.category == "deprecated_api"
    assert "torch._export.aot_load" in d.verdict and "aoti_load_package" in d.verdict
    assert any("aoti_load_package" in s.do for s in d.steps)


def test_silent_wrong_result_is_no_failure_with_the_silent_calls_named():
    """scatter_reduce: the bad index passed silently (exit 0, nothing printed; its error.log): no failure in this log
    (issue 34 §4), and the extern call whose failure prints nothing is named."""
    log = S / "cpu/scatter_reduce/error.log"
    assert not _fired(log)
    d = diagnose_pkg(S / "cpu/scatter_reduce/scatter_reduce.pt2", log.read_text())
    assert d.category == "no_failure"
    assert any("without an error check" in n and "scatter_reduce" in n for n in d.notes)
    steps_ok(d)


def test_unknown_log_gets_general_first_steps():
    d = diagnose_pkg(S / "cpu/jagged/jagged.pt2", "ModuleNotFoundError: No module named 'numpy'\n")
    assert d.category == "unknown"
    assert any(s.env == {"AOTI_RUNTIME_CHECK_INPUTS": "1"} and s.when == "run" for s in d.steps)
    steps_ok(d)


def test_cli_json_shape_and_text(capsys):
    log = str(S / "cpu/gather_dynamic/logs/check_inputs_too_large.log")
    pkg = str(S / "cpu/gather_dynamic/gather_dynamic.pt2")
    assert main(["diagnose", pkg, "--log", log, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"category", "evidence", "steps", "trace", "candidates", "input_check"} <= set(d)
    assert d["category"] == "input_check"
    assert main(["diagnose", pkg, "--log", log]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("✗ input_check: input 0 (arg0_1) `x` dim 1")
    assert d["input_check"]["user_name"] == "x"  # from the exported program the package carries


def test_cli_usage_errors(capsys):
    assert main(["diagnose", str(S / "cpu/jagged/jagged.pt2"), "--log", "/no/such/file"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_python_api_twins():
    with inspector.open_package(S / "cpu/jagged/jagged.pt2") as pkg:
        d = inspector.diagnose(pkg, (S / "cpu/jagged/logs/check_inputs_too_small.log").read_text())
        assert (d.category, d.input_check.symbol) == ("input_check", "s59")
        assert d.input_check["symbol"] == "s59" and d.steps[0]["do"] == d.steps[0].do  # read by the JSON keys too
        assert d.to_dict()["category"] == "input_check"
        c = inspector.check(pkg, ["0=float32[0,8]@cpu", "1=int64[3]"])
        assert not c.ok and c.predicted_assertions[0]["message"] == "index out of bounds: 0 <= tmp12 < ks0"


def test_aten_cuda_embedding_bag_assert_is_an_extern_op_failure():
    """Real torch 2.11 H200 run: EmbeddingBag.cu's own assert, no Inductor assertion involved."""
    log = S / "cuda/embedding_bag/error.log"
    d = diagnose_pkg(S / "cuda/embedding_bag/embedding_bag.pt2", log.read_text())
    assert d.category == "extern_op"
    m = d.to_dict()["trace"]["matches"][0]
    assert (m["kernel"], m["kernel_kind"]) == ("aoti_torch_cuda__embedding_bag", "extern")
    assert [o["input"]["index"] for o in m["index_origin"]] == [0]
    assert m["table"]["fqn"] == "bag.weight" and m["static_bound"] == 300
    assert "EmbeddingBag.cu" in d.evidence[0].quote and d.evidence[0].pattern == "aten_cuda_assert"


def test_device_side_assert_without_its_line_names_aten_ops_too():
    """The real cuda/embedding_bag log with its EmbeddingBag.cu Assertion lines deleted."""
    text = "\n".join(l for l in (S / "cuda/embedding_bag/error.log").read_text().splitlines() if "Assertion" not in l)
    assert "device-side assert" in text
    d = diagnose_pkg(S / "cuda/embedding_bag/embedding_bag.pt2", text)
    assert d.category == "device_assert"
    c = d.candidates[0]
    assert c.kernel == "aoti_torch_cuda__embedding_bag" and c.index_origin == ["input 0 (arg3_1)"]
    assert c.bound == "300"


def test_text_output_carries_the_full_trace_inline(capsys):
    pkg, log = S / "cpu/embedding/embedding.pt2", S / "cpu/embedding/error.log"
    assert main(["diagnose", str(pkg), "--log", str(log)]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first == "✗ index_assert: input 0 holds an index ≥ 1000, past `emb.weight` (1000 rows)" and len(first) <= 120
    assert "the full trace" in out and "index tmp2 ← " in out and "input 0 (arg3_1)" in out  # internals below
    assert "what():" not in out or "index out of bounds: 0 <= tmp2 < 1000L" in out


def test_cpuinfo_flags_are_compared_with_the_package_isa():
    """A real /proc/cpuinfo flags line (no amx_tile) against a package compiled for AMX_TILE, whose kernels have no
    AMX tile code: not a load failure (seen: such a build runs on a host without AMX, cpu/embedding/weights/*.log),
    a note that says why.  Without AVX512 it is one."""
    log = (S / "cpu/jagged/logs/cpuinfo_flags_no_amx.log").read_text()
    assert log.startswith("flags") and "avx512_vnni" in log and "amx_tile" not in log
    d = diagnose_pkg(S / "cpu/jagged/jagged.pt2", log)
    assert d.category == "no_failure"  # a flags line is no failure (issue 34 §4)
    assert any("lacks AMX_TILE" in n and "no kernel" in n for n in d.notes)
    no_avx512 = " ".join(w for w in log.split() if not w.startswith("avx512"))
    d = diagnose_pkg(S / "cpu/jagged/jagged.pt2", no_avx512)
    assert d.category == "load" and "AVX512" in d.verdict
    assert any("lack AVX512" in n for n in d.notes)


@pytest.mark.parametrize("stdin", [b"", b"PK\x03\x04\x00\x00binary"], ids=["empty", "binary"])
def test_diagnose_stdin_empty_or_binary_is_a_usage_error(stdin):
    """Piped input gets the same checks as --log FILE: one line, exit 2, never a diagnosis of nothing."""
    pkg = S / "cpu/jagged/jagged.pt2"
    r = run_child("diagnose", pkg, input=stdin, text=False)
    assert r.returncode == 2, r.stderr
    assert r.stderr.decode().count("\n") == 1 and "stdin is" in r.stderr.decode()
