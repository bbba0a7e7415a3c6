"""Issue 35 §2 on a GPU: the ranking run (`diagnose --confirm`, `repro --run`) on CUDA packages, for the lead.

    CXX=/usr/bin/g++ OUT=/tmp/out python3 sample_packages/confirm_gpu.py

Needs torch with CUDA and pt2-inspect importable (run from the repository root; PYTHONPATH is set to it).  Steps,
each a child process, every output under $OUT (one tarball, $OUT/confirm_gpu.tar.gz, and summary.txt):
1. build cuda/two_index (`build.py --device cuda --only two_index --out $OUT/work/cuda`): its trigger b = [1, 8]
   fails b's check in thread [1,0,0], so thread [0,0,0] passed: diagnose ranks the value hypothesis alone;
2. run it again with b = [8, 1] (thread [0,0,0] fails): diagnose then ranks the empty table first (likely, as a
   failing thread 0 suggests) and the value second: the run must re-rank them ("re-ranked: hypothesis 2
   reproduces the log's assert; hypothesis 1 fails elsewhere", an empty table failing a's check first);
3. `diagnose --confirm --json` and `repro --run --json` on both logs, and on the shipped cuda/topk_gather and
   cuda/index_select samples with their error.log.
Every CUDA case runs in a fresh process with CUDA_LAUNCH_BLOCKING=1 (the case's env), which pins each
asynchronous device assert to the kernel that made it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.environ.get("OUT", "/tmp/out")
WORK = os.path.join(OUT, "work")

THREAD0 = r"""
import sys, torch
from torch._inductor import aoti_load_package
m = aoti_load_package(sys.argv[1])
x = torch.randn(8, 4, device="cuda")
a = torch.tensor([0, 3, 5], device="cuda")
b = torch.tensor([8, 1], device="cuda")  # b[0] = 8 = x's rows: thread [0,0,0] of b's check fails
out = m(x, a, b)
torch.cuda.synchronize()
print("returned", file=sys.stderr)
"""


def sh(cmd, log=None, env=None, timeout=900):
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {}))
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout, cwd=ROOT)
    if log:
        with open(log, "w") as f:
            f.write(p.stderr if log.endswith(".log") else p.stdout)
    return p


def main():
    os.makedirs(WORK, exist_ok=True)
    summary = []
    b = sh([sys.executable, os.path.join(HERE, "build.py"), "--device", "cuda", "--only", "two_index", "--out",
            os.path.join(WORK, "cuda")], timeout=1800)
    summary.append(f"build two_index: rc {b.returncode} {b.stdout.strip().splitlines()[-1:] if b.stdout else ''}")
    ti = os.path.join(WORK, "cuda", "two_index")
    pkg = os.path.join(ti, "two_index.pt2")
    os.makedirs(os.path.join(ti, "logs"), exist_ok=True)
    t0 = os.path.join(ti, "logs", "thread0.log")
    p = sh([sys.executable, "-c", THREAD0, pkg], log=t0, env={"PYTHONUNBUFFERED": "1"})
    summary.append(f"thread0 run: rc {p.returncode}")
    runs = [(pkg, os.path.join(ti, "error.log"), "two_index_error"), (pkg, t0, "two_index_thread0")]
    for name in ("topk_gather", "index_select"):
        d = os.path.join(HERE, "cuda", name)
        runs.append((os.path.join(d, f"{name}.pt2"), os.path.join(d, "error.log"), name))
    for pk, log, tag in runs:
        for cmd, what in ((["diagnose", pk, "--log", log, "--confirm", "--json"], "diagnose"),
                          (["repro", pk, "--log", log, "--run", "--json"], "repro")):
            out = os.path.join(WORK, f"{tag}.{what}.json")
            r = sh([sys.executable, "-m", "inspector.cli"] + cmd, log=out)
            with open(out + ".stderr.txt", "w") as f:
                f.write(r.stderr)
            try:
                doc = json.load(open(out))
                conf = doc.get("confirmation") or {}
                summary.append(f"{tag} {what}: rc {r.returncode}: {conf.get('verdict')}")
                for line in conf.get("lines", []):
                    summary.append(f"    {line}")
            except (OSError, ValueError) as e:
                summary.append(f"{tag} {what}: rc {r.returncode}: no JSON ({e}); stderr: {r.stderr[-400:]}")
    with open(os.path.join(OUT, "summary.txt"), "w") as f:
        f.write("\n".join(summary) + "\n")
    with tarfile.open(os.path.join(OUT, "confirm_gpu.tar.gz"), "w:gz") as t:
        t.add(WORK, arcname="confirm_gpu")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
