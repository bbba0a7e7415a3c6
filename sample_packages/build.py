"""Build the real AOTInductor sample packages that pt2-inspect is tested on (the build machinery).

What each sample is lives in specs.py (model, inputs, dims, trigger, expected truth; no torch) and
models.py (the nn.Module classes); truth.py completes the truth from the real run (no torch).  Here:
each sample's model is exported with dynamic shapes, compiled with
``torch._inductor.aoti_compile_and_package`` (or, for the multi-model and exported-program samples,
``package_pt2``), then *run* with its trigger input in a subprocess so that the real error text the
package prints is captured.  Output, per sample::

    sample_packages/<device>/<name>/<name>.pt2
    sample_packages/<device>/<name>/manifest.json
    sample_packages/<device>/<name>/error.log

The manifest records the model source, export dims and ranges, the trigger, the captured error text,
and what that error must trace to (the ground truth the tests check pt2-inspect against; it comes
from how the model was built, not from pt2-inspect).

Usage::

    python sample_packages/build.py --device cpu            # torch 2.13 CPU, portable ISA (AVX2, no -march)
    CXX=/usr/bin/g++ python sample_packages/build.py --device cuda   # on a GPU box
    python sample_packages/build.py --device cpu --only embedding

    python sample_packages/build.py --refresh --out sample_packages/cpu-2.8   # manifests' expect only, no torch
    /work/venvs/torch2.6/bin/python sample_packages/build.py --out sample_packages/cpu-2.6 --only take

Building needs torch (imported only then); ``--refresh`` does not.  pt2-inspect itself never imports
it.  The ``hf_*`` samples also need ``transformers`` (built here with transformers==5.24.0, installed
by hand into the venv, not a project dependency): models come from tiny configs with random weights,
nothing from a hub.
"""

from __future__ import annotations

import argparse
import inspect
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # specs.py, truth.py, models.py sit beside this file

from specs import SPECS  # noqa: E402
from truth import expect_for, manifest_text, refresh  # noqa: E402


# --------------------------------------------------------------------------
# From a spec to torch objects
# --------------------------------------------------------------------------


def materialize(name, dev, model_name=None):
    """(model, example inputs, dims) of a sample, or of one model of a multi-model sample."""
    import models

    spec = SPECS[name]
    part = spec["models"][model_name] if model_name else spec
    model = getattr(models, part["model"])().to(dev).eval()  # first: its init draws from the seeded RNG
    return (model, *example(name, dev, model_name))


def example(name, dev, model_name=None):
    """(example inputs, dims) of a sample, or of one model of a multi-model sample: no model built."""
    import torch
    from torch.export import Dim

    spec = SPECS[name]
    part = spec["models"][model_name] if model_name else spec
    return part["inputs"](torch, dev), part["dims"](Dim)


def model_classes(name):
    """The model classes of a sample, in the order the manifest names them."""
    import models

    spec = SPECS[name]
    parts = spec["models"].values() if "models" in spec else [spec]
    return [getattr(models, p["model"]) for p in parts]


def description(name):
    spec = SPECS[name]
    doc = spec.get("doc") or model_classes(name)[0].__doc__
    return doc.strip() if doc else ""


def _export(model, args, dims):
    import torch

    return torch.export.export(model, args, dynamic_shapes=dims, strict=False)


def _dims_json(dims):
    out = []
    for d in dims:
        out.append({str(k): {"name": v.__name__, "min": v.min, "max": v.max} for k, v in (d or {}).items()})
    return out


def _inputs_json(args):
    return [{"shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", "")} for a in args]


def _source(cls):
    return textwrap.dedent(inspect.getsource(cls))


# --------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------


def build_one(name, dev, out_dir: Path):
    import torch

    spec = SPECS[name]
    torch.manual_seed(0)
    pkg_dir = out_dir / name
    if pkg_dir.exists():
        shutil.rmtree(pkg_dir)
    pkg_dir.mkdir(parents=True)
    pkg = pkg_dir / f"{name}.pt2"
    manifest = {
        "name": name,
        "description": description(name),
        "device": dev,
        "torch": torch.__version__,
        "triton": _triton_version(),
    }
    manifest.update(_build_models(name, dev, pkg) if "models" in spec else _build_model(name, dev, pkg))
    manifest["trigger"] = spec["trigger_doc"]
    err = run_trigger(name, dev, pkg)
    manifest["error"] = err
    manifest["expect"] = expect_for(name, dev, err, pkg)
    _deflate(pkg)
    manifest["package_bytes"] = pkg.stat().st_size
    (pkg_dir / "manifest.json").write_text(manifest_text(manifest))
    (pkg_dir / "error.log").write_text(err["stderr"].rstrip("\n") + "\n")  # the real stderr, to paste or --log
    return manifest


def _build_model(name, dev, pkg: Path):
    """One model: aoti_compile_and_package, or package_pt2 with its exported program beside the AOTI files."""
    import torch

    spec = SPECS[name]
    model, args, dims = materialize(name, dev)
    ep = _export(model, args, dims)
    configs = _known_configs(spec.get("inductor_configs") or {})
    with_ep = spec.get("with_exported_program")
    if with_ep:
        try:
            from torch.export.pt2_archive._package import package_pt2
        except ImportError:  # older builds (2.6) cannot package an exported program with AOTI files
            print(f"  (torch {torch.__version__} has no package_pt2: AOTI files only)", flush=True)
            with_ep = False
    if with_ep:
        files = torch._inductor.aot_compile(ep.module(), args, options={"aot_inductor.package": True, **configs})
        package_pt2(str(pkg), exported_programs={"model": ep}, aoti_files={"model": files})
    else:
        torch._inductor.aoti_compile_and_package(ep, package_path=str(pkg), inductor_configs=configs)
    return {
        "model_class": spec["model"],
        "model_source": _source(model_classes(name)[0]),
        "inputs": _inputs_json(args),
        "dynamic_shapes": _dims_json(dims),
        "inductor_configs": configs,
        "exported_program_packaged": bool(with_ep),
    }


def _build_models(name, dev, pkg: Path):
    """Several models in one archive (spec ``models``), each compiled on its own, packaged with package_pt2."""
    import torch
    from torch.export.pt2_archive._package import package_pt2

    files, parts = {}, {}
    for model_name in SPECS[name]["models"]:
        model, args, dims = materialize(name, dev, model_name)
        ep = _export(model, args, dims)
        files[model_name] = torch._inductor.aot_compile(ep.module(), args, options={"aot_inductor.package": True})
        parts[model_name] = {"inputs": _inputs_json(args), "dynamic_shapes": _dims_json(dims)}
    package_pt2(str(pkg), aoti_files=files)
    classes = model_classes(name)
    return {
        "model_class": ", ".join(c.__name__ for c in classes),
        "model_source": "\n\n".join(_source(c) for c in classes),
        "models": parts,
        "inductor_configs": {},
        "exported_program_packaged": False,
    }


def _known_configs(configs):
    """Drop Inductor options this torch build does not have (older builds lack provenance tracking)."""
    import torch
    import torch._inductor.config as cfg

    out = {}
    for key, value in configs.items():
        obj = cfg
        try:
            for part in key.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            print(f"  (torch {torch.__version__} has no inductor option {key}: left out)", flush=True)
            continue
        out[key] = value
    return out


def _deflate(pkg: Path):
    """Re-store every member deflated: the same names and bytes, a third of the size on disk.

    AOTI writes the archive uncompressed; the .so (weights included) dominates it.  pt2-inspect
    reads members through zipfile, so the compression method does not matter to it, and the
    working tree has to stay small enough to travel to the GPU box.
    """
    tmp = pkg.with_suffix(".tmp")
    with zipfile.ZipFile(pkg) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, data, compresslevel=9)
    tmp.replace(pkg)


def _triton_version():
    try:
        import triton

        return triton.__version__
    except Exception:
        return None


# --------------------------------------------------------------------------
# Running the trigger (in a subprocess: a failing package may abort)
# --------------------------------------------------------------------------


def trigger_main(name, dev, pkg):
    """Runs in the child process: load the package and call it with the trigger input."""
    import torch
    from torch._inductor.package import load_package

    model_name = SPECS[name]["expect"].get("model", "model")
    m = load_package(pkg, model_name)
    out = m(*SPECS[name]["trigger"](torch, dev))
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


def portable_cpu_isa():
    """CPU packages run on any x86-64 host CI may get, AVX2 hosts without AVX-512 included: Inductor's vector
    ISA capped at AVX2 (``-mavx2 -mfma -mf16c``, AOTI_CPU_ISA "AVX2" in wrapper_metadata.json) and no
    ``-march=native`` (which on an AVX-512/AMX build host emits instructions that die with SIGILL elsewhere).
    Set before torch is imported; an explicit environment wins."""
    os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")  # "": no -march flag at all


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--only", nargs="*", help="sample names to build (default: all)")
    ap.add_argument("--out", type=Path, help="output folder (default: sample_packages/<device>)")
    ap.add_argument("--refresh", action="store_true",
                    help="only recompute the manifests' expect (spec + saved error + package); builds nothing, no torch")
    ap.add_argument("--trigger", help=argparse.SUPPRESS)
    ap.add_argument("--package", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.trigger:
        trigger_main(a.trigger, a.device, a.package)
        return
    out = a.out or HERE / a.device
    if a.refresh:
        refresh(out, a.only)
        return
    if a.device == "cpu":
        portable_cpu_isa()
    out.mkdir(parents=True, exist_ok=True)
    names = a.only or list(SPECS)
    for name in names:
        m = build_one(name, a.device, out)
        print(f"{name}: {m['package_bytes']} bytes, trigger rc={m['error']['returncode']}, kernel={m['expect']['kernel']}",
              flush=True)


if __name__ == "__main__":
    main()
