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
except the one violation a ranked hypothesis names (an index equal to its bound,
the empty dim of a table, positions that reach a bound, an index of the other
integer dtype).  By default the case is the top-ranked hypothesis of the trace
(the one `diagnose` and `trace-assert` print first); --hypothesis N picks the
Nth; --all puts one case per hypothesis in the one script, which then takes the
hypothesis as its second argument (`python X PKG 2`; none: every case, in turn).
The script loads the package the way it must be loaded, runs the call in a
child process (OMP_NUM_THREADS=1 on CPU, CUDA_LAUNCH_BLOCKING=1 on CUDA), and
prints 'reproduced' (exit 0) or 'not reproduced' with what happened instead
(exit 1).  It carries no data of the failing run and no path of this machine:
the package is its argument.

Without -o nothing is written: the script goes to stdout (the notes to stderr).

Writing the script needs no torch.  --run (needs torch in this Python: the
serving torch; its version and path are said) runs the case of every
hypothesis in a child process, reads each run's output into the same typed
reading the log went into and compares its failure with the log's: category,
kernel, assertion line and message.  The hypotheses are then re-ranked ("confirmed:
hypothesis 1 reproduces the log's assert; hypothesis 2 fails elsewhere").  Where
some hypotheses break the contract's shape or dtype and others do not, every
case runs again with AOTI_RUNTIME_CHECK_INPUTS=1, which tells the two apart.
Nothing is written into the current folder (the runs use a temporary one).

What to reproduce (one of):
  --log FILE      the error as printed (the trace picks the assertion)
  --line N        an assertion line (with --kernel K when several kernels have one)
  --kernel K      an assertion of this kernel
  --input SPEC    these inputs (as `check` takes them): the failure `check` predicts

examples:
  pt2-inspect repro sample_packages/cpu/index_select/index_select.pt2 --log sample_packages/cpu/index_select/error.log -o repro.py
  pt2-inspect repro sample_packages/cpu/topk_gather/topk_gather.pt2 --log sample_packages/cpu/topk_gather/error.log --run
  pt2-inspect repro sample_packages/cpu/topk_gather/topk_gather.pt2 --log sample_packages/cpu/topk_gather/error.log --all -o repro.py
  pt2-inspect repro sample_packages/cpu/embedding/embedding.pt2 --input 0=int64[1,4] --json
  pt2-inspect repro sample_packages/cuda/jagged/jagged.pt2 --kernel triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2 -o repro.py

exit codes: 0 written (with --run: the written case reproduced), 1 with --run: it
did not, 2 usage (also: --run without torch), 3 unreadable package, 4 internal error
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
    p.add_argument("--hypothesis", type=int, metavar="N", help="the case of the Nth ranked hypothesis (default: 1)")
    p.add_argument("--all", dest="every", action="store_true", help="one case per hypothesis, in one script")
    add_output(p, "the script to write (default: none; the script goes to stdout)")
    add_run(p, "run every hypothesis's case and compare each with the log (needs torch here)")
    p.add_argument("--timeout", type=int, default=120, metavar="S", help="seconds each case may run (default 120)")
    add_json(p)
    return p


def run(a) -> int:
    from ..errors import UsageError
    from ..explain import repro_script as say
    from ..package import open_package
    from ..parse.specs import parse_spec
    from ..queries.repro import confirm_ranking, repro, run_script, torch_python
    from ._io import check_output_path, write_output

    import sys
    import tempfile

    if a.run_it and torch_python() is None:
        raise UsageError(say.NO_TORCH.format(python=sys.executable))
    if a.hypothesis is not None and a.every:
        raise UsageError("--hypothesis N and --all: one of them")
    specs = [parse_spec(s) for s in a.input]
    log = read_log(a.log) if a.log else None
    if a.output:
        check_output_path(a.output)
    with open_package(a.package) as pkg:
        r = repro(pkg, log=log, line=a.line, kernel=a.kernel, inputs=specs, model=a.model, device=a.device,
                  weights=a.weights, hypothesis=a.hypothesis, every=a.every)
        if a.output:
            write_output(a.output, r.script)
            os.chmod(a.output, 0o755)
        if a.run_it and not specs:
            confirm_ranking(pkg, r, timeout=a.timeout)
        elif a.run_it:  # the given inputs: the written script itself, run (from a temporary folder without -o)
            with tempfile.TemporaryDirectory(prefix="pt2-repro-") as tmp:
                path = a.output or os.path.join(tmp, "repro.py")
                if not a.output:
                    write_output(path, r.script)
                r.run = run_script(path, a.package)
    c = console()
    if a.json:
        d = r.to_dict()
        d["script"] = a.output
        print(json.dumps(d, indent=2))
    else:
        out = c if a.output or a.run_it else console(stderr=True)
        if not a.output and not a.run_it:
            sys.stdout.write(r.script)
            sys.stdout.flush()
        out.print(r.verdict, markup=False, highlight=False)
        if a.output:
            out.print(say.wrote(a.output, len(r.script.encode()), str(a.package),
                                cases=sum(h["planned"] for h in r.hypotheses) if a.every else 1), markup=False, highlight=False)
        elif not a.run_it:
            out.print(say.NOT_WRITTEN, markup=False, highlight=False)
        for n in r.notes:
            out.print(f"  {n}", markup=False, highlight=False)
        if r.confirmation is not None:
            from ..render.confirm import render_confirmation

            render_confirmation(out, r.confirmation)
        elif r.run is not None:
            out.print(say.ran(r.run["verdict"], r.run["rc"]), markup=False, highlight=False)
    if r.run is not None:
        return 0 if r.run["reproduced"] else 1
    return 0
