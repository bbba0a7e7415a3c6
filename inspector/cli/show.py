"""`pt2-inspect show`: what the package is."""

from __future__ import annotations

import json

from ._args import add_ep, add_json, add_model, add_package, add_wide, command_parser
from ._io import console

SHOW_HELP = """Summarize a package: first its models (device, inputs, kernels, kernels with
assertions, constants and their bytes), then each model: device (cuda/cpu,
compute capability, CPU ISA), inputs with dtypes and symbolic shapes, symbols
and the range their guards allow, outputs, constants counted by dtype and
device (--constants lists them), kernels by kind with how many assertions each
holds (the table shows 60 kernels, those with assertions first; --all-kernels
for all). --json always lists every constant and kernel.

examples:
  pt2-inspect show sample_packages/cuda/jagged/jagged.pt2
  pt2-inspect show bench/multi_model.pt2 --model resnet50 --constants
  pt2-inspect show sample_packages/cuda/jagged/jagged.pt2 --json | jq '.models[0].symbols'
"""


def add_parser(sub):
    s = command_parser(sub, "show", "what the package is", SHOW_HELP)
    add_package(s)
    add_model(s)
    add_json(s, "print one JSON object instead of tables")
    add_ep(s, "user input names")
    add_wide(s)
    s.add_argument("--all-kernels", action="store_true",
                   help="a row for every kernel (by default the table shows 60, those with assertions first; "
                        "--json always lists all)")
    s.add_argument("--constants", action="store_true",
                   help="list the constants (by default: their count and bytes by dtype and device; --json always "
                        "lists all)")
    s.add_argument("--full", action="store_true",
                   help="parse every statement, so the coverage line counts the whole package (by default show "
                        "scans the kernels and parses only the statements its facts need); --strict implies it")
    return s


def run(a) -> int:
    from ..package import open_package
    from ..queries.show import summarize

    with open_package(a.package) as pkg:
        s = summarize(pkg, a.model, full=a.full or a.strict, constants=a.json or a.constants)
        from ..parse.exported_program import annotate_summary

        annotate_summary(pkg, s, a.ep)
    if a.json:
        print(json.dumps(s.to_dict(), indent=2))
    else:
        from ..render.show import MAX_KERNEL_ROWS, render_summary

        render_summary(console(a.wide), s, None if a.all_kernels else MAX_KERNEL_ROWS)
    return 0
