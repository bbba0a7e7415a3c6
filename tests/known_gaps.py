"""What pt2-inspect cannot do yet on which sample, and why: one table, keyed by capability.

A test that needs a capability says so with ``@pytest.mark.needs("cap", ...)`` (conftest turns it into a
strict xfail on the samples listed here), or filters its cases with ``Sample.has("cap")``.  Strict: when a
gap closes, the test passes, the XPASS fails the run, and the entry has to come out of this table.

Patterns are ``<build folder>/<sample>`` with ``fnmatch`` wildcards (``cpu-2.6/*``).  A capability with no
entry is listed anyway (``{}``): tests may ask for it, and a new gap is one line under it.
"""

from __future__ import annotations

GAPS: dict[str, dict[str, str]] = {
    # The package opens and every model in it is read (show answers, exit 0).
    "read": {},
    # The wrapper and the kernels sit in their own members (<hash>.wrapper.cpp, <hash>.kernel.cpp): the layout
    # the tests' greps read (inputs_info_, call_triton_*, extern "C" cpp_* of test_show_json_*).
    "split_files": {
        "cpu-2.6/*": "torch 2.6 layout (read since core's cpp-wrapper-cpu/inline dialect): the wrapper is "
                     "<hash>.cpp with the kernels inline, no .wrapper.cpp/kernel.cpp for the tests' greps, issue 8",
    },
    # show names each input's dtype.
    "input_dtypes": {
        "cpu-2.6/*": "torch 2.6 wrappers record no input dtypes (show says none), issue 8",
    },
    # show names the CPU ISA a CPU package was compiled for.
    "cpu_isa": {
        "cpu-2.6/*": "torch 2.6 records no CPU ISA (show says none), issue 8",
        "cpu-2.8/*": "CPU ISA only in the kernel.cpp's compile command (-D CPU_CAPABILITY_*), not in "
                     "wrapper_metadata.json (torch 2.8): show reports none, issue 8",
    },
    # A size bound's range (min/max) is known: the wrapper guards each dynamic input dim.  The trace of the
    # real error needs it to match the manifest.
    "bound_range": {
        f"cpu-2.6/{name}": "torch 2.6 wrappers emit no input guards, so the bound's range (min/max) is unknown, issue 8"
        for name in ("gather_dynamic", "jagged", "scatter_add", "scatter_reduce")
    },
}

# The capabilities the trace of a sample's real error needs to land on the manifest's truth
# (test_samples.py::test_captured_error_traces_to_manifest and every test that filters on "traces").
TRACE = ("bound_range",)

# `sweep --run` rows where check's prediction, the run and diagnose disagree (tests/samples/test_sweep.py): per sample,
# row id -> cause.  Strict xfails: when a row agrees, its entry has to come out.  Found by the sweep oracle
# (issue 20 §3).  The positions-bounded-by-a-size rows (argmax_embedding 2, bucketize_index 8, topk_gather 5) agree
# since check says "may fail" there (issue 20 §4) and the sweep reads that prediction; cpu/transformer s27=0 (SIGFPE in
# ATen's cpu_flash_attention at an empty sequence) since check says "may fail" where an extern op gets a size the
# package was not built for (its CPU sweep: sample_packages/cpu/transformer/logs/sweep_cpu, replayed by
# tests/unit/test_check_extern.py); cpu/topk_gather s69=0/1 since that 'may fail' names aoti_torch_cpu_topk and the
# judge counts a failure diagnose places in that op (extern_op) as what it said.  Hugging Face GPT-2's s70=0
# (harvest/hf_ctx_cpu213/gpt2_positions, recorded: the same SIGFPE) agrees for the same reason.
_TOPK_K = ("guards off, input 0's dim 1 below k=3: aten topk rejects it (c_shim_cuda.cpp: 'Exception in aoti_torch: "
           "selected index k out of range'); check says 'may fail' at aoti_torch_cuda_topk (an extern op fed a size "
           "the package was not built for), but diagnose reads the failed call as a device_assert naming no kernel. "
           "On CPU the same rows agree: diagnose says extern_op in aoti_torch_cpu_topk")
SWEEP: dict[str, dict[str, str]] = {
    # The recorded H200 sweep (sample_packages/cuda/topk_gather/logs/sweep_h200): the same class on CUDA
    # ("Exception in aoti_torch: selected index k out of range" from c_shim_cuda.cpp).
    "cuda/topk_gather": {"s69=0": _TOPK_K, "s69=1": _TOPK_K},
}
