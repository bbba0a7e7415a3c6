"""`pt2-inspect report`: one self-contained HTML file: `inspector.queries.report` computes it,
`inspector.render.html` draws it; `build_report` is the two in one (the Python twin of the command)."""

from __future__ import annotations

from ._args import add_ep, add_json, add_log, add_model, add_output, add_package, command_parser
from ._io import check_output_path, read_log, write_output

HELP = """Write one self-contained HTML report: the package summary, every kernel with its
assertions (searchable, 100 a page), and with --log each traced failure drawn as
a graph (assertion -> bound -> call argument -> symbol -> input dim, and where
the index comes from); click a node to see its source. Nothing is fetched when
the page is viewed: open it from disk, mail it, attach it to a bug.

examples:
  pt2-inspect report sample_packages/cuda/jagged/jagged.pt2 --log sample_packages/cuda/jagged/error.log -o report.html
  pt2-inspect report sample_packages/cuda/jagged/jagged.pt2 -o report.html            (summary and kernels only)
"""


def add_parser(sub):
    p = command_parser(sub, "report", "write a self-contained HTML report", HELP)
    add_package(p)
    add_log(p, "a log holding the error: trace it into the report ('-' for stdin)")
    add_model(p)
    add_ep(p)
    add_output(p, "the HTML file to write", required=True)
    add_json(p, "print what was written as one JSON object")
    return p


def build_report(pkg, log: str | None = None, *, model: str | None = None, with_info: bool = False, ep=None):
    """The whole report as one HTML string; with ``with_info``, ``(html, {"verdict", "traces", "kernels",
    "looked_for", "exit"})``.  ``ep``: an exported program (``--ep``) whose user names and lines the traces use;
    by default the one the package carries, if any."""
    from ..queries.report import report
    from ..render.html.page import render_report

    res = report(pkg, log, model=model, ep=ep)
    page = render_report(res)
    if not with_info:
        return page.html
    return page.html, {**page.info(), "exit": res.exit_code}


def run(a) -> int:
    import json
    import sys

    from ..parse.exported_program import load_ep_option
    from ..package import open_package

    check_output_path(a.output)
    log = read_log(a.log) if a.log else None
    ep = load_ep_option(a.ep)
    with open_package(a.package) as pkg:
        page, info = build_report(pkg, log, model=a.model, with_info=True, ep=ep)
    rc = info.pop("exit")  # diagnose's exit code for diagnose's answer: kept out of the JSON (its schema)
    write_output(a.output, page)
    info.update(output=a.output, bytes=len(page.encode("utf-8")))
    if a.json:
        print(json.dumps(info, indent=2))
    else:
        print(f"{info['verdict']}\nwrote {a.output} ({info['bytes']:,} bytes: {info['traces']} traced failure(s), "
              f"{info['kernels']} kernels)")
    if log is not None and not info["traces"]:
        print(f"pt2-inspect: no assertion in {a.package} matches {info['looked_for']}: the report leads with "
              "diagnose's answer (its candidates, suspects and steps), then the summary and kernels", file=sys.stderr)
    # issue 22 §3: report exited 1 where diagnose answered the same log and exited 0
    return rc
