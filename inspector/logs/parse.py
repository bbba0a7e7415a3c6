"""What users paste, read once: ``parse_log`` runs the named patterns (``inspector.logs.patterns``) over the
text and returns a ``LogReport``: the located checks (``asserts``), the later calls that noticed an error
(``noticed``), every other recognised line (``events``) and hints.  Nothing here knows about a package, and
no regular expression is written here.

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

from dataclasses import dataclass, field

import inspector.explain as words
import inspector.logs.patterns as P


@dataclass
class ReportedAssert:
    """One distinct failing check found in the text."""

    kind: str  # "cuda" | "cpu" | "aten" (an ATen CUDA kernel's own assert) | "message"
    message: str
    file: str | None = None  # the .py (CUDA), .kernel.cpp (CPU) or .cu (ATen) path as printed
    line: int | None = None
    kernel: str | None = None  # CPU: the kernel the exception names; ATen: the CUDA kernel function
    occurrences: int = 1  # CUDA: failing threads seen
    threads: list = field(default_factory=list)  # CUDA: (block, thread) of each failing thread printed, as written
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
    lines: list[str] = field(default_factory=list, repr=False)  # the text, to read MENTIONS and DETAILS by name

    @property
    def hints(self) -> list[str]:
        """What the recognised lines suggest, each once (the words: inspector.explain.LOG_HINTS)."""
        return list(dict.fromkeys(words.LOG_HINTS[e.pattern] for e in self.events if e.pattern in words.LOG_HINTS))

    def has(self, *patterns: str) -> bool:
        return any(e.pattern in patterns for e in self.events)

    def first(self, pattern: str) -> LogEvent | None:
        return next((e for e in self.events if e.pattern == pattern), None)

    def mentions(self, name: str) -> bool:
        """Whether the text holds ``name`` (a pattern of ``patterns.MENTIONS``) anywhere."""
        p = P.REGISTRY[name]
        return any(p.search(ln) for ln in self.lines)

    def events_say(self, name: str) -> bool:
        """Whether a recognised line holds ``name`` (a pattern of ``patterns.DETAILS``)."""
        return any(P.REGISTRY[name].search(e.text) for e in self.events)

    def lines_saying(self, name: str) -> list[str]:
        """The lines (as printed) that hold ``name``, in order."""
        p = P.REGISTRY[name]
        return [ln for ln in self.lines if p.search(ln)]


def parse_log(text: str) -> LogReport:
    rep = LogReport()
    seen: dict[tuple, ReportedAssert] = {}
    lines = text.splitlines()
    rep.lines = lines
    for i, line in enumerate(lines):
        m = P.CUDA_ASSERT.search(line)
        if m:
            key = ("cuda", m.group("file"), int(m.group("line")), m.group("msg"))
            if key in seen:
                seen[key].occurrences += 1
            else:
                seen[key] = ReportedAssert(kind="cuda", message=m.group("msg").strip(), file=m.group("file"),
                                           line=int(m.group("line")), first_text=line.strip())
            seen[key].threads.append((m.group("block").replace(" ", ""), m.group("thread").replace(" ", "")))
            continue
        m = P.ATEN_ASSERT.search(line)
        if m:
            key = ("aten", m.group("file"), int(m.group("line")), m.group("kernel"))
            if key in seen:
                seen[key].occurrences += 1
            else:
                seen[key] = ReportedAssert(kind="aten", message=m.group("msg").strip(), file=m.group("file"),
                                           line=int(m.group("line")), kernel=m.group("kernel"), first_text=line.strip())
            continue
        m = P.CPU_FROM.search(line)
        if m:
            msg = ""
            for j in range(i - 1, max(-1, i - 4), -1):
                mm = P.CPU_MSG.search(lines[j])
                if mm:
                    msg = mm.group("msg")
                    break
            key = ("cpu", m.group("file"), int(m.group("line")), m.group("kernel"))
            if key not in seen:
                seen[key] = ReportedAssert(kind="cpu", message=msg, file=m.group("file"), line=int(m.group("line")),
                                           kernel=m.group("kernel"), first_text=line.strip())
            continue
        m = P.NOTICED.search(line)
        if m and not P.NOTICED_RUNNER.search(m.group("call")):
            err = None
            for j in range(i + 1, min(len(lines), i + 40)):
                mm = P.NOTICED_ERROR.search(lines[j])
                if mm and not P.NOTICED_ECHO.search(mm.group("msg")):
                    err = mm.group("msg")
                    break
            if err is None:  # torch 2.8 prints the op's exception before the failed call
                prior = [e for e in rep.events if e.pattern == "exception_in_aoti_torch"]
                err = prior[-1].fields.get("msg") if prior else None
            rep.noticed.append(NoticedCall(call=m.group("call"), file=m.group("file"), line=int(m.group("line")),
                                           text=line.strip(), error=err))
        for p in P.PATTERNS:
            mm = p.search(line)
            if mm:
                fields = {k: v for k, v in mm.groupdict().items() if v is not None}
                rep.events.append(LogEvent(pattern=p.name, category=p.category, text=line.strip(), line_no=i + 1,
                                           fields=fields))
    rep.asserts = list(seen.values())
    if not rep.asserts:
        # Only a message was pasted (no file, no line): keep each distinct one.
        for msg in dict.fromkeys(m.group(1).strip() for m in P.BARE_MSG.regex.finditer(text)):
            rep.asserts.append(ReportedAssert(kind="message", message=msg, first_text=msg))
    return rep


@dataclass
class PrinterBlock:
    """One block of the intermediate value printer: ``when`` ("before_launch" | "after_launch" |
    "aoti_model_inputs" | "mark:…" at level 3), the kernel (or extern op), the argument, its statistics, the
    launch it belongs to (``launch``: 1-based, in the order of the log; the before_launch blocks of one launch,
    then its after_launch blocks) and the how-manieth launch of that kernel it is (``call``; an extern op prints
    the same name at every call, so only the position tells one call from another)."""

    when: str
    kernel: str
    arg: str | None
    stats: dict[str, str] = field(default_factory=dict)
    call: int = 0
    line_no: int = 0
    launch: int = 0
    lines: list[str] = field(default_factory=list)  # the block as printed: its header, then its statistics

    def number(self, key: str) -> float | None:
        """A statistic as a float (``-nan`` and ``inf`` included), None when absent or unreadable."""
        v = self.stats.get(key)
        if v is None:
            return None
        try:
            return float(v)
        except ValueError:
            return None

    @property
    def bad(self) -> str | None:
        """"NaN" or "Inf" when the statistics hold one."""
        vals = [self.number(k) for k in ("Mean value", "Min value", "Max value")]
        if any(v is not None and v != v for v in vals):
            return "NaN"
        if any(v is not None and v in (float("inf"), float("-inf")) for v in vals):
            return "Inf"
        return None


def printer_blocks(text: str) -> list[PrinterBlock]:
    """Every printer block of a log, in order, with its statistics (level 2) or as a bare mark (level 3).

    A launch prints a block per argument before it runs, then a block per argument after: a before_launch
    block that follows an after_launch block (or another kernel's block) opens the next launch."""
    out: list[PrinterBlock] = []
    calls: dict[str, int] = {}
    launch = 0
    prev: PrinterBlock | None = None
    cur: PrinterBlock | None = None
    for i, line in enumerate(text.splitlines()):
        m = P.REGISTRY["printer_block"].search(line) or P.REGISTRY["printer_mark"].search(line)
        if m:
            when, kernel = m.group("when"), m.group("kernel")
            arg = m.groupdict().get("arg")
            level3 = m.re is P.REGISTRY["printer_mark"].regex
            if when == "aoti_model_inputs":
                n = 0
            else:
                same = (prev is not None and prev.kernel == kernel and prev.when.split(":")[-1] in ("before_launch", when))
                if not same:
                    launch += 1
                    calls[kernel] = calls.get(kernel, 0) + 1
                n = calls[kernel]
            cur = PrinterBlock(f"mark:{when}" if level3 else when, kernel, arg, call=n, line_no=i + 1,
                               launch=launch if n else 0, lines=[line.strip()])
            out.append(cur)
            if n:
                prev = cur
            continue
        s = P.PRINTER_STAT.search(line)
        if s and cur is not None:
            cur.stats[s.group("key")] = s.group("value")
            cur.lines.append(line.strip())
        elif not line.strip():
            cur = None
    return out


@dataclass(frozen=True)
class StackFrame:
    """A frame of a Python stack trace (``File "build.py", line 84, in forward`` and the code line under it)."""

    file: str
    line: int
    fn: str
    code: str | None  # the code line under it, stripped; None when the trace shows none


def stack_frames(text: str) -> list[StackFrame]:
    """The frames of a Python stack trace (an exported program's ``stack_trace``, kernel_information.json's
    ``stack_traces``, a traceback), in order."""
    return [StackFrame(m.group("file"), int(m.group("line")), m.group("fn"),
                       m.group("code").strip() if m.group("code") is not None else None)
            for m in P.PYTHON_FRAME.regex.finditer(text or "")]
