"""Build the real AOTInductor sample packages that pt2-inspect is tested on.

Each sample is a small model defined here, exported with dynamic shapes,
compiled with ``torch._inductor.aoti_compile_and_package`` (or, for the
multi-model and exported-program samples, ``package_pt2``), then *run* with a
trigger input in a subprocess so that the real error text the package prints
is captured.  Output, per sample::

    sample_packages/<device>/<name>/<name>.pt2
    sample_packages/<device>/<name>/manifest.json

The manifest records the model source, export dims and ranges, the trigger,
the captured error text, and what that error must trace to (the ground truth
the tests check pt2-inspect against; it comes from how the model was built,
not from pt2-inspect).

Usage::

    python sample_packages/build.py --device cpu            # torch 2.13 CPU
    CXX=/usr/bin/g++ python sample_packages/build.py --device cuda   # on a GPU box
    python sample_packages/build.py --device cpu --only embedding

This script needs torch; pt2-inspect itself never imports it.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


class EmbeddingModel(nn.Module):
    """Embedding lookup into a static 1000-row table: the index is input 0's values."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 32)
        self.proj = nn.Linear(32, 8)

    def forward(self, ids):
        return self.proj(torch.relu(self.emb(ids)))


class GatherModel(nn.Module):
    """Gather along a dynamic dimension: the bound is input 0's dim 1 (a size parameter)."""

    def forward(self, x, idx):
        return torch.gather(x, 1, idx) * 2.0 + 1.0


class JaggedModel(nn.Module):
    """The debugging guide's jagged pattern: lengths -> cumsum -> -1 -> where -> index/index_copy.

    With an empty ``values`` tensor the bound (values' dim 0) becomes 0 and every index fails.
    The index reaches the failing kernel through an intermediate buffer (the cumsum's output).
    """

    def forward(self, values, lengths):
        offsets = torch.cumsum(lengths, 0)
        last = offsets - 1
        idx = torch.where(last >= 0, last, torch.zeros_like(last))
        picked = values[idx]
        updated = values.index_copy(0, idx, picked * 2.0)
        return picked, updated


class ScatterModel(nn.Module):
    """index_add with data-dependent indices: bucket = keys // 4 into a dynamic table."""

    def forward(self, table, keys, src):
        bucket = torch.div(keys, 4, rounding_mode="floor")
        return table.index_add(0, bucket, src * 0.5)


class Block(nn.Module):
    """Pre-norm attention + MLP.  Each block gets its own MLP width and activation,
    as mixed-width models do, so Inductor cannot reuse one block's kernels for the next."""

    ACTS = (F.gelu, F.silu, F.relu, torch.tanh)

    def __init__(self, d, heads, ratio=4, act=0):
        super().__init__()
        self.heads = heads
        self.act = self.ACTS[act % len(self.ACTS)]
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ratio * d)
        self.fc2 = nn.Linear(ratio * d, d)

    def forward(self, h):
        b, s, d = h.shape
        q, k, v = self.qkv(self.ln1(h)).split(d, dim=-1)
        q = q.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + self.out(a.transpose(1, 2).reshape(b, s, d))
        return h + self.fc2(self.act(self.fc1(self.ln2(h))))


class TinyTransformer(nn.Module):
    """A 12-block decoder-only transformer: token + position embeddings, dynamic batch and sequence."""

    def __init__(self, vocab=512, d=64, heads=4, layers=12, max_pos=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.blocks = nn.ModuleList(Block(d, heads, ratio=1 + i, act=i) for i in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        h = self.tok(ids) + self.pos(pos)
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln_f(h))


class Encoder(nn.Module):
    """First model of the two-model package: token embedding + projection."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(256, 16)
        self.proj = nn.Linear(16, 16)

    def forward(self, ids):
        return torch.tanh(self.proj(self.emb(ids)))


class Decoder(nn.Module):
    """Second model of the two-model package: picks rows of a dynamic memory by index."""

    def __init__(self):
        super().__init__()
        self.out = nn.Linear(16, 4)

    def forward(self, memory, idx):
        return self.out(memory[idx] + 1.0)


# --------------------------------------------------------------------------
# Sample specifications
# --------------------------------------------------------------------------
# Each spec: how to make the model and example inputs, the dynamic shapes,
# the trigger (a bad input that makes an assertion fail), and what that
# failure must trace to.  ``inputs`` / ``trigger`` are callables taking a
# device string so the same spec serves CPU and CUDA.


def _ids(lo, hi, shape, dev):
    return torch.randint(lo, hi, shape, device=dev)


SPECS = {
    "embedding": dict(
        doc=EmbeddingModel.__doc__,
        model=EmbeddingModel,
        inputs=lambda dev: (_ids(0, 1000, (4, 16), dev),),
        dims=lambda: ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=256)},),
        trigger=lambda dev: (torch.tensor([[1, 2, 1500, 3]], device=dev),),
        trigger_doc="ids = [[1, 2, 1500, 3]]: token 1500 is past the 1000-row table",
        expect=dict(static_bound=1000, bound_input=None, index_input=0, source_contains="embedding"),
    ),
    "gather_dynamic": dict(
        doc=GatherModel.__doc__,
        model=GatherModel,
        inputs=lambda dev: (torch.randn(4, 32, device=dev), _ids(0, 32, (4, 8), dev)),
        dims=lambda: (
            {0: Dim("batch", min=1, max=64), 1: Dim("cols", min=2, max=4096)},
            {0: Dim("batch", min=1, max=64), 1: Dim("k", min=1, max=512)},
        ),
        trigger=lambda dev: (torch.randn(2, 10, device=dev), torch.tensor([[0, 9], [3, 10]], device=dev)),
        trigger_doc="x is 2x10, idx holds 10: one past x's dim 1",
        expect=dict(static_bound=None, bound_input=(0, 1), index_input=1, source_contains="gather"),
        # Package the exported program with the AOTI files (models/model.json).
        with_exported_program=True,
    ),
    "jagged": dict(
        doc=JaggedModel.__doc__,
        model=JaggedModel,
        inputs=lambda dev: (torch.randn(10, 8, device=dev), torch.tensor([3, 2, 5], device=dev)),
        dims=lambda: ({0: Dim("n_values", min=2, max=65536)}, {0: Dim("n_lengths", min=1, max=1024)}),
        trigger=lambda dev: (torch.empty(0, 8, device=dev), torch.tensor([0, 0, 0], device=dev)),
        trigger_doc="values is empty (0x8), lengths all zero: the bound values.size(0) is 0",
        expect=dict(static_bound=None, bound_input=(0, 0), index_input=1, source_contains="index"),
        # Compiled with provenance tracking: the package carries kernel_information.json.
        inductor_configs={"trace.provenance_tracking_level": 1},
    ),
    "scatter_add": dict(
        doc=ScatterModel.__doc__,
        model=ScatterModel,
        inputs=lambda dev: (
            torch.zeros(16, 4, device=dev),
            _ids(0, 64, (20,), dev),
            torch.randn(20, 4, device=dev),
        ),
        dims=lambda: (
            {0: Dim("rows", min=2, max=100000)},
            {0: Dim("n", min=2, max=100000)},
            {0: Dim("n", min=2, max=100000)},
        ),
        trigger=lambda dev: (torch.zeros(8, 4, device=dev), torch.tensor([0, 4, 40, 7], device=dev), torch.ones(4, 4, device=dev)),
        trigger_doc="table has 8 rows, key 40 -> bucket 10",
        expect=dict(static_bound=None, bound_input=(0, 0), index_input=1, source_contains="index_add"),
    ),
    "transformer": dict(
        doc=TinyTransformer.__doc__,
        model=TinyTransformer,
        inputs=lambda dev: (_ids(0, 512, (2, 16), dev),),
        dims=lambda: ({0: Dim("batch", min=1, max=32), 1: Dim("seq", min=2, max=128)},),
        trigger=lambda dev: (torch.tensor([[5, 600, 7, 8]], device=dev),),
        trigger_doc="ids hold 600: past the 512-token vocabulary",
        expect=dict(static_bound=512, bound_input=None, index_input=0, source_contains="embedding"),
    ),
    "two_models": dict(
        doc="Two exported programs, encoder and decoder, packaged into one archive with package_pt2.",
        model=None,  # special-cased in build_two_models
        expect=dict(static_bound=None, bound_input=(0, 0), index_input=1, source_contains="index",
                    model="decoder"),
        trigger_doc="decoder: memory has 6 rows, idx holds 9",
    ),
}


# --------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------


def _export(model, args, dims):
    return torch.export.export(model, args, dynamic_shapes=dims, strict=False)


def _dims_json(dims):
    out = []
    for d in dims:
        out.append({str(k): {"name": v.__name__, "min": v.min, "max": v.max} for k, v in (d or {}).items()})
    return out


def _source(cls):
    return textwrap.dedent(inspect.getsource(cls))


def build_one(name, dev, out_dir: Path):
    spec = SPECS[name]
    torch.manual_seed(0)
    pkg_dir = out_dir / name
    if pkg_dir.exists():
        shutil.rmtree(pkg_dir)
    pkg_dir.mkdir(parents=True)
    pkg = pkg_dir / f"{name}.pt2"
    manifest = {
        "name": name,
        "description": spec["doc"].strip() if spec.get("doc") else "",
        "device": dev,
        "torch": torch.__version__,
        "triton": _triton_version(),
    }
    if name == "two_models":
        manifest.update(build_two_models(dev, pkg))
    else:
        model = spec["model"]().to(dev).eval()
        args = spec["inputs"](dev)
        dims = spec["dims"]()
        ep = _export(model, args, dims)
        configs = dict(spec.get("inductor_configs") or {})
        if spec.get("with_exported_program"):
            from torch.export.pt2_archive._package import package_pt2

            files = torch._inductor.aot_compile(
                ep.module(), args, options={"aot_inductor.package": True, **configs}
            )
            package_pt2(str(pkg), exported_programs={"model": ep}, aoti_files={"model": files})
        else:
            torch._inductor.aoti_compile_and_package(ep, package_path=str(pkg), inductor_configs=configs)
        manifest.update(
            {
                "model_class": spec["model"].__name__,
                "model_source": _source(spec["model"]),
                "inputs": [{"shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", "")} for a in args],
                "dynamic_shapes": _dims_json(dims),
                "inductor_configs": configs,
                "exported_program_packaged": bool(spec.get("with_exported_program")),
            }
        )
    manifest["trigger"] = spec["trigger_doc"]
    manifest["expect"] = dict(spec["expect"])
    if isinstance(manifest["expect"].get("bound_input"), tuple):
        i, d = manifest["expect"]["bound_input"]
        manifest["expect"]["bound_input"] = {"index": i, "dim": d}
    manifest["expect"].setdefault("model", "model")
    err = run_trigger(name, dev, pkg)
    manifest["error"] = err
    manifest["expect"]["kernel"] = failing_kernel(err, pkg)
    manifest["package_bytes"] = pkg.stat().st_size
    (pkg_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (pkg_dir / "error.log").write_text(err["stderr"].rstrip("\n") + "\n")  # the real stderr, to paste or --log
    return manifest


def build_two_models(dev, pkg: Path):
    from torch.export.pt2_archive._package import package_pt2

    enc, dec = Encoder().to(dev).eval(), Decoder().to(dev).eval()
    enc_args = (_ids(0, 256, (2, 8), dev),)
    enc_dims = ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=512)},)
    dec_args = (torch.randn(12, 16, device=dev), _ids(0, 12, (5,), dev))
    dec_dims = ({0: Dim("mem", min=2, max=4096)}, {0: Dim("picks", min=1, max=4096)})
    ep_enc = _export(enc, enc_args, enc_dims)
    ep_dec = _export(dec, dec_args, dec_dims)
    opts = {"aot_inductor.package": True}
    files_enc = torch._inductor.aot_compile(ep_enc.module(), enc_args, options=opts)
    files_dec = torch._inductor.aot_compile(ep_dec.module(), dec_args, options=opts)
    package_pt2(str(pkg), aoti_files={"encoder": files_enc, "decoder": files_dec})
    return {
        "model_class": "Encoder, Decoder",
        "model_source": _source(Encoder) + "\n\n" + _source(Decoder),
        "models": {
            "encoder": {"inputs": [{"shape": [2, 8], "dtype": "int64"}], "dynamic_shapes": _dims_json(enc_dims)},
            "decoder": {
                "inputs": [{"shape": [12, 16], "dtype": "float32"}, {"shape": [5], "dtype": "int64"}],
                "dynamic_shapes": _dims_json(dec_dims),
            },
        },
        "inductor_configs": {},
        "exported_program_packaged": False,
    }


def _triton_version():
    try:
        import triton

        return triton.__version__
    except Exception:
        return None


# --------------------------------------------------------------------------
# Running the trigger (in a subprocess: a failing package may abort)
# --------------------------------------------------------------------------


def _trigger_args(name, dev):
    if name == "two_models":
        return (torch.randn(6, 16, device=dev), torch.tensor([0, 9, 2], device=dev))
    return SPECS[name]["trigger"](dev)


def trigger_main(name, dev, pkg):
    """Runs in the child process: load the package and call it with the trigger input."""
    from torch._inductor.package import load_package

    model_name = SPECS[name]["expect"].get("model", "model")
    m = load_package(pkg, model_name)
    out = m(*_trigger_args(name, dev))
    if dev == "cuda":
        torch.cuda.synchronize()
    print("trigger ran without error:", [tuple(o.shape) for o in (out if isinstance(out, (list, tuple)) else [out])])


def run_trigger(name, dev, pkg):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    proc = subprocess.run(
        [sys.executable, __file__, "--trigger", name, "--device", dev, "--package", str(pkg)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    text = proc.stderr
    # Keep the error, drop warnings unrelated to it; cap the size.
    lines = [l for l in text.splitlines() if "UserWarning" not in l and "_conversion_method_template" not in l]
    text = "\n".join(lines)
    if len(text) > 20000:
        text = text[:4000] + "\n…\n" + text[-16000:]
    return {"returncode": proc.returncode, "stderr": text, "stdout": proc.stdout[-2000:]}


# --------------------------------------------------------------------------
# Ground truth for "which kernel failed", independent of pt2-inspect
# --------------------------------------------------------------------------


def failing_kernel(err, pkg: Path):
    """Name the kernel the real error came from, by the debugging guide's own means.

    CPU: ``Exception raised from <kernel> at …kernel.cpp:N``.  CUDA: the ``.py``
    path of the device assert is compared with the ``assertFile`` byte array in
    each cubin; the wrapper's ``loadKernel("…/<stem>.cubin", "<kernel>", …)``
    names the kernel of that cubin.
    """
    text = err["stderr"]
    m = re.search(r"(\S+\.py):(\d+): \w+: block: \[", text)
    if not m:
        m = re.search(r"Exception raised from (\w+) at \S+\.kernel\.cpp:\d+", text)
        return m.group(1) if m else None
    py = m.group(1).encode()
    with zipfile.ZipFile(pkg) as zf:
        names = zf.namelist()
        for name in names:
            if not name.endswith(".cubin"):
                continue
            data = zf.read(name)
            for arr in re.finditer(rb"assertFile_\d+\[\d+\] = \{([\d, ]+)\}", data):
                s = bytes(int(x) for x in arr.group(1).split(b",")).rstrip(b"\0")
                if s != py:
                    continue
                stem = Path(name).stem
                model_dir = name.rsplit("/", 1)[0]
                for w in names:
                    if w.startswith(model_dir) and w.endswith(".wrapper.cpp"):
                        k = re.search(r'loadKernel\("[^"]*' + stem + r'\.cubin", "(\w+)"', zf.read(w).decode())
                        if k:
                            return k.group(1)
                return stem
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--only", nargs="*", help="sample names to build (default: all)")
    ap.add_argument("--out", type=Path, help="output folder (default: sample_packages/<device>)")
    ap.add_argument("--trigger", help=argparse.SUPPRESS)
    ap.add_argument("--package", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.trigger:
        trigger_main(a.trigger, a.device, a.package)
        return
    out = a.out or HERE / a.device
    out.mkdir(parents=True, exist_ok=True)
    names = a.only or list(SPECS)
    for name in names:
        m = build_one(name, a.device, out)
        print(f"{name}: {m['package_bytes']} bytes, trigger rc={m['error']['returncode']}, kernel={m['expect']['kernel']}",
              flush=True)


if __name__ == "__main__":
    main()
