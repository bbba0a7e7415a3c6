"""Plain string search over generated code: where each region sits, nothing parsed (no grammar, no lark).

`scan_wrapper` slices a wrapper into its regions (constructor facts, ``check_input_K`` guards, Triton
launchers with their embedded source and assert lines, run_impl's statements, each with the start
rule its leading word selects); `scan_kernel_cpp` finds each CPU kernel of a kernel.cpp.  The cost
grows with the file's size only (~1 s for a 137 MB wrapper).  The grammars in ``grammars/`` and the
parsers in `inspector.parse` give the statements their meaning, region by region, when a query
needs them (`inspector.index.model_index`).  A cached index reads none of this module's output
again, and never imports lark.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from dataclasses import dataclass

from ..dialects import Dialect, sniff

_DECORATOR = re.compile(r"@triton_heuristics\.(\w+)\(")


@dataclass
class LauncherRegion:
    """``static inline void call_triton_<name>(`` … ``}``: where one launcher's parts sit (0-based line indices)."""

    name: str
    start: int  # the `static inline void call_triton_` line
    params_end: int  # the `){` line closing its parameter list
    end: int  # the `}` closing the launcher
    triton: tuple[int, int] | None = None  # [start, end) of the embedded `async_compile.triton(` source
    load_line: int | None = None  # the `loadKernel(` line
    asserts: tuple[int, ...] = ()  # lines of its `tl.device_assert(` statements
    decorator: str | None = None  # the `@triton_heuristics.<flavor>(` of its source, when it has one


@dataclass
class RunStatement:
    """One non-empty run_impl line: its 1-based wrapper line, stripped text, and what it is.

    ``kind`` is the grammar start rule the dialect chose by the leading word, or "comment",
    "size_stride" (``if (…) assert_size_stride(…)``), or None (not a statement the index reads)."""

    line: int
    text: str
    kind: str | None
    callee: str | None = None  # for calls: the function named (plain string slicing, no parse)


@dataclass
class WrapperMap:
    """What the cheap scan found: every region of the wrapper, by plain string search, nothing parsed."""

    member: str
    dialect: Dialect
    lines: list[str]
    launchers: dict[str, LauncherRegion]
    cpp_kernels: set[str]
    constructor: list[tuple[int, str]]  # (1-based line, stripped statement)
    check_inputs: list[tuple[int, int, int]]  # (K, first body line index, closing `}` index)
    run: list[RunStatement]
    saw_run_impl: bool = False

    def call_target(self, callee: str) -> str | None:
        tk = self.dialect.call_target(callee, self.cpp_kernels)
        return tk[0] if tk else None


def scan_wrapper(text: str, member: str, dialect: Dialect | None = None, progress=None) -> WrapperMap:
    """Slice the wrapper into regions with plain string search (no grammar): the constructor facts, the
    ``check_input_K`` guards, each Triton launcher with its embedded source and assert lines, the CPU kernels
    it declares, and run_impl's statements.  Cost grows with the file's size only, ~1 s for 137 MB."""
    d = dialect or sniff(text, member)
    lines = text.split("\n")
    tx = _Text(text, lines) if d.launcher_start else None
    wm = WrapperMap(member=member, dialect=d, lines=lines, launchers={}, cpp_kernels=set(), constructor=[],
                    check_inputs=[], run=[])
    i, n = 0, len(lines)
    tick = 0
    while i < n:
        s = lines[i].strip()
        if progress is not None and i - tick > 65536:
            tick = i
            progress(i, n)
        if d.launcher_start and s.startswith(d.launcher_start):
            i = _scan_launcher(wm, i, tx)
            continue
        if s.startswith(d.check_input_start):
            k = int(re.search(r"check_input_(\d+)", s).group(1))
            j = i + 1
            while j < n and not lines[j].startswith("}"):
                j += 1
            wm.check_inputs.append((k, i + 1, j))
            i = j + 1
            continue
        if s.startswith(d.run_impl_start):
            wm.saw_run_impl = True
            i = _scan_run_impl(wm, i)
            continue
        if s.startswith(d.cpp_kernel_decl) and "cpp_" in s:
            m = re.search(r"\b(cpp_\w+)\(", s)
            if m:
                wm.cpp_kernels.add(m.group(1))
        elif s.startswith(d.constructor_facts):
            wm.constructor.append((i + 1, s))
        i += 1
    if progress is not None:
        progress(n, n)
    return wm


class _Text:
    """The wrapper text with the offset of every line, so a region is searched with `str.find` over its text
    (C speed) instead of a Python loop over its lines, and what is found is turned back into a line index."""

    _BLANK = " \t\r\f\v"

    def __init__(self, text: str, lines: list[str]):
        self.text = text
        # offsets[i]: where line i starts (line lengths plus their newlines, summed); one past the end last
        self.offsets = list(map(operator.add, itertools.accumulate(map(len, lines), initial=0), range(len(lines) + 1)))
        self.n = len(lines)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.offsets, offset) - 1

    def _span(self, start: int, end: int | None) -> tuple[int, int]:
        return self.offsets[start], (self.offsets[min(end, self.n)] if end is not None else len(self.text))

    def starting(self, marker: str, start: int, end: int | None = None) -> int | None:
        """The first line in [start, end) that starts with ``marker`` after blanks (as a stripped line would)."""
        if start >= self.n:
            return None
        pos, stop = self._span(start, end)
        text = self.text
        while True:
            k = text.find(marker, pos, stop)
            if k < 0:
                return None
            line = self.line_of(k)
            if not text[self.offsets[line]:k].strip(self._BLANK):
                return line
            pos = k + 1

    def all_starting(self, marker: str, start: int, end: int) -> list[int]:
        out = []
        while True:
            line = self.starting(marker, start, end)
            if line is None:
                return out
            out.append(line)
            start = line + 1

    def last_containing(self, marker: str, start: int, end: int) -> int | None:
        if start >= min(end, self.n):
            return None
        k = self.text.rfind(marker, *self._span(start, end))
        return None if k < 0 else self.line_of(k)

    def matching(self, pattern: re.Pattern, start: int, end: int) -> int | None:
        """The first line in [start, end) where ``pattern`` matches (lines are searched whole)."""
        if start >= min(end, self.n):
            return None
        m = pattern.search(self.text, *self._span(start, end))
        return None if m is None else self.line_of(m.start())

    def column0(self, char: str, start: int) -> int:
        """The first line at or after ``start`` that starts with ``char`` (the number of lines when none)."""
        if start >= self.n:
            return self.n
        if self.text.startswith(char, self.offsets[start]):
            return start
        k = self.text.find("\n" + char, self.offsets[start])
        return self.n if k < 0 else self.line_of(k + 1)


def _scan_launcher(wm: WrapperMap, i: int, tx: _Text) -> int:
    """One launcher region, found with a few `str.find` calls over its text (the same answers as reading its
    lines one by one): the parameters up to the `){` line, the embedded Triton source with its asserts and
    decorator, the last `loadKernel(` line after the source, and the `}` at column 0 that closes it."""
    d, lines, n = wm.dialect, wm.lines, tx.n
    name = re.search(r"call_(triton_\w+)\(", lines[i]).group(1)
    start = i
    params_end = tx.starting(d.launcher_params_end, i + 1)
    params_end = n if params_end is None else params_end
    r = LauncherRegion(name=name, start=start, params_end=params_end, end=params_end)
    asserts: list[int] = []
    i = params_end
    while i < n:
        end = tx.column0("}", i)
        o = tx.matching(d.triton_open, i, end)
        if r.triton is not None:
            load = tx.last_containing(d.load_kernel_marker, i, end if o is None else o)
            if load is not None:
                r.load_line = load
        if o is None:
            i = end
            break
        c = tx.starting(d.triton_close, o + 1)
        c = n if c is None else c
        asserts += tx.all_starting(d.device_assert, o + 1, c)
        dl = tx.starting("def ", o + 1, c)
        for j in tx.all_starting("@", o + 1, c if dl is None else dl):
            r.decorator = decorator_flavor(lines[j].lstrip()) or r.decorator
        r.triton = (o, c + 1)
        i = c + 1
    r.end = i
    r.asserts = tuple(asserts)
    wm.launchers[name] = r
    return i + 1


def _scan_run_impl(wm: WrapperMap, i: int) -> int:
    d, lines = wm.dialect, wm.lines
    i += 1
    while i < len(lines) and not lines[i].startswith(d.run_impl_body):
        i += 1
    i += 1
    while i < len(lines) and not lines[i].startswith(d.run_impl_end):
        s = lines[i].strip()
        i += 1
        if not s:
            continue
        if s.startswith("//"):
            wm.run.append(RunStatement(i, s, "comment"))
            continue
        if s.startswith("if (") and "assert_size_stride(" in s:
            wm.run.append(RunStatement(i, s[s.index("assert_size_stride("): s.rindex(";") + 1], "size_stride"))
            continue
        rule = d.start_rule(s)
        callee = None
        if rule == "call":
            callee = s[: s.index("(")]
        elif rule == "checked_call":
            rest = s[len(d.checked_call):]
            callee = rest[: rest.index("(")] if "(" in rest else None
        wm.run.append(RunStatement(i, s, rule, callee))
    return i + 1


_DECLARED = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[\])?\s*(?:=|;|\()")
TOKEN = re.compile(r"\b[A-Za-z_]\w*")


def declared_name(st: RunStatement) -> str | None:
    """The name a run_impl declaration introduces (``RAIIAtenTensorHandle buf0(buf0_handle);`` -> buf0), by plain
    string search: what the index follows to find the statements a name needs (the grammar still decides
    what the statement means)."""
    if st.kind not in ("declaration", "handle_decl"):
        return None
    m = _DECLARED.search(st.text.replace("decltype(auto)", "").replace("[[maybe_unused]]", ""))
    return m.group(1) if m else None


def consumes_comments(wm: WrapperMap, st: RunStatement) -> bool:
    """A call that takes the Source Nodes / provenance comments above it (a kernel launch or an extern op;
    allocations and runtime helpers leave them for the next call)."""
    return bool(st.callee) and not st.callee.startswith("aoti_torch_empty") and wm.call_target(st.callee) is not None


def scan_warnings(wm: WrapperMap) -> list[str]:
    """What the scan alone says is missing or unknown (answers may be partial)."""
    d, out = wm.dialect, []
    if not d.known:
        out.append("the wrapper matches no wrapper dialect this version knows (`show --json` says "
                   "dialect 'unknown'); it was read with the newest markers: answers may be partial")
    if not wm.saw_run_impl:
        out.append(f"no `{d.run_impl_start}` in the wrapper: a dialect this version does not "
                   "know; inputs, symbols and calls may be missing (answers are partial)")
    elif not any(st.callee and d.call_target(st.callee, wm.cpp_kernels) for st in wm.run):
        out.append("run_impl holds no kernel or extern call this version recognizes (answers are partial)")
    for r in wm.launchers.values():
        if r.triton is None:
            out.append(f"launcher call_triton_{r.name} at wrapper line {r.end}: no embedded Triton source")
    return out


def _constant_index(s: str) -> int | None:
    """``constants_info_[12].name = …`` -> 12 (plain slicing; None for any other constructor statement)."""
    if not s.startswith("constants_info_["):
        return None
    k = s[len("constants_info_["): s.find("]")]
    return int(k) if k.isdigit() else None



_SIGNATURE_NAME = re.compile(r"(\w+)\s*\($")
CHECK_STARTS = ("AOTI_TORCH_CHECK(", "TORCH_CHECK(")


def scan_kernel_cpp(lines: list[str]) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """Plain string search, no grammar: each ``extern "C"`` kernel's name -> (first line index, end index,
    the indices of its ``TORCH_CHECK`` lines).  A kernel's region runs to the next signature (or the file's
    end); `parse_kernel_region` stops at the brace that closes its body."""
    starts: list[tuple[int, str]] = []
    for i, raw in enumerate(lines):
        if raw.startswith('extern "C"') or raw.lstrip().startswith('extern "C"'):
            s = raw.strip()
            if "(" not in s:
                continue  # an `extern "C" {` block
            m = _SIGNATURE_NAME.search(s[: s.index("(") + 1])
            if m:
                starts.append((i, m.group(1)))
    out = {}
    for j, (i, name) in enumerate(starts):
        end = starts[j + 1][0] if j + 1 < len(starts) else len(lines)
        checks = tuple(k for k in range(i, end) if lines[k].lstrip().startswith(CHECK_STARTS))
        out.setdefault(name, (i, end, checks))
    return out


_NAME_FLAVORS = (("triton_poi_", "pointwise"), ("triton_red_", "reduction"), ("triton_per_", "persistent_reduction"),
                 ("triton_tem_", "template"), ("triton_for_", "foreach"))


def decorator_flavor(line: str) -> str | None:
    """``@triton_heuristics.pointwise(`` -> "pointwise" (None for any other line)."""
    m = _DECORATOR.search(line)
    return m.group(1) if m else None


def kernel_flavor(name: str, decorator: str | None) -> str:
    """A Triton kernel's flavor: its ``@triton_heuristics.<flavor>(`` decorator, else what its name says."""
    if decorator:
        return decorator
    return next((f for prefix, f in _NAME_FLAVORS if name.startswith(prefix)), "other")
