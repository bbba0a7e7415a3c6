"""`pt2-inspect check PKG --input SPEC …`: do these inputs fit the package?"""

from __future__ import annotations

import json
import os

from ._args import MODEL_WHICH, add_ep, add_inputs, add_json, add_model, add_package, command_parser
from ._io import console

HELP = """Check inputs against what the package was compiled for, before running it:
device, dtype, rank, static sizes, each symbolic size against its range,
strides when given, and sizes that share a symbol; then predict which
assertions cannot hold with these sizes (a bound that becomes 0, a loop
position past its table) and which unchecked indirect loads would read an
empty table.  An extern op (an ATen call the package makes) fed a size that no
guard or assertion vouches for is said to "may fail": the tool cannot see its
checks.

SPEC is POSITION_OR_NAME=DTYPE[d0,d1,...]@DEVICE (every part after = optional;
strides as stride[s0,s1,...] before @). Names are the wrapper's (arg3_1) or the
user's when the package carries its exported program (or with --ep).

examples:
  pt2-inspect check sample_packages/cpu/jagged/jagged.pt2 --input 0=float32[0,8]@cpu --input 1=int64[3]
  pt2-inspect check sample_packages/cuda/jagged/jagged.pt2 --input 0=float32[4,8]@cuda 1=int64[3]@cuda
  pt2-inspect check sample_packages/cuda/jagged/jagged.pt2 --inputs-json sample_packages/cuda/jagged/check_inputs.json --json
  pt2-inspect check sample_packages/cuda/jagged/jagged.pt2 --device cuda:1 --input 0=float32[10,8]@cuda:1 --input 1=int64[3]@cuda:0

SPEC's DEVICE takes an index (cuda:1); --device cuda:N says where the package is
loaded (aoti_load_package(path, device_index=N)): inputs on another GPU are named.

exit codes: 0 everything fits, 1 a violation or a predicted failure, 2 usage, 3 unreadable package
"""


def add_parser(sub):
    # No epilog: the description ends with check's own exit codes.
    p = command_parser(sub, "check", "check inputs against the package's contract", HELP, epilog=None)
    add_package(p)
    add_inputs(p, "one input or several (`--input A B` or `--input A --input B`)")
    p.add_argument("--inputs-json", metavar="FILE", help='[{"input": 0, "dtype": "float32", "shape": [4, 32], "device": "cuda"}, ...]')
    add_model(p, MODEL_WHICH)
    p.add_argument("--device", metavar="DEV", help="where the package is loaded: cuda:N for aoti_load_package(path, "
                                                   "device_index=N) (default: not said; inputs must share one GPU)")
    add_ep(p, "user input names")
    add_json(p)
    return p


def run(a) -> int:
    from ..errors import UsageError
    from ..package import open_package
    from ..parse.specs import parse_device, parse_inputs_json, parse_spec
    from ..queries.check import check

    specs = [parse_spec(s) for s in a.input]
    if a.inputs_json:
        if not os.path.isfile(a.inputs_json):
            raise UsageError(f"--inputs-json {a.inputs_json}: no such file")
        with open(a.inputs_json, encoding="utf-8", errors="replace") as f:
            specs += parse_inputs_json(f.read())
    from ..parse.exported_program import load_ep_option

    ep = load_ep_option(a.ep)
    with open_package(a.package) as pkg:
        r = check(pkg, specs, model=a.model, ep=ep, device=parse_device(a.device, "--device"))
    if a.json:
        print(json.dumps(r.to_dict(), indent=2))
    else:
        from ..render.check import render_check

        render_check(console(), r)
    return 0 if r.ok else 1
