"""Run cases (`repro_case.Case`) with the runner script (inspector.explain.repro_script.SWEEP_MAIN): this Python, one
child process per case, in a temporary folder.  Shared by `sweep --run` and the ranking run
(inspector.queries.confirm); nothing of a package is loaded in this process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile


def write_plan(cases: list[Case], folder: str, timeout: int, jobs: int = 1) -> tuple[str, str]:
    """The plan (JSON) and the runner script in ``folder``: all a machine with torch needs to run the cases
    (``python runner.py plan.json PKG OUT_DIR``, which writes OUT_DIR/case_NNN.log and prints a JSON line each)."""
    from ..explain import repro_script as say

    plan_path = os.path.join(folder, "plan.json")
    with open(plan_path, "w") as f:
        json.dump({"cases": [json.loads(c.to_json()) for c in cases], "timeout": timeout, "jobs": jobs}, f)
    runner = os.path.join(folder, "runner.py")
    with open(runner, "w") as f:
        f.write(say.sweep_runner())
    return plan_path, runner


def run_cases(cases: list[Case], package_path: str, device: str, timeout: int, jobs: int = 1, progress=None,
              then=None) -> tuple[dict[int, dict], str]:
    """Run ``cases`` with the runner (inspector.explain.repro_script.SWEEP_MAIN: this Python, one child process
    per case, OMP_NUM_THREADS=1 on CPU; nothing of the package is loaded in this process), in a temporary folder
    (never the current one).  Returns the runner's JSON line of each case, each with its captured output
    (``log``), and the runner's stderr; ``then(folder, results, stderr)`` is called before the folder goes."""
    with tempfile.TemporaryDirectory(prefix="pt2-run-") as tmp:
        plan_path, runner = write_plan(cases, tmp, timeout, jobs)
        env = dict(os.environ)
        if device == "cpu":
            env["OMP_NUM_THREADS"] = "1"
        p = subprocess.Popen([sys.executable, runner, plan_path, os.path.abspath(package_path), tmp],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        results = {}
        for line in p.stdout:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            results[r["case"]] = r
            if progress:
                progress(len(results), len(cases))
        err = p.stderr.read()
        p.wait()
        for i, r in results.items():
            with open(os.path.join(tmp, f"case_{i:03d}.log"), errors="replace") as f:
                r["log"] = f.read()
        if then is not None:
            then(tmp, results, err)
    return results, err
