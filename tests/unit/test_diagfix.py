"""Issue 22 §2-§5 on real cases: doctor's headline and ISA, diagnose outside its home ground, the cache against
changed bytes, input specs and narrow terminals.  Each test failed on the answer of the code before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.package import open_package
from inspector import diagnose

from _members import stored_at
from _paths import ROOT, S
from _queries import diagnose_pkg

NOASSERT = S / "cuda/embedding_noassert/embedding_noassert.pt2"
CPU_JAGGED = S / "cpu/jagged/jagged.pt2"


def _diag(pkg: Path, log: Path):
    return diagnose_pkg(pkg, log.read_text())


# -- §3 diagnose outside its home ground --------------------------------------------------------------------

def test_another_programs_log_is_said_to_be_that():
    """A real npm run that failed and then segfaulted, given with a CUDA package: it was illegal_memory_access
    with a step claiming the log "prints exactly this text"."""
    d = _diag(NOASSERT, NOASSERT.parent / "logs/npm_segfault.log")
    assert d.category == "unknown" and "no line torch" in d.verdict
    assert any("looked for" in n and "AOTInductor" in n for n in d.notes)
    assert not d.suspects and not any("exactly this" in s.do for s in d.steps)
    assert any("Segmentation fault" in e.quote for e in d.evidence)


def test_an_illegal_access_step_quotes_only_what_the_log_holds():
    log = NOASSERT.parent / "logs/ima_async.log"
    d = _diag(NOASSERT, log)
    assert d.category == "illegal_memory_access"
    quoted = [s.do for s in d.steps if "exactly this text" in s.do]
    assert quoted and all(q.split("(`", 1)[1].split("`)")[0] in log.read_text() for q in quoted)


OOM_CPU = S / "harvest/issue15_cpu213/oom_cpu"


def test_the_cpu_allocators_out_of_memory_is_out_of_memory():
    d = _diag(OOM_CPU / "oom_cpu.pt2", OOM_CPU / "logs/oom.log")
    assert d.category == "out_of_memory"
    assert "buf0 at wrapper.cpp line 810" in d.verdict and "4*s77*s77" in d.verdict


@pytest.mark.parametrize("text,source", [
    ("RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported", "runtime"),
    ("RuntimeError: CUDA driver error: out of memory", "driver"),
    ("RuntimeError: [enforce fail at CPUAllocator.cpp:64] . DefaultCPUAllocator: not enough memory: you tried to "
     "allocate 1073741824 bytes. Buy new RAM!", "cpu"),
])
def test_other_out_of_memory_wordings(text, source):
    """Crafted beside the real ones (tests above / harvest): the wordings of the CUDA runtime (the caching
    allocator off), the driver (a kernel's load), and older torch's CPU allocator came back `unknown`."""
    with open_package(NOASSERT) as p:
        d = diagnose(p, text + "\n")
    assert d.category == "out_of_memory", d.verdict
    assert "?" not in d.verdict.split(";")[0]
    if source == "driver":
        assert "nvidia-smi" in d.steps[0].do


def test_report_and_diagnose_give_the_same_exit_code(tmp_path, capsys):
    cases = [(NOASSERT, NOASSERT.parent / "logs/ima_async.log"), (NOASSERT, NOASSERT.parent / "logs/npm_segfault.log"),
             (S / "cuda/jagged/jagged.pt2", S / "cuda/jagged/error.log")]
    for pkg, log in cases:
        rd = main(["diagnose", str(pkg), "--log", str(log)])
        rr = main(["report", str(pkg), "--log", str(log), "-o", str(tmp_path / "r.html")])
        assert rd == rr, (log, rd, rr)
    capsys.readouterr()


def test_report_without_a_trace_keeps_the_steps_commands_and_the_evidence(tmp_path, capsys):
    out = tmp_path / "r.html"
    main(["report", str(NOASSERT), "--log", str(NOASSERT.parent / "logs/ima_async.log"), "-o", str(out)])
    capsys.readouterr()
    page = out.read_text()
    assert "CUDA_LAUNCH_BLOCKING=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1" in page and "(at run time)" in page
    assert "<b>evidence:</b> <code>Error: CUDA driver error: an illegal memory access was encountered" in page


def test_an_empty_log_names_only_the_commands_own_options(tmp_path, capsys):
    empty = tmp_path / "empty.log"
    empty.write_text("\n")
    assert main(["diagnose", str(CPU_JAGGED), "--log", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "is empty" in err and "--line" not in err and "--message" not in err
    assert main(["trace-assert", str(CPU_JAGGED), "--log", str(empty)]) == 2
    assert "--line N / --message TEXT" in capsys.readouterr().err


def test_diagnose_help_lists_every_category_in_order(capsys):
    from inspector.queries.diagnose import CATEGORIES

    main(["diagnose", "--help"])
    text = capsys.readouterr().out.split("examples:")[0]
    listed = [ln.split()[0] for ln in text.splitlines() if ln.startswith("  ") and not ln.startswith("   ")
              and ln.split()[0].replace("_", "").isalpha() and ln.split()[0] in CATEGORIES]
    assert listed == list(CATEGORIES)


def test_the_readme_rows_point_at_logs_that_hold_text():
    import re

    text = (ROOT / "docs" / "diagnose.md").read_text()  # the category table (moved out of the README)
    table = text.split("# `diagnose`: every category", 1)[1].split("\n\n")[2]
    rows = [ln for ln in table.splitlines() if ln.startswith("| `")]
    assert len(rows) >= 18
    for ln in rows:  # every category's row names a real log (the unknown row named a folder whose log is empty)
        cell = ln.split(" | ")[1]
        assert ".log`" in cell or "Assertion" in cell, ln
    logs = [m for ln in rows for m in re.findall(r"`([\w./-]+\.log)`", ln)]
    assert len(logs) >= 15
    for rel in logs:
        hits = [p for base in (S, S / "harvest") for p in [base / rel] if p.exists()]
        if hits:
            assert hits[0].read_text().strip(), f"README points at {rel}, an empty log"


# -- §5 input specs -----------------------------------------------------------------------------------------

def test_input_takes_several_specs_after_one_flag(capsys):
    assert main(["check", str(CPU_JAGGED), "--input", "0=float32[4,8]@cpu", "1=int64[3]@cpu"]) == 0
    assert capsys.readouterr().out.startswith("✓ the 2 given input(s) fit")
    assert main(["check", str(CPU_JAGGED), "--input", "0=float32[4,8]@cpu", "--input", "1=int64[3]@cpu"]) == 0


@pytest.mark.parametrize("spec,says", [("0=float32[10,-1]", "cannot be negative"), ("0=float32[4,8]@tpu", "unknown device")])
def test_a_negative_dim_or_an_unknown_device_is_a_usage_error(spec, says, capsys):
    assert main(["check", str(CPU_JAGGED), "--input", spec]) == 2
    assert says in capsys.readouterr().err


def test_a_spec_without_a_shape_says_the_shape_was_not_checked(capsys):
    assert main(["check", str(CPU_JAGGED), "--input", "0=float32", "1=int64[3]", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert "fit" not in r["verdict"] and "shape of input(s) 0 was not checked" in r["verdict"]


# -- §4 the cache against bytes that changed ----------------------------------------------------------------

def test_flipped_bytes_inside_a_member_are_not_answered_from_the_cache(tmp_path, cache_dir, capsys):
    """64 bytes flipped in wrapper.cpp, the zip directory (and its CRCs) unchanged: show and trace-assert exited 0
    with the cached answer while --no-cache said `Bad CRC-32`."""
    import shutil

    pkg = tmp_path / "p.pt2"
    shutil.copyfile(CPU_JAGGED, pkg)
    log = str(S / "cpu/jagged/error.log")
    assert main(["show", str(pkg)]) == 0 and main(["trace-assert", str(pkg), "--log", log]) == 0
    assert [p for p in cache_dir.rglob("*") if p.is_file()]  # the answers are cached
    off, size = stored_at(pkg, ".wrapper.cpp")
    with pkg.open("r+b") as f:
        f.seek(off + size // 2)
        data = f.read(64)
        f.seek(off + size // 2)
        f.write(bytes(b ^ 0xFF for b in data))
    capsys.readouterr()
    assert main(["show", str(pkg)]) == 3
    assert main(["trace-assert", str(pkg), "--log", log]) == 3
    assert "CRC" in capsys.readouterr().err


def test_a_same_size_rewrite_is_indexed_again(tmp_path, cache_dir, capsys):
    """The same path rewritten with the same size (a guard's limit 65536 -> 40960, stored so the sizes agree)."""
    import zipfile

    def write(limit: str):
        with zipfile.ZipFile(CPU_JAGGED) as zi, zipfile.ZipFile(pkg, "w", zipfile.ZIP_STORED) as zo:
            for info in zi.infolist():
                data = zi.read(info)
                if info.filename.endswith(".wrapper.cpp"):
                    data = data.replace(b"if (arg0_1_size[0] > 65536) {", f"if (arg0_1_size[0] > {limit}) {{".encode())
                zo.writestr(info.filename, data)

    pkg = tmp_path / "p.pt2"
    write("65536")
    size = pkg.stat().st_size
    assert main(["show", str(pkg), "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    write("40960")
    assert pkg.stat().st_size == size
    assert main(["show", str(pkg), "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    syms = lambda d: {s["name"]: s["max"] for s in d["models"][0]["symbols"]}  # noqa: E731
    assert syms(before)["s59"] == 65536 and syms(after)["s59"] == 40960


# -- §2 doctor: what was checked, a CUDA package's host code, SIGILL ----------------------------------------

NO_AMX_CPUINFO = S / "cpu/jagged/logs/cpuinfo_flags_no_amx.log"  # a real AVX-512 host's flags line, no AMX
IMA_EMB = S / "cpu/ima_embedding/package/ima_embedding.pt2"
CUDA_EMB = S / "cuda/embedding/embedding.pt2"


def _avx2_only(tmp_path) -> Path:
    """That real flags line without its AVX-512 and AMX flags: an AVX2-only host's (crafted beside the real
    SIGILL run under `qemu-x86_64 -cpu Haswell`, whose /proc/cpuinfo is the host's)."""
    flags = [x for x in NO_AMX_CPUINFO.read_text().split(":", 1)[1].split() if not x.startswith(("avx512", "amx"))]
    p = tmp_path / "avx2_cpuinfo.txt"
    p.write_text("flags\t\t: " + " ".join(flags) + "\n")
    return p


def _doctor(capsys, *argv) -> dict:
    rc = main(["doctor", *map(str, argv), "--json"])
    d = json.loads(capsys.readouterr().out)
    d["rc"] = rc
    return d


def test_doctor_says_what_it_could_not_check(capsys, monkeypatch):
    """No --gpu / --host-cpuinfo, or --gpu auto with no GPU: the headline said "nothing in the package stands
    against running it here" without having looked."""
    import inspector.host as host

    d = _doctor(capsys, CUDA_EMB)
    assert "here" not in d["verdict"] and "not checked: the GPU (no --gpu" in d["verdict"]
    assert "the host's CPU features (no --host-cpuinfo" in d["verdict"] and len(d["unchecked"]) == 2
    monkeypatch.setattr(host, "nvidia_smi_sm", lambda: None)
    d = _doctor(capsys, CUDA_EMB, "--gpu", "auto", "--host-cpuinfo", NO_AMX_CPUINFO)
    assert "no GPU found" in d["verdict"] and "here" not in d["verdict"]
    d = _doctor(capsys, CUDA_EMB, "--gpu", "sm_90", "--host-cpuinfo", NO_AMX_CPUINFO)
    assert d["unchecked"] == [] and "not checked" not in d["verdict"]


def test_a_cuda_packages_host_code_is_checked_for_cpu_isa(tmp_path, capsys):
    """cuda/embedding's .so was compiled with -march=native -mavx512f … -mamx-tile on the build host."""
    d = _doctor(capsys, CUDA_EMB, "--gpu", "sm_90", "--host-cpuinfo", _avx2_only(tmp_path))
    isa = [f for f in d["findings"] if f["kind"] == "cpu_isa"]
    assert d["rc"] == 1 and any(f["severity"] == "error" and "avx512f" in f["message"] for f in isa)
    assert any("-march=native" in f["message"] and "host code" in f["message"] for f in isa)


def test_doctor_still_predicts_the_real_sigill(tmp_path, capsys):
    d = _doctor(capsys, IMA_EMB, "--host-cpuinfo", _avx2_only(tmp_path))
    assert d["rc"] == 1 and d["verdict"].startswith("will not run as given") and "SIGILL" in d["verdict"]


def test_a_sigill_log_leads_with_the_isa():
    """The real run on an AVX2-only CPU (qemu-x86_64 -cpu Haswell): it was `load: the package did not load` with
    step 1 "load it with the same torch version"."""
    d = _diag(IMA_EMB, S / "cpu/ima_embedding/logs/sigill_avx2_host.log")
    assert d.category == "load"
    assert d.verdict.startswith("illegal instruction: the package needs AVX512 AVX512_VNNI, which this host lacks "
                                "(it has AVX2)")
    assert "-march=native" in d.verdict and "same torch" not in d.steps[0].do
    assert d.steps[0].env == {"TORCHINDUCTOR_CPP_MARCH": "x86-64-v3", "ATEN_CPU_CAPABILITY": "avx2"}
    assert d.steps[0].when == "compile"


def test_diagnose_and_doctor_read_one_isa_table(tmp_path, capsys):
    """A host with avx512f but not avx512bw cannot run Inductor's AVX512 (it compiles with all four flags):
    diagnose mapped AVX512 to avx512f alone and said the host covers it, doctor said it lacks avx512bw."""
    flags = [x for x in NO_AMX_CPUINFO.read_text().split(":", 1)[1].split() if x != "avx512bw"]
    line = "flags\t\t: " + " ".join(flags) + "\n"
    cpuinfo = tmp_path / "cpuinfo.txt"
    cpuinfo.write_text(line)
    with open_package(IMA_EMB) as p:
        d = diagnose(p, line)
    assert any("AVX512" in n and "lack" in n for n in d.notes), d.notes
    doc = _doctor(capsys, IMA_EMB, "--host-cpuinfo", cpuinfo)
    assert doc["rc"] == 1 and "avx512bw" in doc["verdict"]


@pytest.mark.parametrize("log,says", [
    ("oom_no_caching.log", "allocating buf0 at wrapper.cpp line 911"),
    ("oom_cublas_alloc.log", "CUBLAS_STATUS_ALLOC_FAILED"),
])
def test_real_cuda_out_of_memory_wordings(log, says):
    """Real runs on the H200 (torch 2.11) with the GPU filled first: the CUDA runtime's `CUDA error: out of memory`
    (the caching allocator off) was `unknown`, cuBLAS's `CUBLAS_STATUS_ALLOC_FAILED` a device-side assert."""
    d = _diag(CUDA_EMB, S / "cuda/embedding/logs" / log)
    assert d.category == "out_of_memory" and says in d.verdict and "?" not in d.verdict
    assert any("nvidia-smi" in s.do for s in d.steps)


# -- §5 the kernel table on a narrow terminal ---------------------------------------------------------------

@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_kernel_table_never_cuts_a_number_or_a_header(width):
    """At COLUMNS=80 the table cut its last header to `asser` and its cells to `39, 4` (cpu/transformer: a
    kernel with assertions at lines 39, 43, 100, 105, 126, 134)."""
    import io

    from rich.console import Console

    from inspector.render.show import _kernel_table
    from inspector.queries.show import summarize

    with open_package(S / "cpu/transformer/transformer.pt2") as p:
        m = summarize(p).models[0]
    buf = io.StringIO()
    _kernel_table(Console(file=buf, width=width, force_terminal=True, color_system="standard"), m)
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())
    lines = text.splitlines()
    assert lines and all(len(ln) <= width for ln in lines)
    header = next(ln for ln in lines if "┃" in ln)
    cols = [h.strip() for h in header.split("┃")]
    assert cols[:4] == ["kernel", "kind", "launches", "assertions"]
    cells = [ln.split("│") for ln in lines if "│" in ln]
    first = next(k for k in m.kernels if len(k.assert_lines) > 4)
    if "assert lines" in cols:
        assert any(c.strip() == ", ".join(map(str, first.assert_lines)) for row in cells for c in row), text
    else:
        assert width < 80 and "left out to fit" in text
    for row in cells:  # the number columns hold whole numbers, or nothing on a folded row's next lines
        for c in row[2:4]:
            assert re.fullmatch(r"\s*(\d+)?\s*", c), row


def test_an_avx512_host_runs_an_avx2_package():
    """torch names the host's best vector ISA (`AVX512 AVX512_VNNI vs AVX2`): a host it calls AVX512 runs the AVX2
    package (real: the recommender printer run on this AVX-512 host); the note said it lacked AVX2."""
    import inspector

    d = S / "harvest/issue22_cpu213/recommender_printer2"
    with inspector.open_package(next(d.glob("*.pt2"))) as p:
        r = inspector.diagnose(p, (d / "logs/item_weights.log").read_text())
    isa = [n for n in r.notes if "CPU ISA" in n]
    assert isa and "has every ISA the package needs" in isa[0] and "lacks" not in isa[0], isa
