"""Issue 34 §2-§4 over every real log of each class (the single cases: tests/unit/test_log_classes.py): trace-assert
says what a log with no check in it is, as diagnose does on the same reading, and that no assert fired; every clean
run is ``no_failure``; an illegal access that names no device is no ``device_mismatch``.  Each expectation is the
run's ``right_category`` where its index.json records one: predicted == observed == diagnosed."""

from __future__ import annotations

import json

import jsonschema
import pytest

import inspector
from inspector.queries.diagnose import diagnose

from _cli import run
from _paths import ROOT, S

H = S / "harvest"
O = S / "options"
TRACE_SCHEMA = json.loads((ROOT / "inspector/schemas/trace.schema.json").read_text())
DIAGNOSE_SCHEMA = json.loads((ROOT / "inspector/schemas/diagnose.schema.json").read_text())
INVENTED = "a device-side assert fired but its Assertion line is not in the text"


def _right(log) -> str | None:
    """The run's right_category in its index.json (None: not recorded there)."""
    index = log.parent.parent / "index.json"
    if not index.exists():
        return None
    runs = json.loads(index.read_text()).get("runs", [])
    return next((r.get("right_category") for r in runs if (r.get("log") or f"logs/{r['scenario']}.log") ==
                 f"logs/{log.name}" or r.get("scenario") == log.stem), None)


# (package, log, diagnose's category): real logs with no check in them (torch 2.11 H200, torch 2.13 here)
NOT_ASSERTS = [
    (H / "issue15/oom_cuda/oom_cuda.pt2", H / "issue15/oom_cuda/logs/oom.log", "out_of_memory"),
    (S / "cuda/embedding/embedding.pt2", S / "cuda/embedding/logs/oom_no_caching.log", "out_of_memory"),
    (S / "cuda/embedding/embedding.pt2", S / "cuda/embedding/logs/oom_cublas_alloc.log", "out_of_memory"),
    # CPU tensors into a CUDA package: cuBLAS cannot create its handle, then an illegal memory access
    (O / "embed_kernel_cuda/embed_kernel_cuda.pt2", O / "embed_kernel_cuda/logs/cpu_inputs.log", "illegal_memory_access"),
    (O / "multi_arch_cuda/multi_arch_cuda.pt2", O / "multi_arch_cuda/logs/cpu_inputs.log", "illegal_memory_access"),
    (H / "issue15/custom_op_cuda/custom_op_cuda.pt2", H / "issue15/custom_op_cuda/logs/missing_op.log", "custom_op"),
    (H / "issue15_cpu213/custom_op_cpu/custom_op_cpu.pt2", H / "issue15_cpu213/custom_op_cpu/logs/missing_op.log",
     "custom_op"),
]


@pytest.mark.parametrize("pkg,log,category", NOT_ASSERTS, ids=[f"{p.stem}-{lg.stem}" for p, lg, _ in NOT_ASSERTS])
def test_trace_assert_says_what_the_log_is_and_that_no_assert_fired(capsys, pkg, log, category):
    right = _right(log)
    assert right in (None, category), right  # predicted (by construction) == diagnosed
    with inspector.open_package(pkg) as p:
        d = diagnose(p, inspector.logs.parse_log(log.read_text()))
        t = inspector.trace_assert(p, log.read_text())
    assert d.category == t.log_category == category
    assert t.log_verdict == d.verdict and t.assert_fired is False and not t.candidates
    assert t.verdict.startswith(f"no assert fired: this log is {category}")
    rc, out, err = run(capsys, ["--no-cache", "trace-assert", pkg, "--log", log])
    assert rc == 1 and out.splitlines()[0] == f"verdict: {t.headline}" and len(f"verdict: {t.headline}") <= 120
    assert t.headline.startswith(f"no assert fired: this log is {category}")
    assert INVENTED not in out + err and "device-side assert fired" not in out
    rc, out, _ = run(capsys, ["--no-cache", "trace-assert", pkg, "--log", log, "--json"])
    doc = json.loads(out)
    jsonschema.validate(doc, TRACE_SCHEMA)
    assert rc == 1 and doc["log_category"] == category and doc["assert_fired"] is False and doc["candidates"] == []


# Every real clean run the samples hold: rc 0, the outputs printed, no error line.
CLEAN = sorted(
    (log.parent.parent, log) for index in [*H.glob("*/*/index.json"), *O.glob("*/index.json")]
    for r in json.loads(index.read_text()).get("runs", [])
    if r.get("right_category") in ("none (clean run)", "no_failure") and r.get("rc") == 0
    for log in [index.parent / (r.get("log") or f"logs/{r['scenario']}.log")]
    if log.exists() and any(index.parent.glob("*.pt2")))


def test_the_clean_runs_are_many():
    assert len(CLEAN) >= 40


@pytest.mark.parametrize("folder,log", CLEAN, ids=[f"{f.name}-{lg.stem}" for f, lg in CLEAN])
def test_a_clean_run_is_no_failure_in_diagnose_and_trace_assert(folder, log):
    pkg = next(iter(sorted(folder.glob("*.pt2"))))
    with inspector.open_package(pkg) as p:
        d = inspector.diagnose(p, log.read_text())
        t = inspector.trace_assert(p, log.read_text())
    assert d.category == "no_failure" and d.exit_code == 1, (d.category, d.verdict)
    assert d.verdict.startswith("no failure in this log") and "pt2-inspect check" in d.verdict
    assert t.log_category == "no_failure" and t.verdict.startswith("no failure in this log")
    jsonschema.validate(d.to_dict(), DIAGNOSE_SCHEMA)


CPU_INPUTS = [(S / "cuda/jagged/jagged.pt2", S / "cuda/jagged/logs/cpu_inputs.log"),
              (O / "embed_kernel_cuda/embed_kernel_cuda.pt2", O / "embed_kernel_cuda/logs/cpu_inputs.log")]


@pytest.mark.parametrize("pkg,log", CPU_INPUTS, ids=[p.stem for p, _ in CPU_INPUTS])
def test_an_illegal_access_naming_no_device_is_no_device_mismatch(pkg, log):
    with inspector.open_package(pkg) as p:
        d = inspector.diagnose(p, log.read_text())
    assert d.category == "illegal_memory_access"
    first = d.async_error.hypotheses[0]
    assert first.kind == "host_input" and first.certainty == "likely"  # the package rules out the rest
    assert "AOTI_RUNTIME_CHECK_INPUTS=1" in d.verdict
    jsonschema.validate(d.to_dict(), DIAGNOSE_SCHEMA)




# --- the lead's H200 run (sample_packages/harvest/issue34_gpu.py, torch 2.11): harvest/issue34_gpu/<package>/ -------

GPU = H / "issue34_gpu"
# a run's right_category in index.json -> diagnose's category; a silent wrong result ("none (silent: …)") is check's
RIGHT = {"none (clean run)": "no_failure"}
GPU_RUNS = [(index.parent, r) for index in sorted(GPU.glob("*/index.json"))
            for r in json.loads(index.read_text())["runs"] if not r["right_category"].startswith("none (silent")]


def test_the_gpu_runs_are_there():
    assert {f.name for f, _ in GPU_RUNS} >= {"custom_op_ima", "gpt2_dyn", "roi_align_head"}


@pytest.mark.parametrize("folder,run_", GPU_RUNS, ids=[f"{f.name}-{r['scenario']}" for f, r in GPU_RUNS])
def test_each_gpu_run_is_diagnosed_as_built(folder, run_):
    """predicted (the run's right_category, known by construction) == observed (its exit code) == diagnosed, and
    trace-assert says the same of a log with no check in it."""
    want = RIGHT.get(run_["right_category"], run_["right_category"])
    log = folder / "logs" / f"{run_['scenario']}.log"
    with inspector.open_package(folder / f"{folder.name}.pt2") as p:
        d = inspector.diagnose(p, log.read_text())
        t = inspector.trace_assert(p, log.read_text())
    assert (run_["rc"] == 0) == (want == "no_failure")
    assert d.category == want, (d.category, d.verdict)
    assert INVENTED not in t.verdict
    if d.category != "index_assert":
        assert t.log_category == d.category and t.assert_fired is False
    a = d.async_error
    if run_["scenario"] in ("bad_batch", "oob"):  # the custom op is named first; nothing says which call reported it
        assert a.hypotheses[0].kind == "custom_op" and "::" in a.hypotheses[0].target
        assert a.hypotheses[0].certainty == "possible" and any(x.input is not None for x in a.hypotheses[0].args)
    if run_["scenario"] in ("bad_batch_blocking", "oob_blocking"):  # a blocking run: the op that made it
        first = a.hypotheses[0]
        assert a.blocking and first.kind == "named_custom_op" and first.certainty == "likely"
        assert d.verdict.startswith(f"an illegal memory access in custom op {first.target}")
    if (folder.name, run_["scenario"]) == ("roi_align_head", "bad_batch_blocking"):
        first = a.hypotheses[0]
        assert first.target == "torchvision::roi_align" and first.function == "roi_align_forward_kernel"
        assert [x.input for x in first.args if x.input is not None] == [1]  # the rois, input 1, not the images
    if run_["scenario"] == "cpu_inputs":
        assert a.hypotheses[0].kind == "host_input" and a.hypotheses[0].certainty == "likely"
        assert a.reported_by == "aoti_torch_cuda_addmm_out"
    if run_["scenario"] == "int32_ids":
        assert any("int32 tensor passed where int64" in h.sentence for m in d.trace.matches for h in m.hypotheses)
