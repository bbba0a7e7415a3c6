"""Issue 20 §4 and its wrong claims; issue 25's device-index parts that need no GPU.

Every verdict and hypothesis carries a certainty and the evidence it rests on; one ranked list (`hypotheses`);
text, JSON, report and Python API say the same things in the same order; negative indices say whether the kernel
wraps them; `check` says "may fail" with both sizes where a position's length can exceed its table; device
indices in `check`, `doctor` and `diagnose`."""

from __future__ import annotations

import json

import jsonschema
import pytest

import inspector
from inspector.cli import main
from inspector.errors import UsageError
from inspector.queries.check import check, device_index, parse_device, parse_spec
from inspector import trace_assert

from _paths import ROOT, S

SCHEMAS = ROOT / "inspector" / "schemas"


# -- top-k positions: the wrong "fit" and the ranking -----------------------------------------------------------


def test_topk_positions_into_a_narrower_table_may_fail_with_both_sizes(capsys):
    """Issue 20 (d), the issue's example (cpu/topk_gather, its real trigger): a top-3 over an input dim of 10
    gathers from a table of 6 columns; the real run failed `index out of bounds: 0 <= tmp2 < ks1`."""
    pkg = S / "cpu/topk_gather/topk_gather.pt2"
    assert main(["check", str(pkg), "--input", "0=float32[2,10]", "--input", "1=float32[2,6]", "--json"]) == 1
    r = json.loads(capsys.readouterr().out)
    jsonschema.validate(r, json.loads((SCHEMAS / "check.schema.json").read_text()))
    assert not r["ok"] and r["verdict"].startswith("may fail") and r["certainty"] == "possible"
    (x,) = r["may_fail"]
    assert (x["index_size"], x["bound"], x["op"]) == (10, 6, "topk")
    assert "10" in x["why"] and "6" in x["why"] and x["message"] == "index out of bounds: 0 <= tmp2 < ks1"
    assert "index out of bounds: 0 <= tmp2 < ks1" in (S / "cpu/topk_gather/error.log").read_text()
    assert main(["check", str(pkg), "--input", "0=float32[2,10]", "--input", "1=float32[2,6]"]) == 1
    assert capsys.readouterr().out.startswith("? may fail")
    # positions that cannot pass the table: a fit (the sizes), with the values left unchecked said
    with inspector.open_package(pkg) as p:
        ok = check(p, [parse_spec("0=float32[2,6]"), parse_spec("1=float32[2,10]")])
    assert ok.ok and not ok.may_fail and ok.certainty == "likely"
    # the real run of those sizes (make_logs.py cpu/topk_gather/positions_fit): no error
    fit = json.loads((S / "cpu/topk_gather/logs/index.json").read_text())["positions_fit"]
    assert fit["returncode"] == 0 and "torch.arange(12.).reshape(2, 6), torch.randn(2, 10)" in fit["code"]
    assert "aoti: no error" in (S / "cpu/topk_gather/logs/positions_fit.log").read_text()


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_topk_trace_ranks_the_position_by_the_package_not_an_empty_input(device):
    pkg = S / device / "topk_gather/topk_gather.pt2"
    with inspector.open_package(pkg) as p:
        r = trace_assert(p, log=(S / device / "topk_gather/error.log").read_text())
    mt = r.matches[0]
    assert mt.position is not None and mt.position.op == "topk" and (mt.position.input, mt.position.dim) == (0, 1)
    assert mt.hypotheses[0].sentence.startswith("the index is a position topk returns")
    assert mt.hypotheses[0].certainty == "likely"
    assert any("empty input" in h.sentence and h.certainty == "possible" for h in mt.hypotheses[1:])


# -- negative indices -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sample,wraps", [("cuda/gather_dynamic", True), ("cpu/index_select", True),
                                          ("cuda/embedding", True), ("cpu/embedding", False),
                                          ("cpu/topk_gather", False)])
def test_the_answer_says_whether_the_kernel_wraps_negative_indices(sample, wraps):
    """Issue 20 (c): where the kernel wraps (`tl.where(tmp3, tmp2, tmp0)` with tmp3 = tmp0 < 0, tmp2 = tmp0 + N;
    CPU `tmp4 ? tmp3 : tmp0`), -1..-N pass silently and only values below -N fail; where it does not, -1 fails."""
    name = sample.split("/")[1]
    with inspector.open_package(S / sample / f"{name}.pt2") as p:
        r = trace_assert(p, log=(S / sample / "error.log").read_text())
    mt = r.matches[0]
    assert mt.negative_wrap is wraps
    if wraps:
        assert "(or < -" in mt.verdict and any("pass silently" in n for n in mt.notes)
    else:
        assert "(or < 0)" in mt.verdict and any("-1 already fails" in n for n in mt.notes)


# -- device indices (issue 25, no GPU) --------------------------------------------------------------------------


def test_device_specs_take_an_index_and_bad_ones_are_usage_errors():
    assert parse_spec("0=float32[2,3]@cuda:1").device == "cuda:1"
    assert device_index("cuda:1") == 1 and device_index("cuda") == 0 and device_index("cpu") is None
    for bad in ("0=float32[2]@cuda:x", "0=float32[2]@cpu:1", "0=float32[2]@gpu"):
        with pytest.raises(UsageError):
            parse_spec(bad)
    with pytest.raises(UsageError):
        parse_device("cuda:-1", "--device")


def test_inputs_on_a_gpu_other_than_the_loaded_one_are_said_as_such(capsys):
    pkg = S / "cuda/jagged/jagged.pt2"
    with inspector.open_package(pkg) as p:
        r = check(p, [parse_spec("0=float32[10,8]@cuda:1"), parse_spec("1=int64[3]@cuda:0")], device="cuda:1")
        assert [(v["input"], v["kind"]) for v in r.violations] == [(1, "device")]
        assert "is on cuda:0, but the package is loaded on cuda:1" in r.violations[0]["detail"]
        assert "device_index=1" in r.violations[0]["detail"]
        # both on the loaded GPU: fit; both on cuda:1 without --device: fit, with how to load it there
        assert check(p, [parse_spec("0=float32[10,8]@cuda:1"), parse_spec("1=int64[3]@cuda:1")], device="cuda:1").ok
        r2 = check(p, [parse_spec("0=float32[10,8]@cuda:1"), parse_spec("1=int64[3]@cuda:1")])
        assert r2.ok and any("device_index=1" in n for n in r2.notes)
        # the device type cannot change
        r3 = check(p, [parse_spec("0=float32[10,8]@cuda:0")], device="cpu")
        assert [v["input"] for v in r3.violations] == [None] and "not supported" in r3.violations[0]["detail"]
    assert main(["check", str(pkg), "--device", "cuda:1", "--input", "0=float32[10,8]@cuda:1",
                 "--input", "1=int64[3]@cuda:0", "--json"]) == 1
    jsonschema.validate(json.loads(capsys.readouterr().out), json.loads((SCHEMAS / "check.schema.json").read_text()))
    assert main(["check", str(pkg), "--device", "cuda:x", "--input", "0=float32[10,8]"]) == 2


def test_doctor_says_which_device_index_the_package_loads_on():
    from inspector.queries.doctor import doctor

    with inspector.open_package(S / "cuda/jagged/jagged.pt2") as p:
        r = doctor(p)
    (f,) = [x for x in r.findings if x.kind == "device_index"]
    assert "any cuda device index" in f.message and "device_index=N" in (f.fix or "")
    assert r.readings["model"]["device_index"]["runner_index_uses"] > 0
    with inspector.open_package(S / "cpu/jagged/jagged.pt2") as p:
        assert not [x for x in doctor(p).findings if x.kind == "device_index"]


@pytest.mark.parametrize("text,other,arg_dev,arg", [
    ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and "
     "cuda:0! (when checking argument for argument mat2 in method wrapper_CUDA_mm)", "cuda:1", "cuda:0", "mat2"),
    ("RuntimeError: Expected all tensors to be on the same device, but got index is on cuda:1, different from other "
     "tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)", "cuda:0", "cuda:1", "index"),
])
def test_diagnose_names_both_device_indices_in_torchs_wording(text, other, arg_dev, arg):
    """CRAFTED FROM SOURCE, not from a run: no two-GPU machine was lent, so these lines are c10's own wording
    (aten/src/ATen/core/adaption.cpp: common_device_check_failure, and the "but got … different from other tensors
    on" form; both strings are in torch 2.13's libtorch_cpu.so).  The answer names both indices, which argument,
    and says AOTI_RUNTIME_CHECK_INPUTS=1 cannot catch it (the wrapper's check_input compares the device type only:
    `unmatched device type`, wrapper.cpp of cuda/jagged)."""
    from inspector import diagnose

    with inspector.open_package(S / "cuda/transformer/transformer.pt2") as p:
        d = diagnose(p, "Traceback (most recent call last):\n  File \"serve.py\", line 9, in <module>\n" + text + "\n")
    assert d.category == "device_mismatch"
    assert f"`{arg}`" in d.verdict and f"is on {arg_dev}, the other tensors on {other}" in d.verdict
    assert f"device_index={other[-1]}" in d.steps[0].do and f"device_index={arg_dev[-1]}" in d.steps[0].do
    assert "device type only" in d.steps[1].do
    assert d.certainty == "likely"
    jsonschema.validate(d.to_dict(), json.loads((SCHEMAS / "diagnose.schema.json").read_text()))
    wrapper_says = "unmatched device type"
    with inspector.open_package(S / "cuda/jagged/jagged.pt2") as p:
        f = p.files("model")
        assert wrapper_says in p.archive.read_text(f.wrapper)


def test_real_runs_confirm_the_wrap_claims():
    """Real CPU runs (torch 2.13, sample_packages/make_logs.py; logs/index.json holds each command and rc): the
    wrapping index_select kernel read rows 15 and 0 for -1 and -16 with no error (eager index_select raises), and
    failed only for -17; the embedding's kernel, which does not wrap, failed for -1."""
    logs = S / "cpu/index_select/logs"
    index = json.loads((logs / "index.json").read_text())
    silent = (logs / "negative_wraps_silently.log").read_text()
    assert index["negative_wraps_silently"]["returncode"] == 0
    assert "rows read equal x[[0, 15, 3, 0, 5]]: True" in silent and "eager index_select: IndexError" in silent
    assert index["negative_below_n"]["returncode"] != 0
    cases = [("cpu/index_select/index_select.pt2", logs / "negative_below_n.log", True),
             ("cpu/embedding/embedding.pt2", S / "cpu/embedding/logs/negative_one.log", False)]
    for pkg, log, wraps in cases:
        text = log.read_text()
        assert "index out of bounds" in text
        with inspector.open_package(S / pkg) as p:
            mt = trace_assert(p, log=text).matches[0]
        assert mt.exact and mt.negative_wrap is wraps, (pkg, mt.negative_wrap)
        said = " ".join(mt.notes)
        assert ("only values below" in said) if wraps else ("-1 already fails" in said)


def test_bucket_ids_past_a_smaller_table_may_fail():
    """cpu/bucketize_index (its real trigger: x holds 2.0, bucket 8, the table has 6 rows): bucketize over the
    8 boundaries run_impl allocates (`int_array_0[] = {8L, }`) returns 0..8; a table of 6 rows may fail, one of 10
    cannot."""
    with inspector.open_package(S / "cpu/bucketize_index/bucketize_index.pt2") as p:
        r = check(p, [parse_spec("0=float32[5]"), parse_spec("1=float32[6,4]")])
        assert not r.ok and [(x["op"], x["index_size"], x["bound"]) for x in r.may_fail] == [("bucketize_Tensor", 8, 6)]
        assert check(p, [parse_spec("0=float32[5]"), parse_spec("1=float32[10,4]")]).ok
        mt = trace_assert(p, log=(S / "cpu/bucketize_index/error.log").read_text()).matches[0]
    assert mt.position is not None and mt.position.static == 8 and mt.position.past == 1
    assert mt.hypotheses[0].sentence.startswith("the index is a position bucketize returns along 8 boundaries")


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_argmax_positions_past_the_table_may_fail(device):
    """argmax_embedding's real trigger: scores 2x150, argmax over dim 1 into a 100-row table.  The CPU kernel
    stores `tmp_acc0.index` of `argmax_combine` over `x1 < ks1`; the Triton one returns `tmp2_idx` over
    r0_numel.  Both bounded by scores' dim 1: 150 may fail, 50 fits."""
    pkg = S / device / "argmax_embedding/argmax_embedding.pt2"
    at = "@cuda" if device == "cuda" else ""
    with inspector.open_package(pkg) as p:
        r = check(p, [parse_spec(f"0=float32[2,150]{at}")])
        assert not r.ok and [(x["index_size"], x["bound"]) for x in r.may_fail] == [(150, 100)]
        assert check(p, [parse_spec(f"0=float32[2,50]{at}")]).ok
        mt = trace_assert(p, log=(S / device / "argmax_embedding/error.log").read_text()).matches[0]
    assert mt.position is not None and (mt.position.input, mt.position.dim) == (0, 1)
    assert mt.hypotheses[0].certainty == "certain"  # the bound is the constant 100: only a value fails


def test_a_cut_log_is_no_evidence_that_a_thread_passed():
    """Real (H200, torch 2.11): repro's script ran topk_gather with an EMPTY table and printed its output cut
    (`[...]`); thread [0,0,0] of block [0,0,0] is not among the lines shown.  That absence was read as proof
    ('certain: not an empty input'); in a cut log it proves nothing, so the empty table stays a cause."""
    from inspector import trace_assert

    log = (S / "cuda/topk_gather/logs/repro_gpu.log").read_text()
    assert "[..." in log
    with inspector.open_package(S / "cuda/topk_gather/topk_gather.pt2") as p:
        mt = trace_assert(p, log=log).matches[0]
    assert mt.certainty != "certain" and "not an empty input" not in mt.verdict
    assert any("empty input" in h.sentence for h in mt.hypotheses)


def test_triton_inlined_bucketize_bounds_the_index():
    """cuda/bucketize_index: Triton inlines bucketize (`triton_helpers.bucketize_binary_search(tmp0, in_ptr1, 8, …)`,
    stored to out_ptr0 and read by the indexing kernel): bucket ids reach 8, so a 6-row table may fail, and the real
    log (thread [0,0,0] did not fail) makes that cause certain."""
    with inspector.open_package(S / "cuda/bucketize_index/bucketize_index.pt2") as p:
        r = check(p, [parse_spec("0=float32[5]@cuda"), parse_spec("1=float32[6,4]@cuda")])
        assert [(x["op"], x["index_size"], x["bound"]) for x in r.may_fail] == [("bucketize", 8, 6)]
        assert check(p, [parse_spec("0=float32[5]@cuda"), parse_spec("1=float32[10,4]@cuda")]).ok
        mt = trace_assert(p, log=(S / "cuda/bucketize_index/error.log").read_text()).matches[0]
    assert mt.hypotheses[0].sentence.startswith("the index is a position bucketize returns along 8 boundaries")
    assert mt.hypotheses[0].certainty == "certain" and len(mt.hypotheses) == 1


def test_the_repro_command_names_the_log_the_cli_read(capsys):
    """The commands that tell the causes apart are copy-paste ready: the CLI names the log file it read; the API,
    given only the text, leaves a placeholder."""
    pkg, log = S / "cpu/jagged/jagged.pt2", S / "cpu/jagged/error.log"
    for cmd in (["trace-assert"], ["diagnose"]):
        assert main(cmd + [str(pkg), "--log", str(log), "--json"]) == 0
        r = json.loads(capsys.readouterr().out)
        m = (r if cmd == ["trace-assert"] else r["trace"])["matches"][0]
        assert m["confirm"][0] == f"pt2-inspect repro {pkg} --log {log}", m["confirm"]
    with inspector.open_package(pkg) as p:
        assert trace_assert(p, log=log.read_text()).matches[0].confirm[0].endswith("--log ERROR_LOG")


def test_a_portable_model_of_both_classes_confirms_the_wrap_claims():
    """cpu/neg_index (built portably by its build.py, AOTI_CPU_ISA AVX2): one fused kernel with a wrapping check
    (`x[idx]`) and a non-wrapping one (the embedding).  Its real runs: -1/-16 into x read rows 15 and 0 with no
    error (eager agrees), -17 fails; -1 into the embedding fails."""
    d = S / "cpu/neg_index"
    index = json.loads((d / "logs/index.json").read_text())
    assert [index[k]["returncode"] for k in ("neg_index_minus_one_wraps", "neg_index_below_n",
                                             "neg_embedding_minus_one", "neg_index_in_range")] == [0, 1, 1, 0]
    assert "rows equal x[[0, 15, 3, 0]]: True" in (d / "logs/neg_index_minus_one_wraps.log").read_text()
    pkg = d / "package/neg_index.pt2"
    with inspector.open_package(pkg) as p:
        assert p.index("model").metadata.get("AOTI_CPU_ISA") == "AVX2"
        got = {}
        for kind in ("neg_index_below_n", "neg_embedding_minus_one"):
            mt = trace_assert(p, log=(d / "logs" / f"{kind}.log").read_text()).matches[0]
            assert mt.exact
            got[kind] = (mt.negative_wrap, mt.static_bound)
    assert got == {"neg_index_below_n": (True, None), "neg_embedding_minus_one": (False, 50)}
