"""`pt2-inspect source`: the generated code the other commands cite, with line numbers.

Kernel lines use the kernel's own numbering (the Triton .py line a device assert names, the kernel.cpp
line a CPU check names); wrapper lines are wrapper.cpp lines, as `trace-assert` prints them.
"""

from __future__ import annotations

import argparse

HELP = """Print generated code with its line numbers: a kernel (in the numbering its errors
use: the Triton .py line, or the kernel.cpp line) or wrapper.cpp lines.

examples:
  pt2-inspect source pkg.pt2 --kernel triton_poi_fused_index_1
  pt2-inspect source pkg.pt2 --kernel triton_poi_fused_index_1 --line 38 --context 5
  pt2-inspect source pkg.pt2 --wrapper --line 1029
  pt2-inspect source pkg.pt2 --wrapper --line 1029 --json
"""


def add_parser(sub) -> None:
    from ..cli import EXIT_CODES

    p = sub.add_parser("source", help="print a kernel's or the wrapper's lines with numbers", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXIT_CODES)
    p.add_argument("package", metavar="PKG")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kernel", metavar="NAME", help="a kernel's source")
    what.add_argument("--wrapper", action="store_true", help="wrapper.cpp")
    p.add_argument("--line", type=int, metavar="N", help="centre on line N and mark it (default: the whole text)")
    p.add_argument("--context", type=int, default=10, metavar="C", help="with --line: lines either side (default 10)")
    p.add_argument("--model", metavar="NAME", help="which model (default: the only one, or 'model')")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def source_lines(pkg, *, kernel: str | None = None, wrapper: bool = False, line: int | None = None,
                 context: int = 10, model: str | None = None) -> dict:
    """{"model", "kernel", "file", "line", "lines": [{"line", "text"}]}: the Python twin of the command."""
    from ..errors import UsageError

    ix = pkg.index(model)  # the scan: only the kernel asked for is parsed
    if wrapper:
        file = ix.files.wrapper
        text = pkg.archive.read_text(file).splitlines()
        first = 1
    else:
        k = ix.kernel(kernel)
        if k is None:
            import difflib

            names = ix.kernel_names()
            close = difflib.get_close_matches(kernel, names, n=3, cutoff=0.6)
            listing = ", ".join(names[:20]) + (f" … ({len(names)} in all)" if len(names) > 20 else "")
            raise UsageError(f"no kernel {kernel!r} in model {ix.name!r}"
                             + (f"; did you mean {', '.join(close)}?" if close else f"; kernels: {listing or 'none'}"))
        file, text, first = k.source_file, k.lines(), k.line_base
    last = first + len(text) - 1
    if line is not None:
        if not first <= line <= last:
            raise UsageError(f"--line {line} is outside {'wrapper.cpp' if wrapper else kernel} (lines {first}..{last})")
        lo, hi = max(first, line - max(context, 0)), min(last, line + max(context, 0))
    else:
        lo, hi = first, last
    return {"model": ix.name, "kernel": None if wrapper else kernel, "file": file, "line": line,
            "lines": [{"line": n, "text": text[n - first]} for n in range(lo, hi + 1)]}


def run(a) -> int:
    import json
    import sys

    from ..package import open_package

    with open_package(a.package) as pkg:
        r = source_lines(pkg, kernel=a.kernel, wrapper=a.wrapper, line=a.line, context=a.context, model=a.model)
    if a.json:
        print(json.dumps(r, indent=2))
        return 0
    width = len(str(r["lines"][-1]["line"])) if r["lines"] else 1
    out = [f"# {r['file']}" + (f"  (kernel {r['kernel']}, numbered as its errors count)" if r["kernel"] else "")]
    for x in r["lines"]:
        mark = "→" if x["line"] == r["line"] else " "
        out.append(f"{mark} {x['line']:>{width}}  {x['text']}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
