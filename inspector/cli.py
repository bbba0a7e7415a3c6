"""The `pt2-inspect` command: thin over the library (inspector.summary, inspector.trace, inspector.graph).

Exit codes: 0 ok · 1 nothing found (or --strict and a statement skipped) · 2 usage ·
3 unreadable input or not an AOTI package · 4 internal error (a bug in pt2-inspect).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import __version__
from .errors import INTERNAL_ERROR_EXIT, STRICT_EXIT, InspectorError, NothingFound, UsageError

EXIT_CODES = """exit codes:
  0  ok
  1  nothing found (no assertion matched); for check: an input does not fit; with
     --strict also: a statement no grammar rule understood was skipped
  2  usage error (bad arguments, unknown --model, an empty or binary log,
     an -o that cannot be written)
  3  unreadable input or not an AOTI package (not a file, not a zip, truncated zip,
     no data/aotinductor/<model>/ inside, wrapper that is not UTF-8)
  4  internal error: a bug in pt2-inspect, not in the package (rerun with --debug
     for the traceback and report it)"""

GLOBAL_FLAGS = (
    ("--debug", "on an internal error, print the traceback instead of one line"),
    ("--strict", "exit 1 when a statement of the package was skipped (no grammar rule understood it)"),
    ("--no-cache", "neither read nor write the index cache ($PT2_INSPECT_CACHE_DIR, default ~/.cache/pt2-inspect)"),
)


def _add_global_flags(p: argparse.ArgumentParser, sub: bool) -> None:
    """The flags every command takes, before or after the command name."""
    for flag, text in GLOBAL_FLAGS:
        kw = {"default": argparse.SUPPRESS} if sub else {"default": False}
        p.add_argument(flag, action="store_true", help=text, **kw)

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
  pt2-inspect graph model.pt2 --around triton_poi_fused_index_1 --format dot | dot -Tsvg > n.svg
  pt2-inspect source model.pt2 --wrapper --line 1029
  pt2-inspect report model.pt2 --log error.txt -o report.html

{EXIT_CODES}
"""

SHOW_HELP = """Summarize a package: device (cuda/cpu, compute capability, CPU ISA), inputs with
dtypes and symbolic shapes, symbols and the range their guards allow, outputs,
constants, kernels by kind with how many assertions each holds (the table shows
60 kernels, those with assertions first; --all-kernels or --json for all).

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

A whole package is large (a transformer: ~1,300 nodes, which `dot` takes minutes
to lay out): draw the neighbourhood of one thing with --around. It takes a
kernel name, an assertion (KERNEL:LINE), an input (its index or wrapper name,
e.g. 0 or arg0_1), a symbol (s59), a buffer (buf0), an FX node, or any node id
of the graph (kernel:NAME, input:0, sym:s59…), and keeps the nodes within
--depth edges of it (either direction).

examples:
  pt2-inspect graph pkg.pt2 --around triton_poi_fused_index_1 --format dot | dot -Tsvg > k.svg
  pt2-inspect graph pkg.pt2 --around triton_poi_fused_index_1:38 --depth 3
  pt2-inspect graph pkg.pt2 --around arg0_1 --json | jq '.nodes | length'
  pt2-inspect graph pkg.pt2 --format graphml -o pkg.graphml
"""


def _parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = argparse.ArgumentParser(prog="pt2-inspect", description=MAIN_HELP, formatter_class=fmt)
    p.add_argument("--version", action="version", version=f"pt2-inspect {__version__}")
    _add_global_flags(p, sub=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("show", help="what the package is", description=SHOW_HELP, formatter_class=fmt,
                       epilog=EXIT_CODES)
    s.add_argument("package", metavar="PKG")
    s.add_argument("--model", help="only this model (a package can hold several)")
    s.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    s.add_argument("--ep", metavar="FILE", help="an exported program (torch.export.save) for user input names")
    s.add_argument("--wide", action="store_true", help="never wrap or cut: lines as long as they need (default when piped)")
    s.add_argument("--all-kernels", action="store_true",
                   help="a row for every kernel (by default the table shows 60, those with assertions first; "
                        "--json always lists all)")
    s.add_argument("--full", action="store_true",
                   help="parse every statement, so the coverage line counts the whole package (by default show "
                        "scans the kernels and parses only the statements its facts need); --strict implies it")

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
    t.add_argument("--wide", action="store_true", help="never wrap or cut: lines as long as they need (default when piped)")

    from .commands import check, diagnose

    for mod in (diagnose, check):
        mod.add_parser(sub, fmt, EXIT_CODES)
    g = sub.add_parser("graph", help="export the graph (or --around one thing) as DOT, GraphML or JSON", description=GRAPH_HELP,
                       formatter_class=fmt, epilog=EXIT_CODES)
    g.add_argument("package", metavar="PKG")
    g.add_argument("--format", choices=["dot", "graphml", "json"], default="dot")
    g.add_argument("--json", action="store_true", help="same as --format json (node-link JSON)")
    g.add_argument("--around", metavar="THING", help="only the neighbourhood of a kernel, KERNEL:LINE assertion, input, "
                   "symbol, buffer, FX node or node id")
    g.add_argument("--depth", type=int, default=2, metavar="N", help="with --around: edges away to keep (default 2)")
    g.add_argument("--model", metavar="NAME", help="which model (default: the only one, or 'model')")
    g.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")

    # Commands in their own module: add_parser(sub) ends with set_defaults(run=run); main() calls a.run(a).
    from .commands import extract, report, source

    for command in (report, source, extract):
        command.add_parser(sub)
    for sp in {id(x): x for x in sub.choices.values()}.values():
        _add_global_flags(sp, sub=True)
    return p


class _Progress:
    """A rich bar on stderr for indexing, shown only once it has taken a second (never on stdout)."""

    def __init__(self, label: str):
        import time

        self.label, self.clock, self.t0, self.bar = label, time.monotonic, time.monotonic(), None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if self.clock() - self.t0 < 1.0:
                return
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(f"{self.label} (lines of wrapper.cpp)", total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


WIDE = 100_000  # piped or --wide: no line is ever cut or wrapped, so names can be copied and grepped


def _console(wide: bool = False):
    """A terminal gets its width (rich reads COLUMNS); a pipe or --wide gets lines as long as they need."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich exits 1 here; a closed pipe is no error for us (see main)
            self.quiet = True
            raise BrokenPipeError

    return _Console(highlight=False, soft_wrap=False, width=WIDE if wide or not sys.stdout.isatty() else None)


def _read_log(arg: str) -> str:
    """The log text; a usage error (exit 2) for a missing, empty or binary file."""
    name = "stdin" if arg == "-" else arg
    if arg == "-":
        data = _stdin_bytes()
    else:
        if not os.path.exists(arg) or os.path.isdir(arg):
            raise UsageError(f"--log {arg}: no such file")
        try:
            with open(arg, "rb") as f:
                data = f.read(64 * 1024 * 1024)
        except OSError as e:
            raise UsageError(f"--log {arg}: cannot read it ({e.strerror})") from None
    return _log_text(data, f"--log {name}")


def _stdin_bytes(limit: int = 64 * 1024 * 1024) -> bytes:
    buf = getattr(sys.stdin, "buffer", None)
    return buf.read(limit) if buf is not None else sys.stdin.read(limit).encode("utf-8", "replace")


def _log_text(data: bytes, what: str) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with a BOM (a PowerShell redirect): text, not binary
        data = data.decode("utf-16", "replace").encode("utf-8")
    if not data.strip():
        raise UsageError(f"{what} is empty: give the log that holds the error (or --line N / --message TEXT)")
    if b"\0" in data[:65536]:
        kind = " (a zip archive: the package itself?)" if data[:4] == b"PK\x03\x04" else ""
        raise UsageError(f"{what} is a binary file{kind}, not a text log")
    return data.decode("utf-8", "replace")


def cmd_show(a) -> int:
    from .package import open_package
    from .summary import summarize

    with open_package(a.package) as pkg:
        s = summarize(pkg, a.model, full=a.full or a.strict)
        from .exported_program import annotate_summary

        annotate_summary(pkg, s, a.ep)
    if a.json:
        print(json.dumps(s.to_dict(), indent=2))
    else:
        from .render import MAX_KERNEL_ROWS, render_summary

        render_summary(_console(a.wide), s, None if a.all_kernels else MAX_KERNEL_ROWS)
    return 0


def cmd_trace(a) -> int:
    from .package import open_package
    from .trace import trace_assert

    log = _read_log(a.log) if a.log else None
    if log is None and a.line is None and a.message is None and a.kernel is None and not sys.stdin.isatty():
        data = _stdin_bytes()
        if not data.strip():
            raise UsageError("nothing on stdin and no --log/--message/--line/--kernel: say what failed "
                             "(see pt2-inspect trace-assert --help)")
        log = _log_text(data, "stdin")
    with open_package(a.package) as pkg:
        from .exported_program import load_ep_option

        ep = load_ep_option(a.ep)
        r = trace_assert(pkg, line=a.line, message=a.message, log=log, kernel=a.kernel, model=a.model, ep=ep)
        there = "" if r.matches or r.candidates else _what_is_there(pkg, a)
    if a.json:
        print(json.dumps(r.to_dict(), indent=2))
    else:
        from .render import render_trace

        render_trace(_console(a.wide), r)
    if not r.matches and not r.candidates:
        print(f"pt2-inspect: nothing found: no assertion in {a.package} matches {r.looked_for}{there}", file=sys.stderr)
        return NothingFound.exit_code
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


def check_output_path(path: str, flag: str = "-o") -> None:
    """A usage error (exit 2) now, before any work, for an -o that cannot be written."""
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path} is a directory: give a file name (e.g. {os.path.join(path, 'out')})")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"{flag} {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {path}: not writable")


def write_output(path: str, text: str, flag: str = "-o") -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"{flag} {path}: cannot write it ({e.strerror})") from None


def cmd_graph(a) -> int:
    from .export import neighbourhood_of, to_dot, to_graphml, to_json
    from .package import open_package

    if a.output:
        check_output_path(a.output)
    if a.depth < 0:
        raise UsageError("--depth must be 0 or more")
    fmt = "json" if a.json else a.format
    with open_package(a.package) as pkg:
        g = neighbourhood_of(pkg, a.model, a.around, a.depth) if a.around else pkg.graph(a.model)
        if a.around:
            if g.graph["truncated"]:
                print(f"pt2-inspect: note: kept the {g.number_of_nodes()} nodes nearest {g.graph['around']} "
                      f"(more lie within --depth {a.depth}; a smaller --depth shows all of a nearer ring)", file=sys.stderr)
        elif g.number_of_nodes() > 300:
            print(f"pt2-inspect: note: the whole graph has {g.number_of_nodes()} nodes and {g.number_of_edges()} edges; "
                  "`dot` needs minutes for that: draw one part with --around KERNEL|KERNEL:LINE|INPUT [--depth N]",
                  file=sys.stderr)
        text = {"dot": to_dot, "graphml": to_graphml, "json": to_json}[fmt](g)
    if a.output:
        write_output(a.output, text)
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
    debug = a.debug or bool(os.environ.get("PT2_INSPECT_DEBUG"))
    from . import package

    from .index import cache

    saved = cache.ENABLED, package.PROGRESS
    package.SEEN.clear()
    cache.ENABLED = not a.no_cache
    package.PROGRESS = _Progress if sys.stderr.isatty() and not getattr(a, "json", False) else None
    try:
        return _run(a, debug)
    finally:  # main() may be called in-process (tests, scripts): leave the library as it was
        cache.ENABLED, package.PROGRESS = saved


def _run(a, debug: bool) -> int:
    from . import package

    try:
        from .commands import check, diagnose

        commands = {"show": cmd_show, "trace-assert": cmd_trace, "graph": cmd_graph, "diagnose": diagnose.run,
                    "check": check.run}
        rc = commands[a.command](a) if a.command in commands else a.run(a)
    except InspectorError as e:
        print(f"pt2-inspect: error: {e}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:  # `| head`: the reader has all it wants; say nothing, exit 0
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug in pt2-inspect: bad packages raise InspectorError above
        if debug:
            raise
        msg = str(e).splitlines()[0][:300] if str(e) else ""
        print(f"pt2-inspect: internal error ({type(e).__name__}{': ' + msg if msg else ''}): a bug in pt2-inspect, "
              "not a problem with the package; rerun with --debug for the traceback and report it", file=sys.stderr)
        return INTERNAL_ERROR_EXIT
    skipped = package.skipped() if a.strict else []
    if skipped and rc == 0:
        what = "; ".join(f"{p} model {m!r}: {n}" for p, m, n in skipped)
        print(f"pt2-inspect: --strict: statements no grammar rule understood were skipped ({what}); "
              "`show --json` lists them under coverage", file=sys.stderr)
        return STRICT_EXIT
    return rc


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def entry() -> None:
    rc = main()
    try:
        sys.stdout.flush()  # what is still buffered goes now, while a closed pipe can still be caught
    except BrokenPipeError:
        _silence_stdout()
    sys.exit(rc)


if __name__ == "__main__":
    entry()
