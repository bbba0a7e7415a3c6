"""`pt2-inspect source`: the generated code the other commands cite, with line numbers
(the lines come from ``inspector.queries.source.source_lines``)."""

from __future__ import annotations

from ._args import MODEL_WHICH, add_json, add_model, add_package, command_parser

HELP = """Print generated code with its line numbers: a kernel (in the numbering its errors
use: the Triton .py line, or the kernel.cpp line) or wrapper.cpp lines.

examples:
  pt2-inspect source sample_packages/cuda/jagged/jagged.pt2 --kernel triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2
  pt2-inspect source sample_packages/cuda/jagged/jagged.pt2 --kernel triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2 --line 38 --context 5
  pt2-inspect source sample_packages/cuda/jagged/jagged.pt2 --wrapper --line 1029
  pt2-inspect source sample_packages/cuda/jagged/jagged.pt2 --wrapper --line 1029 --json
"""


def add_parser(sub):
    p = command_parser(sub, "source", "print a kernel's or the wrapper's lines with numbers", HELP)
    add_package(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--kernel", metavar="NAME", help="a kernel's source")
    what.add_argument("--wrapper", action="store_true", help="wrapper.cpp")
    p.add_argument("--line", type=int, metavar="N", help="centre on line N and mark it (default: the whole text)")
    p.add_argument("--context", type=int, default=10, metavar="C", help="with --line: lines either side (default 10)")
    add_model(p, MODEL_WHICH)
    add_json(p)
    return p


def run(a) -> int:
    import json
    import sys

    from ..package import open_package
    from ..queries.source import source_lines

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
