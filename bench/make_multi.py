"""Build bench's multi-model package: ten torchvision models (random weights) in one .pt2, on a GPU.

Issue 13 measured `show` on such a package (14 MB, ~5.8 MB of wrappers, ~2,000 constants): its cost
is the constructor facts of every model.  Each model is exported with a dynamic batch and compiled in
its own process (they run in parallel); one last process packages them with ``package_pt2``.  Weights
are left out of the .so (``aot_inductor.package_constants_in_so=False``): pt2-inspect never reads
them, and the package stays small enough to ship.

    CXX=/usr/bin/g++ python3 bench/make_multi.py --out /tmp/multi        # on the lent H200
    python3 bench/make_multi.py --pack-only --out /tmp/multi             # package what is built

Needs torch and torchvision (the H200's image has both).  Writes <out>/multi_model.pt2.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

MODELS = ("resnet50", "densenet121", "vit_b_16", "swin_t", "convnext_tiny", "mobilenet_v3_large",
          "efficientnet_b0", "regnet_y_400mf", "shufflenet_v2_x1_0", "squeezenet1_1")


def build_one(name: str, out: Path) -> None:
    import torch
    import torchvision

    dev = "cuda"
    model = getattr(torchvision.models, name)(weights=None).to(dev).eval()
    x = torch.randn(2, 3, 224, 224, device=dev)
    batch = torch.export.Dim("batch", min=1, max=256)
    with torch.no_grad():
        ep = torch.export.export(model, (x,), dynamic_shapes=({0: batch},))
        files = torch._inductor.aot_compile(
            ep.module(), (x,), options={"aot_inductor.package": True, "aot_inductor.package_constants_in_so": False})
    (out / f"{name}.files.json").write_text(json.dumps([str(f) for f in files]))


def pack(out: Path, names) -> Path:
    from torch.export.pt2_archive._package import package_pt2

    aoti = {}
    for n in names:
        p = out / f"{n}.files.json"
        if p.exists():
            aoti[n] = json.loads(p.read_text())
    pkg = out / "multi_model.pt2"
    package_pt2(str(pkg), aoti_files=aoti)
    return pkg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--pack-only", action="store_true")
    ap.add_argument("--jobs", type=int, default=5)
    ap.add_argument("--deadline", type=float, default=0, help="seconds: then stop the builds still running and "
                    "package the models that are done")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    if a.one:
        build_one(a.one, a.out)
        return
    if not a.pack_only:
        pending, running = list(MODELS), []
        t0 = time.time()
        while pending or running:
            while pending and len(running) < a.jobs:
                n = pending.pop(0)
                log = open(a.out / f"{n}.log", "w")
                running.append((n, subprocess.Popen([sys.executable, __file__, "--out", str(a.out), "--one", n],
                                                    stdout=log, stderr=subprocess.STDOUT)))
            for n, pr in list(running):
                if pr.poll() is not None:
                    running.remove((n, pr))
                    print(f"{n}: rc {pr.returncode} at {time.time() - t0:.0f} s", flush=True)
            if a.deadline and time.time() - t0 > a.deadline:
                for n, pr in running:
                    pr.kill()
                    print(f"{n}: stopped at the deadline", flush=True)
                break
            time.sleep(1)
    pkg = pack(a.out, MODELS)
    print(f"wrote {pkg} ({os.path.getsize(pkg):,} bytes)")
    deflate(pkg, out := a.out / "multi_model.deflated.pt2")
    print(f"wrote {out} ({os.path.getsize(out):,} bytes)")


def deflate(src: Path, dst: Path, drop=()) -> None:
    """The same members, deflated (AOTI stores them uncompressed); members ending in ``drop`` left out."""
    import zipfile

    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for info in zi.infolist():
            if not info.filename.endswith(tuple(drop)) or not drop:
                zo.writestr(info.filename, zi.read(info))


if __name__ == "__main__":
    main()
