"""Issue 14 §1, "weights stored beside the code": a package built with
package_constants_on_disk_format="pickle_weights" (torch 2.13 CPU), and what each loading call does with it.

    python build.py build DIR      # export, aoti_compile_and_package, re-store deflated with the .so's debug
                                   # sections stripped, then every run below (on the package as stored here)
    python build.py run DIR SCEN   # one run, in a fresh process (build calls it with -X faulthandler)

Runs (each a fresh process, OMP_NUM_THREADS=1, its stdout+stderr saved exactly in logs/SCEN.log):
  aoti_load_package        torch._inductor.aoti_load_package(p)(x): the call most users write
  load_package_from_disk   torch._inductor.package.load_package(p, load_weights_from_disk=True)
  load_pt2_from_disk       torch.export.pt2_archive._package.load_pt2(p, load_weights_from_disk=True)
                           .aoti_runners["model"](x), compared with the eager model
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
import zipfile

NAME = "pickle_weights_cpu"
CONFIGS = {"aot_inductor.package_constants_in_so": False,
           "aot_inductor.package_constants_on_disk_format": "pickle_weights"}
RUNS = [
    ("aoti_load_package", "torch._inductor.aoti_load_package(p)(x), x = randn(8, 16)",
     "weights stored beside the code (pickle_weights) never loaded: aoti_load_package ignores data/weights/",
     "weights_not_loaded"),
    ("load_package_from_disk", "torch._inductor.package.load_package(p, load_weights_from_disk=True)",
     "torch 2.13's load_package has no load_weights_from_disk parameter", "none (a TypeError in the user's call)"),
    ("load_pt2_from_disk", "load_pt2(p, load_weights_from_disk=True).aoti_runners['model'](x), x = randn(8, 16)",
     None, "none (clean run)"),
]


def model():
    import torch
    from torch import nn

    torch.manual_seed(0)

    class LinRelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(16, 32)

        def forward(self, x):
            return torch.relu(self.lin(x))

    return LinRelu().eval()


def inputs():
    import torch

    g = torch.Generator().manual_seed(1)
    return (torch.randn(8, 16, generator=g),)


def restore_deflated(path: str) -> dict:
    """Rewrite the zip with every member deflated (AOTI stores them), the .so's debug sections stripped
    (`strip --strip-debug`: .debug_* only; .dynsym, .symtab and the code stay): a 1.5 MB package becomes
    ~150 KB. Every run below loads the package as rewritten. Returns the .so's sizes before and after."""
    import tempfile

    tmp = path + ".tmp"
    sizes = {}
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith(".so"):
                with tempfile.TemporaryDirectory() as d:
                    so = os.path.join(d, "m.so")
                    with open(so, "wb") as f:
                        f.write(data)
                    subprocess.run(["strip", "--strip-debug", so], check=True)
                    with open(so, "rb") as f:
                        stripped = f.read()
                sizes[info.filename] = [len(data), len(stripped)]
                data = stripped
            dst.writestr(info.filename, data)
    os.replace(tmp, path)
    return sizes


def build(outdir: str) -> int:
    import torch
    from torch.export import Dim

    os.makedirs(os.path.join(outdir, "logs"), exist_ok=True)
    pkg = os.path.join(outdir, NAME + ".pt2")
    info = {"source": "issue14", "name": NAME, "device": "cpu", "torch": torch.__version__, "build_env": {},
            "inductor_configs": dict(CONFIGS), "runs": [],
            "built_on": "the helper machine (x86_64 CPU, 2 cores), torch 2.13.0+cpu, g++; not the H200"}
    t0 = time.time()
    try:
        m = model()
        ex = inputs()
        with torch.no_grad():
            ep = torch.export.export(m, ex, dynamic_shapes=({0: Dim("batch", min=2, max=4096)},), strict=False)
        info["graph_signature_inputs"] = [s.arg.name for s in ep.graph_signature.input_specs if hasattr(s.arg, "name")]
        info["ep_graph"] = str(ep.graph_module.code)
        with torch.no_grad():
            torch._inductor.aoti_compile_and_package(ep, package_path=pkg, inductor_configs=CONFIGS)
        info["pkg_size_as_built"] = os.path.getsize(pkg)
        with zipfile.ZipFile(pkg) as z:
            info["members_as_built"] = {i.filename: i.file_size for i in z.infolist()}
        info["so_debug_stripped"] = restore_deflated(pkg)
        info["build_ok"] = True
    except Exception as e:  # noqa: BLE001 - recorded in index.json
        info["build_ok"] = False
        info["build_error"] = "".join(traceback.format_exception(e))[-6000:]
        traceback.print_exc()
    info["build_seconds"] = round(time.time() - t0, 1)
    if info["build_ok"]:
        info["pkg_size"] = os.path.getsize(pkg)
    _dump(info, outdir)
    if not info["build_ok"]:
        return 1
    for scen, desc, expect, right in RUNS:
        extra = {"OMP_NUM_THREADS": "1"}
        env = dict(os.environ, PYTHONUNBUFFERED="1", **extra)
        log = os.path.join(outdir, "logs", scen + ".log")
        t1 = time.time()
        with open(log, "w") as f:
            try:
                p = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "run", outdir, scen],
                                   stdout=f, stderr=subprocess.STDOUT, env=env, timeout=300)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
        info["runs"].append({"scenario": scen, "inputs": desc, "rc": rc, "env": extra, "log": "logs/" + scen + ".log",
                             "expect": expect, "seconds": round(time.time() - t1, 1),
                             "command": f"python -X faulthandler build.py run DIR {scen}", "right_category": right})
        _dump(info, outdir)
    return 0


def _dump(info, outdir):
    with open(os.path.join(outdir, "index.json"), "w") as f:
        json.dump(info, f, indent=1)


def run(outdir: str, scen: str) -> int:
    import torch

    pkg = os.path.join(outdir, NAME + ".pt2")
    print(f"[harvest] issue14/{NAME} scenario={scen} torch={torch.__version__}", flush=True)
    (x,) = inputs()
    if scen == "aoti_load_package":
        m = torch._inductor.aoti_load_package(pkg)
        print("[harvest] loaded with aoti_load_package; calling it", flush=True)
        out = m(x)
    elif scen == "load_package_from_disk":
        from torch._inductor.package import load_package

        m = load_package(pkg, load_weights_from_disk=True)
        out = m(x)
    elif scen == "load_pt2_from_disk":
        from torch.export.pt2_archive._package import load_pt2

        m = load_pt2(pkg, load_weights_from_disk=True).aoti_runners["model"]
        print("[harvest] loaded with load_pt2(load_weights_from_disk=True); calling it", flush=True)
        out = m(x)
        with torch.no_grad():
            ref = model()(x)
        got = out[0] if isinstance(out, (list, tuple)) else out
        print(f"[harvest] matches the eager model: {torch.allclose(got, ref, atol=1e-5)}", flush=True)
    else:
        raise SystemExit(f"unknown scenario {scen}")
    flat = out if isinstance(out, (list, tuple)) else [out]
    for i, t in enumerate(flat):
        tf = t.float()
        print(f"[harvest] output {i}: shape={tuple(t.shape)} dtype={t.dtype} finite={bool(torch.isfinite(tf).all())} "
              f"sum={tf.sum().item() if t.numel() else 0.0}", flush=True)
    print("[harvest] run finished", flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "build":
        sys.exit(build(sys.argv[2]))
    sys.exit(run(sys.argv[2], sys.argv[3]))
