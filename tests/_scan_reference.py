"""The wrapper scan as it was before `WrapperLines` (a list of every line, walked line by line): the reference the
new scan is checked against (tests/_scan_check.py, used by tests/samples/test_scan_text.py and
tests/unit/test_scan_cuts.py), as pyelftools checks itself against readelf."""

from __future__ import annotations

from itertools import compress, count, repeat

from inspector.dialects import sniff
from inspector.dialects.base import _BINDS, _CALL_HEAD, _DECL_WORDS  # the words; the dispatch below is the old one
from inspector.parse.kernel_scan import decorator_heuristic
from inspector.parse.wrapper_map import LauncherRegion, RunStatement, WrapperMap


def reference_scan(text: str, member: str, dialect: Dialect | None = None, progress=None) -> WrapperMap:
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
    run, size_stride, checked = wm.run, d.size_stride_check, d.checked_call
    skip = len(checked)
    append = run.append

    def start_rule(s: str) -> str | None:
        return reference_start_rule(d, s)

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


def reference_start_rule(d, s: str) -> str | None:
    """`Dialect.start_rule` as it was before it asked each prefix only of statements starting with its letter."""
    if s.startswith(d.checked_call):
        return "checked_call"
    if s.startswith(_DECL_WORDS):
        return "declaration"
    if s.startswith(("AtenTensorHandle ", "RAIIAtenTensorHandle ")):
        return "declaration" if _BINDS.match(s) else "handle_decl"
    if s.startswith("output_handles["):
        return "assignment"
    if _CALL_HEAD.match(s):
        return "call"
    return None
