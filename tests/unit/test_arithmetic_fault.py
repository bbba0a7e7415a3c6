"""SIGFPE (``arithmetic_fault``) and CPU inputs fed to a CUDA package (an illegal access: a host pointer, read from
the package), each on the real logs: sample_packages/cpu/transformer/logs/sigfpe_*.log (torch 2.13 CPU, input 0 dim 1 at 0 with
guards off: faulthandler's text, bash's, gdb's) and every real cpu_inputs log of the CUDA samples (torch 2.11, H200)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import inspector
from inspector.explain import diagnose as say
from inspector.logs import parse_log
from inspector.parse import expr_tree as E
from inspector.queries.divisions import _divisors

from _paths import ROOT, S
from _queries import diagnose_pkg

TRANSFORMER = S / "cpu/transformer/transformer.pt2"
LOGS = S / "cpu/transformer/logs"
SCHEMA = json.loads((ROOT / "inspector/schemas/diagnose.schema.json").read_text())
SDPA = "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"
FORMS = {"sigfpe_faulthandler.log": "Fatal Python error: Floating point exception",
         "sigfpe_shell.log": "Floating point exception",
         "sigfpe_gdb.log": "Program received signal SIGFPE, Arithmetic exception."}


def _diag(pkg: Path, log: str):
    d = diagnose_pkg(pkg, log)
    jsonschema.validate(d.to_dict(), SCHEMA)
    return d


@pytest.mark.parametrize("log", sorted(FORMS))
def test_each_real_sigfpe_form_is_read(log):
    rep = parse_log((LOGS / log).read_text())
    hits = [e for e in rep.events if e.pattern == "arithmetic_fault"]
    assert hits and FORMS[log] in hits[0].printed


@pytest.mark.parametrize("text", ["killed by SIGFPE", "rc -8", "returncode=-8", "killed by signal 8"])
def test_our_own_runners_forms_are_read(text):
    # Crafted beside the real ones: what repro's script / the sweep print for a child killed by signal 8.
    assert parse_log(text).has("arithmetic_fault")
    assert not parse_log("rc -80 signal 80").has("arithmetic_fault")


@pytest.mark.parametrize("log", ["sigfpe_faulthandler.log", "sigfpe_shell.log"])
def test_without_a_backtrace_every_place_is_possible(log):
    d = _diag(TRANSFORMER, (LOGS / log).read_text())
    assert d.category == "arithmetic_fault" and d.certainty == "possible"
    assert d.verdict.startswith("SIGFPE: an integer division by zero")
    assert len(d.fault_sites) > 1 and {h["certainty"] for h in d.fault_sites} == {"possible"}
    # ordered by the wrapper line they run at, the sdpa op that faulted among them with the sequence's symbol
    lines = [h["line"] for h in d.fault_sites]
    assert lines == sorted(lines)
    sdpa = [h for h in d.fault_sites if h["target"] == SDPA]
    assert sdpa and sdpa[0]["line"] == 2780
    assert {(r["symbol"], r["input"], r["dim"]) for r in sdpa[0]["symbols"]} >= {("s27", 0, 1)}
    # no generated kernel of this package divides by a symbol (each c10::div_floor_integer divides by 16L)
    assert all(h["kind"] == "extern" for h in d.fault_sites)
    assert say.FPE_TELL_APART in d.notes
    assert any("input 0 dim 1" in s.do for s in d.steps)


def test_the_gdb_backtrace_decides():
    d = _diag(TRANSFORMER, (LOGS / "sigfpe_gdb.log").read_text())
    assert d.category == "arithmetic_fault" and d.certainty == "likely"
    assert [(h["target"], h["line"], h["certainty"]) for h in d.fault_sites] == [(SDPA, 2780, "likely")]
    assert "wrapper.cpp:2780" in d.fault_sites[0]["evidence"]
    assert SDPA in d.verdict and "line 2780" in d.verdict and "cpu_flash_attention" in d.verdict
    assert ("s27", 0, 1) in {(r["symbol"], r["input"], r["dim"]) for r in d.fault_sites[0]["symbols"]}


def test_sigfpe_on_a_package_with_no_dynamic_divisor_says_so():
    # The real faulthandler text given with a package of static shapes only: no place to name.
    d = _diag(S / "cpu/embedding_bag/embedding_bag.pt2", (LOGS / "sigfpe_faulthandler.log").read_text())
    assert d.category == "arithmetic_fault" and d.certainty == "possible"


@pytest.mark.parametrize("text,names", [
    ("c10::div_floor_integer(static_cast<int64_t>(x0), static_cast<int64_t>(ks0))", [("ks0",)]),
    ("x1 % ks1", [("ks1",)]),
    ("c10::div_floor_integer(static_cast<int64_t>(x0), static_cast<int64_t>(16L))", [()]),
])
def test_divisors_read_from_the_trees(text, names):
    assert [E.names(d) for d in _divisors(E.parse_expr(text))] == names


CPU_INPUTS = [("cuda/jagged/jagged.pt2", "cpu_inputs.log"), ("cuda/jagged/jagged.pt2", "cpu_inputs_blocking.log"),
              ("options/embed_kernel_cuda/embed_kernel_cuda.pt2", "cpu_inputs.log"),
              ("options/multi_arch_cuda/multi_arch_cuda.pt2", "cpu_inputs.log")]


@pytest.mark.parametrize("pkg,log", CPU_INPUTS)
def test_cpu_inputs_into_a_cuda_package_are_an_illegal_access_most_likely_a_host_pointer(pkg, log):
    """No device in the log: not device_mismatch (issue 34 §2), an illegal access whose likeliest cause is an
    input on the CPU, read from the package."""
    p = S / pkg
    d = _diag(p, (p.parent / "logs" / log).read_text())
    assert d.category == "illegal_memory_access" and d.certainty == "likely"
    assert "most likely an input is on the CPU" in d.verdict
    assert d.async_error.hypotheses[0].kind == "host_input" and d.async_error.hypotheses[0].certainty == "likely"
    assert say.HOST_POINTER_RESTS_ON in d.notes  # what the certainty rests on: the package, not a device in the log
    assert d.steps[0].env == {"AOTI_RUNTIME_CHECK_INPUTS": "1"}


def test_every_real_cpu_inputs_log_is_covered():
    logs = sorted(str(x.relative_to(S)) for x in S.glob("*/*/logs/cpu_inputs*.log"))
    assert logs and set(logs) == {str(Path(p).parent / "logs" / lg) for p, lg in CPU_INPUTS} | {
        "cuda/jagged/logs/cpu_inputs_checked.log"}


def test_an_ima_with_unchecked_accesses_stays_an_ima():
    p = S / "cuda/embedding_noassert/embedding_noassert.pt2"
    logs = sorted((p.parent / "logs").glob("ima*.log"))
    assert logs
    for lg in logs:
        assert _diag(p, lg.read_text()).category == "illegal_memory_access"


MOD = S / "harvest/sigfpe_cpu213/mod_index"  # `x[torch.arange(n) % len(x)]`: the kernel's `x0 % ks1` runs first


def test_a_generated_kernel_that_divides_by_a_size_is_the_place():
    # The real run (torch 2.13): input 0 empty, guards off, `Fatal Python error: Floating point exception`.
    d = _diag(MOD / "mod_index.pt2", (MOD / "logs/sigfpe_faulthandler.log").read_text())
    assert d.category == "arithmetic_fault" and d.certainty == "possible"
    assert [(h["kind"], h["target"], h["divisor"]) for h in d.fault_sites] == [
        ("kernel", "cpp_fused_add_arange_index_remainder_0", "ks1")]
    assert [(r["input"], r["dim"]) for r in d.fault_sites[0]["symbols"]] == [(0, 0)]
    assert "cpp_fused_add_arange_index_remainder_0" in d.verdict


def test_check_says_may_fail_for_a_size_at_0_that_a_kernel_divides_by():
    from inspector.parse.specs import parse_spec
    from inspector.queries.check import check

    schema = json.loads((ROOT / "inspector/schemas/check.schema.json").read_text())
    with inspector.open_package(MOD / "mod_index.pt2") as p:
        zero = check(p, [parse_spec("0=float32[0]"), parse_spec("1=float32[8]")])
        fit = check(p, [parse_spec("0=float32[5]"), parse_spec("1=float32[8]")])
        other = check(p, [parse_spec("0=float32[5]"), parse_spec("1=float32[0]")])  # not the divisor
    for r in (zero, fit, other):
        jsonschema.validate(r.to_dict(), schema)
    div = [x for x in zero.may_fail if x["op"] == "division"]
    assert [(x["kernel"], x["message"]) for x in div] == [("cpp_fused_add_arange_index_remainder_0", "ks1")]
    assert any("SIGFPE" in n for n in zero.notes)  # before the kernel's own check, which check also predicts
    assert fit.ok and not fit.may_fail
    assert not [x for x in other.may_fail if x["op"] == "division"]


def test_check_on_the_transformer_at_seq_0_still_predicts_no_kernel_division():
    # No generated kernel of transformer divides by a symbol: sdpa's own fault is not modelled (known_gaps.SWEEP).
    from inspector.parse.specs import parse_spec
    from inspector.queries.check import check

    with inspector.open_package(TRANSFORMER) as p:
        r = check(p, [parse_spec("0=int64[2,0]")])
    assert not [x for x in r.may_fail if x["op"] == "division"]


def test_the_sweep_agrees_when_the_division_check_named_dies_of_sigfpe():
    """A sweep row predicted "may fail" by a division (check's op "division") agrees with a run that died of SIGFPE
    when diagnose places the fault in that kernel, and not when it places it elsewhere: the real mod_index log."""
    from inspector.package import open_package
    from inspector.queries.sweep import Prediction, Row, _diagnosis, judge

    k = "cpp_fused_add_arange_index_remainder_0"
    with open_package(MOD / "mod_index.pt2") as pkg:
        m = pkg.index(pkg.model_names[0]).eager()
        diagnosis = _diagnosis(pkg, m, (MOD / "logs/sigfpe_faulthandler.log").read_text())
    assert (diagnosis["category"], diagnosis["kernel"]) == ("arithmetic_fault", k)
    row = Row(id="s77=0", case="input 0 dim 0 (s77) = 0", checks=False,
              prediction=Prediction("may_fail", "check", kernel=k, message="ks1", words=f"may fail in {k}"),
              observed={"rc": -8, "what": "killed by SIGFPE", "returned": False,
                        "first_error": "Fatal Python error: Floating point exception", "seconds": 1, "timed_out": False},
              diagnosis=diagnosis)
    assert judge(row) == (True, None)
    row.prediction = Prediction("may_fail", "check", kernel="cpp_fused_other_1", message="ks1", words="may fail")
    ok, why = judge(row)
    assert not ok and "arithmetic_fault" in why
