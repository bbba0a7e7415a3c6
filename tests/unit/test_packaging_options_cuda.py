"""Issue 23, the CUDA packaging options: packages torch 2.11 built on the H200 with each option
(sample_packages/options/, sample_packages/options/build_cuda.py) and their real good and failing runs.

Each test states what a person must be told and failed on the answers before this work (named in its doc). The
loops over every case and every run: tests/samples/test_packaging_options_cuda_samples.py."""

from __future__ import annotations

import json
import zipfile

import pytest

import inspector
import inspector.elf as elf
from inspector.cli import main
from inspector import diagnose
from inspector.queries.doctor import doctor
from inspector import trace_assert
from inspector.queries.show import summarize

from _paths import S
from _samples import options_index, options_log, options_pkg

O = S / "options"


# -- embed_kernel_binary=True ---------------------------------------------------------------------------------

def test_embedded_kernels_statements_are_understood(capsys):
    """Was: `--strict show` skipped the `loadKernel(__triton_…_start, …)` statements (the grammar wanted a path)."""
    rc = main(["--strict", "--no-cache", "show", str(options_pkg("embed_kernel_cuda")), "--full", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err[-600:]
    (m,) = json.loads(out.out)["models"]
    assert m["coverage"]["understood"] == m["coverage"]["total"] > 0
    assert len(m["kernels"]) == 2


def test_embedded_images_are_read_from_the_so_by_ranges():
    with zipfile.ZipFile(options_pkg("embed_kernel_cuda")) as z:
        assert not [n for n in z.namelist() if n.endswith((".cubin", ".fatbin"))]
        so = next(n for n in z.namelist() if n.endswith(".so"))
        data = z.read(so)
    imgs = elf.embedded_images(elf.bytes_reader(data))
    assert sorted(imgs) == ["triton_poi_fused_add_embedding_0", "triton_poi_fused_addmm_relu_1"]
    for off, size in imgs.values():
        h = elf.header(elf.sub_reader(elf.bytes_reader(data), off, size))
        assert h.machine == elf.EM_CUDA and elf.cubin_sm(h) == 90


def test_doctor_reads_the_embedded_kernels_architecture():
    """Was: no gpu_arch finding at all (no cubin member)."""
    with inspector.open_package(options_pkg("embed_kernel_cuda")) as pkg:
        r = doctor(pkg)
        r80 = doctor(pkg, gpu="sm_80")
        r90 = doctor(pkg, gpu="sm_90")
    f = r.readings["model"]
    assert f["kernel_images"] == {"forms": {"embedded": 2}, "sass_sm": [90], "ptx_sm": [], "arch_specific": True}
    (g,) = [x for x in r.findings if x.kind == "gpu_arch"]
    assert "sm_90a" in g.message and any("__triton_poi_fused_add_embedding_0_start" in e for e in g.evidence)
    assert any(x.kind == "gpu_arch" and x.severity == "error" and "no kernel image" in x.message for x in r80.findings)
    assert not [x for x in r90.findings if x.kind == "gpu_arch" and x.severity == "error"]


def test_the_embedded_kernels_assert_file_makes_the_match_exact():
    """Was: 'candidate: line 34 and message match; no cubin names …py' (there is no cubin to read)."""
    with inspector.open_package(options_pkg("embed_kernel_cuda")) as pkg:
        t = trace_assert(pkg, log=options_log("embed_kernel_cuda", "oob_index"))
    (m,) = t.matches
    assert m.exact and m.kernel == "triton_poi_fused_add_embedding_0" and "image in the .so" in m.matched_by
    assert [o.input.index for o in m.index_origin if o.input] == [0]


# -- emit_multi_arch_kernel=True ------------------------------------------------------------------------------

def test_fatbin_entries_are_sass_and_ptx_for_sm_90():
    with zipfile.ZipFile(options_pkg("multi_arch_cuda")) as z:
        fatbins = [z.read(n) for n in z.namelist() if n.endswith(".fatbin")]
    assert len(fatbins) == 2
    for data in fatbins:
        entries = elf.fatbin_entries(elf.bytes_reader(data))
        assert [(e.kind, e.sm) for e in entries] == [("sass", 90), ("ptx", 90)]
        sass = entries[0]
        assert data[sass.offset:sass.offset + 4] == b"\x7fELF" and not sass.compressed
        assert sass.offset + sass.size <= len(data)
    with pytest.raises(elf.ElfError):
        elf.fatbin_entries(elf.bytes_reader(b"\x7fELF" + b"\0" * 60))


def test_doctor_says_which_gpus_run_the_fatbins():
    """Was: doctor read no .fatbin (no architecture finding).  cuobjdump on the H200 said sm_90a for both images
    (index.json facts): Triton's 'a' target, which no other architecture can run or JIT."""
    truth = " ".join(t["out"] for t in options_index("multi_arch_cuda")["facts"]["tools"] if ".fatbin" in t["member"])
    assert "sm_90a.cubin" in truth and "sm_90a.ptx" in truth
    with inspector.open_package(options_pkg("multi_arch_cuda")) as pkg:
        r = doctor(pkg)
        r100 = doctor(pkg, gpu="sm_100")
        r90 = doctor(pkg, gpu="sm_90")
    assert r.readings["model"]["kernel_images"] == {"forms": {"fatbin": 2}, "sass_sm": [90], "ptx_sm": [90],
                                                 "arch_specific": True}
    (g,) = [x for x in r.findings if x.kind == "gpu_arch"]
    assert "SASS for sm_90a and PTX for sm_90a" in g.message and "cannot JIT" in g.message
    bad = [x for x in r100.findings if x.kind == "gpu_arch" and x.severity == "error"]
    assert bad and "sm_100" in bad[0].message
    assert [x.severity for x in r90.findings if x.kind == "gpu_arch"] == ["info"]


def test_portable_ptx_is_said_to_jit_on_newer_gpus():
    """A fatbin of sm_80 SASS + compute_80 PTX (below 9.0 Triton's PTX is portable): a newer GPU JITs it."""
    from inspector.queries.kernel_binaries import KernelImage

    img = KernelImage("x.fatbin", "fatbin", sass=[80], ptx=[80], arch_specific=False)
    assert img.runs_on(86) == "sass" and img.runs_on(90) == "ptx" and img.runs_on(75) is None
    a = KernelImage("y.fatbin", "fatbin", sass=[90], ptx=[90], arch_specific=True)
    assert a.runs_on(90) == "sass" and a.runs_on(100) is None


# -- package_cpp_only=True / compile_standalone ---------------------------------------------------------------

def test_cpp_only_package_is_c_plus_plus_to_build_not_a_package_without_its_so():
    """Was: '✗ will not run as given: … repackage it with the .so' — there is none, and torch 2.11's
    aoti_load_package compiled and ran it (run 'load', rc 0)."""
    assert [r["rc"] for r in options_index("cpp_only_cuda")["runs"]] == [0]
    with inspector.open_package(options_pkg("cpp_only_cuda")) as pkg:
        r = doctor(pkg)
    assert r.ok and not any("repackage" in (x.fix or "") for x in r.findings)
    (c,) = [x for x in r.findings if x.kind == "completeness"]
    assert c.severity == "warn" and "CMakeLists.txt" in c.message and "compiles and links it itself" in c.message
    assert "CMake 3.27+" in c.fix and "Torch" in c.fix and "CUDA toolkit" in c.fix
    assert r.readings["model"]["cpp_build"]["packages"] == ["Torch", "CUDAToolkit"]


def test_standalone_package_needs_its_cmake_build():
    """compile_standalone: aoti_load_package's own build failed at dlopen (undefined __gather_triton_…_start);
    doctor says so before any run, and diagnose of that run points at the CMake build, not at 'a torch version
    mismatch'."""
    with inspector.open_package(options_pkg("standalone_cuda")) as pkg:
        r = doctor(pkg)
        d = diagnose(pkg, options_log("standalone_cuda", "load"))
    (c,) = [x for x in r.findings if x.kind == "completeness"]
    assert c.severity == "error" and "__gather_triton_poi_fused_add_embedding_relu_0_start" in c.message
    assert "TorchStandalone" in c.fix and "compute_90a, sm_90a" in c.fix
    assert d.category == "load" and "CMakeLists.txt" in d.verdict and "torch version" not in " ".join(
        s.do for s in d.steps)
    (g,) = [x for x in r.findings if x.kind == "gpu_arch"]
    assert "PTX for sm_90a (no SASS)" in g.message


# -- inputs a wrapper only range-checks -----------------------------------------------------------------------

@pytest.mark.parametrize("rel,input_,dim,lo,hi", [
    ("options/embed_kernel_cuda/embed_kernel_cuda.pt2", 1, 0, 2, 4096),
    ("options/cond_index_cuda/cond_index_cuda.pt2", 2, 0, 2, 4096),
    ("cuda/topk_gather/topk_gather.pt2", 1, 0, 2, 64),
])
def test_a_range_checked_dim_gets_its_range(rel, input_, dim, lo, hi, capsys):
    """Was: `float32[?, 32]` and no symbol row: the dim the wrapper range-checks but reads into no symbol."""
    pkg_path = O.parent / rel
    with inspector.open_package(pkg_path) as pkg:
        s = summarize(pkg)
    (m,) = s.models
    rows = [x for x in m.symbols if x.input == input_ and x.dim == dim]
    assert len(rows) == 1 and (rows[0].min, rows[0].max) == (lo, hi) and rows[0].name.endswith(f"[{dim}]")
    assert m.inputs[input_].shape[dim] == f"{lo}..{hi}"  # issue 34 §6: --json says the range, not '?'
    with inspector.open_package(pkg_path) as pkg:  # the model keeps '?': `check` reads it
        assert pkg.index().eager().inputs[input_].shape[dim] == "?"
    assert main(["show", str(pkg_path)]) == 0
    out = capsys.readouterr().out
    assert f"{lo}..{hi}" in out and "range-checked only" in out


# -- torch.cond on CUDA ---------------------------------------------------------------------------------------

def test_cond_branch_index_traces_to_the_model_input():
    """Was: the trail stopped at aoti_torch_assign_tensors_out and named buffer true_graph_0_arg2_1 (and the table
    true_graph_0_arg1_1)."""
    with inspector.open_package(options_pkg("cond_index_cuda")) as pkg:
        t = trace_assert(pkg, log=options_log("cond_index_cuda", "oob_true"))
    (m,) = t.matches
    assert m.exact and [o.input.index for o in m.index_origin if o.input] == [1]
    assert "input 1 holds" in t.verdict and "`tab`, 100 rows" in t.verdict and "true_graph_0" not in t.verdict


# -- a mixed CPU/CUDA graph -----------------------------------------------------------------------------------

def test_cpu_constants_are_not_counted_as_cuda_memory():
    """Was: '+ 1.0 MiB of constants on cuda' (cpu_tab, 4096x64 float32, lives on the CPU)."""
    with inspector.open_package(options_pkg("mixed_cpu_cuda")) as pkg:
        r = doctor(pkg)
    mem = r.readings["model"]["memory"]
    assert mem["constants_bytes"] == 64 * 64 * 4 and mem["constants_bytes_elsewhere"] == {"cpu": 4096 * 64 * 4}
    (f,) = [x for x in r.findings if x.kind == "memory"]
    assert "of constants on cuda" in f.message and "on cpu, not cuda memory" in f.message


# -- bf16 SDPA past its position table ------------------------------------------------------------------------

def test_position_assert_is_traced_to_the_sequence_dim():
    with inspector.open_package(options_pkg("sdpa_bf16_dyn_cuda")) as pkg:
        t = trace_assert(pkg, log=options_log("sdpa_bf16_dyn_cuda", "past_table"))
    (m,) = t.matches
    assert m.exact and m.assertion.message == "index out of bounds: y0 < 128"
    assert any(o.computed and "input 0 dim 1" in o.computed and "1024" in o.computed for o in m.index_origin)


def test_without_its_assertion_line_the_shape_driven_candidate_ranks_first():
    """The real run with its `Assertion` lines taken out (what a run that lost them prints, as in issue 23): was
    the token embedding `0 <= tmp4 < 1000` first, whose index the log gives no reason to suspect; the position
    `y0 < 128` runs over 0 … s27-1 and the package allows s27 up to 1024."""
    log = "\n".join(ln for ln in options_log("sdpa_bf16_dyn_cuda", "past_table").splitlines() if "Assertion" not in ln)
    with inspector.open_package(options_pkg("sdpa_bf16_dyn_cuda")) as pkg:
        d = diagnose(pkg, log)
    assert d.category == "device_assert" and len(d.candidates) == 2
    assert d.candidates[0].message == "index out of bounds: y0 < 128"
    assert d.candidates[1].message == "index out of bounds: 0 <= tmp4 < 1000"


# -- Triton 3.6: `unknown` where the kernel name was ----------------------------------------------------------


# -- every real run, the category a person gives it -----------------------------------------------------------


def test_a_package_with_a_cpu_and_a_cuda_model():
    with inspector.open_package(options_pkg("cpu_and_cuda_models")) as pkg:
        s = summarize(pkg)
        r = doctor(pkg)
        d = diagnose(pkg, options_log("cpu_and_cuda_models", "oob_cuda"))
    assert {m.name: m.device for m in s.models} == {"gather_cpu": "cpu", "gather_cuda": "cuda"}
    assert r.readings["gather_cpu"]["device"] == "cpu" and r.readings["gather_cuda"]["cubin_sm"] == [90]
    assert not [x for x in r.findings if x.kind == "gpu_arch" and x.model == "gather_cpu"]
    assert d.category == "index_assert" and d.trace.matches[0].model == "gather_cuda"


def test_a_standalone_wrapper_is_read_with_its_named_model_class(capsys):
    """compile_standalone names the class AOTInductorModelgather: was dialect 'unknown', no run_impl found (no
    symbols, no calls, 'answers are partial')."""
    rc = main(["--strict", "--no-cache", "show", str(options_pkg("standalone_cuda")), "--full", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err[-600:]
    (m,) = json.loads(out.out)["models"]
    assert m["dialect"] == "cpp-wrapper-gpu/call_triton" and not m["warnings"]
    assert [s["name"] for s in m["symbols"]][:1] == ["s77"] and m["outputs"][0]["source"] == "buf0"
    assert m["coverage"]["understood"] == m["coverage"]["total"] > 0
