"""What users paste: device-assert lines, CPU check failures, whole logs around them.

Forms seen on real runs (see sample_packages/*/manifest.json):

* CUDA, once per failing thread::

    /tmp/…/cnmf….py:33: unknown: block: [0,0,0], thread: [130,0,0] Assertion `index out of bounds: 0 <= tmp4 < 1000` failed.

  then the next call that noticed the error (a symptom, not the failing kernel)::

    Error: aoti_torch_cuda_addmm_out(buf4, …) API call failed at /tmp/…/c6bp….wrapper.cpp, line 1987

* CPU, caught (``Error:`` or ``RuntimeError:``) or aborting (``what():``)::

    Error: index out of bounds: 0 <= tmp12 < ks0
    Exception raised from cpp_fused_ge_index_… at /tmp/…/citn….kernel.cpp:52 (most recent call first):
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CUDA = re.compile(
    r"(?P<file>[^\s:]+\.py):(?P<line>\d+):\s*\S+:\s*block:\s*\[(?P<block>[\d,\s]+)\],\s*thread:\s*\[(?P<thread>[\d,\s]+)\]\s*"
    r"Assertion\s*`(?P<msg>.*?)`\s*failed")
_CPU_FROM = re.compile(r"Exception raised from (?P<kernel>\w+) at (?P<file>\S+?(?:\.kernel)?\.cpp):(?P<line>\d+)")
_CPU_MSG = re.compile(r"(?:RuntimeError|Error|what\(\)|c10::Error|IndexError):\s+(?P<msg>.+?)\s*$")
_NOTICED = re.compile(
    r"Error:\s+(?P<call>\w+)\(.*?\)\s+API call failed at (?P<file>\S+?\.wrapper\.cpp), line (?P<line>\d+)")
_BARE_MSG = re.compile(r"(index out of bounds:[^`\"\n]*?)(?:`|\"|$)", re.M)


@dataclass
class ReportedAssert:
    """One distinct failing check found in the text."""

    kind: str  # "cuda" | "cpu" | "message"
    message: str
    file: str | None = None  # the .py (CUDA) or .kernel.cpp (CPU) path as printed
    line: int | None = None
    kernel: str | None = None  # CPU: the kernel the exception names
    occurrences: int = 1  # CUDA: failing threads seen
    first_text: str = ""  # the first line it came from

    @property
    def file_name(self) -> str | None:
        return self.file.rsplit("/", 1)[-1] if self.file else None


@dataclass
class NoticedCall:
    """A later call in run_impl that reported the error (context, never the match)."""

    call: str
    file: str
    line: int
    text: str

    @property
    def file_name(self) -> str:
        return self.file.rsplit("/", 1)[-1]


@dataclass
class LogReport:
    asserts: list[ReportedAssert] = field(default_factory=list)
    noticed: list[NoticedCall] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)


def parse_log(text: str) -> LogReport:
    rep = LogReport()
    seen: dict[tuple, ReportedAssert] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _CUDA.search(line)
        if m:
            key = ("cuda", m.group("file"), int(m.group("line")), m.group("msg"))
            if key in seen:
                seen[key].occurrences += 1
            else:
                seen[key] = ReportedAssert(kind="cuda", message=m.group("msg").strip(), file=m.group("file"),
                                           line=int(m.group("line")), first_text=line.strip())
            continue
        m = _CPU_FROM.search(line)
        if m:
            msg = ""
            for j in range(i - 1, max(-1, i - 4), -1):
                mm = _CPU_MSG.search(lines[j])
                if mm:
                    msg = mm.group("msg")
                    break
            key = ("cpu", m.group("file"), int(m.group("line")), m.group("kernel"))
            if key not in seen:
                seen[key] = ReportedAssert(kind="cpu", message=msg, file=m.group("file"), line=int(m.group("line")),
                                           kernel=m.group("kernel"), first_text=line.strip())
            continue
        m = _NOTICED.search(line)
        if m:
            rep.noticed.append(NoticedCall(call=m.group("call"), file=m.group("file"), line=int(m.group("line")),
                                           text=line.strip()))
        if "terminate called recursively" in line:
            rep.hints.append("the log shows 'terminate called recursively': the error text was lost inside "
                             "OpenMP threads; rerun with OMP_NUM_THREADS=1 to see which check failed")
    rep.asserts = list(seen.values())
    if not rep.asserts:
        # Only a message was pasted (no file, no line): keep each distinct one.
        for msg in dict.fromkeys(m.group(1).strip() for m in _BARE_MSG.finditer(text)):
            rep.asserts.append(ReportedAssert(kind="message", message=msg, first_text=msg))
    rep.hints = list(dict.fromkeys(rep.hints))
    return rep
