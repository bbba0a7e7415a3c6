"""The `pt2-inspect` command: thin over the library (inspector.queries.show, inspector.queries, inspector.graph).

Exit codes: 0 ok · 1 nothing found (or --strict and a statement skipped) · 2 usage ·
3 unreadable input or not an AOTI package · 4 internal error (a bug in pt2-inspect).

Each command is one module of this package, listed in COMMANDS (in the order `--help` lists them): its
``add_parser(sub)`` makes its parser with ``_args.command_parser`` and adds its arguments; its ``run(a)``
answers and returns the exit code.  The I/O they share (the log, stdin, -o, the console) is in ``_io``.
Command modules import nothing heavy at their top: `pt2-inspect --version` imports them all.
"""

from __future__ import annotations

import argparse
import os
import sys

from .._version import __version__
from ..errors import INTERNAL_ERROR_EXIT, STRICT_EXIT, InspectorError, UsageError
from . import check, diagnose, doctor, extract, graph, locate, mcp, repro, report, scan, show, source, sweep, trace_assert
from ._args import EXIT_CODES, FORMATTER, add_global_flags
from ._io import ProgressBar as _Progress, silence_stdout as _silence_stdout

COMMANDS = (show, trace_assert, diagnose, check, repro, sweep, doctor, scan, locate, graph, report, source, extract, mcp)

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
  pt2-inspect repro model.pt2 --log error.txt -o repro.py --run
  pt2-inspect sweep model.pt2 --run
  pt2-inspect doctor model.pt2 --gpu auto --host-cpuinfo auto --torch 2.13
  pt2-inspect scan /models --json > registry.jsonl
  pt2-inspect locate model.pt2 --source model.py:84
  pt2-inspect graph model.pt2 --around triton_poi_fused_index_1 --format dot | dot -Tsvg > n.svg
  pt2-inspect source model.pt2 --wrapper --line 1029
  pt2-inspect report model.pt2 --log error.txt -o report.html

{EXIT_CODES}
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pt2-inspect", description=MAIN_HELP, formatter_class=FORMATTER)
    p.add_argument("--version", action="version", version=f"pt2-inspect {__version__}")
    add_global_flags(p, sub=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        sp = command.add_parser(sub)
        sp.set_defaults(run=command.run)
        add_global_flags(sp, sub=True)
    return p


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
    from ..options import Options, using

    # every package the command opens gets these (main() may be called in-process: nothing global is set)
    a.options = Options(cache=not a.no_cache,
                        progress=_Progress if sys.stderr.isatty() and not getattr(a, "json", False) else None)
    with using(a.options):
        rc = _run(a, debug)
    remote = sys.modules.get("inspector.remote")  # a package read from a URL: what it cost
    if debug and remote is not None and remote.stats():
        from ..explain.agents import fetch_stats

        print("\n".join(fetch_stats(remote.stats())), file=sys.stderr)
    return rc


def _run(a, debug: bool) -> int:
    try:
        rc = a.run(a)  # set by _parser from the command's module
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
    skipped = a.options.skipped() if a.strict else []
    if skipped and rc == 0:
        what = "; ".join(f"{p} model {m!r}: {n}" for p, m, n in skipped)
        print(f"pt2-inspect: --strict: statements no grammar rule understood were skipped ({what}); "
              "`show --json` lists them under coverage", file=sys.stderr)
        return STRICT_EXIT
    return rc


def entry() -> None:
    from ..index.gc_pause import freeze_after_pauses

    freeze_after_pauses()  # this process answers one command and ends (see its docstring)
    rc = main()
    try:
        sys.stdout.flush()  # what is still buffered goes now, while a closed pipe can still be caught
    except BrokenPipeError:
        _silence_stdout()
    sys.exit(rc)

