"""The CUDA packaging options (issue 23) over every case: tests/unit/test_packaging_options_cuda.py's loops over all the
cases sample_packages/options/ holds and their real runs, split out of it so that tests/unit/ holds no sample loop."""

from __future__ import annotations

import re

import inspector
from inspector.logs.parse import parse_log
from inspector.queries.show import summarize

from _paths import S
from _samples import options_index, options_log, options_pkg

O = S / "options"
CUDA_CASES = ["embed_kernel_cuda", "multi_arch_cuda", "cpp_only_cuda", "standalone_cuda", "cond_index_cuda",
              "mixed_cpu_cuda", "sdpa_bf16_dyn_cuda", "cpu_and_cuda_models"]


def test_every_case_was_built_on_the_gpu_with_its_runs():
    for name in CUDA_CASES:
        doc = options_index(name)
        assert doc["build_ok"] and doc["torch"].startswith("2.11") and doc["runs"], name
        for r in doc["runs"]:
            assert (O / name / r["log"]).exists() and "rc" in r and r["command"] and "right_category" in r, (name, r)


def test_every_range_only_dim_of_the_cuda_samples_is_named():
    seen = 0
    for pkg_path in sorted((S / "cuda").glob("*/*.pt2"))[:12] + [options_pkg(n) for n in CUDA_CASES]:
        with inspector.open_package(pkg_path) as pkg:
            for m in summarize(pkg).models:
                for i in m.inputs:
                    for d, x in enumerate(i.shape or []):
                        if x == "?" or (isinstance(x, str) and ".." in x):  # issue 34 §6: said as its range
                            assert any(s.input == i.index and s.dim == d for s in m.symbols), (pkg_path, i.name, d)
                            seen += 1
    assert seen >= 10


def test_unknown_is_never_read_as_a_kernel_name():
    logs = [(n, r["scenario"]) for n in CUDA_CASES for r in options_index(n)["runs"] if r["right_category"] == "index_assert"]
    cuda = [(n, s) for n, s in logs if "Assertion" in options_log(n, s)]
    assert len(cuda) >= 5
    for n, s in cuda:
        text = options_log(n, s)
        assert re.search(r"\.py:\d+: unknown: block:", text), (n, s)
        rep = parse_log(text)
        assert rep.asserts and all(a.kernel is None and a.file.endswith(".py") for a in rep.asserts), (n, s)
        with inspector.open_package(options_pkg(n)) as pkg:
            t = inspector.trace_assert(pkg, log=text)
        assert t.matches and t.matches[0].exact and t.matches[0].kernel != "unknown", (n, s)


def test_every_failing_run_gets_its_category():
    checked = 0
    for n in CUDA_CASES:
        for r in options_index(n)["runs"]:
            want = r["right_category"]
            if want in (None, "none (clean run)"):
                continue
            with inspector.open_package(options_pkg(n)) as pkg:
                d = inspector.diagnose(pkg, options_log(n, r["scenario"]))
            # cpu_inputs (illegal_memory_access, an input on the CPU first): only an illegal access after a cuBLAS
            # error, no device named; read from the package (no unchecked indirect access, weights in it),
            # tests/unit/test_arithmetic_fault.py
            assert d.category == want, (n, r["scenario"], d.category, d.verdict)
            checked += 1
    assert checked >= 10
