"""The `pt2-inspect` command: thin over the library (inspector.summary, inspector.trace, inspector.graph).

Exit codes: 0 ok · 1 nothing found · 2 usage · 3 unreadable input or not an AOTI package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import __version__
from .errors import InspectorError, NothingFound, UnreadablePackage, UsageError

EXIT_CODES = """exit codes:
  0  ok
  1  nothing found (no assertion matched); for check: an input does not fit
  2  usage error (bad arguments, unknown --model)
  3  unreadable input or not an AOTI package (not a file, not a zip, truncated zip,
     no data/aotinductor/<model>/ inside, wrapper that is not UTF-8)"""

MAIN_HELP = f"""Inspect PyTorch AOTInductor .pt2 packages and trace their failures,
from the package alone: nothing inside it is run, loaded or unpickled.

PKG may be a .pt2 file, an extracted package folder, or a bare *.wrapper.cpp.

examples:
  pt2-inspect show model.pt2
  pt2-inspect trace-assert model.pt2 --log error.txt
  python serve.py 2>&1 | pt2-inspect trace-assert model.pt2 --log -
  pt2-inspect trace-assert model.pt2 --line 38
  pt2-inspect diagnose model.pt2 --log crash.log
  pt2-inspect check model.pt2 --input 0=float32[0,8]@cuda --input 1=int64[3]@cuda
  pt2-inspect graph model.pt2 --format dot > model.dot

{EXIT_CODES}
"""

SHOW_HELP = """Summarize a package: device (cuda/cpu, compute capability, CPU ISA), inputs with
dtypes and symbolic shapes, symbols and the range their guards allow, outputs,
constants, kernels by kind with how many assertions each holds.

example:
  pt2-inspect show sample_packages/cuda/jagged/jagged.pt2
  pt2-inspect show pkg.pt2 --json | jq '.models[0].symbols'
"""

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
  pt2-inspect trace-assert pkg.pt2 --log crash.log
  pt2-inspect trace-assert pkg.pt2 --message "/tmp/x/cabc.py:38: unknown: block: [0,0,0], thread: [0,0,0] Assertion \\`index out of bounds: 0 <= tmp9 < ks0\\` failed."
  pt2-inspect trace-assert pkg.pt2 --line 52 --kernel cpp_fused_index_0 --json
"""

GRAPH_HELP = """Export the package's graph (inputs, symbols, buffers, kernels, call sites, kernel
params, tmp values, assertions, FX nodes; edges defines/aliases/binds/reads/
writes/…) for other tools.

examples:
  pt2-inspect graph pkg.pt2 --format dot | dot -Tsvg > pkg.svg
  pt2-inspect graph pkg.pt2 --format graphml -o pkg.graphml
"""


def _parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = argparse.ArgumentParser(prog="pt2-inspect", description=MAIN_HELP, formatter_class=fmt)
    p.add_argument("--version", action="version", version=f"pt2-inspect {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("show", help="what the package is", description=SHOW_HELP, formatter_class=fmt,
                       epilog=EXIT_CODES)
    s.add_argument("package", metavar="PKG")
    s.add_argument("--model", help="only this model (a package can hold several)")
    s.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    s.add_argument("--ep", metavar="FILE", help="an exported program (torch.export.save) for user input names")

    t = sub.add_parser("trace-assert", help="trace a failing assertion to the model input", description=TRACE_HELP,
                       formatter_class=fmt, epilog=EXIT_CODES)
    t.add_argument("package", metavar="PKG")
    t.add_argument("--line", type=int, metavar="N", help="the line the error names")
    t.add_argument("--message", metavar="TEXT", help="the pasted error text, or the assertion message")
    t.add_argument("--log", metavar="FILE", help="a log file holding the error ('-' for stdin)")
    t.add_argument("--kernel", metavar="NAME", help="only assertions of this kernel")
    t.add_argument("--model", metavar="NAME", help="only this model of the package")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.add_argument("--ep", metavar="FILE", help="an exported program (torch.export.save) for user names and lines")

    from .commands import check, diagnose

    for mod in (diagnose, check):
        mod.add_parser(sub, fmt, EXIT_CODES)
    g = sub.add_parser("graph", help="export the graph as DOT or GraphML", description=GRAPH_HELP,
                       formatter_class=fmt, epilog=EXIT_CODES)
    g.add_argument("package", metavar="PKG")
    g.add_argument("--format", choices=["dot", "graphml"], default="dot")
    g.add_argument("--model", metavar="NAME", help="which model (default: the only one, or 'model')")
    g.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    return p


def _console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 140)


def _read_log(arg: str) -> str:
    if arg == "-":
        return sys.stdin.read()
    if not os.path.exists(arg) or os.path.isdir(arg):
        raise UsageError(f"--log {arg}: no such file")
    with open(arg, "rb") as f:
        return f.read(64 * 1024 * 1024).decode("utf-8", "replace")


def cmd_show(a) -> int:
    from .package import open_package
    from .summary import summarize

    with open_package(a.package) as pkg:
        s = summarize(pkg, a.model)
        from .exported_program import annotate_summary

        annotate_summary(pkg, s, a.ep)
    if a.json:
        print(json.dumps(s, indent=2))
    else:
        from .render import render_summary

        render_summary(_console(), s)
    return 0


def cmd_trace(a) -> int:
    from .package import open_package
    from .trace import trace_assert

    log = _read_log(a.log) if a.log else None
    if log is None and a.line is None and a.message is None and a.kernel is None and not sys.stdin.isatty():
        log = sys.stdin.read()
    with open_package(a.package) as pkg:
        ep = None
        if a.ep:
            from .exported_program import load_ep

            ep = load_ep(a.ep)
        r = trace_assert(pkg, line=a.line, message=a.message, log=log, kernel=a.kernel, model=a.model, ep=ep)
    if a.json:
        print(json.dumps(r.to_dict(), indent=2))
    else:
        from .render import render_trace

        render_trace(_console(), r)
    if not r.matches and not r.candidates:
        if not a.json:
            print(f"pt2-inspect: nothing found: no assertion in {a.package} matches {r.looked_for}", file=sys.stderr)
        return NothingFound.exit_code
    return 0


def cmd_graph(a) -> int:
    from .export import to_dot, to_graphml
    from .package import open_package

    with open_package(a.package) as pkg:
        g = pkg.graph(a.model)
        text = to_dot(g) if a.format == "dot" else to_graphml(g)
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = _parser()
    try:
        a = p.parse_args(argv)
    except SystemExit as e:  # argparse: usage errors exit 2, --help/--version exit 0
        return int(e.code or 0)
    if not a.command:
        p.print_help()
        return UsageError.exit_code
    try:
        from .commands import check, diagnose

        return {"show": cmd_show, "trace-assert": cmd_trace, "graph": cmd_graph, "diagnose": diagnose.run,
                "check": check.run}[a.command](a)
    except InspectorError as e:
        print(f"pt2-inspect: error: {e}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except (RecursionError, MemoryError, ValueError, KeyError, IndexError, AttributeError, TypeError) as e:
        if os.environ.get("PT2_INSPECT_DEBUG"):
            raise
        print(f"pt2-inspect: error: could not read {getattr(a, 'package', '?')}: {type(e).__name__}: {e} "
              "(a format this version does not know? set PT2_INSPECT_DEBUG=1 for the traceback)", file=sys.stderr)
        return UnreadablePackage.exit_code


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
