"""One reading of a log (issue 33 §2): ``parse_log`` reads a log once into a ``LogReport`` of typed facts, each with
the line it came from; diagnose hands that report to the trace it makes (the log is read once, not once per query);
what was read but not understood is counted (shown only under --debug); no module above inspector/logs applies a
log pattern, and inspector/logs imports nothing above it."""

from __future__ import annotations

import ast
import contextlib
import io
import sys
from pathlib import Path

import pytest

import inspector
import inspector.logs.parse as LP
from inspector.logs import (AtenAssert, BareMessage, CheckFailure, CudaError, DeviceAssert, FailedCall, InputCheck,
                            LogEvent, NativeFrame, OutOfMemory, PrinterBlock, PythonFrame, SymbolicAssert, parse_log)
from inspector.logs import facts as F

try:
    from _samples import LOGS, S
except ImportError:
    from _samples import LOGS, S

from _paths import ROOT  # noqa: E402
PKG = ROOT / "inspector"
# every log the samples hold: error.log, logs/*.log, the harvest's, the weights' and the sweeps' logs
ALL_LOGS = sorted(S.rglob("*.log"))


def _holds(f, line: str) -> bool:
    """Whether ``line`` (the log's line ``f.line_no``) holds what the fact says."""
    s = line.strip()
    if isinstance(f, (LogEvent, DeviceAssert, AtenAssert, CheckFailure, FailedCall, NativeFrame)):
        if f.printed != s:
            return False
    if isinstance(f, DeviceAssert):
        return f"{f.file}:{f.line}" in s and f.message in s and f"[{f.thread}]" in s.replace(" ", "")
    if isinstance(f, AtenAssert):
        return f"{f.file}:{f.line}" in s and f.kernel in s and f.message in s
    if isinstance(f, CheckFailure):
        return f.kernel in s and f"{f.file}:{f.line}" in s
    if isinstance(f, FailedCall):
        return f.call in s and f"line {f.line}" in s
    if isinstance(f, NativeFrame):
        return f.fn in s and (f.file is None or f"{f.file}:{f.line}" in s)
    if isinstance(f, PrinterBlock):
        return f.lines[0] in s and f.kernel in s  # (the printer's size arguments and the next header share a line)
    if isinstance(f, PythonFrame):
        return f'File "{f.file}", line {f.line}, in {f.fn}' in s
    if isinstance(f, BareMessage):
        return f.message in s
    return isinstance(f, LogEvent)


def test_every_sample_log_is_read_with_the_lines_its_facts_came_from():
    assert set(LOGS) <= set(ALL_LOGS) and len(ALL_LOGS) > 500
    kinds: set[type] = set()
    n = 0
    for path in ALL_LOGS:
        text = path.read_text(errors="replace")
        lines = text.splitlines()
        rep = parse_log(text)
        assert rep.line_count == len(lines) == len(text.split("\n")) - text.endswith("\n"), path  # an editor's lines
        for f in rep.facts:
            assert 1 <= f.line_no <= len(lines) and _holds(f, lines[f.line_no - 1]), (str(path), f)
            kinds.add(type(f))
            n += 1
        assert [f.line_no for f in rep.facts] == sorted(f.line_no for f in rep.facts), path
        for f in rep.of(CheckFailure):
            assert not f.message_line_no or f.message in lines[f.message_line_no - 1], (path, f)
        for f in rep.noticed:
            assert not f.error_line_no or f.error in lines[f.error_line_no - 1], (path, f)
            assert f.error is None or f.op_error.message == f.error
        for r in rep.asserts:
            assert r.first_text in lines[r.line_no - 1], (path, r)
        for f in rep.failure_lines:
            assert lines[f.line_no - 1] == f.printed, (path, f)
        for f in rep.exception_lines:
            assert lines[f.line_no - 1].strip() == f.printed, (path, f)
        for no, s in rep.unread_lines:
            assert s and lines[no - 1].strip() == s, (path, no)
    assert n > 5000
    # the test reads every kind of fact the reading makes
    assert {DeviceAssert, AtenAssert, CheckFailure, FailedCall, BareMessage, CudaError, OutOfMemory, InputCheck,
            SymbolicAssert, PrinterBlock, PythonFrame, NativeFrame, F.SizeAssert, F.ShimException,
            F.DeviceMismatch, F.IsaMismatch, F.NanInfFound, LogEvent} <= kinds, kinds


def _read(rel: str, line_no: int):
    rep = parse_log((S / rel).read_text())
    return rep, [f for f in rep.facts if f.line_no == line_no]


def test_the_typed_fields_of_real_lines():
    rep, at = _read("harvest/issue15/oom_cuda/logs/oom.log", 2)
    oom = next(f for f in at if isinstance(f, OutOfMemory))
    assert (oom.source, oom.size, oom.free, oom.total, oom.gpu) == ("allocator", "596.05 GiB", "135.05 GiB",
                                                                     "139.80 GiB", 0)
    rep, at = _read("cuda/embedding/logs/oom_cublas_alloc.log", 3)
    cuda = next(f for f in at if isinstance(f, CudaError))
    assert (cuda.kind, cuda.status, cuda.api) == ("cublas", "CUBLAS_STATUS_ALLOC_FAILED", "cublasCreate")
    assert next(f for f in at if isinstance(f, OutOfMemory)).source == "cublas"
    assert next(f for f in at if isinstance(f, F.ShimException)).message.startswith("CUDA error: CUBLAS_STATUS_ALLOC")
    rep = parse_log((S / "cuda/embedding_noassert/logs/ima_async.log").read_text())
    assert {f.kind for f in rep.of(CudaError)} >= {"illegal_memory_access"}
    rep, at = _read("harvest/aoti_tests/test_aoti_runtime_asserts/logs/bad_large.log", 2)
    sym = next(f for f in at if isinstance(f, SymbolicAssert))
    assert (sym.cond, sym.got, sym.symbols) == ("u0 <= s17", 100, ("u0", "s17"))
    checks = {
        "cpu/embedding/logs/check_inputs_dtype.log": dict(kind="dtype", input=0, got=3, expected=4,
                                                          expected_name="at::kLong"),
        "cpu/embedding/logs/check_inputs_batch_one.log": dict(kind="range", dim=0, got=1, bound=">=", limit=2,
                                                              too="small"),
        "cuda/jagged/logs/cpu_inputs_checked.log": dict(kind="device", got_device="0", got_device_name="cpu",
                                                        expected_device="11(cuda)", expected_device_name="cuda"),
    }
    for rel, want in checks.items():
        ic = parse_log((S / rel).read_text()).of(InputCheck)[0]
        assert {k: getattr(ic, k) for k in want} == want, rel
    rep = parse_log((S / "cpu/transformer/logs/sigfpe_gdb.log").read_text())
    frames = {f.number: f for f in rep.native_frames}
    assert frames[0].function == "cpu_flash_attention"
    assert frames[5].shim == "aoti_torch_cpu_scaled_dot_product_flash_attention_for_cpu"
    assert (frames[6].function, frames[6].line) == ("run_impl", 2780) and frames[6].file.endswith(".wrapper.cpp")
    rep = parse_log((S / "cpu/jagged/error.log").read_text())
    (r,) = rep.asserts
    check = rep.of(CheckFailure)[0]
    assert (r.kind, r.line_no, r.message) == ("cpu", check.line_no, check.message) and check.message_line_no


def test_a_python_frame_takes_only_the_indented_line_under_it_as_its_code():
    text = ('Traceback (most recent call last):\n  File "run.py", line 3, in <module>\n    main()\n'
            '  File "/x/lib.py", line 9, in main\nRuntimeError: boom\n')
    rep = parse_log(text)
    assert [(f.file, f.line, f.fn, f.code, f.line_no) for f in rep.python_frames] == [
        ("run.py", 3, "<module>", "main()", 2), ("/x/lib.py", 9, "main", None, 4)]


def _counting_reads(monkeypatch) -> list[int]:
    """Count the readings of a log: every module's bound ``parse_log`` is replaced by a counting one."""
    import inspector.cli.diagnose  # noqa: F401  (every module that may hold the name, imported first)
    import inspector.cli.trace_assert  # noqa: F401
    import inspector.queries.diagnose  # noqa: F401
    import inspector.queries.trace  # noqa: F401

    orig, n = LP.parse_log, [0]

    def counting(text):
        n[0] += 1
        return orig(text)

    for mod in list(sys.modules.values()):
        if mod is not None and getattr(mod, "parse_log", None) is orig:
            monkeypatch.setattr(mod, "parse_log", counting)
    return n


@pytest.mark.parametrize("build", ["cuda", "cpu"])
def test_diagnose_reads_a_log_once(monkeypatch, build):
    """A located check makes diagnose run the trace: it is made from diagnose's own report (the log was read twice:
    once by diagnose, once more by the trace inside it)."""
    n = _counting_reads(monkeypatch)
    pkg, log = S / build / "jagged" / "jagged.pt2", (S / build / "jagged" / "error.log").read_text()
    with inspector.open_package(pkg) as p:
        d = inspector.diagnose(p, log)
    assert d.category == "index_assert" and d.trace is not None and d.trace.matches
    assert n[0] == 1
    from inspector.cli import main

    n[0] = 0
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--no-cache", "diagnose", str(pkg), "--log", str(S / build / "jagged" / "error.log")]) == 0
    assert n[0] == 1


def test_a_foreign_log_is_read_once_and_traced_once(monkeypatch):
    """The log's check is no assertion of this package: foreign_log answers with the trace diagnose already made
    (it traced the log a second time, reading it a third)."""
    import inspector.queries.trace as T

    n = _counting_reads(monkeypatch)
    traces, orig = [0], T.trace_assert

    def counting_trace(*a, **kw):
        traces[0] += 1
        return orig(*a, **kw)

    monkeypatch.setattr(T, "trace_assert", counting_trace)
    with inspector.open_package(S / "cuda" / "embedding" / "embedding.pt2") as p:
        d = inspector.diagnose(p, (S / "cuda" / "jagged" / "error.log").read_text())
    assert d.category == "foreign_log" and d.verdict
    assert (n[0], traces[0]) == (1, 1)


def test_trace_assert_and_diagnose_take_the_report_not_the_text():
    import inspect

    from inspector.queries.diagnose import diagnose
    from inspector.queries.trace import trace_assert

    assert "log" not in inspect.signature(trace_assert).parameters
    assert "report" in inspect.signature(trace_assert).parameters
    assert list(inspect.signature(diagnose).parameters)[:2] == ["pkg", "report"]
    with inspector.open_package(S / "cpu" / "jagged" / "jagged.pt2") as p:
        rep = parse_log((S / "cpu" / "jagged" / "error.log").read_text())
        assert trace_assert(p, report=rep).to_dict() == inspector.trace_assert(
            p, log=(S / "cpu" / "jagged" / "error.log").read_text()).to_dict()


CRAFTED = """\
[harvest] a run of my own script
Traceback (most recent call last):
  File "serve.py", line 12, in <module>
    out = model(x)

frobnicator exploded at widget 3
/tmp/x/cabc.py:38: unknown: block: [0,0,0], thread: [0,0,0] Assertion `index out of bounds: 0 <= tmp9 < ks0` failed.
------------------------------------------------
[... 40 lines left out ...]
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
RuntimeError: CUDA error: device-side assert triggered
"""


def test_the_lines_not_understood_are_counted():
    rep = parse_log(CRAFTED)
    assert rep.line_count == 11
    assert rep.unread == 2
    assert rep.unread_lines == [(1, "[harvest] a run of my own script"), (6, "frobnicator exploded at widget 3")]
    assert {type(f) for f in rep.facts} == {PythonFrame, DeviceAssert, CudaError}
    # beside a real log: each line no pattern knows is one more, and shown in order (at most UNREAD_SHOWN)
    real = (S / "cuda" / "jagged" / "error.log").read_text()
    base = parse_log(real)
    more = parse_log(real + "".join(f"gizmo {i} went sideways\n" for i in range(7)))
    assert more.unread == base.unread + 7
    assert len(more.unread_lines) == min(LP.UNREAD_SHOWN, more.unread)
    assert parse_log("").unread == 0 and parse_log("\n \n\t\n").unread == 0


def test_the_count_is_shown_only_under_debug(capsys):
    """The answer is the same with or without --debug; only --debug says how the log was read, on stderr."""
    from inspector.cli import main

    args = ["--no-cache", "diagnose", str(S / "cuda" / "jagged" / "jagged.pt2"), "--log",
            str(S / "cuda" / "jagged" / "error.log")]
    assert main(args) == 0
    plain = capsys.readouterr()
    assert main([*args, "--debug"]) == 0
    debug = capsys.readouterr()
    assert debug.out == plain.out and "not understood" not in plain.err
    rep = parse_log((S / "cuda" / "jagged" / "error.log").read_text())
    assert f"{rep.line_count} lines, {len(rep.facts)} facts, {rep.unread} non-blank lines not understood" in debug.err


def test_hint_codes_are_worded_by_explain():
    from inspector.explain import LOG_HINTS, log_hints

    rep = parse_log("terminate called recursively\nterminate called recursively\nflags : avx2 fma\n")
    assert rep.hint_codes == ["terminate_recursive", "cpuinfo_flags"]
    assert log_hints(rep.hint_codes) == [LOG_HINTS["terminate_recursive"]]


# ---------------------------------------------------------------------------
# The arrows: log patterns are applied only in inspector/logs, which imports nothing above it
# ---------------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    """The modules ``path`` imports, absolute (a relative import resolved against its package)."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    here = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - (node.level - 1)] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


ABOVE_LOGS = sorted([*(PKG / "queries").rglob("*.py"), *(PKG / "explain").rglob("*.py"), *(PKG / "render").rglob("*.py"),
                     *(PKG / "cli").rglob("*.py")])


@pytest.mark.parametrize("path", ABOVE_LOGS, ids=lambda p: str(p.relative_to(PKG)))
def test_no_module_above_logs_reads_a_log_pattern(path):
    """Queries, explain, render and the CLI read the report's typed fields; the patterns are applied in
    inspector/logs alone (they imported inspector.logs.patterns to run them on lines: 9 rule modules, the trace and
    the explanation)."""
    assert "inspector.logs.patterns" not in _imports(path), path


def test_the_arrow_check_sees_a_patterns_import(tmp_path):
    assert len(ABOVE_LOGS) > 60
    mod = PKG / "queries" / "diagnose" / "rules" / "base.py"
    src = mod.read_text()
    fake = tmp_path / "inspector" / "queries" / "diagnose" / "rules" / "base.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from ....logs import patterns as P\n" + src)
    assert "inspector.logs.patterns" in _imports_at(fake, tmp_path / "inspector")


def _imports_at(path: Path, pkg: Path) -> set[str]:
    global PKG
    saved, PKG = PKG, pkg
    try:
        return _imports(path)
    finally:
        PKG = saved


@pytest.mark.parametrize("path", sorted((PKG / "logs").glob("*.py")), ids=lambda p: p.name)
def test_logs_imports_nothing_above_it(path):
    """The report gives hint codes; explain words them (LOG_HINTS): inspector/logs imports no explain, query,
    package or rendering module."""
    bad = {m for m in _imports(path) if m.startswith(("inspector.explain", "inspector.queries", "inspector.package",
                                                       "inspector.render", "inspector.cli"))}
    assert not bad, (path, bad)
