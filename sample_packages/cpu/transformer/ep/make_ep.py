"""Write transformer_ep.pt2: the transformer sample's model exported as build.py exports it and saved with
torch.export.save (no AOTI), for tests of `--ep FILE` with nested modules (blocks.N).
Run: python sample_packages/cpu/transformer/ep/make_ep.py  (kept one folder deeper: not an AOTI package)"""

import importlib.util
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("build", HERE.parents[2] / "build.py")
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)

torch.manual_seed(0)
model, args, dims = build.materialize("transformer", "cpu")
ep = build._export(model, args, dims)
torch.export.save(ep, str(HERE / "transformer_ep.pt2"))
print("ok")
