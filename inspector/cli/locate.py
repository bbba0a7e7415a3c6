"""`pt2-inspect locate PKG (--source FILE:LINE | --node FX_NODE | --module PATH | --kernel K)`: user code -> kernels."""

from __future__ import annotations

import json

from ._args import add_ep, add_json, add_model, add_package, add_wide, command_parser
from ._io import console

HELP = """The reverse of a trace: which kernels and extern calls came from one line of
your code, one FX node or one module, with the wrapper.cpp lines that launch
them, the FX nodes fused into each, and the value of
AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT that makes the intermediate value
printer print just them (a compile-time setting, with
AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER=2).

Read from the package's kernel_information.json (built with provenance
tracking: the user's stack traces and FX nodes per launch); --module needs the
exported program (packaged as models/<name>.json, or --ep FILE).

examples:
  pt2-inspect locate sample_packages/cpu/jagged/jagged.pt2 --source build.py:84
  pt2-inspect locate sample_packages/cpu/jagged/jagged.pt2 --node index_put
  pt2-inspect locate sample_packages/cpu/transformer/transformer.pt2 --module blocks.0 --ep sample_packages/cpu/transformer/ep/transformer_ep.pt2
  pt2-inspect locate sample_packages/cpu/jagged/jagged.pt2 --kernel aoti_torch_cpu_cumsum --json

exit codes: 0 found, 1 nothing came from it, 2 usage, 3 unreadable package
"""


def add_parser(sub):
    p = command_parser(sub, "locate", "which kernels came from this line, FX node or module", HELP, epilog=None)
    add_package(p)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--source", metavar="FILE:LINE", help="a line of your code (file name or a path suffix)")
    g.add_argument("--node", metavar="FX_NODE", help="an FX node (post-grad or pre-grad name)")
    g.add_argument("--module", metavar="PATH", help="a module path (blocks.0.attn): every node inside it")
    g.add_argument("--kernel", metavar="K", help="a kernel or extern op: where it came from")
    add_model(p)
    add_ep(p, "--module")
    add_json(p)
    add_wide(p)
    return p


def run(a) -> int:
    from ..parse.exported_program import load_ep_option
    from ..package import open_package
    from ..queries.locate import locate

    ep = load_ep_option(a.ep)
    with open_package(a.package) as pkg:
        r = locate(pkg, source=a.source, node=a.node, module=a.module, kernel=a.kernel, model=a.model, ep=ep)
    if a.json:
        print(json.dumps(r.to_dict(), indent=2))
    else:
        from ..render.locate import render_locate

        render_locate(console(a.wide), r)
    return 0 if r.found else 1
