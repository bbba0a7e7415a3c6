"""`pt2-inspect scan DIR|FILE …`: doctor over a registry of packages, a line each and a summary."""

from __future__ import annotations

import json
import sys

from ._args import command_parser
from ._io import console, host_cpuinfo

HELP = """Run doctor on every .pt2 under the given folders (and the given files), several
at a time, and print one line per package as it finishes, then a summary:
packages, models, findings by kind, packages that will not run, unreadable ones.
Symbolic links are not followed; a broken or hostile file is reported and the
scan goes on.

examples:
  pt2-inspect scan sample_packages/cuda --gpu sm_90 --torch 2.11
  pt2-inspect scan sample_packages/cpu/jagged/jagged.pt2 sample_packages/cuda/jagged/jagged.pt2 --json > scan.jsonl     # one JSON object a line, the summary last

exit codes: 0 every package read and no error found, 1 an error found, a package
unreadable or a path missing, 2 usage (nothing to scan), 4 an internal error on
some package
"""


def add_parser(sub):
    p = command_parser(sub, "scan", "doctor over many packages (a model registry)", HELP, epilog=None)
    p.add_argument("paths", nargs="+", metavar="DIR|FILE")
    p.add_argument("--gpu", metavar="sm_XX|auto", help="the GPU they will run on")
    p.add_argument("--host-cpuinfo", metavar="FILE|auto", help="a saved /proc/cpuinfo of the serving host, or auto")
    p.add_argument("--torch", metavar="X.Y", help="the torch release that will load them")
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="packages read at once (default: CPU count)")
    p.add_argument("--json", action="store_true", help="JSON lines: one object per package, then {\"summary\": …}")
    return p


def run(a) -> int:

    from ..errors import UsageError
    from ..queries.doctor import parse_gpu, resolve_release
    from ..queries.registry import find_packages, scan, summarize_rows

    if a.gpu and a.gpu != "auto":
        parse_gpu(a.gpu)  # a usage error now, not once per package
    if a.torch:
        resolve_release(a.torch)
    cpuinfo = host_cpuinfo(a.host_cpuinfo)
    if a.jobs is not None and a.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    paths, missing = find_packages(a.paths)
    for m in missing:
        print(f"pt2-inspect: scan: {m}", file=sys.stderr)
    if not paths:
        raise UsageError("nothing to scan: no .pt2 file in " + ", ".join(a.paths))
    options = {"gpu": a.gpu, "host_cpuinfo": cpuinfo, "torch": a.torch}
    con = None if a.json else console()
    rows = []
    for row in scan(paths, options, a.jobs):
        rows.append(row)
        if a.json:
            print(json.dumps(row.to_dict()), flush=True)
        else:
            from ..render_doctor import render_scan_row

            render_scan_row(con, row)
    summary = summarize_rows(rows)
    if a.json:
        print(json.dumps({"summary": summary}))
    else:
        from ..render_doctor import render_scan_summary

        render_scan_summary(con, summary)
    if summary["internal_errors"]:
        return 4
    return 1 if summary["will_not_run"] or summary["unreadable"] or missing else 0
