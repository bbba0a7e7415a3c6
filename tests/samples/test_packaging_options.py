"""Issue 23 (CPU half): the packaging options production uses, each a real package torch 2.13 CPU built here
(sample_packages/options/<name>/, built by build_options.py, ISA capped at AVX2) with the real logs of fresh
processes that ran it.  index.json records per run the command, exit code, first error line, the truth
(`expect`) and `right_category`; every answer below is checked against those."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest

from inspector.cli import main

from _paths import S
from _samples import options_index, options_pkg

O = S / "options"
NAMES = ["aot_compile", "binary_blob", "cpp_only", "max_autotune", "named_files", "precompile_headers", "standalone"]
pytestmark = pytest.mark.samples


def _json(capsys, *args, rc=(0,)):
    got = main([*map(str, args), "--json"])
    out = capsys.readouterr()
    assert got in rc, out.err[-600:]
    return json.loads(out.out)


RUNS = [(n, r) for n in NAMES for r in options_index(n)["runs"]]
# index.json's right_category -> diagnose's category ("none (clean run)": nothing failed, diagnose says so)
_CATEGORY = {"none (clean run)": "no_failure", "weightless (load)": "weights_not_loaded"}


def test_every_option_has_its_sample_and_real_runs():
    assert set(NAMES) <= {p.name for p in O.iterdir() if p.is_dir()}  # the CUDA half's `*_cuda` folders sit beside
    for name in NAMES:
        index = options_index(name)
        assert index["torch"].startswith("2.13") and index["build_env"]["ATEN_CPU_CAPABILITY"] == "avx2"
        assert index["runs"], name
        for r in index["runs"]:
            assert (O / name / r["log"]).read_text().strip(), (name, r["scenario"])
            assert r["command"] and "right_category" in r and (r["rc"] == 0) == (r["expect"] is None)


@pytest.mark.parametrize("name", NAMES)
def test_every_sample_is_portable(name, capsys):
    """Built with the vector ISA capped at AVX2 and no -march=native (this host has AVX-512; CI hosts may not)."""
    d = _json(capsys, "--no-cache", "doctor", options_pkg(name), rc=(0, 1))
    fact = d["facts"]["model"]
    assert fact["cpu_isa"] == "AVX2" and not fact["march_native"]
    assert not any(f.startswith("avx512") for f in fact["cpu_flags_needed"])


@pytest.mark.parametrize("name", NAMES)
def test_strict_show_finds_every_kernel_and_understands_every_statement(name, capsys):
    doc = _json(capsys, "--strict", "--no-cache", "show", options_pkg(name), "--full")
    (m,) = doc["models"]
    cov = m["coverage"]
    assert cov["understood"] == cov["total"] > 0, cov["regions"]
    assert not [w for w in m["warnings"] if "source was not found" in w]
    launched = {k["name"] for k in m["kernels"] if k["launches"]}
    assert len(launched) >= 2 and all(k["file"] for k in m["kernels"])


@pytest.mark.parametrize("name,run", RUNS, ids=[f"{n}-{r['scenario']}" for n, r in RUNS])
def test_diagnose_gives_each_real_log_its_category(name, run, capsys):
    d = _json(capsys, "diagnose", options_pkg(name), "--log", O / name / run["log"], rc=(0, 1))
    assert d["category"] == _CATEGORY.get(run["right_category"], run["right_category"])
    if d["category"] == "index_assert":  # the embedding's check, its index from input 0, its 16 rows
        (m,) = d["trace"]["matches"]
        assert m["kernel"] == "cpp_fused_add_embedding_0" and m["exact"] and m["static_bound"] == 16
        assert [o["input"]["index"] for o in m["index_origin"]] == [0]
        assert "16 rows" in d["verdict"] and "input 0" in d["verdict"]


# -- binary_blob ------------------------------------------------------------------------------------------

def test_binary_blob_doctor_says_the_loader_loads_the_blob(capsys):
    """Today: `run it before load_constants and it segfaults` — but aoti_load_package loads the blob (the good and
    oob runs called no load_constants)."""
    d = _json(capsys, "--no-cache", "doctor", options_pkg("binary_blob"))
    (w,) = [f for f in d["findings"] if f["kind"] == "weights"]
    assert w["severity"] == "info" and "binary_blob" in w["message"] and "aoti_load_package loads it" in w["message"]
    assert not any("before `load_constants`" in f["message"] for f in d["findings"])
    fact = d["facts"]["model"]
    assert fact["weights_blob_member"].endswith(".wrapper_weights.blob")
    assert fact["weights_blob_bytes"] >= fact["constants_bytes"] > 0 and fact["weights_in_so_bytes"] <= 64
    assert {r["scenario"]: r["rc"] for r in options_index("binary_blob")["runs"]} == {"good": 0, "oob_index": 1, "so_alone": -11}


def test_binary_blob_so_run_alone_names_the_blob_not_loaded(capsys):
    d = _json(capsys, "diagnose", options_pkg("binary_blob"), "--log", O / "binary_blob/logs/so_alone.log")
    assert d["category"] == "weights_not_loaded"
    assert "weights blob" in d["verdict"] and "loaded alone" in d["verdict"]
    assert "built without its weights" not in d["verdict"]
    assert "aoti_load_package" in d["steps"][0]["do"]


def test_a_truncated_blob_is_an_error(tmp_path, capsys):
    """Crafted beside the real one: the same package with its blob cut to 100 bytes."""
    src, dst = options_pkg("binary_blob"), tmp_path / "cut.pt2"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for i in zin.infolist():
            data = zin.read(i.filename)
            zout.writestr(i.filename, data[:100] if i.filename.endswith(".wrapper_weights.blob") else data)
    d = _json(capsys, "--no-cache", "doctor", dst, rc=(1,))
    assert any(f["severity"] == "error" and "truncated" in f["message"] for f in d["findings"])


# -- torch._export.aot_compile ----------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["folder", "wrapper"])
def test_aot_compile_output_has_its_so(target, capsys):
    """Today: `✗ will not run as given: the package holds no compiled .so` on a model.so that ran every run."""
    folder = options_pkg("aot_compile")
    pkg = folder if target == "folder" else next(folder.glob("*.wrapper.cpp"))
    d = _json(capsys, "--no-cache", "doctor", pkg)
    assert d["ok"] and not any("no compiled .so" in f["message"] for f in d["findings"])
    fact = d["facts"]["model"]
    assert fact["shim_symbols"] > 0 and fact["weights_in_so_bytes"] >= fact["constants_bytes"] > 0


def test_aot_compile_logs_are_their_failure_with_the_deprecated_api_in_a_note(capsys):
    """Today every one of these logs (the good run too) is `deprecated_api`: torch prints the warning on each call."""
    seen = 0
    for run in options_index("aot_compile")["runs"]:
        d = _json(capsys, "diagnose", options_pkg("aot_compile"), "--log", O / "aot_compile" / run["log"], rc=(0, 1))
        assert d["category"] != "deprecated_api"
        assert any("deprecated torch._export.aot_compile" in n for n in d["notes"])
        seen += 1
    assert seen == 4
    d = _json(capsys, "diagnose", options_pkg("aot_compile"), "--log", O / "aot_compile/logs/wrong_dtype.log")
    assert d["category"] == "input_check" and "int32" in d["verdict"] and "int64" in d["verdict"]


# -- max_autotune (CPP GEMM template) ---------------------------------------------------------------------

def test_gemm_template_kernels_and_micro_kernels_are_found(capsys):
    """Today: 1 of the 3 kernels run_impl calls is found (`extern "C"` stands alone above a template kernel's
    signature), the two templates' `source was not found`, and coverage still says every statement understood."""
    (m,) = _json(capsys, "--no-cache", "show", options_pkg("max_autotune"), "--full")["models"]
    names = {k["name"]: k for k in m["kernels"]}
    templates = [n for n in names if n.startswith("cpp_fused") and n.endswith(("_t_1", "_t_2"))]
    assert len(templates) == 2 and all(names[t]["launches"] == 1 for t in templates)
    micro = [n for n in names if "_micro_gemm" in n]
    assert len(micro) == 4 and all(names[n]["launches"] == 0 for n in micro)
    assert sum(names[n]["assertions"] for n in micro) == 6  # the micro-kernels' own AOTI_TORCH_CHECKs
    assert all(k["file"].endswith(".kernel.cpp") for k in m["kernels"])


# -- package_cpp_only / compile_standalone ----------------------------------------------------------------

def test_cpp_only_kernels_are_read_from_the_wrapper(capsys):
    """Today: 0 of 2 kernels, with full coverage claimed; the check the real run printed names wrapper.cpp."""
    (m,) = _json(capsys, "--no-cache", "show", options_pkg("cpp_only"), "--full")["models"]
    assert len(m["kernels"]) == 2 and all(k["file"].endswith(".wrapper.cpp") for k in m["kernels"])
    t = _json(capsys, "trace-assert", options_pkg("cpp_only"), "--log", O / "cpp_only/logs/oob_index.log")
    (mt,) = t["matches"]
    assert mt["exact"] and mt["source_file"].endswith(".wrapper.cpp") and "wrapper.cpp line" in mt["matched_by"]


def test_a_kernel_with_no_source_is_not_full_coverage(tmp_path, capsys):
    """Crafted from the real cpp_only package: without its CMakeLists.txt nothing says the kernels are in the
    wrapper; the 2 kernels run_impl calls are unread, so coverage is not full and --strict fails."""
    with zipfile.ZipFile(options_pkg("cpp_only")) as z:
        z.extractall(tmp_path)
    (cm,) = tmp_path.glob("*/data/aotinductor/model/CMakeLists.txt")
    cm.unlink()
    assert main(["--strict", "--no-cache", "show", str(tmp_path / "cpp_only"), "--json"]) == 1
    (m,) = json.loads(capsys.readouterr().out)["models"]
    skipped = m["coverage"]["regions"]["kernel sources"]
    assert skipped["total"] == 2 and skipped["understood"] == 0 and "source was not found" in skipped["skipped"][0]["statement"]


def test_cpp_only_doctor_says_the_loader_compiles_it(capsys):
    """Today: `✗ the package holds no compiled .so … repackage it with the .so` — the real good run loaded it:
    torch 2.13's aoti_load_package compiled it."""
    d = _json(capsys, "--no-cache", "doctor", options_pkg("cpp_only"))
    assert d["ok"] and d["facts"]["model"]["cmake_project"] == "cpp_only"
    (c,) = [f for f in d["findings"] if f["kind"] == "completeness"]
    assert c["severity"] == "warn" and "compiles it" in c["message"] and "C++ compiler" in c["message"]
    assert [r["rc"] for r in options_index("cpp_only")["runs"]] == [0, 1]


def test_standalone_is_read_and_doctor_and_diagnose_say_it_is_not_for_aoti_load_package(capsys):
    (m,) = _json(capsys, "--no-cache", "show", options_pkg("standalone"), "--full")["models"]
    assert m["dialect"] == "cpp-wrapper-cpu/standalone" and m["inputs"] and all(k["launches"] for k in m["kernels"])
    d = _json(capsys, "--no-cache", "doctor", options_pkg("standalone"), rc=(1,))
    assert d["facts"]["model"]["cmake_project"] == "standalone"
    assert any(f["severity"] == "error" and "compile_standalone" in f["message"] for f in d["findings"])
    g = _json(capsys, "diagnose", options_pkg("standalone"), "--log", O / "standalone/logs/load.log")
    assert g["category"] == "wrong_artifact" and "compile_standalone" in g["verdict"]
    assert "newer torch" not in g["verdict"] and not any("older torch" in n for n in g["notes"])


def test_named_files_are_read_by_their_names(capsys):
    (m,) = _json(capsys, "--no-cache", "show", options_pkg("named_files"))["models"]
    assert m["wrapper"].endswith("/tiny_model.wrapper.cpp") and m["kernel_cpp"].endswith("/tiny_model.kernel.cpp")


def test_the_aot_compile_folder_copy_still_opens(tmp_path, capsys):
    """A copy of the aot_compile folder whose .so is renamed: the folder's only .so beside its only wrapper."""
    dst = tmp_path / "out"
    shutil.copytree(options_pkg("aot_compile"), dst)
    (dst / "model.so").rename(dst / "served.so")
    d = _json(capsys, "--no-cache", "doctor", dst)
    assert d["ok"] and d["facts"]["model"]["shim_symbols"] > 0


def test_cpp_only_wrapper_read_alone_from_its_extracted_folder(tmp_path, capsys):
    """`pt2-inspect show <hash>.wrapper.cpp` in the extracted package: its CMakeLists.txt beside it says the kernels
    are in the wrapper."""
    with zipfile.ZipFile(options_pkg("cpp_only")) as z:
        z.extractall(tmp_path)
    (wrapper,) = tmp_path.glob("*/data/aotinductor/model/*.wrapper.cpp")
    (m,) = _json(capsys, "--strict", "--no-cache", "show", wrapper, "--full")["models"]
    assert len(m["kernels"]) == 2 and m["coverage"]["understood"] == m["coverage"]["total"]
    t = _json(capsys, "trace-assert", wrapper, "--log", O / "cpp_only/logs/oob_index.log")
    assert t["matches"][0]["exact"]
