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
from array import array
from itertools import accumulate, compress, count, islice, repeat
from operator import add

from ..dialects import Dialect, sniff
from .wrapper_map import EVERY, LauncherRegion, RunColumns, RunStatement, WrapperLines, WrapperMap
from .kernel_scan import decorator_heuristic


def scan_wrapper(text: str, member: str, dialect: Dialect | None = None, progress=None) -> WrapperMap:
    """Slice the wrapper into regions with plain string search (no grammar): the constructor's info statements, the
    ``check_input_K`` guards, each Triton launcher with its embedded source and assert lines, the CPU kernels
    it declares, and run_impl's statements.  Cost grows with the file's size only.

    The text between launchers is split into lines and walked line by line; each launcher (most of a CUDA
    wrapper: its embedded Triton source) is read with searches over the text itself, no string made per line
    (`_launcher_at`).  A region between launchers that runs on past the next launcher's line (a run_impl with
    no end before it) is read again, with the rest of the text, line by line: what every line of it is then
    does not depend on where a launcher was looked for."""
    d = dialect or sniff(text, member)
    wm = WrapperMap(member=member, dialect=d, lines=WrapperLines("", 0, array("q"), array("q")), launchers={},
                    cpp_kernels=set(), constructor=[], check_inputs=[], run=RunColumns())
    at_line, at_off = array("q"), array("q")  # the anchors: the lines the scan passed, and where each starts
    size = len(text)
    hint = text.count("\n") + 1 if progress is not None else 0  # (a progress bar's total only)
    off, base, final, whole = 0, 0, not d.launcher_start, None
    # what a line the line-by-line scan files starts with (`_scan_piece`): a piece holding none of them anywhere
    # (the `}` / template line between two launchers, 20,000 times) is counted, not walked
    filed = (d.check_input_start, d.run_impl_start, "void AOTInductorModel", d.cpp_kernel_decl,
             *d.constructor_info_starts)
    opens = _Next(text, d.triton_open_marker)
    # run_impl after the last launcher is read from the text in chunks (`_run_impl_at`), not split with the rest:
    # its ~480,000 lines then never all exist at once beside their stripped copies (a third of the page faults)
    fast = d.run_impl_end_prefix.startswith("}") and "::run_impl(" in d.run_impl_start
    while True:
        nxt, at_run = (-1 if final else line_starting(text, d.launcher_start, off)), False
        if nxt < 0 and fast and off > 0:
            fast = False
            nxt = _run_impl_line(text, d, off)
            at_run = nxt >= 0
        if nxt < 0:
            final = True
            lines = text[off:].split("\n")
        elif nxt > off:  # the lines before the launcher's line (text[nxt - 1] is the newline ending the last of them)
            piece = text[off:nxt - 1]
            piece_lines = piece.count("\n") + 1
            if piece_lines <= EVERY and not any(m in piece for m in filed):
                at_line.append(base)
                at_off.append(off)
                lines = None
            else:
                lines = piece.split("\n")
        else:
            lines, piece_lines = None, 0
        if lines is not None:
            piece_lines = len(lines)
            first = len(at_line)  # every `EVERY`th line of the piece anchored (its lines between: a walk of a few)
            at_line.extend(range(base, base + piece_lines, EVERY))
            at_off.extend(islice(accumulate(map(add, map(len, lines), repeat(1)), initial=off), 0, piece_lines, EVERY))
            stop = _scan_piece(wm, text, lines, base, final, off, progress, hint, opens)
            if stop is not None:  # a region ran past the piece: the rest of the text is read as one piece
                off += sum(map(len, lines[:stop])) + stop
                del at_line[first + (stop + EVERY - 1) // EVERY:], at_off[first + (stop + EVERY - 1) // EVERY:]
                base, final, fast = base + stop, True, False
                continue
            if final:
                whole = lines if off == 0 else None
                break
        if at_run:  # run_impl's line; after it no launcher (none was found past ``off``): the rest is read as one piece
            got = _run_impl_at(wm, text, nxt, base + piece_lines, at_line, at_off, progress, hint)
            if got is None:  # its body or end line not where the text search looks: read line by line from its line
                base, off, final = base + piece_lines, nxt, True
                continue
            (base, off), final = got, True
            if off > size:
                break
            continue
        base, off = _launcher_at(wm, text, nxt, base + piece_lines, at_line, at_off, opens)
        base += 1
        if progress is not None:
            progress(base, hint)
        if off > size:
            break
    n = at_line[-1] + text.count("\n", at_off[-1]) + 1
    if whole is not None:  # one piece, split whole anyway (no launcher: the CPU families): served as the list
        wm.lines = WrapperLines("", n, array("q"), array("q"), whole)
    else:
        wm.lines = WrapperLines(text, n, at_line, at_off)
    if progress is not None:
        progress(n, n)
    return wm


class _Next:
    """``text.find(marker, start)`` remembered: the first occurrence at or after a start is also the first at or after
    any later start up to it, so a search that went far (a launcher with no embedded source finds the next
    launcher's, or none at all) is not run again over the same text by the launchers after it."""

    __slots__ = ("text", "marker", "start", "found")

    def __init__(self, text: str, marker: str):
        self.text, self.marker = text, marker
        self.start: int | None = None  # (nothing searched yet)
        self.found = -1

    def __call__(self, start: int) -> int:
        if self.start is not None and self.start <= start and (start <= self.found or self.found == -1):
            return self.found
        self.start, self.found = start, self.text.find(self.marker, start)
        return self.found


def line_starting(text: str, marker: str, start: int, end: int | None = None) -> int:
    """Where the first line at or after offset ``start`` (a line's start) whose stripped text begins with ``marker``
    starts, when it starts before ``end`` (-1: none)."""
    find, rfind = text.find, text.rfind
    k = find(marker, start) if end is None else find(marker, start, end)
    while k >= 0:
        j = rfind("\n", start, k)
        ls = start if j < 0 else j + 1
        if ls == k or text[ls:k].isspace():
            return ls
        k = find(marker, k + 1) if end is None else find(marker, k + 1, end)
    return -1


def _scan_piece(wm: WrapperMap, text: str, lines: list[str], base: int, final: bool, off: int,
                progress, hint: int, opens: _Next) -> int | None:
    """The line-by-line scan of ``lines`` (wrapper lines ``base``…): None when done, else (a piece that is not the
    text's last) the index in ``lines`` of the region that ran past its end."""
    d = wm.dialect
    i, n, tick, at = 0, len(lines), 0, 0
    launcher = d.launcher_start
    while i < n:
        s = lines[i].strip()
        if progress is not None and i - tick > 65536:
            tick = i
            progress(base + i, hint)
        if launcher and s.startswith(launcher):  # (only in a piece read to the text's end after a run-off region)
            off += sum(map(len, lines[at:i])) + i - at  # where line i starts (summed on from the last launcher's)
            at = i
            end, _ = _launcher_at(wm, text, off, base + i, None, None, opens)
            i = end + 1 - base
            continue
        if s.startswith(d.check_input_start):
            k = int(d.check_input_index.search(s).group(1))
            j = i + 1
            while j < n and not lines[j].startswith("}"):
                j += 1
            if j == n and not final:
                return i
            wm.check_inputs.append((k, base + i + 1, base + j))
            i = j + 1
            continue
        if d.is_run_impl_start(s):
            wm.saw_run_impl = True
            mark = len(wm.run)
            after = _scan_run_impl(wm, lines, base, i, final)
            if after is None:
                wm.run.truncate(mark)
                return i
            i = after
            continue
        if s.startswith(d.cpp_kernel_decl) and d.cpp_kernel_name.search(s):
            wm.cpp_kernels.add(d.cpp_kernel_name.search(s).group(1))
        elif s.startswith(d.constructor_info_starts):
            wm.constructor.append((base + i + 1, s))
        i += 1
    return None


def _launcher_at(wm: WrapperMap, text: str, p: int, i: int, at_line, at_off, opens: _Next) -> tuple[int, int]:
    """The launcher whose ``static inline void call_…(`` line is wrapper line ``i``, starting at offset ``p``, read
    with searches over the text (each line as the line-by-line scan reads it: the parameters end at the first
    line whose stripped text starts with ``){``; the launcher at the first line after that starting with ``}``,
    an embedded source's lines skipped; its cubin on the last ``loadKernel(`` line after the source).  Returns
    (its last line, where the line after it starts: past the text's end when none).  ``at_line``/``at_off``
    (None: the caller has every line anchored already): where each line it found starts is appended there.
    ``opens``: the search for the next ``async_compile.triton(``, shared by the launchers of one scan."""
    d = wm.dialect
    size, find, rfind, count = len(text), text.find, text.rfind, text.count
    cur = [i, p]

    def line_of(o: int) -> int:  # the line starting at ``o`` (after every offset asked before)
        cur[0] += count("\n", cur[1], o)
        cur[1] = o
        if at_line is not None:
            at_line.append(cur[0])
            at_off.append(o)
        return cur[0]

    def last_line() -> int:  # the text's last line
        return cur[0] + count("\n", cur[1])

    if at_line is not None:
        at_line.append(i)
        at_off.append(p)
    e = find("\n", p)
    name = d.launcher_name.search(text, p, size if e < 0 else e).group(1)
    pe = -1 if e < 0 else line_starting(text, d.launcher_params_end, e + 1)
    if pe < 0:  # no `){` after it: the parameters (and the launcher) run to the text's end
        n = last_line() + 1
        r = wm.launchers[name] = LauncherRegion(name=name, start=i, params_end=n, end=n)
        return n, size + 1
    r = LauncherRegion(name=name, start=i, params_end=line_of(pe), end=0)
    asserts: list[int] = []
    seg, load, after = pe, d.load_kernel_marker, size + 1
    while True:
        o = seg
        while True:  # the next `async_compile.triton(` line the pattern reads (searched past the end, then bounded)
            o = opens(o)
            if o < 0:
                break
            j = rfind("\n", seg, o)
            ls = seg if j < 0 else j + 1
            oe = find("\n", o)
            oe = size if oe < 0 else oe
            if d.triton_open.search(text, ls, oe):
                o = ls
                break
            o = oe
        # the first line starting with `}` from here: the launcher's end, when it comes before that source
        k = find("\n}", seg - 1) if o < 0 else find("\n}", seg - 1, o + 1)
        if k >= 0 or o < 0:
            stop = size if k < 0 else k + 1
            if r.triton is not None:
                _load_line(text, r, load, seg, stop, line_of)
            if k < 0:
                r.end = last_line() + 1
            else:
                r.end = line_of(k + 1)
                nxt = find("\n", k + 1)
                after = size + 1 if nxt < 0 else nxt + 1
            break
        if r.triton is not None:
            _load_line(text, r, load, seg, o, line_of)
        start = line_of(o)
        close = _source_at(wm, text, r, oe + 1, asserts, line_of) if oe < size else -1
        if close < 0:  # no closing line: the source runs to the text's end, and so does the launcher
            n = last_line() + 1
            r.triton, r.end = (start, n + 1), n + 1
            break
        end_line = line_of(close)
        r.triton = (start, end_line + 1)
        ce = find("\n", close)
        if ce < 0:  # the closing line is the text's last
            r.end = end_line + 1
            break
        seg = ce + 1
    r.asserts = tuple(asserts)
    wm.launchers[name] = r
    return r.end, after


def _load_line(text: str, r: LauncherRegion, marker: str, start: int, stop: int, line_of) -> None:
    """The last line in [start, stop) (offsets of line starts) holding ``marker``, as the launcher's cubin line."""
    q = text.rfind(marker, start, stop)
    if q >= 0:
        j = text.rfind("\n", start, q)
        r.load_line = line_of(start if j < 0 else j + 1)


def _source_at(wm: WrapperMap, text: str, r: LauncherRegion, o: int, asserts: list[int], line_of) -> int:
    """An embedded Triton source from the line starting at ``o``: its decorator (an ``@`` line before the ``def``
    line), its asserts (added to ``asserts``, by line); returns where its closing line starts (-1: none)."""
    d = wm.dialect
    find, rfind = text.find, text.rfind
    close = line_starting(text, d.triton_close, o)
    stop = len(text) if close < 0 else close
    df = line_starting(text, "def ", o, stop)
    head = stop if df < 0 else df
    k = find("@", o, head)
    while k >= 0:  # the `@` lines before the def line: the last with a heuristic names it
        j = rfind("\n", o, k)
        ls = o if j < 0 else j + 1
        e = find("\n", k)
        e = len(text) if e < 0 else e
        if ls == k or text[ls:k].isspace():
            r.decorator = decorator_heuristic(text[k:e]) or r.decorator
        k = find("@", e, head)
    check = d.device_assert
    k = line_starting(text, check, o, stop)
    while k >= 0:
        asserts.append(line_of(k))
        e = find("\n", k)
        k = line_starting(text, check, e + 1, stop) if 0 <= e < stop else -1
    return close


def _scan_run_impl(wm: WrapperMap, lines: list[str], base: int, i: int, final: bool) -> int | None:
    """run_impl from ``lines[i]`` (its signature line; wrapper line ``base + i``): one `RunStatement` per non-empty
    line of its body.  Returns the index in ``lines`` after its end, or None when its body or its end is not in
    ``lines`` and ``final`` is False (the caller reads on with the rest of the text)."""
    d = wm.dialect
    n = len(lines)
    i += 1
    while i < n and not lines[i].startswith(d.run_impl_body):
        i += 1
    if i == n and not final:
        return None
    i += 1
    end = i
    is_end = d.is_run_impl_end
    if d.run_impl_end.startswith("}"):  # every end line opens with `}` (both spellings): ask only those
        end = next((k for k in compress(count(end), map(str.startswith, map(lines.__getitem__, range(end, n)),
                                                         repeat("}"))) if is_end(lines[k])), n)
    else:
        while end < n and not is_end(lines[end]):
            end += 1
    if end >= n and not final:
        return None
    _run_statements(wm, lines[i:end], base + i + 1)
    return end + 1


def _run_impl_line(text: str, d: Dialect, off: int) -> int:
    """Where the first line at or after offset ``off`` (a line's start) starts whose stripped text opens run_impl
    (`Dialect.is_run_impl_start`; every spelling holds ``::run_impl(``), -1 when none does."""
    find = text.find
    k = find("::run_impl(", off)
    while k >= 0:
        j = text.rfind("\n", off, k)
        ls = off if j < 0 else j + 1
        e = find("\n", k)
        e = len(text) if e < 0 else e
        if d.is_run_impl_start(text[ls:e].strip()):
            return ls
        k = find("::run_impl(", e)
    return -1


RUN_CHUNK = 1 << 22  # run_impl's body is split and read ~4 MB of text at a time


def _run_impl_at(wm: WrapperMap, text: str, r: int, line: int, at_line, at_off, progress, hint) -> tuple[int, int] | None:
    """run_impl from offset ``r`` (its signature line, wrapper line ``line``), read as `_scan_run_impl` reads it from the
    lines of the rest of the text, but from the text itself: its body line (the first line after it starting with
    ``run_impl_body``), its end line (the first after that opening with ``}`` that `is_run_impl_end`), the lines
    between split a chunk at a time.  Returns (the line after its end, where that line starts: past the text's end
    when none); None, having changed nothing, when its body line or its end line is not found (the caller then
    reads it line by line)."""
    d = wm.dialect
    find, size = text.find, len(text)
    e = find("\n", r)
    body = find("\n" + d.run_impl_body, e) + 1 if e >= 0 else 0
    body_end = find("\n", body) if body > 0 else -1
    if body_end < 0:
        return None
    # the first line after the body line that `is_run_impl_end`: among those opening with what all such lines do
    # (a long prefix: a search for "\n}" over 45 MB of statements took 0.06 s)
    is_end, opens, end = d.is_run_impl_end, "\n" + d.run_impl_end_prefix, -1
    k = find(opens, body_end)
    while k >= 0:
        le = find("\n", k + 1)
        le = size if le < 0 else le
        if is_end(text[k + 1:le]):
            end = k + 1
            break
        k = find(opens, le) if le < size else -1
    if end < 0:
        return None
    wm.saw_run_impl = True
    body_line = line + text.count("\n", r, body)
    at_line.extend((line, body_line))
    at_off.extend((r, body))
    pos, ln = body_end + 1, body_line + 1  # the body's lines: [pos, end - 1), the newline before the end line
    while pos < end:
        cut = find("\n", min(pos + RUN_CHUNK, end - 1))
        lines = text[pos:cut].split("\n")
        at_line.extend(range(ln, ln + len(lines), EVERY))
        at_off.extend(islice(accumulate(map(add, map(len, lines), repeat(1)), initial=pos), 0, len(lines), EVERY))
        _run_statements(wm, lines, ln + 1)
        ln += len(lines)
        pos = cut + 1
        if progress is not None:
            progress(ln, hint)
    at_line.append(ln)
    at_off.append(end)
    after = find("\n", end)
    return ln + 1, size + 1 if after < 0 else after + 1


def _run_statements(wm: WrapperMap, lines: list[str], line_no: int) -> None:
    """run_impl's body lines ``lines`` (the first is wrapper line ``line_no``, 1-based) into the four columns."""
    d = wm.dialect
    # One statement per non-empty line, in the four columns (~480,000 lines on 20k kernels): the lines stripped and
    # the empty ones dropped at C speed (`map`, `compress`, `filter`), then one pass over the statements for their
    # kinds and callees, with locals, not attribute look-ups (a size check's text is cut to the check in place).
    # (`start_rule`'s few `startswith` calls: one alternation pattern matched per line instead took twice as long)
    run, start_rule, size_stride, checked = wm.run, d.start_rule, d.size_stride_check, d.checked_call
    skip = len(checked)
    stripped = list(map(str.strip, lines))
    first = len(run.text)
    run.line.extend(compress(count(line_no), stripped))
    run.text.extend(filter(None, stripped))
    del stripped
    texts, kinds, callees = run.text, run.kind.append, run.callee.append
    for k, s in enumerate(islice(texts, first, None), first):
        c = s[0]
        if c == "/" and s[:2] == "//":
            kinds("comment")
            callees(None)
            continue
        if c == "i" and s[:4] == "if (" and size_stride in s:
            texts[k] = s[s.index(size_stride): s.rindex(";") + 1]
            kinds("size_stride")
            callees(None)
            continue
        rule = start_rule(s)
        kinds(rule)
        if rule == "call":
            callees(s[: s.index("(")])
        elif rule == "checked_call":
            rest = s[skip:]
            callees(rest[: rest.index("(")] if "(" in rest else None)
        else:
            callees(None)


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
    elif not any(c and d.call_target(c, wm.cpp_kernels, wm.launchers) for c in wm.run.callee):
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
