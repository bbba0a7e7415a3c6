"""Produce the real failure logs that `diagnose` is tested on (CPU, torch 2.13).

Each scenario loads a shipped sample package in a fresh subprocess, calls it with
an input that makes it fail, and stores the real stderr (frame lists trimmed) as
sample_packages/<device>/<sample>/logs/<kind>.log, with an entry in logs/index.json (the format of
sample_packages/failures.py, which makes the CUDA ones).  Run:

    OMP_NUM_THREADS=1 python sample_packages/make_logs.py            # all scenarios
    python sample_packages/make_logs.py --only cpu/gather_dynamic/check_inputs_too_large
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (device/sample/kind, env, python body run with `pkg` = the package path).  Each body is real user code.
SCENARIOS = {
    "cpu/gather_dynamic/check_inputs_too_large": (
        {"AOTI_RUNTIME_CHECK_INPUTS": "1"},
        "m = load_package(pkg)\nm(torch.randn(2, 5000), torch.zeros(2, 8, dtype=torch.long))",
        "AOTI_RUNTIME_CHECK_INPUTS=1; x = randn(2, 5000) (dim 1 allows 2..4096)"),
    "cpu/embedding/check_inputs_dtype": (
        {"AOTI_RUNTIME_CHECK_INPUTS": "1"},
        "m = load_package(pkg)\nm(torch.tensor([[1, 2, 3, 4]], dtype=torch.int32))",
        "AOTI_RUNTIME_CHECK_INPUTS=1; ids as int32 (the package expects int64)"),
    "cpu/embedding/check_inputs_batch_one": (
        {"AOTI_RUNTIME_CHECK_INPUTS": "1"},
        "m = load_package(pkg)\nm(torch.tensor([[1, 2, 3, 4]]))",
        "AOTI_RUNTIME_CHECK_INPUTS=1; ids of batch 1, exported with Dim('batch', min=1): the guard says >= 2"),
    "cpu/gather_dynamic/check_inputs_unequal": (
        {"AOTI_RUNTIME_CHECK_INPUTS": "1"},
        "m = load_package(pkg)\nm(torch.randn(4, 32), torch.zeros(3, 8, dtype=torch.long))",
        "AOTI_RUNTIME_CHECK_INPUTS=1; x has 4 rows, idx 3 (both are the symbol `batch`)"),
    # Issue 20 (c): negative indices.  index_select's kernel wraps them (`tmp4 ? tmp3 : tmp0`, tmp4 = tmp0 < 0):
    # -1 reads the last row with no error (eager index_select rejects it), only values below -N fail the check;
    # the embedding's kernel does not wrap: -1 fails at once.
    "cpu/index_select/negative_wraps_silently": (
        {},
        "import sys\ntorch.manual_seed(0)\nm = load_package(pkg)\nx = torch.randn(16, 4)\n"
        "idx = torch.tensor([0, -1, 3, -16, 5])\nout = m(x, idx)\n"
        "print('aoti: no error; rows read equal x[[0, 15, 3, 0, 5]]:', torch.equal(out, x[[0, 15, 3, 0, 5]] * 2.0),"
        " file=sys.stderr)\n"
        "try:\n    x.index_select(0, idx)\nexcept Exception as e:\n"
        "    print('eager index_select:', type(e).__name__ + ':', str(e).splitlines()[0], file=sys.stderr)",
        "idx holds -1 and -16 (x has 16 rows): the kernel wraps them to rows 15 and 0 and says nothing; eager "
        "index_select raises"),
    "cpu/index_select/negative_below_n": (
        {},
        "m = load_package(pkg)\nm(torch.randn(16, 4), torch.tensor([0, -1, 3, -17, 5]))",
        "idx holds -17, below -16 (x has 16 rows): the only negative value that fails the wrapping kernel's check"),
    "cpu/embedding/negative_one": (
        {},
        "m = load_package(pkg)\nm(torch.tensor([[1, 2, 3, 4], [5, -1, 7, 8]]))",
        "ids hold -1: the embedding's kernel does not wrap negatives, so -1 already fails its check"),
    # Issue 20 (d): top-k positions bound the index.  Scores 2x6 into a 10-column table: positions reach 5 < 10,
    # every value fits (`check` says fit); error.log is the failing case (scores 2x10 into 6 columns).
    "cpu/topk_gather/positions_fit": (
        {},
        "import sys\ntorch.manual_seed(0)\nm = load_package(pkg)\nout = m(torch.arange(12.).reshape(2, 6), "
        "torch.randn(2, 10))\nprint('aoti: no error; output', tuple(out.shape), file=sys.stderr)",
        "scores 2x6, table 2x10: top-3 positions reach 5, inside the 10 columns"),
    "cuda/jagged/load_cuda_package_on_cpu_host": (
        {},
        "m = load_package(pkg)",
        "a CUDA package loaded by torch 2.13+cpu on a host without CUDA"),
    "cpu/jagged/deprecated_aot_load": (
        {},
        "import torch._export\nm = torch._export.aot_load(pkg, device='cpu')\nm(torch.empty(0, 8), torch.tensor([0, 0, 0]))",
        "the deprecated torch._export.aot_load called on the .pt2"),
    "cpu/jagged/load_without_wrapper_so": (
        {},
        "import zipfile, tempfile, os\nbad = os.path.join(tempfile.mkdtemp(), 'jagged.pt2')\n"
        "with zipfile.ZipFile(pkg) as zi, zipfile.ZipFile(bad, 'w') as zo:\n"
        "    for i in zi.infolist():\n"
        "        if not i.filename.endswith('.wrapper.so'):\n"
        "            zo.writestr(i, zi.read(i.filename))\n"
        "m = load_package(bad)",
        "the package copied without its compiled wrapper.so member (a truncated upload), then loaded"),
    "cpu/ima_embedding/segfault_unchecked_index": (
        {},
        "m = load_package(pkg)\nprint(m(torch.tensor([[1, 2, 10**9, 3]])).sum())",
        "ids hold 10**9 against the 1000-row table of a package compiled with assert_indirect_indexing=False; "
        "python -X faulthandler"),
}

PRELUDE = "import torch\nfrom torch._inductor.package import load_package\npkg = {pkg!r}\n"


def trim(text: str) -> str:
    """Keep the real text; collapse long C++ frame lists to their first 4 and last frame."""
    out, frames = [], []

    def flush():
        if len(frames) > 5:
            out.extend(frames[:4] + [f"<{len(frames) - 5} frames trimmed>", frames[-1]])
        else:
            out.extend(frames)
        frames.clear()

    for line in text.splitlines():
        if "UserWarning: Failed to initialize NumPy" in line or "_conversion_method_template" in line:
            continue
        if re.match(r"frame #\d+:", line) or line.startswith("<omitting python frames>"):
            frames.append(line)
            continue
        flush()
        out.append(line)
    flush()
    return "\n".join(out) + "\n"


def run(key: str) -> None:
    env_add, body, how = SCENARIOS[key]
    dev, sample, kind = key.split("/")
    pkg = HERE / dev / sample / f"{sample}.pt2"
    if not pkg.exists():  # a package with no assertion to trace sits one folder deeper (see its README)
        pkg = HERE / dev / sample / "package" / f"{sample}.pt2"
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", **env_add)
    if "AOTI_RUNTIME_CHECK_INPUTS" not in env_add:
        env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", PRELUDE.format(pkg=str(pkg)) + body], capture_output=True,
                          text=True, env=env, timeout=600)
    out = HERE / dev / sample / "logs"
    out.mkdir(exist_ok=True)
    (out / f"{kind}.log").write_text(trim(proc.stderr))
    # One entry per log in logs/index.json, the format sample_packages/failures.py writes.
    index = out / "index.json"
    doc = json.loads(index.read_text()) if index.exists() else {}
    doc[kind] = {"env": env_add, "code": body, "mode": "plain", "package": str(pkg.relative_to(HERE)),
                 "returncode": proc.returncode, "scenario": kind, "what": how,
                 "made_by": "sample_packages/make_logs.py (torch 2.13.0+cpu, OMP_NUM_THREADS=1, python -X faulthandler)"}
    index.write_text(json.dumps(dict(sorted(doc.items())), indent=2) + "\n")
    print(key, "rc", proc.returncode, len(proc.stderr), "bytes")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append")
    a = ap.parse_args()
    for key in a.only or SCENARIOS:
        run(key)


if __name__ == "__main__":
    main()
