"""Issue 34 §2-§4: what a log is when it holds no assert, on real logs (the loops over every such log:
tests/samples/test_log_classes_samples.py).

* trace-assert reads the log diagnose reads and, where no check fired, says first what the log is (diagnose's
  category) and that no assert fired (exit 1, ``--json``'s ``log_category`` / ``assert_fired``); it lists candidate
  assertions only where the log shows `device-side assert triggered`;
* a clean run is ``no_failure`` in both (exit 1: nothing to explain, as for any "nothing found");
* an asynchronous CUDA error is not placed at the call that reported it: the launches before it, custom ops
  first, and the reruns that pin it; "an input is on the CPU" is ``device_mismatch`` only where the log shows a
  device, else one hypothesis of the illegal access;
* an index read straight from an int64 input lists "the input's dtype is not the one compiled" (int32 ids into an
  int64 package: ``harvest/issue34_cpu213/dtype_ids_cpu``, built by its build.py on torch 2.13).

Each expectation is the run's ``right_category`` (known by construction) where its index.json records one:
predicted == observed == diagnosed.
"""

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


def test_a_missing_custom_op_is_custom_op_in_both():
    """Issue 34 §3: trace-assert called it `load` (the loader's frame), diagnose rightly `custom_op`."""
    log = H / "issue15/custom_op_cuda/logs/missing_op.log"
    with inspector.open_package(H / "issue15/custom_op_cuda/custom_op_cuda.pt2") as p:
        t = inspector.trace_assert(p, log.read_text())
    assert t.log_category == "custom_op" and "hvlib::scale_shift" in t.log_verdict


def test_a_device_side_assert_shown_still_lists_its_candidates(capsys):
    """The real cuda/transformer log with its Assertion lines taken out: `device-side assert triggered` is there, so
    the candidates are (exit 0), and no log_category is claimed."""
    text = "\n".join(ln for ln in (S / "cuda/transformer/error.log").read_text().splitlines() if "Assertion" not in ln)
    assert "device-side assert triggered" in text
    with inspector.open_package(S / "cuda/transformer/transformer.pt2") as p:
        t = inspector.trace_assert(p, text)
    assert t.candidates and t.verdict.startswith(INVENTED) and t.log_category is None and t.assert_fired is True
    assert "log_category" not in t.to_dict()


def test_a_clean_run_prints_no_cross_and_exits_1_like_every_nothing_found(capsys):
    pkg, log = H / "issue34_cpu213/dtype_ids_cpu/dtype_ids_cpu.pt2", H / "issue34_cpu213/dtype_ids_cpu/logs/good.log"
    rc, out, _ = run(capsys, ["--no-cache", "diagnose", pkg, "--log", log])
    assert rc == 1 and out.startswith("○ no_failure: no failure in this log") and "✗" not in out.splitlines()[0]
    assert "[issue34] run finished" in out  # the evidence: the run said it ended well
    rc, out, err = run(capsys, ["--no-cache", "trace-assert", pkg, "--log", log])
    assert rc == 1 and out.startswith("verdict: no failure in this log") and "check" in err


# --- asynchronous CUDA errors ------------------------------------------------

def test_the_call_that_reported_it_is_not_where_it_was_made():
    log = O / "embed_kernel_cuda/logs/cpu_inputs.log"
    with inspector.open_package(O / "embed_kernel_cuda/embed_kernel_cuda.pt2") as p:
        d = inspector.diagnose(p, log.read_text())
    a = d.async_error
    assert a.reported_by == "aoti_torch_cuda_mm_out" and a.reported_line == 998 and not a.blocking
    assert "reported at aoti_torch_cuda_mm_out (wrapper.cpp line 998), not made there" in d.verdict
    assert any("not the launch that made it" in n for n in d.notes)
    envs = [s.env for s in d.steps]
    assert {"CUDA_LAUNCH_BLOCKING": "1", "PYTORCH_NO_CUDA_MEMORY_CACHING": "1"} in envs
    assert any("compute-sanitizer" in s.do for s in d.steps)
    # the launches before it, nearest first (an input on the CPU stays first: no launch can make it)
    launches = [h for h in a.hypotheses if h.kind == "launch"]
    assert launches and all(h.line < 998 for h in launches) and launches == sorted(launches, key=lambda h: -h.line)
    # where the log does show a device, it stays a device_mismatch
    with inspector.open_package(S / "cuda/jagged/jagged.pt2") as p:
        d = inspector.diagnose(p, (S / "cuda/jagged/logs/cpu_inputs_checked.log").read_text())
        assert d.category == "device_mismatch" and d.input_check.got == "cpu"
        d = inspector.diagnose(p, "RuntimeError: Expected all tensors to be on the same device, but found at least "
                                  "two devices, cuda:0 and cpu!\n")
        assert d.category == "device_mismatch"


CUSTOM = H / "issue15/custom_op_cuda/custom_op_cuda.pt2"  # relu (Triton) -> hvlib::scale_shift (proxy, line 842) -> sin


def test_an_illegal_access_after_a_custom_op_names_it_first():
    """CRAFTED from the real forms (torch 2.11's `CUDA driver error` line, c10's `Exception raised from`): the
    package's only custom op runs before the failure was noticed; the package cannot show its bounds checks."""
    text = ("Error: CUDA driver error: an illegal memory access was encountered\n"
            "RuntimeError: run_func_( container_handle_, input_handles.data(), input_handles.size(), "
            "output_handles.data(), output_handles.size(), reinterpret_cast<AOTInductorStreamHandle>(stream_handle), "
            "proxy_executor_handle_) API call failed at /pytorch/torch/csrc/inductor/aoti_runner/"
            "model_container_runner.cpp, line 144\n")
    with inspector.open_package(CUSTOM) as p:
        d = inspector.diagnose(p, text)
    assert d.category == "illegal_memory_access"
    first = d.async_error.hypotheses[0]
    assert (first.kind, first.target, first.line, first.certainty) == ("custom_op", "hvlib::scale_shift", 842, "possible")
    assert [a.name for a in first.args] == ["buf0", "buf2"]
    assert "custom op hvlib::scale_shift" in d.verdict and "CUDA_LAUNCH_BLOCKING=1" in d.verdict
    assert [h.kind for h in d.async_error.hypotheses][-1] == "host_input"  # possible: a custom op could do it too


def test_a_blocking_run_that_names_the_custom_ops_kernel_names_that_call_and_its_arguments():
    """CRAFTED: what a CUDA_LAUNCH_BLOCKING=1 run of a custom op prints when its own launch check fails (c10's
    `Exception raised from <fn> at <file>:<line>`); the real roi_align log comes from harvest/gpu_logclass.py."""
    text = ("[run] env CUDA_LAUNCH_BLOCKING=1\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered\n"
            "Exception raised from scale_shift_forward_kernel at /src/hvlib/scale_shift.cu:57 (most recent call "
            "first):\n"
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n")
    with inspector.open_package(CUSTOM) as p:
        d = inspector.diagnose(p, text)
    first = d.async_error.hypotheses[0]
    assert d.async_error.blocking
    assert (first.kind, first.target, first.line, first.certainty) == ("named_custom_op", "hvlib::scale_shift", 842,
                                                                       "likely")
    assert first.function == "scale_shift_forward_kernel" and d.certainty == "likely"
    assert d.verdict.startswith("an illegal memory access in custom op hvlib::scale_shift")
    assert "buf0, buf2" in d.verdict
    # torch's advice line alone is no blocking run
    with inspector.open_package(CUSTOM) as p:
        d = inspector.diagnose(p, text.replace("[run] env CUDA_LAUNCH_BLOCKING=1\n", ""))
    assert not d.async_error.blocking and d.async_error.hypotheses[0].certainty == "possible"


# --- int32 ids into an int64 package (harvest/issue34_cpu213/dtype_ids_cpu, torch 2.13) -------------------

DT = H / "issue34_cpu213/dtype_ids_cpu"


def test_int32_ids_into_an_int64_package_list_the_dtype():
    with inspector.open_package(DT / "dtype_ids_cpu.pt2") as p:
        d = inspector.diagnose(p, (DT / "logs/int32_ids.log").read_text())
    assert d.category == _right(DT / "logs/int32_ids.log") == "index_assert"
    (m,) = d.trace.matches
    kinds = [h.sentence for h in m.hypotheses]
    assert "holds a value outside 0..999" in kinds[0] and m.hypotheses[0].certainty == "likely"
    dtype = m.hypotheses[1]
    assert dtype.certainty == "possible" and "int32 tensor passed where int64 was compiled" in dtype.sentence
    assert "AOTI_RUNTIME_CHECK_INPUTS=1" in dtype.sentence and "x.dtype" in dtype.sentence
    assert d.certainty == "likely"  # a value outside the table is no longer certain: the dtype makes the same log
    assert m.confirm  # the reruns that tell them apart
    # the rerun the hypothesis names, run for real: the input check rejects the dtype
    log = DT / "logs/int32_ids_checked.log"
    with inspector.open_package(DT / "dtype_ids_cpu.pt2") as p:
        d = inspector.diagnose(p, log.read_text())
    assert d.category == _right(log) == "input_check" and "`unmatched dtype`" in dtype.sentence
    assert d.input_check.kind == "dtype" and d.input_check.input == 0
    # an extern op is handed the tensor, dtype and all (cpu/embedding_bag's aoti_torch_cpu__embedding_bag): no dtype
    # hypothesis there; a generated kernel casts the data pointer to its compiled dtype
    with inspector.open_package(S / "cpu/embedding_bag/embedding_bag.pt2") as p:
        d = inspector.diagnose(p, (S / "cpu/embedding_bag/error.log").read_text())
    assert d.category == "extern_op"
    assert not any("dtype the package was compiled for" in h.sentence for m in d.trace.matches for h in m.hypotheses)
