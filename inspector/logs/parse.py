"""What users paste, read once: ``parse_log`` runs the named patterns (``inspector.logs.patterns``) over the text in
one pass and returns a ``LogReport``: every recognised line as a typed fact with its line (``inspector.logs.facts``),
the distinct located checks (``asserts``), the calls that reported an error (``noticed``), every other recognised
line (``events``), the printer's blocks, the stack frames, and what was read but not understood (``unread``).
Queries read the report, never the text: nothing above this package applies a log pattern.  Nothing here knows
about a package, no regular expression is written here and no sentence a person reads.

Forms seen on real runs (sample_packages/*/error.log and */logs/*.log; /work/shared/FORMAT_NOTES.md):

* CUDA, once per failing thread::

    /tmp/…/cnmf….py:33: unknown: block: [0,0,0], thread: [130,0,0] Assertion `index out of bounds: 0 <= tmp4 < 1000` failed.

* CPU, caught (``Error:`` / ``RuntimeError:``) or aborting (``what():``)::

    Error: index out of bounds: 0 <= tmp12 < ks0
    Exception raised from cpp_fused_ge_index_… at /tmp/…/citn….kernel.cpp:52 (most recent call first):

* a later call that noticed the error::

    Error: aoti_torch_cuda_addmm_out(buf4, …) API call failed at /tmp/…/c6bp….wrapper.cpp, line 1987

What is *not understood* (``LogReport.unread``, counted the way tlparse counts what it skipped): a non-blank line
that became no fact and belongs to none.  A line is understood when it is a located check, a failed call, a line
of ``patterns.PATTERNS``, a printer block's header or one of its statistics, a Python or native stack frame (and
a Python frame's code line), a bare index-assert message, or a line read as part of one of those (a CPU check's
message above it, a failed call's exception after it); and plain framing carries nothing to understand
(``patterns.FRAMING``, ``patterns.UNREAD_FRAMING``: a traceback's header and chaining lines, carets, an elision
mark).  A line that only says something failed (``ERROR_LINE``) or only mentions torch is not understood.  The
count changes no answer: the CLI shows it under ``--debug`` (stderr); ``unread_lines`` holds the first few.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

import inspector.logs.patterns as P
from .facts import (AtenAssert, BareMessage, CheckFailure, ConstantNotFound, ConstantNotInMap, ConstantNotProvided,
                    ConstantOnDevice, CpuFlags, CudaError, DeprecatedCall, DeviceAssert, DeviceMismatch,
                    ExceptionLine, FailedCall, FailureLine, InputCheck, IsaMismatch, LogEvent, MissingCustomOp,
                    NanInfFound, NativeFrame, OpError, OutOfMemory, PrinterBlock, PythonFrame, RaisedFrom, ReportedAssert,
                    ShimException, SizeAssert, SymbolicAssert, UndefinedSymbol)

T = TypeVar("T")

UNREAD_SHOWN = 5  # how many of the lines not understood a report keeps (``unread_lines``)


@dataclass
class LogReport:
    """One log, read once.  ``facts``: every typed fact, in the order of the log; the other fields are views the
    rules read by name."""

    asserts: list[ReportedAssert] = field(default_factory=list)
    noticed: list[FailedCall] = field(default_factory=list)
    events: list[LogEvent] = field(default_factory=list)
    printer_blocks: list[PrinterBlock] = field(default_factory=list)
    python_frames: list[PythonFrame] = field(default_factory=list)
    native_frames: list[NativeFrame] = field(default_factory=list)
    failure_lines: list[FailureLine] = field(default_factory=list)  # lines that say something failed
    exception_lines: list[ExceptionLine] = field(default_factory=list)
    facts: list = field(default_factory=list, repr=False)
    mentioned: frozenset[str] = frozenset()  # the names of patterns.MENTIONS found anywhere in the text
    events_said: frozenset[str] = frozenset()  # the names of patterns.EVENT_DETAILS a recognised line holds
    line_count: int = 0
    unread: int = 0  # non-blank lines not understood (the module's docstring says what that means)
    unread_lines: list[tuple[int, str]] = field(default_factory=list)  # the first few: (line_no, stripped text)

    @property
    def hint_codes(self) -> list[str]:
        """The hint patterns the recognised lines match, each once, in order (their words: inspector.explain)."""
        return list(dict.fromkeys(e.pattern for e in self.events if e.category == "hint"))

    def has(self, *patterns: str) -> bool:
        return any(e.pattern in patterns for e in self.events)

    def first(self, pattern: str) -> LogEvent | None:
        return next((e for e in self.events if e.pattern == pattern), None)

    @cached_property
    def _by_type(self) -> dict[type, list]:
        out: dict[type, list] = {}
        for f in self.facts:
            out.setdefault(type(f), []).append(f)
        return out

    def of(self, kind: type[T]) -> list[T]:
        """The facts of one type (``rep.of(OutOfMemory)``), in the order of the log."""
        return list(self._by_type.get(kind, ()))

    def mentions(self, name: str) -> bool:
        """Whether the text holds ``name`` (a pattern of ``patterns.MENTIONS``) anywhere."""
        assert name in _MENTION_NAMES, name
        return name in self.mentioned

    def events_say(self, name: str) -> bool:
        """Whether a recognised line holds ``name`` (a pattern of ``patterns.EVENT_DETAILS``)."""
        assert name in _EVENT_DETAIL_NAMES, name
        return name in self.events_said


_MENTION_NAMES = frozenset(p.name for p in P.MENTIONS)
_EVENT_DETAIL_NAMES = frozenset(p.name for p in P.EVENT_DETAILS)


# ---------------------------------------------------------------------------
# Read inside a piece: an op's error, an input check's text, a pasted message
# ---------------------------------------------------------------------------


def read_op_error(message: str) -> OpError:
    """An ATen op's error: about a tensor's layout (``patterns.ATEN_LAYOUT_ERRORS``), or the size it names that an
    index must stay under (``patterns.EXTERN_LIMIT``)."""
    msg = message or ""
    layout = next((p.name[len("aten_"):] for p in P.ATEN_LAYOUT_ERRORS if p.search(msg)), None)
    limit = None
    if not layout:
        mm = P.EXTERN_LIMIT.search(msg)
        if mm:
            limit = int(mm.group(1) or mm.group(2))
    return OpError(message, layout, limit)


def says_nan_inf(message: str) -> bool:
    """Whether an assertion's message is a Triton kernel's NaN/Inf check's (TORCHINDUCTOR_RUNTIME_TRITON_NAN_ASSERTS)."""
    return bool(P.REGISTRY["nan_inf_triton"].search(message or ""))


def stated_failure(text: str) -> tuple[str, int]:
    """The line of a paste that states the failure (not a Python traceback's or C++ stack's framing; the first that
    says something failed, else the first), stripped, and how many non-blank lines the paste has."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    said = [x for x in lines if not P.FRAMING.regex.match(x)]
    first = next((x for x in said if P.SAYS_FAILURE.search(x)), said[0] if said else (lines[0] if lines else ""))
    return first, len(lines)


def _device_name(text: str) -> str:
    """``11(cuda)`` -> cuda; ``0`` -> cpu (the AOTI device-type code the check prints without a name)."""
    mm = P.DEVICE_CODE.search(text)
    if mm:
        return mm.group("name")
    return {"0": "cpu"}.get(text, text)


def _input_check(base: dict, m) -> InputCheck:
    what = m.group("what") or ""
    idx = int(m.group("input"))
    mm = P.INPUT_RANGE.search(what)
    if mm:
        return InputCheck(**base, input=idx, what=what, kind="range", dim=int(mm.group("dim")), got=int(mm.group("got")),
                          bound=mm.group("op"), limit=int(mm.group("limit")), too=mm.group("dir"))
    mm = P.INPUT_DTYPE.search(what)
    if mm:
        return InputCheck(**base, input=idx, what=what, kind="dtype", got=int(mm.group("got")),
                          expected=int(mm.group("exp")), expected_name=mm.group("expname"))
    mm = P.INPUT_DEVICE.search(what)
    if mm:
        return InputCheck(**base, input=idx, what=what, kind="device", got_device=mm.group("got"),
                          expected_device=mm.group("exp"), got_device_name=_device_name(mm.group("got")),
                          expected_device_name=_device_name(mm.group("exp")))
    for kind, p in (("size", P.INPUT_SIZE), ("stride", P.INPUT_STRIDE)):
        mm = p.search(what)
        if mm:
            return InputCheck(**base, input=idx, what=what, kind=kind, dim=int(mm.group("dim")),
                              got=int(mm.group("got")), expected=int(mm.group("exp")))
    return InputCheck(**base, input=idx, what=what, kind="other")


def _cuda_error(base: dict, m) -> CudaError:
    g = m.groupdict()
    if base["pattern"] == "cublas_error":
        return CudaError(**base, kind="cublas", status=g.get("status"), api=g.get("api"))
    if base["pattern"] == "device_side_assert":
        return CudaError(**base, kind="device_side_assert")
    return CudaError(**base, kind=next(k for k in P.CUDA_ERROR_KINDS if g.get(k)))


def _out_of_memory(base: dict, m) -> OutOfMemory:
    g = m.groupdict()
    source = ("driver" if g.get("driver") else "runtime" if g.get("runtime") else
              "cublas" if g.get("cublas") else "cpu" if g.get("bytes") else "allocator")
    return OutOfMemory(**base, source=source, size=g.get("size"), bytes=int(g["bytes"]) if g.get("bytes") else None,
                       free=g.get("free"), total=g.get("total"), gpu=int(g["gpu"]) if g.get("gpu") else None)


def _device_mismatch(base: dict, m) -> DeviceMismatch:
    mm = P.DEVICE_PAIR.search(base["printed"])
    if not mm:
        return DeviceMismatch(**base)
    g = mm.groupdict()
    return DeviceMismatch(**base, first=g.get("first") or g.get("first2"), second=g.get("second") or g.get("second2"),
                          arg=g.get("arg") or g.get("arg2"), method=g.get("method") or g.get("method2"))


def _nan_inf(base: dict, m) -> NanInfFound:
    g = m.groupdict()
    return NanInfFound(**base, what=g.get("what"), buf=g.get("buf"), file=g.get("file"),
                       line=int(g["line"]) if g.get("line") else None)


def _shim_exception(base: dict, m) -> ShimException:
    return ShimException(**base, message=m.group("msg"), op_error=read_op_error(m.group("msg")))


# The patterns whose fields a rule reads: each makes its typed fact from the match (the others a plain LogEvent).
_TYPED = {
    "symbolic_assert": lambda b, m: SymbolicAssert(
        **b, cond=m.group("cond"), got=int(m.group("got")),
        symbols=tuple(x.group("symbol") for x in P.SYMBOL_NAME.regex.finditer(m.group("cond")))),
    "nan_inf_input": _nan_inf, "nan_inf_call": _nan_inf, "nan_inf_triton": _nan_inf,
    "constant_not_found": lambda b, m: ConstantNotFound(**b, fqn=m.group("fqn")),
    "constants_map_missing": lambda b, m: ConstantNotInMap(**b, name=m.group("name")),
    "constant_not_provided": lambda b, m: ConstantNotProvided(**b, name=m.group("name")),
    "constant_device": lambda b, m: ConstantOnDevice(**b, name=m.group("name"), got=m.group("got"),
                                                     expected=m.group("exp")),
    "out_of_memory": _out_of_memory,
    "custom_op_missing": lambda b, m: MissingCustomOp(**b, op=m.group("op")),
    "undefined_shim_symbol": lambda b, m: UndefinedSymbol(**b, symbol=m.group("symbol")),
    "undefined_kernel_image": lambda b, m: UndefinedSymbol(**b, symbol=m.group("symbol")),
    "input_check": _input_check,
    "size_assert": lambda b, m: SizeAssert(**b, got=int(m.group("got")), expected=int(m.group("exp")),
                                           stride_got=int(m.group("sgot")), stride_expected=int(m.group("sexp")),
                                           dim=int(m.group("dim"))),
    "device_side_assert": _cuda_error, "cublas_error": _cuda_error, "illegal_memory_access": _cuda_error,
    "device_mismatch": _device_mismatch,
    "exception_in_aoti_torch": _shim_exception,
    "isa_mismatch": lambda b, m: IsaMismatch(**b, key=m.group("key"), package=tuple(m.group("package").split()),
                                             host=tuple(m.group("host").split())),
    "deprecated_api": lambda b, m: DeprecatedCall(**b, api=m.group("api") or m.group("api2") or m.group("api3"),
                                                  in_frame=bool(m.group("api3"))),
    "cpuinfo_flags": lambda b, m: CpuFlags(**b, flags=tuple(m.group("flags").split())),
    "raised_from": lambda b, m: RaisedFrom(**b, fn=m.group("fn"), file=m.group("file"), line=int(m.group("line"))),
}


def _native_frame(m, text: str, line_no: int) -> NativeFrame:
    fn = m.group("fn")
    name = P.FRAME_FUNCTION.search(fn)
    shim = P.SHIM_IN_FRAME.search(fn)
    return NativeFrame(number=int(m.group("gdb") or m.group("torch")), fn=fn, file=m.group("file"),
                       line=int(m.group("line")) if m.group("line") else None,
                       function=name.group("name") if name else None,
                       shim=f"aoti_torch_{shim.group('device')}_{shim.group('op')}" if shim else None,
                       printed=text, line_no=line_no)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# ---------------------------------------------------------------------------
# The one reading
# ---------------------------------------------------------------------------


class _Printer:
    """The intermediate value printer's output, read a line at a time into ``PrinterBlock`` facts: a block's header,
    its values (numel <= 64: torch's C++ layout, whatever form it took, blank lines inside a wide or n-d tensor
    included), then its statistics up to a blank line; a size argument's line (printf'd with a literal ``\\n``:
    several and the next header may share a line); at level 3 a kernel's start and end marks.  A launch is the
    before_launch blocks of one kernel, then its after_launch blocks; ``call`` counts the launches of each kernel."""

    def __init__(self, rep: "LogReport", facts: list):
        self.rep, self.facts = rep, facts
        self.block, self.mark, self.stat = (P.REGISTRY["printer_block"].regex.search,
                                            P.REGISTRY["printer_mark"].regex.search, P.PRINTER_STAT.regex.search)
        self.symints = P.PRINTER_SYMINT.regex.finditer
        self.end, self.columns = P.PRINTER_VALUES_END.regex.search, P.PRINTER_COLUMNS.regex.search
        self.scale, self.slice, self.row = (P.PRINTER_SCALE.regex.search, P.PRINTER_SLICE.regex.search,
                                            P.PRINTER_ROW.regex.search)
        self.numbers = P.PRINTER_VALUE.regex.findall
        self.calls: dict[str, int] = {}
        self.launch = 0
        self.prev: PrinterBlock | None = None  # the last block of a launch
        self.cur: PrinterBlock | None = None  # the block being read
        self.in_values = False
        self.parts: list = []  # the values read so far: [slice index, [[first, last, scale, rows]]]

    def _open(self, when: str, kernel: str, arg: str | None, mark: bool, no: int, printed: str) -> PrinterBlock:
        if when == "aoti_model_inputs":
            k = 0
        else:
            p = self.prev
            if not (p is not None and p.kernel == kernel and p.when.split(":")[-1] in ("before_launch", when)):
                self.launch += 1
                self.calls[kernel] = self.calls.get(kernel, 0) + 1
            k = self.calls[kernel]
        b = PrinterBlock(f"mark:{when}" if mark else when, kernel, arg, call=k, line_no=no,
                         launch=self.launch if k else 0, lines=[printed])
        self.rep.printer_blocks.append(b)
        self.facts.append(b)
        if k:
            self.prev = b
        return b

    def line(self, line: str, stripped: str, no: int) -> bool:
        """Read one line; whether it was the printer's."""
        if not stripped:
            if not self.in_values:
                self.cur = None  # a blank line ends a block's statistics
            return False
        rest, mine = line, False
        if "\\n" in line:
            for m in self.symints(line):
                b = self._open(m.group("when"), m.group("kernel"), m.group("arg"), False, no, m.group(0)[:-2].strip())
                b.values, b.shape, b.printed_as = (float(m.group("value")),), (), "scalar"
                rest, mine = line[m.end():], True
            self.cur, self.in_values = None, False
            if not rest.strip():
                return True
        mb = self.block(rest)
        mm = mb or self.mark(rest)
        if mm:
            self.cur = self._open(mm.group("when"), mm.group("kernel"), mm.groupdict().get("arg"), mb is None, no,
                                  rest.strip())
            self.in_values, self.parts = mb is not None, []
            return True
        b = self.cur
        if b is None:
            return mine
        if self.in_values:
            if self._value_line(b, rest):
                return True
            if not self.stat(rest):
                return mine  # not the printer's (another writer's line inside the values)
            self.in_values = False  # more than 64 values: none printed
        s = self.stat(rest)
        if s:
            b.stats[s.group("key")] = s.group("value")
            b.lines.append(rest.strip())
            return True
        return mine

    def _value_line(self, b: PrinterBlock, line: str) -> bool:
        """One line of a block's values, kept in ``parts`` until the footer puts them in place."""
        m = self.end(line)
        if m:
            self.in_values = False
            b.value_type = m.group("type")
            b.shape = tuple(int(x) for x in m.group("sizes").split(",") if x)
            self._place(b)
            return True
        m = self.slice(line)
        if m:
            self.parts.append([tuple(int(x) - 1 for x in m.group("index").split(",") if x), []])
            return True
        if not self.parts:
            self.parts.append([None, []])
        chunks = self.parts[-1][1]
        m = self.columns(line)
        if m:
            chunks.append([int(m.group("first")), int(m.group("last")), float(m.group("scale") or 1), []])
            if m.group("row").strip():
                chunks[-1][3].append(self.numbers(m.group("row")))
            return True
        m = self.scale(line)
        if m:
            if not chunks:
                chunks.append([None, None, 1.0, []])
            chunks[-1][2] = float(m.group("scale"))
            return True
        if self.row(line):
            if not chunks:
                chunks.append([None, None, 1.0, []])
            chunks[-1][3].append(self.numbers(line))
            return True
        return False

    def _place(self, b: PrinterBlock) -> None:
        """The values read, in row-major order of the footer's sizes; "unread" when they do not add up to them."""
        shape, parts = b.shape or (), self.parts
        n = 1
        for x in shape:
            n *= x
        if n == 0:
            b.values, b.printed_as = (), "empty"
            return
        try:
            if len(shape) <= 1:
                flat = [float(v) * c[2] for _, cs in parts for c in cs for r in c[3] for v in r]
                if len(flat) != n:
                    raise ValueError
                b.values, b.printed_as = tuple(flat), ("scalar" if not shape else "column")
                return
            rows, cols = shape[-2], shape[-1]
            out = [float("nan")] * n
            filled = 0
            for index, chunks in parts:
                outer = 0
                if len(shape) > 2:
                    if index is None or len(index) != len(shape) - 2:
                        raise ValueError
                    for d, i in enumerate(index):
                        outer = outer * shape[d] + i
                elif index is not None:
                    raise ValueError
                for first, last, scale, rs in chunks:
                    lo, hi = (first - 1, last) if first is not None else (0, cols)
                    if len(rs) != rows or any(len(r) != hi - lo for r in rs) or not 0 <= lo < hi <= cols:
                        raise ValueError
                    for r, vals in enumerate(rs):
                        at = (outer * rows + r) * cols + lo
                        out[at:at + hi - lo] = [float(v) * scale for v in vals]
                        filled += hi - lo
            if filled != n:
                raise ValueError
        except ValueError:
            b.printed_as = "unread"
            return
        b.values = tuple(out)
        b.printed_as = "slices" if len(shape) > 2 else ("chunks" if any(c[0] is not None for _, cs in parts for c in cs)
                                                       else "rows")


def parse_log(text: str) -> LogReport:
    """Read ``text`` once, line by line (see the module's docstring)."""
    rep = LogReport()
    lines = text.splitlines()
    n = len(lines)
    read = bytearray(n)  # 1: the line is understood (a fact, part of one, or framing)
    seen: dict[tuple, ReportedAssert] = {}
    facts: list = []
    bare: dict[str, BareMessage] = {}
    mentioned: set[str] = set()
    looking = list(P.MENTIONS)  # each is looked for until found
    # each pattern's bound search, once: the loop below runs them on every line
    (error_line, exception_line, missing_member, framing, unread_framing,
     native_frame, python_frame, cuda_assert, aten_assert, cpu_from, cpu_msg, noticed, noticed_runner, noticed_error,
     noticed_echo) = (p.regex.search for p in (
        P.ERROR_LINE, P.EXCEPTION_LINE, P.MISSING_MEMBER, P.FRAMING, P.UNREAD_FRAMING,
        P.NATIVE_FRAME, P.PYTHON_FRAME, P.CUDA_ASSERT, P.ATEN_ASSERT,
        P.CPU_FROM, P.CPU_MSG, P.NOTICED, P.NOTICED_RUNNER, P.NOTICED_ERROR, P.NOTICED_ECHO))
    framing_at_start = P.FRAMING.regex.match
    bare_messages = P.BARE_MSG.regex.finditer
    patterns = [(p, p.regex.search) for p in P.PATTERNS]
    printer = _Printer(rep, facts)
    for i, line in enumerate(lines):
        no = i + 1
        stripped = line.strip()
        if not stripped:
            printer.line(line, stripped, no)
            continue
        if looking:
            for p in [p for p in looking if p.regex.search(line)]:
                mentioned.add(p.name)
                looking.remove(p)
        if error_line(line):
            rep.failure_lines.append(FailureLine(line, no))
        if exception_line(line):
            rep.exception_lines.append(ExceptionLine(stripped, no, bool(missing_member(stripped))))
        if framing_at_start(stripped) or unread_framing(stripped):
            read[i] = 1
        # the intermediate value printer: a block's header, its values, then its statistics up to a blank line
        if printer.line(line, stripped, no):
            read[i] = 1
        for bm in bare_messages(line):
            msg = bm.group(1).strip()
            bare.setdefault(msg, BareMessage(msg, no))
            read[i] = 1
        nf = native_frame(line)
        if nf:
            frame = _native_frame(nf, stripped, no)
            rep.native_frames.append(frame)
            facts.append(frame)
            read[i] = 1
        pf = python_frame(line)
        if pf:
            nxt = lines[i + 1] if i + 1 < n else ""
            code = nxt.strip() if nxt.strip() and _indent(nxt) > _indent(line) else None
            frame = PythonFrame(pf.group("file"), int(pf.group("line")), pf.group("fn"), code, no)
            rep.python_frames.append(frame)
            facts.append(frame)
            read[i] = 1
            if code is not None:
                read[i + 1] = 1
        # the located checks: their lines are nothing else
        m = cuda_assert(line)
        if m:
            block, thread = m.group("block").replace(" ", ""), m.group("thread").replace(" ", "")
            fact = DeviceAssert(m.group("file"), int(m.group("line")), m.group("msg").strip(), block, thread,
                                stripped, no)
            key = ("cuda", fact.file, fact.line, m.group("msg"))
            if key in seen:
                seen[key].occurrences += 1
            else:
                seen[key] = ReportedAssert(kind="cuda", message=fact.message, file=fact.file, line=fact.line,
                                           first_text=stripped, line_no=no, pattern=fact.pattern)
            seen[key].threads.append((block, thread))
            facts.append(fact)
            read[i] = 1
            continue
        m = aten_assert(line)
        if m:
            msg = m.group("msg").strip()
            fact = AtenAssert(m.group("file"), int(m.group("line")), m.group("kernel"), msg, stripped, no,
                              read_op_error(msg))
            key = ("aten", fact.file, fact.line, fact.kernel)
            if key in seen:
                seen[key].occurrences += 1
            else:
                seen[key] = ReportedAssert(kind="aten", message=msg, file=fact.file, line=fact.line, kernel=fact.kernel,
                                           first_text=stripped, line_no=no, pattern=fact.pattern,
                                           op_error=fact.op_error)
            facts.append(fact)
            read[i] = 1
            continue
        m = cpu_from(line)
        if m:
            msg, at = "", 0
            for j in range(i - 1, max(-1, i - 4), -1):
                mm = cpu_msg(lines[j])
                if mm:
                    msg, at = mm.group("msg"), j + 1
                    read[j] = 1
                    break
            fact = CheckFailure(m.group("kernel"), m.group("file"), int(m.group("line")), msg, at, stripped, no)
            key = ("cpu", fact.file, fact.line, fact.kernel)
            if key not in seen:
                seen[key] = ReportedAssert(kind="cpu", message=msg, file=fact.file, line=fact.line, kernel=fact.kernel,
                                           first_text=stripped, line_no=no, pattern=fact.pattern,
                                           message_pattern=fact.message_pattern)
            facts.append(fact)
            read[i] = 1
            continue
        m = noticed(line)
        if m and not noticed_runner(m.group("call")):
            err, at = None, 0
            for j in range(i + 1, min(n, i + 40)):
                mm = noticed_error(lines[j])
                if mm and not noticed_echo(mm.group("msg")):
                    err, at = mm.group("msg"), j + 1
                    read[j] = 1
                    break
            if err is None:  # torch 2.8 prints the op's exception before the failed call
                prior = [e for e in rep.events if e.pattern == "exception_in_aoti_torch"]
                err = prior[-1].message if prior else None
            fact = FailedCall(m.group("call"), m.group("file"), int(m.group("line")), stripped, no, err, at,
                              read_op_error(err) if err is not None else None)
            rep.noticed.append(fact)
            facts.append(fact)
            read[i] = 1
        for p, search in patterns:
            mm = search(line)
            if mm:
                base = {"pattern": p.name, "category": p.category, "printed": stripped, "line_no": no}
                make = _TYPED.get(p.name)
                if make is not None:
                    ev = make(base, mm)
                else:
                    ev = LogEvent(**base, fields={k: v for k, v in mm.groupdict().items() if v is not None})
                rep.events.append(ev)
                facts.append(ev)
                read[i] = 1
    rep.asserts = list(seen.values())
    if not rep.asserts:
        # Only a message was pasted (no file, no line): keep each distinct one.
        rep.asserts = [ReportedAssert(kind="message", message=b.message, first_text=b.message, line_no=b.line_no,
                                      pattern=b.pattern) for b in bare.values()]
        facts += bare.values()  # (beside a located check, its message is that check's, not a fact of its own)
    facts.sort(key=lambda f: f.line_no)  # (stable: the facts of one line keep the order they were read in)
    rep.facts = facts
    rep.mentioned = frozenset(mentioned)
    texts = {e.printed for e in rep.events}
    rep.events_said = frozenset(p.name for p in P.EVENT_DETAILS if any(p.search(t) for t in texts))
    rep.line_count = n
    unread = [i for i in range(n) if not read[i] and lines[i].strip()]
    rep.unread = len(unread)
    rep.unread_lines = [(i + 1, lines[i].strip()) for i in unread[:UNREAD_SHOWN]]
    return rep


def stack_frames(text: str) -> list[PythonFrame]:
    """The frames of a Python stack trace (an exported program's ``stack_trace``, kernel_information.json's
    ``stack_traces``, a traceback), in order: each ``File`` line with the line under it as its code."""
    out, at, line_no = [], 0, 1
    for m in P.PYTHON_FRAME.regex.finditer(text or ""):
        line_no += text.count("\n", at, m.start())
        at = m.start()
        out.append(PythonFrame(m.group("file"), int(m.group("line")), m.group("fn"),
                               m.group("code").strip() if m.group("code") is not None else None, line_no))
    return out
