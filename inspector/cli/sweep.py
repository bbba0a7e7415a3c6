"""`pt2-inspect sweep PKG [--run]`: the edge cases of the contract, predicted, run and diagnosed, one row each."""

from __future__ import annotations

import json
import sys

from ._args import (
    MODEL_WHICH, add_json, add_model, add_package, add_run, add_run_device, add_weights, add_wide,
    command_parser
)
from ._io import console

HELP = """The debugging guide's edge cases, generated from the package's contract:
every dynamic dim at 0, 1, its guard minimum and its guard maximum (capped to
fit in memory, and said so), the other dims at a small middle value; every
input an index is read from at its largest valid value, at the bound, at -1
and below -N; each case with and without AOTI_RUNTIME_CHECK_INPUTS=1.

One row per case: the case, what `check` (dims) or the trace (index values)
predicts, and with --run what happened (exit code or signal, the first error
line), what `diagnose` says about the captured output, and whether all three
agree.  Without --run: the plan and the predictions only (no torch needed).
With --run each case runs in its own child process (forked from one runner
that imports torch once); a crash or a hang past --timeout is a row, never the
end of the sweep.

examples:
  pt2-inspect sweep sample_packages/cpu/index_select/index_select.pt2
  pt2-inspect sweep sample_packages/cpu/index_select/index_select.pt2 --run
  pt2-inspect sweep sample_packages/cpu/two_models/two_models.pt2 --model decoder --run --json
  pt2-inspect sweep sample_packages/cuda/jagged/jagged.pt2 --device cuda:0 --run --timeout 120

exit codes: 0 planned, or run and every row agrees; 1 a row disagrees;
2 usage (also: --run without torch); 3 unreadable package; 4 internal error
"""


def add_parser(sub):
    p = command_parser(sub, "sweep", "run the contract's edge cases and compare them with the predictions", HELP,
                       epilog=None)
    add_package(p)
    add_model(p, MODEL_WHICH)
    add_run_device(p)
    add_weights(p)
    add_run(p, "run every case (needs torch here)")
    p.add_argument("--timeout", type=int, default=60, metavar="S", help="seconds one case may take (default 60)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="CUDA cases run at once (each is a fresh process; default 1); CPU cases run one by one")
    p.add_argument("--keep-logs", metavar="DIR", help="copy each case's captured output to DIR/case_NNN.log")
    add_json(p)
    add_wide(p)
    return p


def run(a) -> int:
    from ..package import open_package
    from ..queries.sweep import sweep
    from ._io import ProgressBar

    bar = ProgressBar("sweep", unit="cases, one child process each") if a.run_it and sys.stderr.isatty() and not a.json else None
    try:
        with open_package(a.package) as pkg:
            r = sweep(pkg, model=a.model, device=a.device, weights=a.weights, run=a.run_it, timeout=a.timeout, jobs=max(1, a.jobs), keep_logs=a.keep_logs,
                      progress=bar)
    finally:
        if bar is not None:
            bar.close()
    if a.json:
        print(json.dumps(r.to_dict(), indent=2))
    else:
        from ..render.sweep import render_sweep

        render_sweep(console(a.wide), r)
    return 1 if r.disagreements else 0
