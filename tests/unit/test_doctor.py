"""doctor on real packages: GPU architecture, CPU ISA, the torch C-shim ABI, weights left out of the .so,
missing members and compiled-in checks, each against what the package really holds."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

import inspector
from inspector.errors import UsageError
from inspector.queries.doctor import doctor, parse_gpu, resolve_release, shim_table

from _cli import run
from _paths import S
from _queries import MULTI, doctor_pkg

CUDA = S / "cuda" / "jagged" / "jagged.pt2"
CPU = S / "cpu" / "jagged" / "jagged.pt2"
CPU26 = S / "cpu-2.6" / "jagged" / "jagged.pt2"
NO_AMX = (S / "cpu" / "jagged" / "logs" / "cpuinfo_flags_no_amx.log").read_text()


def _kinds(r, severity):
    return [f.kind for f in r.findings if f.severity == severity]


def test_cuda_package_on_an_older_gpu_is_an_error():
    r = doctor_pkg(CUDA, gpu="sm_80")
    assert not r.ok and "gpu_arch" in _kinds(r, "error")
    f = next(f for f in r.errors if f.kind == "gpu_arch")
    assert "sm_90" in f.message and "no kernel image is available" in f.message and f.evidence[0].endswith(".cubin")
    assert r.verdict().startswith("will not run as given")


@pytest.mark.parametrize("gpu", ["sm_90", "9.0", "90", "sm_90a"])
def test_cuda_package_on_its_own_gpu_is_fine(gpu):
    r = doctor_pkg(CUDA, gpu=gpu)
    assert "gpu_arch" not in _kinds(r, "error") and r.readings["model"]["cubin_sm"] == [90]


def test_another_major_version_is_an_error_too():
    assert "gpu_arch" in _kinds(doctor_pkg(CUDA, gpu="sm_100"), "error")


@pytest.mark.parametrize("bad", ["ampere", "sm_", "9", ""])
def test_a_bad_gpu_is_a_usage_error(bad):
    with pytest.raises(UsageError):
        parse_gpu(bad)


def test_cpu_isa_against_a_real_cpuinfo_without_amx():
    """cpu/jagged was built on an AMX machine (-mamx-tile in its compile command, AOTI_CPU_ISA AMX_TILE), but no
    kernel has tile code: seen for real, such a build runs on a host without AMX (cpu/embedding/weights/*.log:
    torch only warns `Device information mismatch`).  Not an error, a warning that says why."""
    r = doctor_pkg(CPU, host_cpuinfo=NO_AMX)
    assert "cpu_isa" not in _kinds(r, "error")
    f = next(f for f in r.findings if f.kind == "cpu_isa" and "amx_tile" in f.message)
    assert f.severity == "warn" and "no kernel" in f.message
    assert r.readings["model"]["cpu_isa"] == "AVX512 AVX512_VNNI AMX_TILE"
    log = (S / "cpu/embedding/weights/no_bias.log").read_text()
    assert "Device information mismatch for AOTI_CPU_ISA" in log and "max |out - eager| = 0.0" in log


def test_cpu_isa_without_avx512_is_an_error():
    no_avx512 = " ".join(w for w in NO_AMX.split() if not w.startswith("avx512"))
    r = doctor_pkg(CPU, host_cpuinfo=no_avx512)
    f = next(f for f in r.errors if f.kind == "cpu_isa")
    assert "avx512f" in f.message and "SIGILL" in f.message and any("compile command" in e for e in f.evidence)


def test_cpu_isa_against_a_host_with_everything():
    flags = "flags : " + " ".join(["avx2", "fma", "avx512f", "avx512dq", "avx512vl", "avx512bw", "avx512_vnni",
                                   "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8"])
    r = doctor_pkg(CPU, host_cpuinfo=flags)
    assert "cpu_isa" not in _kinds(r, "error")
    assert any(f.kind == "cpu_isa" and "march=native" in f.message for f in r.findings)


def test_torch_abi_against_the_table():
    """The package's undefined aoti_* symbols, read from its .so, against the releases that export them."""
    table = shim_table()
    r = doctor_pkg(CUDA)
    oldest = r.readings["model"]["oldest_torch"]
    assert oldest and r.readings["model"]["shim_symbols"] > 10
    older = [x for x in table["releases"] if tuple(map(int, x.split("."))) < tuple(map(int, oldest.split(".")))]
    assert older, "cuda/jagged (torch 2.11) calls symbols older releases lack"
    bad = doctor_pkg(CUDA, torch=older[-1])
    f = next(f for f in bad.errors if f.kind == "torch_abi")
    sym = f.message.split("undefined symbol: ")[1].rstrip("`")
    assert older[-1] not in table["symbols"][sym] and oldest in table["symbols"][sym]
    assert not [f for f in doctor_pkg(CUDA, torch=oldest).errors if f.kind == "torch_abi"]


@pytest.mark.parametrize("given,want", [("2.13", "2.13.0"), ("2.13.0", "2.13.0"), ("2.14", "2.14.1"),
                                        ("2.11.0+cu130", "2.11.0")])
def test_resolve_release(given, want):
    assert resolve_release(given) == want


def test_unknown_release_is_a_usage_error():
    with pytest.raises(UsageError, match="known: 2.6.0"):
        resolve_release("1.13")


def test_weights_left_out_of_the_so():
    """bench/multi_model.pt2 was built with package_constants_in_so=False: a 1-byte constants blob."""
    r = doctor_pkg(MULTI)
    warned = {f.model for f in r.findings if f.kind == "weights" and f.severity == "warn"}
    assert warned == set(r.models) and len(warned) == 10
    assert all(r.readings[m]["weights_in_so_bytes"] <= 1 for m in r.models)
    assert "load_constants" in next(f for f in r.findings if f.kind == "weights").fix


def test_weights_compiled_in():
    r = doctor_pkg(S / "cpu" / "embedding" / "embedding.pt2")
    f = next(f for f in r.findings if f.kind == "weights")
    assert f.severity == "info" and r.readings["model"]["weights_in_so_bytes"] >= r.readings["model"]["constants_bytes"] > 0


def _repack(src: Path, dst: Path, drop) -> Path:
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for info in zi.infolist():
            if not drop(info.filename):
                zo.writestr(info, zi.read(info))
    return dst


def test_a_missing_cubin_and_so_are_errors(tmp_path):
    names = [n for n in zipfile.ZipFile(CUDA).namelist() if n.endswith(".cubin")]
    p = _repack(CUDA, tmp_path / "stripped.pt2", lambda n: n == names[0] or n.endswith(".so"))
    r = doctor_pkg(p)
    msgs = [f.message for f in r.errors if f.kind == "completeness"]
    assert any("no compiled .so" in m for m in msgs) and any("1 cubin(s)" in m for m in msgs)


def test_torch_2_6_emits_no_input_guards():
    r = doctor_pkg(CPU26)
    assert any(f.kind == "checks" and "no input guards" in f.message for f in r.findings)
    assert not any(f.kind == "checks" and "no input guards" in f.message for f in doctor_pkg(CPU).findings)


def test_torch_2_6_layout_and_symbols():
    """Checked for real with torch 2.6.0: aoti_load_package on cpu/jagged (torch 2.13) fails on the root folder
    ('No AOTInductor generate cpp file or so file found'), and the same members without it fail in dlopen with
    `undefined symbol: aoti_torch_new_tensor_handle` (sample_packages/cpu/jagged/logs/torch26_*.log)."""
    r = doctor_pkg(CPU, torch="2.6")
    msgs = [f.message for f in r.errors if f.kind == "torch_abi"]
    assert any("undefined symbol: aoti_torch_new_tensor_handle" in m for m in msgs)
    assert any("No AOTInductor generate cpp file or so file found" in m for m in msgs)
    assert not doctor_pkg(CPU26, torch="2.6").errors


WEIGHTS = S / "cpu" / "embedding" / "weights"
EMBEDDING = S / "cpu" / "embedding" / "embedding.pt2"


@pytest.mark.parametrize("case", ["full", "no_bias", "half", "transposed", "wrong_shape", "ddp", "missing"])
def test_weights_against_real_load_constants_runs(case):
    """Each file was passed to load_constants on cpu/embedding with torch 2.13 (run_load_constants.py beside
    them; its output in <case>.log): doctor --weights must say what the real run did — an error naming the
    key that failed, an error for a silent wrong result, nothing for the file that matched."""
    log = (WEIGHTS / f"{case}.log").read_text()
    r = doctor_pkg(EMBEDDING, weights=str(WEIGHTS / f"{case}.pt"))
    errs = [f for f in r.findings if f.kind == "weights" and f.severity == "error"]
    warns = [f for f in r.findings if f.kind == "weights" and f.severity == "warn"]
    if "Constant not found: " in log:
        key = log.split("Constant not found: ")[1].split()[0]
        assert any(key in f.message or key.split(".")[0] + "." in f.message for f in errs), (key, errs)
    elif "Cannot find constants " in log:
        name = log.split("Cannot find constants ")[1].split()[0]
        assert any(name in f.message for f in warns), warns
    else:
        err = float(log.split("max |out - eager| = ")[1].split()[0])
        assert bool(errs) == (err > 0), (err, [f.message for f in errs])


def test_weights_file_formats(tmp_path):
    import struct

    from inspector.weights import read_weights

    hdr = json.dumps({"emb.weight": {"dtype": "F32", "shape": [1000, 32], "data_offsets": [0, 128000]},
                      "proj.weight": {"dtype": "F16", "shape": [8, 32], "data_offsets": [128000, 128512]},
                      "__metadata__": {"format": "pt"}}).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(hdr)) + hdr)
    wf = read_weights(tmp_path)
    assert wf.format == "folder" and wf.tensors["proj.weight"].dtype == "float16"
    r = doctor_pkg(EMBEDDING, weights=str(tmp_path / "model.safetensors"))
    assert [f for f in r.errors if "proj.weight: dtype float16" in f.message]
    for bad in (b"", b"\xff" * 8 + b"{}", struct.pack("<Q", 5) + b"nope!"):
        (tmp_path / "bad.safetensors").write_bytes(bad)
        with pytest.raises(UsageError):
            read_weights(tmp_path / "bad.safetensors")
    (tmp_path / "bad.pt").write_bytes(b"PK\x03\x04broken")
    with pytest.raises(UsageError):
        read_weights(tmp_path / "bad.pt")


def test_weights_need_one_model():
    with inspector.open_package(MULTI) as pkg, pytest.raises(UsageError, match="--model"):
        doctor(pkg, weights=str(WEIGHTS / "full.pt"))


# -- the CLI: doctor and scan ----------------------------------------------------------------------------

def test_doctor_cli_verdict_first_and_exit_codes(capsys):
    rc, out, _ = run(capsys, ["doctor", str(CUDA), "--gpu", "sm_80"])
    assert rc == 1 and out.splitlines()[0].startswith("✗ will not run as given")
    rc, out, _ = run(capsys, ["doctor", str(CUDA), "--gpu", "sm_90"])
    assert rc == 0 and not out.startswith("✗")
    rc, _, err = run(capsys, ["doctor", str(CUDA), "--gpu", "volta"])
    assert rc == 2 and "sm_XX" in err
    rc, _, err = run(capsys, ["doctor", str(CUDA), "--torch", "1.0"])
    assert rc == 2 and "known:" in err
    rc, _, err = run(capsys, ["doctor", str(CUDA), "--host-cpuinfo", "/nonexistent"])
    assert rc == 2


def test_scan_a_registry_with_hostile_files(tmp_path, capsys):
    reg = tmp_path / "registry"
    (reg / "team").mkdir(parents=True)
    shutil.copy(CUDA, reg / "team" / "good.pt2")
    shutil.copy(CPU, reg / "cpu.pt2")
    (reg / "junk.pt2").write_bytes(b"not a zip at all")
    (reg / "empty.pt2").write_bytes(b"")
    (reg / "link.pt2").symlink_to(reg / "cpu.pt2")
    rc, out, err = run(capsys, ["scan", str(reg), "--gpu", "sm_80", "--jobs", "2", "--json"])
    rows = [json.loads(l) for l in out.splitlines()]
    summary = rows[-1]["summary"]
    by_name = {Path(r["package"]).name: r for r in rows[:-1]}
    assert set(by_name) == {"good.pt2", "cpu.pt2", "junk.pt2", "empty.pt2"}  # the link is not followed
    assert by_name["good.pt2"]["ok"] is False and by_name["cpu.pt2"]["ok"] is True
    assert by_name["junk.pt2"]["ok"] is None and not by_name["junk.pt2"]["internal"]
    assert summary["packages"] == 4 and summary["unreadable"] == 2 and summary["will_not_run"] == 1
    assert summary["internal_errors"] == 0 and rc == 3  # a package unreadable: exit 3 (issue 36 §1)
    rc, out, _ = run(capsys, ["scan", str(reg / "cpu.pt2")])
    assert rc == 0 and "1 package(s), 1 model(s)" in out
    rc, _, err = run(capsys, ["scan", str(tmp_path / "nothing-here")])
    assert rc == 2 and "nothing to scan" in err


def test_custom_ops_unchecked_loads_and_extern_calls():
    """The harvested custom_op package (a Python torch.library.custom_op, loaded for real in a fresh process:
    `Could not find schema for hvlib::scale_shift`) and cuda/embedding_noassert (assert_indirect_indexing=False,
    a real illegal memory access) are told apart before they run."""
    custom = S / "harvest/issue15_cpu213/custom_op_cpu"
    assert "Could not find schema for hvlib::scale_shift" in (custom / "logs/missing_op.log").read_text()
    r = doctor_pkg(custom / "custom_op_cpu.pt2")
    f = next(f for f in r.findings if f.kind == "custom_op")
    assert f.severity == "warn" and "hvlib::scale_shift" in f.message and r.readings["model"]["custom_ops"] == ["hvlib::scale_shift"]
    r = doctor_pkg(S / "cuda/embedding_noassert/embedding_noassert.pt2")
    assert r.readings["model"]["unchecked_indirect"] == 1
    assert any(f.kind == "checks" and "no bounds check" in f.message for f in r.findings)
    assert doctor_pkg(S / "cuda/embedding/embedding.pt2").readings["model"]["unchecked_indirect"] == 0


def test_proxy_executor_calls_without_the_wrapper_json_are_an_error():
    """A real package re-zipped without its .wrapper.json (torch 2.11): its real run failed with `Unable to find a
    proxy executor` (harvest/issue15/custom_op_cuda/logs/no_proxy_json.log); doctor says it before it runs."""

    import inspector
    from inspector.queries.doctor import doctor

    folder = S / "harvest/issue15/custom_op_cuda"
    assert "Unable to find a proxy executor" in (folder / "logs/no_proxy_json.log").read_text()
    with inspector.open_package(folder / "no_json.pt2") as pkg:
        r = doctor(pkg)
    f = next(x for x in r.findings if x.kind == "custom_op")
    assert f.severity == "error" and "no <hash>.wrapper.json" in f.message and "line 842" in f.evidence[0]
    with inspector.open_package(folder / "custom_op_cuda.pt2") as pkg:
        assert not any(x.kind == "custom_op" and x.severity == "error" for x in doctor(pkg).findings)


PICKLE = S / "harvest/issue14_cpu213/pickle_weights_cpu"


def test_weights_stored_beside_the_code_pickle_weights():
    """Issue 14 §1: built with package_constants_on_disk_format="pickle_weights" (torch 2.13 CPU) and run for real
    in fresh processes: aoti_load_package(p)(x) segfaults (rc -11), load_pt2(p, load_weights_from_disk=True) runs.
    doctor names the members that hold the weights, their bytes from the zip directory, and the loading call."""
    runs = {r["scenario"]: r for r in json.loads((PICKLE / "index.json").read_text())["runs"]}
    assert runs["aoti_load_package"]["rc"] == -11 and runs["load_pt2_from_disk"]["rc"] == 0
    assert "Segmentation fault" in (PICKLE / runs["aoti_load_package"]["log"]).read_text()
    assert "matches the eager model: True" in (PICKLE / runs["load_pt2_from_disk"]["log"]).read_text()
    with zipfile.ZipFile(PICKLE / "pickle_weights_cpu.pt2") as z:
        sizes = {i.filename.rsplit("/", 1)[-1]: i.file_size for i in z.infolist() if "/data/weights/" in i.filename}
    assert set(sizes) == {"weight_0", "weight_1"}
    r = doctor_pkg(PICKLE / "pickle_weights_cpu.pt2")
    ws = [f for f in r.findings if f.kind == "weights"]
    assert len(ws) == 1 and ws[0].severity == "warn"  # it replaces the plain load_constants warning
    f = ws[0]
    for s in ("2 constants (2,176 bytes) are not in the .so", 'package_constants_on_disk_format="pickle_weights"',
              "(load_weights_from_disk=True)", "plain aoti_load_package ignores them",
              "the first call segfaults (SIGSEGV"):
        assert s in f.message, (s, f.message)
    ev = "\n".join(f.evidence)
    assert "wrapper.so: constants blob 1 byte(s)" in ev
    assert "pickle_weights_cpu/data/aotinductor/model/weights_config.json" in ev
    assert f"2 member(s) under data/weights/, {sum(sizes.values()):,} bytes (zip directory): weight_0, weight_1" in ev
    assert 'load_pt2(PKG, load_weights_from_disk=True).aoti_runners["model"]' in f.fix
    assert "load_package has no load_weights_from_disk" in f.fix
    fact = r.readings["model"]
    assert fact["weights_on_disk_members"] == 2 and fact["weights_on_disk_bytes"] == sum(sizes.values()) == 5458
    assert fact["weights_in_so_bytes"] == 1
    # load_package takes no load_weights_from_disk on torch 2.13: the real TypeError the fix names
    assert "unexpected keyword argument 'load_weights_from_disk'" in (PICKLE / "logs/load_package_from_disk.log").read_text()


def test_pickle_weights_are_never_read(monkeypatch):
    """The weights members are sized from the zip directory: never opened, never unpickled."""
    from inspector.archive import Archive

    read = []
    for meth in ("read_bytes", "read_range"):
        orig = getattr(Archive, meth)

        def spy(self, name, *a, _orig=orig, **kw):
            read.append(name)
            return _orig(self, name, *a, **kw)

        monkeypatch.setattr(Archive, meth, spy)
    r = doctor_pkg(PICKLE / "pickle_weights_cpu.pt2")
    assert any(f.kind == "weights" and "pickle_weights" in f.message for f in r.findings)
    assert read and not [n for n in read if "/data/weights/" in n or n.endswith("weights_config.json")]


def test_pickle_weights_said_from_the_members_alone(tmp_path):
    """Without the .so (nothing to read a constants blob from), the members still say where the weights are."""
    p = _repack(PICKLE / "pickle_weights_cpu.pt2", tmp_path / "noso.pt2", lambda n: n.endswith(".so"))
    r = doctor_pkg(p)
    f = next(f for f in r.findings if f.kind == "weights")
    assert f.severity == "warn" and f.message.startswith("its constants are stored beside the code")
    assert "plain aoti_load_package ignores them" in f.message and "load_weights_from_disk=True" in f.fix
    assert any("no compiled .so" in e.message for e in r.errors)


def test_a_weightless_package_without_pickled_weights_keeps_the_load_constants_advice():
    r = doctor_pkg(S / "harvest/issue15_cpu213/weightless_cpu/weightless_cpu.pt2")
    f = next(f for f in r.findings if f.kind == "weights")
    assert "pickle_weights" not in f.message and "load_constants" in f.fix
    assert "weights_on_disk_members" not in r.readings["model"]


def test_pickled_weights_members_in_index_order():
    from inspector.dialects.members import pickled_weights

    names = ["r/data/weights/weight_10", "r/data/weights/weight_2", "r/data/weights/sub/weight_3",
             "r/data/aotinductor/model/weights_config.json", "data/weights/weight_0", "r/data/weights/other"]
    assert pickled_weights(names, "r/") == ["r/data/weights/weight_2", "r/data/weights/weight_10"]
