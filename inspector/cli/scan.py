"""`pt2-inspect scan DIR|FILE|URL …`: doctor over a registry of packages, a line each (sorted by package) and
a summary; on the local process pool or a Dask cluster (--scheduler)."""

from __future__ import annotations

import json
import sys

from ._args import add_host, add_json, add_output, command_parser
from ._io import check_output_path, console, host_cpuinfo, write_output

HELP = """Run doctor on every .pt2 under the given folders (and the given files, URLs and
URL prefixes), one task per package, and print one line per package, sorted by
package whatever order they finish in, then a summary: packages, models,
findings by kind, packages that will not run, unreadable ones. A torch.export
archive is counted as not an AOTI package (an exported program). Symbolic
links are not followed; a broken or hostile file, a job that crashes or dies
with its worker, and one past --time-limit are each a row with its error, and
the scan goes on.

Without --scheduler the packages are read by a local process pool (--jobs);
with --scheduler tcp://HOST:PORT by a Dask distributed cluster (pip install
'pt2-inspect[dask]'): the same rows either way, e.g. `pt2-inspect scan
s3://models/prod/ --scheduler tcp://10.0.0.5:8786`. The workers read the
packages themselves: give URLs, or paths on a filesystem every worker sees.

examples:
  pt2-inspect scan sample_packages/cuda --gpu sm_90 --torch 2.11
  pt2-inspect scan sample_packages/cpu/jagged/jagged.pt2 sample_packages/cuda/jagged/jagged.pt2 --json > scan.jsonl     # one JSON object a line, the summary last
  pt2-inspect scan sample_packages/cpu --torch 2.13 --format junit -o scan.xml

exit codes: 0 every package read and no error found, 1 an error found, a package
not checked, or a path missing, 2 usage (nothing to scan), 3 a package unreadable
(damaged: its row says which member and why) or the scheduler cannot be reached,
4 an internal error on some package
"""


def add_parser(sub):
    p = command_parser(sub, "scan", "doctor over many packages (a model registry)", HELP, epilog=None)
    p.add_argument("paths", nargs="+", metavar="DIR|FILE|URL")
    add_host(p, many=True)
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="packages read at once (default: CPU count)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask distributed cluster")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="seconds one package may take (default 600); past it the package is a row with that error")
    add_json(p, "JSON lines: one object per package, then {\"summary\": …}")
    p.add_argument("--format", choices=["text", "json", "junit"], default=None,
                   help="text (default), json (as --json) or junit (a JUnit XML report; use -o)")
    add_output(p, "write the answer here instead of stdout")
    return p


def run(a) -> int:

    from ..errors import UsageError
    from ..queries.doctor import parse_gpu, resolve_release
    from ..queries.scan import DEFAULT_TIME_LIMIT_S, find_packages, scan, summarize_rows

    fmt = a.format or ("json" if a.json else "text")
    if a.json and a.format not in (None, "json"):
        raise UsageError(f"--json and --format {a.format}: give one")
    if a.output:
        check_output_path(a.output)
    if a.gpu and a.gpu != "auto":
        parse_gpu(a.gpu)  # a usage error now, not once per package
    if a.torch:
        resolve_release(a.torch)
    cpuinfo = host_cpuinfo(a.host_cpuinfo)
    if a.jobs is not None and a.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if a.time_limit is not None and a.time_limit <= 0:
        raise UsageError("--time-limit must be a positive number of seconds")
    if a.scheduler and not a.scheduler.startswith(("tcp://", "tls://", "inproc://", "ucx://")):
        raise UsageError(f"--scheduler {a.scheduler}: give the scheduler's address, tcp://HOST:PORT")
    paths, missing = find_packages(a.paths)
    for m in missing:
        print(f"pt2-inspect: scan: {m}", file=sys.stderr)
    if not paths:
        raise UsageError("nothing to scan: no .pt2 file in " + ", ".join(a.paths))
    options = {"gpu": a.gpu, "host_cpuinfo": cpuinfo, "torch": a.torch}
    out = [] if a.output or fmt == "junit" else None  # text kept for -o / junit, else printed as it comes
    con = None if fmt != "text" else console()
    if con is not None and out is not None:
        from io import StringIO
        from rich.console import Console

        buf = StringIO()
        con = Console(file=buf, highlight=False, soft_wrap=False, width=100_000)
    rows = []
    for row in scan(paths, options, a.jobs, scheduler=a.scheduler,
                    time_limit=a.time_limit if a.time_limit is not None else DEFAULT_TIME_LIMIT_S):
        rows.append(row)
        if fmt == "json":
            line = json.dumps(row.to_dict())
            if out is None:
                print(line, flush=True)
            else:
                out.append(line)
    summary = summarize_rows(rows)
    if fmt == "json":
        line = json.dumps({"summary": summary})
        print(line) if out is None else out.append(line)
    elif fmt == "text":
        from ..render.scan import render_scan_row, render_scan_summary

        render_scan_summary(con, summary)  # the summary first, then a line per package (issue 35 §7)
        for row in rows:
            render_scan_row(con, row)
        if out is not None:
            out.append(buf.getvalue().rstrip("\n"))
    else:
        from ..render.scan import render_scan_junit

        out.append(render_scan_junit(rows, summary).rstrip("\n"))
    if out is not None:
        text = "\n".join(out) + "\n"
        if a.output:
            write_output(a.output, text)
            print(f"wrote {a.output} ({len(rows)} package(s))", file=sys.stderr)
        else:
            sys.stdout.write(text)
    if summary["internal_errors"]:
        return 4
    if summary["unreadable"]:
        return 3
    return 1 if summary["will_not_run"] or summary["not_checked"] or missing else 0
