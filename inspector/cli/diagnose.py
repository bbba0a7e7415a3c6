"""`pt2-inspect diagnose PKG --log FILE|-`: classify a failure log and say what to do next."""

from __future__ import annotations

import json
import sys

from ._args import command_parser
from ._io import console, read_log

HELP = """Classify a failure from its real log text and answer with next steps that fit
this package: an index assert (the full trace), a device-side assert whose line
is missing (candidate assertions), an illegal memory access (steps and the
package's unchecked indirect accesses), inputs on the wrong device, a
runtime input check (AOTI_RUNTIME_CHECK_INPUTS=1), an extern ATen op failure,
a load failure, a deprecated API. Every environment variable in a step says
whether it acts at compile time or at run time. Unknown logs get the general
first steps.

examples:
  pt2-inspect diagnose sample_packages/cpu/ima_embedding/ima_embedding.pt2 --log sample_packages/cpu/ima_embedding/logs/segfault_unchecked_index.log
  python serve.py 2>&1 | pt2-inspect diagnose model.pt2 --log -
  pt2-inspect diagnose model.pt2 --log crash.log --json | jq .category
"""


def add_parser(sub):
    p = command_parser(sub, "diagnose", "classify a failure log and say what to do next", HELP)
    p.add_argument("package", metavar="PKG")
    p.add_argument("--log", metavar="FILE", help="the log ('-' for stdin; default: stdin when piped)")
    p.add_argument("--model", metavar="NAME", help="only this model of the package")
    p.add_argument("--ep", metavar="FILE", help="the exported program (torch.export.save) for user names and lines")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def run(a) -> int:
    from ..errors import UsageError
    from ..package import open_package
    from ..queries.diagnose import diagnose

    if a.log:
        log = read_log(a.log)
    elif not sys.stdin.isatty():
        log = read_log("-")  # the same checks as a file: empty or binary input is a usage error
    else:
        raise UsageError("give the log: --log FILE, or pipe it in with --log -")
    from ..exported_program import load_ep_option

    ep = load_ep_option(a.ep)
    with open_package(a.package) as pkg:
        d = diagnose(pkg, log, model=a.model, ep=ep)
    if a.json:
        print(json.dumps(d.to_dict(), indent=2))
    else:
        from ..render_queries import render_diagnosis

        render_diagnosis(console(), d)
    return 0
