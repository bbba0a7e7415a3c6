"""Provoke the failures users bring that are *not* a printed index assert, and keep their real text.

Each scenario loads a shipped (or here-built) package, calls it the way a user
would get wrong (an index past the table with the bounds assert compiled out,
CPU tensors for a CUDA package, ``AOTI_RUNTIME_CHECK_INPUTS=1`` with a bad
shape or dtype, a device-side assert whose line never reaches the log …), in a
subprocess, and writes the real stderr to
``sample_packages/<device>/<sample>/logs/<scenario>.log``, with
``logs/index.json`` saying how each log was made (env, inputs, exit code).

Usage (torch needed; pt2-inspect itself never imports it)::

    CXX=/usr/bin/g++ python sample_packages/failures.py --device cuda     # on a GPU box
    python sample_packages/failures.py --device cpu                      # torch 2.13 CPU here
    python sample_packages/failures.py --device cuda --out /tmp/logs --only ima_async

The package ``<device>/embedding_noassert`` is built here: the embedding sample
compiled with ``inductor_configs={"assert_indirect_indexing": False}``, so an
out-of-range id reads far outside the table instead of asserting.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def build_noassert(dev: str, out: Path) -> Path:
    import torch
    from torch.export import Dim

    sys.path.insert(0, str(HERE))
    from build import _source  # noqa: E402
    from models import EmbeddingModel  # noqa: E402

    torch.manual_seed(0)
    out.mkdir(parents=True, exist_ok=True)
    pkg = out / "embedding_noassert.pt2"
    model = EmbeddingModel().to(dev).eval()
    args = (torch.randint(0, 1000, (4, 16), device=dev),)
    dims = ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=256)},)
    ep = torch.export.export(model, args, dynamic_shapes=dims, strict=False)
    torch._inductor.aoti_compile_and_package(ep, package_path=str(pkg),
                                             inductor_configs={"assert_indirect_indexing": False})
    (out / "package.json").write_text(json.dumps({
        "name": "embedding_noassert", "device": dev, "torch": torch.__version__,
        "model_class": "EmbeddingModel", "model_source": _source(EmbeddingModel),
        "inductor_configs": {"assert_indirect_indexing": False},
        "inputs": [{"shape": [4, 16], "dtype": "int64"}],
        "dynamic_shapes": [{"0": {"name": "batch", "min": 1, "max": 64}, "1": {"name": "seq", "min": 1, "max": 256}}],
        "note": "no bounds assert: an id past the 1000-row table emb.weight reads outside it",
    }, indent=2) + "\n")
    return pkg


# Scenario: (sample folder, package file, env, inputs expression, how the call is made, what it shows)
# ``inputs`` is evaluated in the child with torch imported and ``dev`` set; ``mode``:
#   "sync"     call, then torch.cuda.synchronize() (the error surfaces at a later sync, as users see it)
#   "warm"     one good call first (cuBLAS handle made), then the bad one, then os._exit(1) from the except
#   "plain"    call and print the output shapes
SCENARIOS = {
    "cuda": {
        "ima_async": ("embedding_noassert", dict(), "torch.tensor([[1, 2, 10**9, 3]], device=dev)", "sync",
                      "illegal memory access, reported at a later synchronize"),
        "ima_blocking": ("embedding_noassert", dict(CUDA_LAUNCH_BLOCKING="1"),
                         "torch.tensor([[1, 2, 10**9, 3]], device=dev)", "sync",
                         "illegal memory access with CUDA_LAUNCH_BLOCKING=1"),
        "cpu_inputs": ("jagged", dict(), "(torch.randn(10, 8), torch.tensor([3, 2, 5]))", "sync",
                       "CPU tensors fed to the CUDA package"),
        "cpu_inputs_blocking": ("jagged", dict(CUDA_LAUNCH_BLOCKING="1"),
                                "(torch.randn(10, 8), torch.tensor([3, 2, 5]))", "sync",
                                "CPU tensors fed to the CUDA package, CUDA_LAUNCH_BLOCKING=1"),
        "cpu_inputs_checked": ("jagged", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                               "(torch.randn(10, 8), torch.tensor([3, 2, 5]))", "sync",
                               "CPU tensors with AOTI_RUNTIME_CHECK_INPUTS=1"),
        "check_inputs_too_small": ("jagged", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                                   "(torch.empty(0, 8, device=dev), torch.tensor([0, 0, 0], device=dev))", "sync",
                                   "empty values with AOTI_RUNTIME_CHECK_INPUTS=1"),
        "check_inputs_too_large": ("jagged", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                                   "(torch.randn(70000, 8, device=dev), torch.tensor([3, 2, 5], device=dev))", "sync",
                                   "70000 rows (max 65536) with AOTI_RUNTIME_CHECK_INPUTS=1"),
        "check_inputs_dtype": ("jagged", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                               "(torch.randn(10, 8, device=dev), torch.tensor([3, 2, 5], device=dev, dtype=torch.int32))",
                               "sync", "int32 lengths (int64 compiled) with AOTI_RUNTIME_CHECK_INPUTS=1"),
        "check_inputs_static": ("embedding", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                                "torch.tensor([[1, 2, 3]], device=dev, dtype=torch.float32)", "sync",
                                "float ids with AOTI_RUNTIME_CHECK_INPUTS=1"),
        "assert_warm_exit": ("transformer", dict(), "torch.tensor([[5, 600, 7, 8]], device=dev)", "warm",
                             "device assert after a good call; process exits from the except"),
        "assert_warm_sync": ("transformer", dict(), "torch.tensor([[5, 600, 7, 8]], device=dev)", "warm_sync",
                             "device assert after a good call; a synchronize in the except"),
        "assert_jagged_warm_exit": ("jagged", dict(),
                                    "(torch.empty(0, 8, device=dev), torch.tensor([0, 0, 0], device=dev))", "warm",
                                    "jagged empty values after a good call; exit from the except"),
        "assert_embedding_warm_exit": ("embedding", dict(), "torch.tensor([[1, 2, 1500, 3]], device=dev)", "warm",
                                       "embedding id 1500 after a good call; exit from the except"),
    },
    "cpu": {
        "check_inputs_too_small": ("jagged", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                                   "(torch.empty(0, 8), torch.tensor([0, 0, 0]))", "plain",
                                   "empty values with AOTI_RUNTIME_CHECK_INPUTS=1"),
        "check_inputs_too_large": ("jagged", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                                   "(torch.randn(70000, 8), torch.tensor([3, 2, 5]))", "plain",
                                   "70000 rows (max 65536) with AOTI_RUNTIME_CHECK_INPUTS=1"),
        "check_inputs_dtype": ("jagged", dict(AOTI_RUNTIME_CHECK_INPUTS="1"),
                               "(torch.randn(10, 8), torch.tensor([3, 2, 5], dtype=torch.int32))", "plain",
                               "int32 lengths (int64 compiled) with AOTI_RUNTIME_CHECK_INPUTS=1"),
    },
}

GOOD = {
    "transformer": "torch.tensor([[5, 6, 7, 8]], device=dev)",
    "jagged": "(torch.randn(10, 8, device=dev), torch.tensor([3, 2, 5], device=dev))",
    "embedding": "torch.tensor([[1, 2, 3, 4]], device=dev)",
    "embedding_noassert": "torch.tensor([[1, 2, 3, 4]], device=dev)",
}


def child(pkg: str, dev: str, inputs: str, mode: str, sample: str) -> None:
    import torch
    from torch._inductor.package import load_package

    m = load_package(pkg, "model")

    def call(expr):
        x = eval(expr, {"torch": torch, "dev": dev})
        return m(*(x if isinstance(x, tuple) else (x,)))

    if mode in ("warm", "warm_sync"):
        call(GOOD[sample])
        if dev == "cuda":
            torch.cuda.synchronize()
        try:
            out = call(inputs)
            if dev == "cuda":
                torch.cuda.synchronize()
        except Exception as e:  # what a serving loop does: log and bail out
            print(f"{type(e).__module__}.{type(e).__name__}: {e}", file=sys.stderr, flush=True)
            if mode == "warm_sync":
                try:
                    torch.cuda.synchronize()
                except Exception as e2:
                    print(f"{type(e2).__module__}.{type(e2).__name__}: {e2}", file=sys.stderr, flush=True)
            os._exit(1)
        print("ran without error", file=sys.stderr)
        return
    out = call(inputs)
    if dev == "cuda" and mode == "sync":
        torch.cuda.synchronize()
    print("ran without error:", [tuple(o.shape) for o in (out if isinstance(out, (list, tuple)) else [out])],
          file=sys.stderr)


def run(dev: str, out_root: Path, only: list[str] | None) -> None:
    pkgs = {name: HERE / dev / name / f"{name}.pt2" for name in ("jagged", "transformer", "embedding")}
    noassert_dir = out_root / dev / "embedding_noassert"
    index = {}
    for scen, (sample, env_extra, inputs, mode, what) in SCENARIOS[dev].items():
        if only and scen not in only:
            continue
        if sample == "embedding_noassert" and sample not in pkgs:
            pkgs[sample] = build_noassert(dev, noassert_dir)
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
        for k in ("AOTI_RUNTIME_CHECK_INPUTS", "CUDA_LAUNCH_BLOCKING"):
            env.pop(k, None)
        env.update(env_extra)
        proc = subprocess.run([sys.executable, __file__, "--child", str(pkgs[sample]), "--device", dev,
                               "--inputs", inputs, "--mode", mode, "--sample", sample],
                              capture_output=True, text=True, env=env, timeout=300)
        lines = [l for l in proc.stderr.splitlines() if "UserWarning" not in l]
        # Long C++ frame lists: keep the first few frames of each, as users paste them.
        kept, frames = [], 0
        for l in lines:
            frames = frames + 1 if l.startswith("frame #") else 0
            if frames <= 6:
                kept.append(l)
        text = "\n".join(kept).rstrip("\n") + "\n"
        logs = out_root / dev / sample / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        (logs / f"{scen}.log").write_text(text)
        entry = {"scenario": scen, "what": what, "env": env_extra, "inputs": inputs, "mode": mode,
                 "returncode": proc.returncode, "package": f"{dev}/{sample}/{sample}.pt2"}
        idx_path = logs / "index.json"
        idx = json.loads(idx_path.read_text()) if idx_path.exists() else {}
        idx[scen] = entry
        idx_path.write_text(json.dumps(idx, indent=2, sort_keys=True) + "\n")
        index[scen] = proc.returncode
        print(scen, proc.returncode, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--out", type=Path, default=HERE, help="root of <device>/<sample>/logs (default: here)")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--inputs", help=argparse.SUPPRESS)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    ap.add_argument("--sample", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child, a.device, a.inputs, a.mode, a.sample)
        return
    run(a.device, a.out, a.only)


if __name__ == "__main__":
    main()
