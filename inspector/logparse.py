"""What users paste: a registry of log patterns, each a small named object.

Every pattern says what one kind of line means (``name``), which failure it points to
(``category``) and, for located failures, how to read it.  ``parse_log`` runs them all
over the text once and returns a ``LogReport``: the located checks (``asserts``), the
later calls that noticed an error (``noticed``), every other recognised line (``events``)
and hints.  Nothing here knows about a package.

Forms seen on real runs (sample_packages/*/error.log and */logs/*.log; /work/shared/FORMAT_NOTES.md):

* CUDA, once per failing thread::

    /tmp/…/cnmf….py:33: unknown: block: [0,0,0], thread: [130,0,0] Assertion `index out of bounds: 0 <= tmp4 < 1000` failed.

* CPU, caught (``Error:`` / ``RuntimeError:``) or aborting (``what():``)::

    Error: index out of bounds: 0 <= tmp12 < ks0
    Exception raised from cpp_fused_ge_index_… at /tmp/…/citn….kernel.cpp:52 (most recent call first):

* a later call that noticed the error::

    Error: aoti_torch_cuda_addmm_out(buf4, …) API call failed at /tmp/…/c6bp….wrapper.cpp, line 1987
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class ReportedAssert:
    """One distinct failing check found in the text."""

    kind: str  # "cuda" | "cpu" | "aten" (an ATen CUDA kernel's own assert) | "message"
    message: str
    file: str | None = None  # the .py (CUDA), .kernel.cpp (CPU) or .cu (ATen) path as printed
    line: int | None = None
    kernel: str | None = None  # CPU: the kernel the exception names; ATen: the CUDA kernel function
    occurrences: int = 1  # CUDA: failing threads seen
    first_text: str = ""  # the first line it came from

    @property
    def file_name(self) -> str | None:
        return self.file.rsplit("/", 1)[-1] if self.file else None


@dataclass
class NoticedCall:
    """A call in run_impl that reported an error: on CUDA a later call that noticed it; on CPU the op that failed."""

    call: str
    file: str
    line: int
    text: str
    error: str | None = None  # the message printed right after it (CPU: the op's own exception)

    @property
    def file_name(self) -> str:
        return self.file.rsplit("/", 1)[-1]


@dataclass
class LogEvent:
    """A recognised line that is not a located check: a symptom, an input check, a load failure…"""

    pattern: str  # the pattern's name
    category: str  # the failure category it points to
    text: str  # the line as printed
    line_no: int  # 1-based line in the log
    fields: dict = field(default_factory=dict)


@dataclass
class LogReport:
    asserts: list[ReportedAssert] = field(default_factory=list)
    noticed: list[NoticedCall] = field(default_factory=list)
    events: list[LogEvent] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)

    def has(self, *patterns: str) -> bool:
        return any(e.pattern in patterns for e in self.events)

    def first(self, pattern: str) -> LogEvent | None:
        return next((e for e in self.events if e.pattern == pattern), None)


@dataclass(frozen=True)
class Pattern:
    """One kind of log line: ``name``, the ``category`` it points to, and its regular expression."""

    name: str
    category: str
    regex: re.Pattern
    doc: str = ""


def _p(name: str, category: str, regex: str, doc: str = "", flags: int = 0) -> Pattern:
    return Pattern(name, category, re.compile(regex, flags), doc)


# Located checks (handled in parse_log: they become ReportedAssert / NoticedCall).
CUDA_ASSERT = _p(
    "cuda_assert", "index_assert",
    r"(?P<file>[^\s:]+\.py):(?P<line>\d+):\s*\S+:\s*block:\s*\[(?P<block>[\d,\s]+)\],\s*thread:\s*\[(?P<thread>[\d,\s]+)\]\s*"
    r"Assertion\s*`(?P<msg>.*?)`\s*failed",
    "a Triton device assert, once per failing thread; the .py is the kernel's compile-time path")
ATEN_ASSERT = _p(
    "aten_cuda_assert", "extern_op",
    r"(?P<file>[^\s:]+\.(?:cu|cuh)):(?P<line>\d+):\s*(?P<kernel>\w+):\s*block:\s*\[[\d,\s]+\],\s*thread:\s*\[[\d,\s]+\]\s*"
    r"Assertion\s*`(?P<msg>.*?)`\s*failed",
    "an ATen CUDA kernel's own assert (EmbeddingBag.cu, IndexKernel.cu …): an extern op failed")
CPU_FROM = _p(
    "cpu_check", "index_assert",
    r"Exception raised from (?P<kernel>cpp_\w+) at (?P<file>\S+?\.cpp):(?P<line>\d+)",
    "an AOTI_TORCH_CHECK in a CPU kernel; the line counts in the package's kernel.cpp (2.6: <hash>.cpp)")
CPU_MSG = re.compile(r"(?:RuntimeError|Error|what\(\)|c10::Error|IndexError):\s+(?P<msg>.+?)\s*$")
NOTICED = _p(
    "api_call_failed", "symptom",
    r"Error:\s+(?P<call>\w+)\(.*?\)\s+API call failed at (?P<file>\S+?\.cpp), line (?P<line>\d+)",
    "a call in run_impl returned an error; its line counts in the wrapper")
BARE_MSG = re.compile(r"(index out of bounds:[^`\"\n]*?)(?:`|\"|$)", re.M)

# Everything else: one event per line that matches.
PATTERNS: list[Pattern] = [
    _p("input_check", "input_check",
       r"input_handles\[(?P<input>\d+)\]:\s*(?P<what>.+?)\s*$",
       "AOTI_RUNTIME_CHECK_INPUTS=1 rejected an input"),
    _p("size_assert", "input_check",
       r"expected size (?P<got>\d+)==(?P<exp>\d+), stride (?P<sgot>\d+)==(?P<sexp>\d+) at dim=(?P<dim>\d+)",
       "the wrapper's assert_size_stride on an input: a size differs from the one another input fixed"),
    _p("device_side_assert", "device_assert",
       r"device-side assert triggered", "a CUDA kernel asserted; its Assertion line may be missing"),
    _p("cublas_error", "device_assert",
       r"CUBLAS_STATUS_\w+", "cuBLAS failed: usually a symptom of an earlier device-side assert or bad memory"),
    _p("illegal_memory_access", "illegal_memory_access",
       r"an illegal memory access was encountered|unspecified launch failure|misaligned address|"
       r"an illegal instruction was encountered|CUDA_ERROR_ILLEGAL_ADDRESS",
       "a kernel read or wrote outside its tensors (or was given host memory)"),
    _p("device_mismatch", "device_mismatch",
       r"resides on host memory and is not registered with any CUDA device|"
       r"Expected \w+ tensor to have device \S+, but got \S+|unmatched device type|"
       r"Expected all tensors to be on the same device|expected device \S+ but got device \S+",
       "an input is on the wrong device"),
    _p("exception_in_aoti_torch", "extern_op",
       r"Exception in aoti_torch:\s*(?P<msg>.+?)\s*$",
       "an ATen op called by the wrapper threw; when the call is not checked the run goes on with garbage"),
    _p("runner_failed", "symptom",
       r"run_func_\(.*?\) API call failed at (?P<file>\S+?model_container_runner\.cpp), line (?P<line>\d+)",
       "the model's run returned an error (the runner, not the wrapper)"),
    _p("isa_mismatch", "load",
       r"Device information mismatch for (?P<key>AOTI_\w+):\s*(?P<package>.*?) vs (?P<host>.*?)\.\s",
       "the package was compiled for another CPU ISA / GPU than this host"),
    _p("no_kernel_image", "load",
       r"no kernel image is available for execution on the device|CUDA driver version is insufficient|"
       r"Found no NVIDIA driver|Torch not compiled with CUDA enabled|"
       r"compiled for (?:CUDA|cuda).*?(?:not|no) .*available",
       "the host cannot run the package's device code"),
    _p("load_failure", "load",
       r"undefined symbol:\s*\S+|cannot open shared object file|Failed to load|"
       r"Illegal instruction|failed to dlopen|Error in dlopen|aoti_load_package.*(?:Error|failed)|"
       r"AOTIModelPackageLoader\(|AOTIModelContainerRunner\w*\(",
       "the package did not load"),
    _p("segfault", "crash", r"Segmentation fault|SIGSEGV|signal 11",
       "the process crashed: at load time a bad package/host, at run time an out-of-bounds access"),
    _p("deprecated_api", "deprecated_api",
       r"torch\._export\.(?P<api>aot_compile|aot_load)\b|\b(?P<api2>aot_compile|aot_load)\(|"
       r", in (?P<api3>aot_compile|aot_load)\s*$",
       "a deprecated AOTI entry point"),
    _p("cpuinfo_flags", "hint", r"^flags\s*:\s*(?P<flags>.+)$",
       "a /proc/cpuinfo flags line: the host's CPU features"),
    _p("old_package", "hint",
       r"Loading outdated pt2 file|Could not dlsym (?P<symbol>\w+)",
       "the package was built by an older torch than the one loading it"),
    _p("terminate_recursive", "hint", r"terminate called recursively",
       "the error text was lost inside OpenMP threads"),
]


def parse_log(text: str) -> LogReport:
    rep = LogReport()
    seen: dict[tuple, ReportedAssert] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = CUDA_ASSERT.regex.search(line)
        if m:
            key = ("cuda", m.group("file"), int(m.group("line")), m.group("msg"))
            if key in seen:
                seen[key].occurrences += 1
            else:
                seen[key] = ReportedAssert(kind="cuda", message=m.group("msg").strip(), file=m.group("file"),
                                           line=int(m.group("line")), first_text=line.strip())
            continue
        m = ATEN_ASSERT.regex.search(line)
        if m:
            key = ("aten", m.group("file"), int(m.group("line")), m.group("kernel"))
            if key in seen:
                seen[key].occurrences += 1
            else:
                seen[key] = ReportedAssert(kind="aten", message=m.group("msg").strip(), file=m.group("file"),
                                           line=int(m.group("line")), kernel=m.group("kernel"), first_text=line.strip())
            continue
        m = CPU_FROM.regex.search(line)
        if m:
            msg = ""
            for j in range(i - 1, max(-1, i - 4), -1):
                mm = CPU_MSG.search(lines[j])
                if mm:
                    msg = mm.group("msg")
                    break
            key = ("cpu", m.group("file"), int(m.group("line")), m.group("kernel"))
            if key not in seen:
                seen[key] = ReportedAssert(kind="cpu", message=msg, file=m.group("file"), line=int(m.group("line")),
                                           kernel=m.group("kernel"), first_text=line.strip())
            continue
        m = NOTICED.regex.search(line)
        if m and not m.group("call").startswith("run_func_"):
            err = None
            for j in range(i + 1, min(len(lines), i + 40)):
                mm = re.match(r"\s*(?:RuntimeError|IndexError|ValueError|c10::Error|what\(\)):\s+(?P<msg>.+?)\s*$", lines[j])
                if mm and "API call failed" not in mm.group("msg"):
                    err = mm.group("msg")
                    break
            if err is None:  # torch 2.8 prints the op's exception before the failed call
                prior = [e for e in rep.events if e.pattern == "exception_in_aoti_torch"]
                err = prior[-1].fields.get("msg") if prior else None
            rep.noticed.append(NoticedCall(call=m.group("call"), file=m.group("file"), line=int(m.group("line")),
                                           text=line.strip(), error=err))
        for p in PATTERNS:
            mm = p.regex.search(line)
            if mm:
                fields = {k: v for k, v in mm.groupdict().items() if v is not None}
                rep.events.append(LogEvent(pattern=p.name, category=p.category, text=line.strip(), line_no=i + 1,
                                           fields=fields))
        if "terminate called recursively" in line:
            rep.hints.append("the log shows 'terminate called recursively': the error text was lost inside "
                             "OpenMP threads; rerun with OMP_NUM_THREADS=1 to see which check failed")
    rep.asserts = list(seen.values())
    if not rep.asserts:
        # Only a message was pasted (no file, no line): keep each distinct one.
        for msg in dict.fromkeys(m.group(1).strip() for m in BARE_MSG.finditer(text)):
            rep.asserts.append(ReportedAssert(kind="message", message=msg, first_text=msg))
    rep.hints = list(dict.fromkeys(rep.hints))
    return rep
