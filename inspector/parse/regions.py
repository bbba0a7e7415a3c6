"""Plain string search over generated code: where each region sits, nothing parsed (no grammar, no lark).

`scan_wrapper` slices a wrapper into its regions (constructor's info statements, ``check_input_K`` guards, Triton
launchers with their embedded source and assert lines, run_impl's statements, each with the start
rule its leading word selects); `scan_kernel_cpp` finds each CPU kernel of a kernel.cpp.  The cost
grows with the file's size only (~1 s for a 137 MB wrapper).  The grammars in ``grammars/`` and the
parsers in `inspector.parse` give the statements their meaning, region by region, when a query
needs them (`inspector.index.model_index`).  A cached index reads none of this module's output
again, and never imports lark.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import compress, count, repeat

from ..dialects import FALLBACK, Dialect, sniff

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
    decorator: str | None = None  # the `@triton_heuristics.<heuristic>(` of its source, when it has one


@dataclass(slots=True)
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
    _constant_of: list | None = None

    def constant_of(self) -> list[int | None]:
        """For each constructor statement, the constant it describes (``constants_info_[12].… = …`` -> 12),
        else None; by plain slicing, once."""
        if self._constant_of is None:
            self._constant_of = [_constant_index(s, self.dialect) for _, s in self.constructor]
        return self._constant_of

    def call_target(self, callee: str) -> str | None:
        tk = self.dialect.call_target(callee, self.cpp_kernels, self.launchers)
        return tk[0] if tk else None


def scan_wrapper(text: str, member: str, dialect: Dialect | None = None, progress=None) -> WrapperMap:
    """Slice the wrapper into regions with plain string search (no grammar): the constructor's info statements, the
    ``check_input_K`` guards, each Triton launcher with its embedded source and assert lines, the CPU kernels
    it declares, and run_impl's statements.  Cost grows with the file's size only, ~1 s for 137 MB."""
    d = dialect or sniff(text, member)
    lines = text.split("\n")
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
            i = _scan_launcher(wm, i)
            continue
        if s.startswith(d.check_input_start):
            k = int(d.check_input_index.search(s).group(1))
            j = i + 1
            while j < n and not lines[j].startswith("}"):
                j += 1
            wm.check_inputs.append((k, i + 1, j))
            i = j + 1
            continue
        if d.is_run_impl_start(s):
            wm.saw_run_impl = True
            i = _scan_run_impl(wm, i)
            continue
        if s.startswith(d.cpp_kernel_decl) and d.cpp_kernel_name.search(s):
            wm.cpp_kernels.add(d.cpp_kernel_name.search(s).group(1))
        elif s.startswith(d.constructor_info_starts):
            wm.constructor.append((i + 1, s))
        i += 1
    if progress is not None:
        progress(n, n)
    return wm


def _scan_launcher(wm: WrapperMap, i: int) -> int:
    d, lines = wm.dialect, wm.lines
    name = d.launcher_name.search(lines[i]).group(1)
    start = i
    i += 1
    n, params_end, opens = len(lines), d.launcher_params_end, d.triton_open_marker
    while i < n and not (params_end in lines[i] and lines[i].strip().startswith(params_end)):
        i += 1
    r = LauncherRegion(name=name, start=start, params_end=i, end=i)
    asserts = []
    while i < n and not lines[i].startswith("}"):
        line = lines[i]
        if opens in line and d.triton_open.search(line):
            j = _scan_triton(wm, r, i + 1, asserts)
            r.triton = (i, j + 1)
            i = j
        elif d.load_kernel_marker in line and r.triton is not None:
            r.load_line = i
        i += 1
    r.end = i
    r.asserts = tuple(asserts)
    wm.launchers[name] = r
    return i + 1


def _scan_triton(wm: WrapperMap, r: LauncherRegion, j: int, asserts: list[int]) -> int:
    """The embedded Triton source from line ``j`` on: its decorator (before ``def``) and the lines of its asserts
    (added to ``asserts``); returns the index of its closing line.  Most of a wrapper's lines are these, so
    after the ``def`` line a line is stripped only when it holds a marker at all."""
    d, lines, n = wm.dialect, wm.lines, len(wm.lines)
    close, check = d.triton_close, d.device_assert
    while j < n:  # the decorator and the def line
        s = lines[j].lstrip()
        if s.startswith(close):
            return j
        if s.startswith(check):
            asserts.append(j)
        elif s.startswith("def "):
            j += 1
            break
        elif s.startswith("@"):
            r.decorator = decorator_heuristic(s) or r.decorator
        j += 1
    while j < n:  # the body
        line = lines[j]
        if close in line and line.lstrip().startswith(close):
            return j
        if check in line and line.lstrip().startswith(check):
            asserts.append(j)
        j += 1
    return j


def _scan_run_impl(wm: WrapperMap, i: int) -> int:
    d, lines = wm.dialect, wm.lines
    n = len(lines)
    i += 1
    while i < n and not lines[i].startswith(d.run_impl_body):
        i += 1
    i += 1
    end = i
    is_end = d.is_run_impl_end
    if d.run_impl_end.startswith("}"):  # every end line opens with `}` (both spellings): ask only those
        end = next((k for k in compress(count(end), map(str.startswith, map(lines.__getitem__, range(end, n)),
                                                         repeat("}"))) if is_end(lines[k])), n)
    else:
        while end < n and not is_end(lines[end]):
            end += 1
    # one statement per non-empty line; locals, not attribute look-ups, in the loop (~190,000 lines on 20k kernels)
    run, start_rule, size_stride, checked = wm.run, d.start_rule, d.size_stride_check, d.checked_call
    skip = len(checked)
    append = run.append
    for line_no, raw in enumerate(lines[i:end], i + 1):
        s = raw.strip()
        if not s:
            continue
        if s[:2] == "//":
            append(RunStatement(line_no, s, "comment"))
            continue
        if s[:4] == "if (" and size_stride in s:
            append(RunStatement(line_no, s[s.index(size_stride): s.rindex(";") + 1], "size_stride"))
            continue
        rule = start_rule(s)
        if rule == "call":
            append(RunStatement(line_no, s, rule, s[: s.index("(")]))
        elif rule == "checked_call":
            rest = s[skip:]
            append(RunStatement(line_no, s, rule, rest[: rest.index("(")] if "(" in rest else None))
        else:
            append(RunStatement(line_no, s, rule))
    return end + 1


_DECLARED = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[\])?\s*(?:=|;|\()")
TOKEN = re.compile(r"\b[A-Za-z_]\w*")


def declared_name(st: RunStatement) -> str | None:
    """The name a run_impl declaration introduces (``RAIIAtenTensorHandle buf0(buf0_handle);`` -> buf0), by plain
    string search: what the index follows to find the statements a name needs (the grammar still decides
    what the statement means)."""
    if st.kind not in ("declaration", "handle_decl"):
        return None
    text = st.text
    if "decltype(auto)" in text:
        text = text.replace("decltype(auto)", "")
    if "[[maybe_unused]]" in text:
        text = text.replace("[[maybe_unused]]", "")
    m = _DECLARED.search(text)
    return m.group(1) if m else None


# A handle declaration's name: the type's word is followed by a space, so `_DECLARED` cannot match in it and
# its first match is this name (anchored here instead of searched for)
_HANDLE_DECL = re.compile(r"(?:RAII)?AtenTensorHandle ([A-Za-z_]\w*)\s*(?:\[\])?\s*(?:=|;|\()")


def declared_names(statements: list[RunStatement]) -> list[str | None]:
    """`declared_name` of each statement, in one loop (no call per statement: a 20,000-kernel run_impl has
    ~90,000 declarations)."""
    out, search, handle = [], _DECLARED.search, _HANDLE_DECL.match
    big = 1 << 62  # `find`'s -1 (not there) modulo this is big - 1: after every real position
    for st in statements:
        if st.kind not in ("declaration", "handle_decl"):
            out.append(None)
            continue
        text = st.text
        if "decltype(auto)" in text:
            text = text.replace("decltype(auto)", "")
        if "[[maybe_unused]]" in text:
            text = text.replace("[[maybe_unused]]", "")
        # The first of `=`, `;`, `(` ends the name when one is found at all: the name is then the last word
        # before it (after any spaces and one `[]`), as `_DECLARED` finds it; any other shape goes to the regex.
        p = min(text.find("=") % big, text.find(";") % big, text.find("(") % big)
        if p < big - 1:
            head = text[:p].rstrip()
            if head[-2:] == "[]":
                head = head[:-2].rstrip()
            name = head[head.rfind(" ") + 1:]
            if name.isidentifier() and name.isascii():
                out.append(name)
                continue
        # `RAIIAtenTensorHandle buf0(buf0_handle);`: the anchored match is what the search finds first there
        m = handle(text) or search(text)
        out.append(m.group(1) if m else None)
    return out


def consumes_comments(wm: WrapperMap, st: RunStatement) -> bool:
    """A call that takes the Source Nodes / provenance comments above it (a kernel launch or an extern op;
    allocations and runtime helpers leave them for the next call)."""
    return bool(st.callee) and not st.callee.startswith(wm.dialect.allocation_prefix) and wm.call_target(st.callee) is not None


def scan_warnings(wm: WrapperMap) -> list[str]:
    """What the scan alone says is missing or unknown (answers may be partial)."""
    d, out = wm.dialect, []
    if not d.known:
        out.append("the wrapper matches no wrapper dialect this version knows (`show --json` says "
                   "dialect 'unknown'); it was read with the newest markers: answers may be partial")
    if not wm.saw_run_impl:
        out.append(f"no `{d.run_impl_start}` in the wrapper: a dialect this version does not "
                   "know; inputs, symbols and calls may be missing (answers are partial)")
    elif not any(st.callee and d.call_target(st.callee, wm.cpp_kernels, wm.launchers) for st in wm.run):
        out.append("run_impl holds no kernel or extern call this version recognizes (answers are partial)")
    for r in wm.launchers.values():
        if r.triton is None:
            out.append(f"launcher call_triton_{r.name} at wrapper line {r.end}: no embedded Triton source")
    return out


def constant_totals(wm: WrapperMap) -> dict:
    """How many constants the constructor declares, and their bytes by dtype and device, by plain slicing of
    its ``constants_info_[i].<field> = <value>;`` lines (nothing parsed: `show` prints this; the grammar reads
    each constant only when they are listed).  ``{"count", "nbytes", "by": [[dtype, device, count, nbytes]…]}``;
    dtype or device None when the dialect's lines do not say (torch 2.6 writes no device_type)."""
    d = wm.dialect
    prefix = re.escape(d.constant_info)
    text = "\n".join(s for _, s in wm.constructor)  # one regex call over them all, not a loop over lines
    infos: dict[int, dict[str, str]] = {int(k): {} for k in re.findall(rf"^{prefix}(\d+)\]", text, re.M)}
    for k, field, value in re.findall(rf"^{prefix}(\d+)\]\.(dtype|device_type|data_size)\s*=\s*(.*?)\s*;?\s*$",
                                      text, re.M):
        infos[int(k)][field] = value
    groups: dict[tuple, list[int]] = {}
    for f in infos.values():
        dt = d.constant_dtype.search(f.get("dtype", ""))
        dev = d.constant_device.search(f.get("device_type", ""))
        size = f.get("data_size", "").rstrip("Ll")
        g = groups.setdefault((dt.group(1) if dt else None, dev.group(1) if dev else None), [0, 0])
        g[0] += 1
        g[1] += int(size) if size.isdigit() else 0
    by = sorted(([dt, dev, c, b] for (dt, dev), (c, b) in groups.items()), key=lambda x: (-x[3], str(x[0]), str(x[1])))
    return {"count": len(infos), "nbytes": sum(x[3] for x in by), "by": by}


def _constant_index(s: str, d: Dialect | None = None) -> int | None:
    """``constants_info_[12].name = …`` -> 12 (plain slicing; None for any other constructor statement)."""
    prefix = (d or FALLBACK).constant_info
    if not s.startswith(prefix):
        return None
    k = s[len(prefix): s.find("]")]
    return int(k) if k.isdigit() else None



_SIGNATURE_NAME = re.compile(r"(\w+)\s*\($")
CHECK_STARTS = ("AOTI_TORCH_CHECK(", "TORCH_CHECK(")


def _declaration(lines: list[str], i: int) -> bool:
    """The signature starting at ``lines[i]`` ends in ``;`` before any ``{``: a declaration, not the kernel (a
    package_cpp_only wrapper declares each kernel above run_impl and defines it after)."""
    for k in range(i, min(i + 400, len(lines))):
        t = lines[k].strip()
        if "{" in t:
            return False
        if t.endswith(";"):
            return True
    return False


def check_statement(lines: list[str], j: int) -> str:
    """The ``TORCH_CHECK`` statement starting at ``lines[j]``, joined when it spans lines (the CPP GEMM template's
    ``AOTI_TORCH_CHECK(`` / condition / message / ``);``)."""
    s = lines[j].strip()
    while not s.endswith(";") and j + 1 < len(lines):
        j += 1
        s += " " + lines[j].strip()
    return s


def scan_kernel_cpp(lines: list[str]) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """Plain string search, no grammar: each ``extern "C"`` kernel's name -> (first line index, end index,
    the indices of its ``TORCH_CHECK`` lines).  A kernel's region runs to the next signature (or the file's
    end); `parse_kernel_region` stops at the brace that closes its body."""
    starts: list[tuple[int, str]] = []
    for i, raw in enumerate(lines):
        if raw.startswith('extern "C"') or raw.lstrip().startswith('extern "C"'):
            s = raw.strip()
            if s == 'extern "C"' and i + 1 < len(lines):
                s += " " + lines[i + 1].strip()  # a CPP GEMM template's kernel: `extern "C"` / `void <k>(…)`
            if "(" not in s:
                continue  # an `extern "C" {` block
            m = _SIGNATURE_NAME.search(s[: s.index("(") + 1])
            if m and not _declaration(lines, i):
                starts.append((i, m.group(1)))
        elif raw.startswith("inline void ") and raw.rstrip().endswith("(") and i and lines[i - 1].startswith("template <"):
            # a CPP GEMM template's micro-kernel (`template <…>` / `inline void <k>_micro_gemm_kernel(`): its own
            # function, named in `Exception raised from <function>`, so a kernel of its own
            m = _SIGNATURE_NAME.search(raw.strip())
            if m:
                starts.append((i, m.group(1)))
    out = {}
    for j, (i, name) in enumerate(starts):
        end = starts[j + 1][0] if j + 1 < len(starts) else len(lines)
        if end < len(lines) and lines[end - 1].startswith("template <"):
            end -= 1  # the next micro-kernel's template line
        checks = tuple(k for k in range(i, end) if lines[k].lstrip().startswith(CHECK_STARTS))
        out.setdefault(name, (i, end, checks))
    return out


_NAME_FLAVORS = (("triton_poi_", "pointwise"), ("triton_red_", "reduction"), ("triton_per_", "persistent_reduction"),
                 ("triton_tem_", "template"), ("triton_for_", "foreach"))


def decorator_heuristic(line: str) -> str | None:
    """``@triton_heuristics.pointwise(`` -> "pointwise" (None for any other line)."""
    m = _DECORATOR.search(line)
    return m.group(1) if m else None


def kernel_heuristic(name: str, decorator: str | None) -> str:
    """A Triton kernel's heuristic: its ``@triton_heuristics.<heuristic>(`` decorator, else what its name says."""
    if decorator:
        return decorator
    return next((f for prefix, f in _NAME_FLAVORS if name.startswith(prefix)), "other")
