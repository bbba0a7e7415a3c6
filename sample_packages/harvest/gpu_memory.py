"""Issue 34 §5 on the GPU: the library models' peak CUDA memory above their inputs against `doctor --input`.

For the lead, on one H200 with torch 2.11 (transformers, timm, sentence-transformers, torchvision installed; nothing
fetched: random weights from small configs), from the repository root:

    OUT=${OUT:-/tmp/gpu_memory} CXX=/usr/bin/g++ python sample_packages/harvest/gpu_memory.py

What it does, per model (the same modules as sample_packages/harvest/memory_cpu213/build_and_measure.py's CPU
twins, plus a torchvision roi_align head):
  1. export with dynamic sizes and aoti_compile_and_package on cuda ($OUT/pkgs/NAME.pt2, weights left out of the .so);
  2. in a fresh child process: aoti_load_package, load_constants, then at each size two runs (first, second):
     peak_over_before = torch.cuda.max_memory_allocated() after reset_peak_memory_stats() minus
     torch.cuda.memory_allocated() before the run (the inputs made before it);
  3. doctor's estimate at the same sizes, read through the repository's own code (no torch on that path):
     inspector.queries.memory (steady, first-run and upper figures, and what it says it could not count);
writes $OUT/gpu_memory.json (every run, the estimate and the ratio) and $OUT/logs/NAME.log; a model whose library
is missing or whose build fails is recorded with its error, and the others go on.
Sizes: issue 34's table (Llama [16,128], GPT-2 [4096,128], BERT+pooling [64,64], roi_align B=8 K=1024, ViT
[32,3,224,224], wav2vec2 [16,64000]) and a smaller and a middle one each.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "memory_cpu213"))
OUT = Path(os.environ.get("OUT") or "/tmp/gpu_memory")

SIZES = {
    "llama": [[2, 16], [16, 64], [16, 128]],
    "gpt2": [[16, 64], [512, 128], [4096, 128]],
    "bert_pool": [[2, 16], [16, 64], [64, 64]],
    "vit": [[2, 3, 64, 64], [8, 3, 224, 224], [32, 3, 224, 224]],
    "wav2vec2": [[2, 4000], [4, 16000], [16, 64000]],
    "roi_head": [[2, 64], [4, 256], [8, 1024]],  # [images B, rois K]
}


def model(name):
    import torch
    from torch import nn
    from torch.export import Dim

    if name != "roi_head":
        import build_and_measure as bm

        return bm.model(name, batch_max=8192)
    import torchvision

    class RoIHead(nn.Module):
        """A backbone's stride-8 features, torchvision.ops.roi_align (a custom op: its buffers live inside it), a
        box head."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                                      nn.Conv2d(64, 64, 3, 2, 1))
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(64 * 7 * 7, 256), nn.ReLU(), nn.Linear(256, 8))

        def forward(self, images, rois):
            f = self.body(images)
            r = torchvision.ops.roi_align(f, rois, output_size=(7, 7), spatial_scale=1 / 8, sampling_ratio=2)
            return self.head(r)

    torch.manual_seed(0)
    images = torch.randn(2, 3, 256, 256)
    rois = _rois(2, 64)
    return (RoIHead().eval(), (images, rois),
            ({0: Dim("batch", min=1, max=64)}, {0: Dim("rois", min=2, max=65536)}),
            "a conv body + torchvision.ops.roi_align(7x7, 1/8) + a box head")


def _rois(b, k, device="cpu"):
    import torch

    g = torch.Generator().manual_seed(2)
    xy = torch.rand(k, 2, generator=g) * 200
    wh = torch.rand(k, 2, generator=g) * 50 + 4
    idx = torch.randint(0, b, (k, 1), generator=g).float()
    return torch.cat([idx, xy, xy + wh], 1).to(device)


def inputs(name, size, device="cuda"):
    import torch

    if name == "roi_head":
        b, k = size
        return (torch.randn(b, 3, 256, 256, device=device), _rois(b, k, device))
    import build_and_measure as bm

    return tuple(t.to(device) for t in bm.inputs(name, size))


def build(name) -> Path:
    import torch

    m, ex, dyn, what = model(name)
    m = m.cuda()
    ex = tuple(t.cuda() for t in ex)
    pkg = OUT / "pkgs" / f"{name}.pt2"
    pkg.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        ep = torch.export.export(m, ex, dynamic_shapes=dyn, strict=False)
        torch._inductor.aoti_compile_and_package(ep, package_path=str(pkg),
                                                 inductor_configs={"aot_inductor.package_constants_in_so": False})
    return pkg


def measure(name) -> dict:
    import torch

    m, _, _, what = model(name)
    m = m.cuda()
    runner = torch._inductor.aoti_load_package(str(OUT / "pkgs" / f"{name}.pt2"))
    fq = set(runner.get_constant_fqns())
    sd = {k: v for k, v in list(m.state_dict().items()) + list(m.named_buffers()) if k in fq}
    runner.load_constants(sd, check_full_update=True)
    del m
    res = {"model": name, "what": what, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "runs": []}
    with torch.no_grad():
        for size in SIZES[name]:
            for attempt in ("first", "second"):
                x = inputs(name, size)
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated()
                out = runner(*x)
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated() - before
                flat = out if isinstance(out, (list, tuple)) else [out]
                res["runs"].append({"size": size, "run": attempt, "peak_over_before": peak,
                                    "inputs_bytes": sum(t.numel() * t.element_size() for t in x),
                                    "outputs_bytes": sum(t.numel() * t.element_size() for t in flat)})
                print(name, size, attempt, peak, flush=True)
                del out, flat, x
    return res


def estimate(name, size) -> dict:
    """doctor's figures at ``size``, by the repository's own code (no torch)."""
    import inspector
    from inspector.queries.check import parse_spec
    from inspector.queries.memory import memory_plan, symbol_values

    dt = "float32" if name in ("vit", "wav2vec2") else "int64"
    if name == "roi_head":
        specs = [f"0=float32[{size[0]},3,256,256]", f"1=float32[{size[1]},5]"]
    elif name == "bert_pool":
        specs = [f"0=int64[{size[0]},{size[1]}]", f"1=int64[{size[0]},{size[1]}]"]
    else:
        specs = [f"0={dt}[{','.join(map(str, size))}]"]
    with inspector.open_package(OUT / "pkgs" / f"{name}.pt2") as pkg:
        plan = memory_plan(pkg)
        vals = symbol_values(pkg.index().eager(), [parse_spec(s) for s in specs])
        e = plan.estimate({s: vals.get(s, 64) for s in plan.symbols})
    return {"specs": specs, "steady": e.steady.bytes, "first": e.first.bytes, "upper": e.upper,
            "not_counted": e.not_counted, "symbols": vals}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "logs").mkdir(exist_ok=True)
    if len(sys.argv) > 2 and sys.argv[1] == "_child":
        name, what = sys.argv[2], sys.argv[3]
        try:
            if what == "build":
                build(name)
            else:
                (OUT / f"{name}.measure.json").write_text(json.dumps(measure(name), indent=1))
        except Exception:
            traceback.print_exc()
            sys.exit(1)
        return
    names = sys.argv[1:] or list(SIZES)
    report = {"how": __doc__, "models": {}}
    for name in names:
        row = report["models"][name] = {}
        log = open(OUT / "logs" / f"{name}.log", "w")
        for what in ("build", "measure"):
            t0 = time.time()
            p = subprocess.run([sys.executable, __file__, "_child", name, what], stdout=log, stderr=subprocess.STDOUT)
            row[f"{what}_s"] = round(time.time() - t0, 1)
            if p.returncode:
                row["error"] = f"{what} failed (rc {p.returncode}): see logs/{name}.log"
                break
        if "error" in row:
            continue
        meas = json.loads((OUT / f"{name}.measure.json").read_text())
        row.update(torch=meas["torch"], gpu=meas["gpu"], what=meas["what"], runs=meas["runs"])
        for r in row["runs"]:
            try:
                est = estimate(name, r["size"])
            except Exception as ex:  # the estimate's own failure is a finding, not the end of the run
                r["estimate_error"] = repr(ex)
                continue
            r["estimate"] = est
            r["ratio_steady"] = est["steady"] / r["peak_over_before"] if r["peak_over_before"] else None
            r["upper_holds"] = None if est["upper"] is None else r["peak_over_before"] <= est["upper"]
        (OUT / "gpu_memory.json").write_text(json.dumps(report, indent=1))
    (OUT / "gpu_memory.json").write_text(json.dumps(report, indent=1))
    for name, row in report["models"].items():
        for r in row.get("runs", []):
            print(name, r["size"], r["run"], r["peak_over_before"], (r.get("estimate") or {}).get("steady"),
                  r.get("ratio_steady"))


if __name__ == "__main__":
    main()
