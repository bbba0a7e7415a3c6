"""`pt2-inspect trace-assert`: a failing assertion traced to its kernel, bound, symbol and model input."""

from __future__ import annotations

import json
import sys

from ..errors import NothingFound, UsageError
from ._args import add_ep, add_json, add_log, add_model, add_package, add_wide, command_parser
from ._io import console, log_text, read_log, read_report, stdin_bytes

TRACE_HELP = """Trace a failing assertion to its kernel, the kernel's size parameter ksM, the
wrapper symbol sN, the model input and dimension, where the index values come
from, and the source FX nodes; then explain it.

Give the error as printed (best: the .py path or kernel name in it tells
identical assertions apart):
  --log FILE      a file holding the error or a whole log ('-' reads stdin)
  --message TEXT  the pasted error (one or several lines) or just the message
  --line N        the line alone: lists every kernel with an assertion on line N
                  (Triton .py numbering and kernel.cpp numbering), ranked
With no option and text on stdin, stdin is read as the log.

examples:
  pt2-inspect trace-assert sample_packages/cuda/jagged/jagged.pt2 --log sample_packages/cuda/jagged/error.log
  pt2-inspect trace-assert sample_packages/cuda/jagged/jagged.pt2 --message "/tmp/x/cabc.py:38: unknown: block: [0,0,0], thread: [0,0,0] Assertion \\`index out of bounds: 0 <= tmp9 < ks0\\` failed."
  pt2-inspect trace-assert sample_packages/cpu/jagged/jagged.pt2 --kernel cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0 --json
"""


def add_parser(sub):
    t = command_parser(sub, "trace-assert", "trace a failing assertion to the model input", TRACE_HELP)
    add_package(t)
    t.add_argument("--line", type=int, metavar="N", help="the line the error names")
    t.add_argument("--message", metavar="TEXT", help="the pasted error text, or the assertion message")
    add_log(t, "a log file holding the error ('-' for stdin)")
    t.add_argument("--kernel", metavar="NAME", help="only assertions of this kernel")
    add_model(t)
    add_json(t)
    add_ep(t)
    add_wide(t)
    t.add_argument("--verbose", action="store_true",
                   help="the verdict in full, the kernel's lines around the check, the bound hop by hop, and every "
                        "hypothesis' evidence (by default a trace fits about 30 lines at 80 columns)")
    return t


def run(a) -> int:
    from ..package import open_package
    from ..queries.trace import trace_assert
    from ..queries.trace_log import trace_log

    log = read_log(a.log, instead="--line N / --message TEXT") if a.log else None
    if log is None and a.line is None and a.message is None and a.kernel is None and not sys.stdin.isatty():
        data = stdin_bytes()
        if not data.strip():
            raise UsageError("nothing on stdin and no --log/--message/--line/--kernel: say what failed "
                             "(see pt2-inspect trace-assert --help)")
        log = log_text(data, "stdin", "--line N / --message TEXT")
    report = read_report(a, log, a.log or "-") if log is not None else None  # the log read once
    with open_package(a.package) as pkg:
        from ..parse.exported_program import load_ep_option

        ep = load_ep_option(a.ep)
        kw = dict(line=a.line, message=a.message, kernel=a.kernel, model=a.model, ep=ep,
                  log_name=a.log if a.log and a.log != "-" else None)
        # a log: the trace, and what diagnose says the log is when it holds no check (one reading, one trace)
        r = trace_log(pkg, report, **kw) if report is not None else trace_assert(pkg, report=None, **kw)
        there = "" if r.matches or r.candidates else _what_is_there(pkg, a)
    if a.json:
        print(json.dumps(r.to_dict(), indent=2))
    else:
        from ..render.trace import render_trace

        render_trace(console(a.wide), r, verbose=a.verbose)
    if not r.matches and not r.candidates:
        print(f"pt2-inspect: nothing found: no assertion in {a.package} matches {r.looked_for}{there}", file=sys.stderr)
        if r.log_category == "no_failure":
            print("pt2-inspect: the log shows no failure: "
                  f"`pt2-inspect check {a.package} --input …` checks the inputs you ran with", file=sys.stderr)
        elif r.log_category and r.log_category != "unknown":
            print(f"pt2-inspect: the log is not an assertion's: diagnose calls it {r.log_category!r}; "
                  f"`pt2-inspect diagnose {a.package} --log {a.log or '-'}` answers it", file=sys.stderr)
        return NothingFound.exit_code  # no assert fired: nothing to trace (exit 1, as for a clean log)
    return 0


def _what_is_there(pkg, a, limit: int = 30) -> str:
    """For a miss: the kernels (for --kernel) or assertion lines (for --line) that do exist."""
    indexes = [pkg.index(n) for n in ([a.model] if a.model else pkg.model_names)]  # the scan: nothing parsed
    asserts = [(ix.name, s.kernel, s.line) for ix in indexes for s in ix.assert_sites()]
    names = {k for ix in indexes for k in ix.kernel_names()}

    def cut(items):
        items = list(dict.fromkeys(items))
        return ", ".join(items[:limit]) + (f" … ({len(items)} in all)" if len(items) > limit else "")

    if a.kernel and a.kernel not in names:
        import difflib

        close = difflib.get_close_matches(a.kernel, names, n=3, cutoff=0.6)
        return (f"; there is no kernel {a.kernel!r}" + (f" (did you mean {', '.join(close)}?)" if close else "")
                + f"; kernels with assertions: {cut(k for _, k, _ in asserts) or 'none'}")
    if a.kernel:
        lines = [str(ln) for _, k, ln in asserts if k == a.kernel]
        return f"; kernel {a.kernel} has assertions on lines: {', '.join(lines)}" if lines else \
            f"; kernel {a.kernel} has no assertions"
    if a.line is not None:
        return f"; assertion lines there are: {cut(f'{ln} ({k})' for _, k, ln in asserts) or 'none'}"
    return ""
