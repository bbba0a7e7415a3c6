"""`pt2-inspect diagnose PKG --log FILE|-`: classify a failure log and say what to do next."""

from __future__ import annotations

import json
import sys

from ._args import add_ep, add_json, add_log, add_model, add_package, command_parser
from ._io import console, read_log, read_report

HELP = """Classify a failure from its real log text and answer with next steps that fit
this package. The categories, tried in this order:
  index_assert           a device assert / CPU check with its line: the full trace
  extern_op              an ATen op called by the wrapper failed
  foreign_log            the log's check is no assertion of this package (another
                         package or another build of the model)
  deprecated_api         torch._export.aot_compile / aot_load
  symbolic_assert        `Expected u0 >= 10 but received 2`: the symbol, its input
                         dim or the op that read it from data
  nan_inf                the NaN/Inf check compiled in fired: the input, or the
                         call that wrote the buffer and its FX nodes
  printer                the intermediate value printer's output: the first kernel
                         that wrote NaN/Inf, or with --against good.log the first
                         whose output differs from a good run
  constants              load_constants refused a key or missed a constant
  out_of_memory          an allocation failed (caching allocator, CPU allocator,
                         CUDA runtime or driver): the buffer and its size formula
  custom_op              a custom op the serving process has not registered
  torch_version          the loading torch lacks a C-shim symbol the .so calls
  wrong_artifact         an exported program given to aoti_load_package, or back
  input_check            AOTI_RUNTIME_CHECK_INPUTS=1 rejected an input
  device_mismatch        an input on the wrong device, where the log shows a device
  arithmetic_fault       SIGFPE: a division by a size at 0 (kernels, extern ops)
  weights_not_loaded     a crash on a package built without its weights
  illegal_memory_access  an asynchronous CUDA error (or a crash): not placed at the
                         call that reported it; what could have made it, ranked
                         (custom ops, an input on the CPU, unchecked accesses)
  device_assert          `device-side assert triggered` without its line: candidates
  load                   the package did not load (device, ISA, members)
  no_failure             the log shows no failure (a clean run; exit 1): `check`
                         for the contracts the runtime does not enforce
  unknown                the general first steps; a log with no line of torch's
                         (another program's) is said to be that
Every environment variable in a step says whether it acts at compile time or
at run time.

--confirm (an index_assert or extern_op: needs torch in this Python, the serving
torch) runs the case `repro` plans for each ranked hypothesis in a child
process, compares each run's failure with the log's (category, kernel,
assertion line, message, read the same way) and re-ranks the hypotheses;
where hypotheses differ in what AOTI_RUNTIME_CHECK_INPUTS=1 shows, every case
runs again with it.  Nothing is written into the current folder.

examples:
  pt2-inspect diagnose sample_packages/cpu/ima_embedding/package/ima_embedding.pt2 --log sample_packages/cpu/ima_embedding/logs/segfault_unchecked_index.log
  cat sample_packages/cpu/jagged/error.log | pt2-inspect diagnose sample_packages/cpu/jagged/jagged.pt2 --log -
  pt2-inspect diagnose sample_packages/cuda/jagged/jagged.pt2 --log sample_packages/cuda/jagged/error.log --json | jq .category
  pt2-inspect diagnose sample_packages/cpu/two_index/two_index.pt2 --log sample_packages/cpu/two_index/error.log --confirm
  pt2-inspect diagnose sample_packages/harvest/issue15_cpu213/printer2_cpu/printer2_cpu.pt2 --log sample_packages/harvest/issue15_cpu213/printer2_cpu/logs/neg_input.log --against sample_packages/harvest/issue15_cpu213/printer2_cpu/logs/good.log
"""


def add_parser(sub):
    p = command_parser(sub, "diagnose", "classify a failure log and say what to do next", HELP)
    add_package(p)
    add_log(p, "the log ('-' for stdin; default: stdin when piped)")
    add_model(p)
    add_ep(p)
    p.add_argument("--verbose", action="store_true",
                   help="the trace in full: the kernel's lines around the check, the bound hop by hop, every "
                        "hypothesis' evidence")
    p.add_argument("--against", metavar="FILE", help="a good run's log: the intermediate value printer's output is "
                   "compared kernel by kernel, and the first kernel whose output differs is named")
    p.add_argument("--confirm", action="store_true", help="run each hypothesis's case (needs torch here) and re-rank "
                   "them by which reproduces the log's failure")
    p.add_argument("--timeout", type=int, default=120, metavar="S", help="with --confirm: seconds each case may run")
    add_json(p)
    return p


def run(a) -> int:
    from ..errors import UsageError
    from ..package import open_package
    from ..queries.diagnose import diagnose

    if a.confirm:
        from ..host import torch_python
        from ..explain import repro_script as say

        if torch_python() is None:
            raise UsageError(say.NO_TORCH.format(python=sys.executable).replace("--run", "--confirm"))
    if a.log:
        log = read_log(a.log)
    elif not sys.stdin.isatty():
        log = read_log("-")  # the same checks as a file: empty or binary input is a usage error
    else:
        raise UsageError("give the log: --log FILE, or pipe it in with --log -")
    report = read_report(a, log, a.log or "-")  # the one reading: diagnose and the trace it makes share it
    against = read_report(a, read_log(a.against, "--against"), a.against) if a.against else None
    from ..parse.exported_program import load_ep_option

    ep = load_ep_option(a.ep)
    with open_package(a.package) as pkg:
        d = diagnose(pkg, report, model=a.model, ep=ep, against=against,
                     log_name=a.log if getattr(a, "log", None) and a.log != "-" else None)
        conf = _confirm(pkg, a, log, d) if a.confirm else None
    if a.json:
        out = d.to_dict()
        if a.confirm:
            out["confirmation"] = conf.to_dict() if conf is not None else None
        print(json.dumps(out, indent=2))
    else:
        from ..render.diagnose import render_diagnosis

        c = console()
        render_diagnosis(c, d, verbose=a.verbose)
        if a.confirm:
            from ..explain.confirm import nothing_to_confirm
            from ..render.confirm import render_confirmation

            c.print("")
            if conf is not None:
                render_confirmation(c, conf)
            else:
                c.print(nothing_to_confirm(d.category), markup=False, highlight=False)
    return d.exit_code


def _confirm(pkg, a, log: str, d):
    """The ranking run of a traced failure (None: the log's category has no ranked hypotheses to run)."""
    from ..errors import UsageError
    from ..queries.repro import confirm_ranking, repro

    if d.trace is None or not getattr(d.trace, "matches", None):
        return None
    try:
        r = repro(pkg, log=log, model=a.model, every=True)
    except UsageError:  # no case can be planned for any hypothesis: nothing to run
        return None
    return confirm_ranking(pkg, r, timeout=a.timeout)
