"""`check` where an extern ATen op gets a size the package was not built for (0, or outside its symbol's range):
the generated code fits, but what ATen does there is not in the package, so "may fail", never a flat "fit".

The real case: cpu/transformer with input 0 dim 1 (s27, the sequence) at 0 and the guards off dies of SIGFPE in
ATen's cpu_flash_attention (logs/sigfpe_gdb.log), while check said "fit" (a known gap until this).  Its CPU sweep
(`pt2-inspect sweep … --run`, torch 2.13, logs/sweep_cpu/) is replayed here without torch: the plan made now
predicts what the run predicted, diagnose gives the recorded category, and every row agrees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector
from _paths import ROOT
from _samples import S
from inspector.queries.check import check, parse_spec
from inspector.queries.sweep import ingest, plan

TF = S / "cpu/transformer"
SDPA = "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"


def _check(pkg: Path, *specs: str):
    with inspector.open_package(pkg) as p:
        return check(p, [parse_spec(s) for s in specs])


def test_an_empty_sequence_into_attention_is_not_a_fit():
    r = _check(TF / "transformer.pt2", "0=int64[2,0]")
    ext = [x for x in r.may_fail if x["op"] == "extern"]
    assert ext and not r.ok
    assert {x["kernel"] for x in ext} == {"aoti_torch_cpu_addmm_out", SDPA}  # one entry per op
    sdpa = next(x for x in ext if x["kernel"] == SDPA)
    assert sdpa["line"] == 2780 and sdpa["sizes"] == [{"symbol": "s27", "input": 0, "dim": 1, "value": 0,
                                                        "min": 2, "max": 128}]
    assert [x["line"] for x in r.may_fail] == sorted(x["line"] for x in r.may_fail)  # the first to run first
    assert any("extern ATen op runs ATen's code" in n for n in r.notes)
    assert [v["kind"] for v in r.violations] == ["range"]  # the guards' own word stays first (the verdict)


def test_sizes_the_package_was_built_for_still_fit():
    r = _check(TF / "transformer.pt2", "0=int64[2,8]")
    assert r.ok and not r.may_fail and r.verdict.startswith("the 1 given input(s) fit")
    r = _check(TF / "transformer.pt2", "0=int64[2,129]")  # above s27's maximum: ATen is not vouched for there either
    assert {x["kernel"] for x in r.may_fail} == {"aoti_torch_cpu_addmm_out", SDPA}
    assert all(x["sizes"][0]["value"] == 129 and x["bound"] == 128 for x in r.may_fail)


def test_the_extern_may_fail_validates(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from inspector.cli import main

    assert main(["check", str(TF / "transformer.pt2"), "--input", "0=int64[2,0]", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, json.loads((ROOT / "inspector/schemas/check.schema.json").read_text()),
                        cls=jsonschema.Draft202012Validator)
    assert any(x["op"] == "extern" for x in doc["may_fail"])


def test_the_cpu_sweep_of_transformer_replays_and_agrees():
    folder = TF / "logs/sweep_cpu"
    recorded = json.loads((folder / "sweep.json").read_text())
    with inspector.open_package(TF / "transformer.pt2") as pkg:
        rows, _cases, m, _dev, _notes = plan(pkg, recorded.get("model"))
        ingest(pkg, m, rows, {i: r["observed"] for i, r in enumerate(recorded["rows"])}, str(folder))
    assert len(rows) == len(recorded["rows"]) == 24
    for row, rec in zip(rows, recorded["rows"], strict=True):
        assert (row.id, row.prediction.kind, row.prediction.kernel) == (
            rec["id"], rec["prediction"]["kind"], rec["prediction"]["kernel"])
        assert row.diagnosis["category"] == rec["diagnosis"]["category"], row.id
        assert row.agree, (row.id, row.why)
    by = {r.id: r for r in rows}
    fpe = by["s27=0"]  # the run died of SIGFPE (rc -8); check said "fit" before
    assert fpe.observed["rc"] == -8 and fpe.diagnosis["category"] == "arithmetic_fault"
    assert fpe.prediction.kind == "may_fail" and fpe.prediction.kernel.startswith("aoti_torch_cpu_")
    # the same sizes that ran clean (s23=0, s27=1: ATen took them) are "may fail" too: the package alone cannot
    # tell them from s27=0, and the judge counts a clean run as what "may fail" said
    assert all(by[i].prediction.kind == "may_fail" and by[i].observed["rc"] == 0 for i in ("s23=0", "s27=1"))


def test_a_package_without_guards_says_may_fail_not_no_violation():
    """torch 2.6 writes no input guards, so a 0 is no range violation; its addmm's input is a view handle defined
    above the call (`auto tmp_tensor_handle_0 = reinterpret_tensor_wrapper(buf0, 2, int_array_0, …)`), whose sizes
    hold s0 and s1: the verdict is the extern op's "may fail" (it was "no violation" before)."""
    r = _check(S / "cpu-2.6/embedding/embedding.pt2", "0=int64[0,5]")
    assert not r.violations and not r.ok
    assert r.verdict.startswith("may fail: the generated code fits, but extern op aoti_torch_cpu_addmm_out")
    assert r.may_fail[0]["sizes"][0] == {"symbol": "s0", "input": 0, "dim": 0, "value": 0, "min": None, "max": None}


def test_the_judge_counts_a_failure_in_the_named_extern_op_as_may_fail():
    """cpu/topk_gather s69=0 (its CPU sweep, torch 2.13): check says may fail at aoti_torch_cpu_topk, the run fails
    there ('selected index k out of range'), diagnose says extern_op in aoti_torch_cpu_topk: they agree."""
    from inspector.queries.sweep import Prediction, Row, judge

    failed = {"rc": 1, "what": "exit 1", "returned": False, "first_error": "Error: aoti_torch_cpu_topk(…) API call failed",
              "seconds": 1, "timed_out": False}
    r = Row(id="s69=0", case="x", checks=False, observed=failed,
            prediction=Prediction("may_fail", "check", kernel="aoti_torch_cpu_topk", message="topk", words="w"),
            diagnosis={"category": "extern_op", "kernel": "aoti_torch_cpu_topk", "input": None, "verdict": ""})
    assert judge(r) == (True, None)
    r.diagnosis = {"category": "extern_op", "kernel": "aoti_torch_cpu_mm_out", "input": None, "verdict": ""}
    assert judge(r)[0] is False  # a failure in another op is not what was said
    with inspector.open_package(S / "cpu/topk_gather/topk_gather.pt2") as p:
        rows, *_ = plan(p)
    by = {x.id: x for x in rows}
    assert (by["s69=0"].prediction.kind, by["s69=0"].prediction.kernel) == ("may_fail", "aoti_torch_cpu_topk")


def test_a_package_of_many_extern_calls_is_read_in_launch_order_until_enough_are_found(monkeypatch):
    """Past `EXTERN_ALL` calls the extern ops are read a few at a time (a 20,000-kernel package's slice of every
    call took minutes): the first ones to run are found, and the answer says where reading stopped."""
    from inspector.queries import divisions

    whole = _check(TF / "transformer.pt2", "0=int64[2,0]")
    monkeypatch.setattr(divisions, "EXTERN_ALL", 1)
    monkeypatch.setattr(divisions, "EXTERN_CHUNK", 2)
    monkeypatch.setattr(divisions, "MAX_UNVOUCHED", 1)
    part = _check(TF / "transformer.pt2", "0=int64[2,0]")
    first = [x for x in whole.may_fail if x["op"] == "extern"][0]
    got = [x for x in part.may_fail if x["op"] == "extern"]
    assert got and got[0]["kernel"] == first["kernel"] and got[0]["line"] == first["line"]
    assert "were not read" in got[-1]["why"] and not any("were not read" in x["why"] for x in whole.may_fail)
