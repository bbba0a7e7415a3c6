"""`pt2-inspect repro PKG (--log FILE | --line N | --kernel K | --input SPEC…)`: a script that reproduces it."""

from __future__ import annotations

import json
import os

from ._args import (
    MODEL_WHICH, add_inputs, add_json, add_log, add_model, add_output, add_package, add_run, add_run_device,
    add_weights, command_parser
)
from ._io import console, read_log

HELP = """Write one standalone Python script that reproduces a failure with the smallest
inputs the package's contract allows: every guard, dtype, stride and device kept
except the one violation the trace names (an index equal to its bound, the empty
dim of a table, positions that reach a static bound).  The script loads the
package the way it must be loaded, runs the call in a child process
(OMP_NUM_THREADS=1 on CPU, CUDA_LAUNCH_BLOCKING=1 on CUDA), and prints
'reproduced' (exit 0) or 'not reproduced' with what happened instead (exit 1).
It carries no data of the failing run and no path of this machine: the
package is its argument (default: the package's file name).

Writing the script needs no torch; --run writes it and runs it with this Python
(which then needs torch).

What to reproduce (one of):
  --log FILE      the error as printed (the trace picks the assertion)
  --line N        an assertion line (with --kernel K when several kernels have one)
  --kernel K      an assertion of this kernel
  --input SPEC    these inputs (as `check` takes them): the failure `check` predicts

examples:
  pt2-inspect repro sample_packages/cpu/index_select/index_select.pt2 --log sample_packages/cpu/index_select/error.log -o repro.py
  pt2-inspect repro sample_packages/cpu/jagged/jagged.pt2 --log sample_packages/cpu/jagged/error.log --run
  pt2-inspect repro sample_packages/cpu/embedding/embedding.pt2 --input 0=int64[1,4] --json
  pt2-inspect repro sample_packages/cuda/jagged/jagged.pt2 --kernel triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2 -o repro.py

exit codes: 0 written (with --run: reproduced), 1 with --run: not reproduced,
2 usage (also: --run without torch), 3 unreadable package, 4 internal error
"""


def add_parser(sub):
    p = command_parser(sub, "repro", "write a script that reproduces a failure", HELP, epilog=None)
    add_package(p)
    add_log(p, "the error as printed ('-' for stdin)")
    p.add_argument("--line", type=int, metavar="N", help="the assertion's line")
    p.add_argument("--kernel", metavar="K", help="the assertion's kernel")
    add_inputs(p, "an input, as `check` takes it (repeat)", one_per_flag=True)
    add_model(p, MODEL_WHICH)
    add_weights(p)
    add_run_device(p)
    add_output(p, "the script to write (default repro.py)", default="repro.py")
    add_run(p, "write the script and run it (needs torch here)")
    add_json(p)
    return p


def run(a) -> int:
    from ..errors import UsageError
    from ..explain import repro_script as say
    from ..package import open_package
    from ..parse.specs import parse_spec
    from ..queries.repro import repro, run_script, torch_python
    from ._io import check_output_path, write_output

    import sys

    if a.run_it and torch_python() is None:
        raise UsageError(say.NO_TORCH.format(python=sys.executable))
    specs = [parse_spec(s) for s in a.input]
    log = read_log(a.log) if a.log else None
    check_output_path(a.output)
    with open_package(a.package) as pkg:
        r = repro(pkg, log=log, line=a.line, kernel=a.kernel, inputs=specs, model=a.model, device=a.device,
                  weights=a.weights)
    write_output(a.output, r.script)
    os.chmod(a.output, 0o755)
    pkg_name = os.path.basename(str(a.package).rstrip("/"))
    if a.run_it:
        r.run = run_script(a.output, a.package)
    if a.json:
        d = r.to_dict()
        d["script"] = a.output
        print(json.dumps(d, indent=2))
    else:
        c = console()
        c.print(r.verdict, markup=False, highlight=False)
        c.print(say.wrote(a.output, len(r.script.encode()), pkg_name), markup=False, highlight=False)
        for n in r.notes:
            c.print(f"  {n}", markup=False, highlight=False)
        if r.run is not None:
            c.print(say.ran(r.run["verdict"], r.run["rc"]), markup=False, highlight=False)
    if r.run is not None:
        return 0 if r.run["reproduced"] else 1
    return 0
