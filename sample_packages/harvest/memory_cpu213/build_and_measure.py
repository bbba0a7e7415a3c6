"""CPU twins of issue 34 §5's library models, built with torch 2.13 here, and the memory their runs really take.

    .venv/bin/python sample_packages/harvest/memory_cpu213/build_and_measure.py build [NAME ...]
    .venv/bin/python sample_packages/harvest/memory_cpu213/build_and_measure.py measure [NAME ...]

build   -> NAME/NAME.pt2 (weights left out of the .so: `package_constants_in_so=False`; the .so stripped of its
           debug info by the build's own flags, re-stored deflated), NAME/index.json (how it was built)
measure -> NAME/measure.json: the most memory each run held at once above its inputs and constants, from the
           kernel's resident-size high-water mark (`HOW` says exactly how): what
           ``torch.cuda.max_memory_allocated() - memory_allocated()`` measures on the GPU, on the CPU.

Models (random weights from small configs; nothing fetched from a hub), each exported with dynamic sizes:
  bert_pool  transformers BertModel + sentence-transformers' mean Pooling; ids and mask [B, T]
  gpt2       transformers GPT2Model; ids [B, T]
  llama      transformers LlamaModel; ids [B, T]
  vit        timm vit_tiny_patch16_224(dynamic_img_size=True, depth 2); images [B, 3, H, W]
  wav2vec2   transformers Wav2Vec2Model (the conv feature encoder's kernels and strides, small widths); [B, T]

timm imports torchvision at the top of two modules (FrozenBatchNorm2d, transforms) which no ViT uses, and
torchvision does not import beside torch 2.13: when it is missing a stand-in module answers those imports with
stand-in classes (`_torchvision_stand_in`); the ViT's own code is timm's.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")  # portable ISA, as sample_packages/build.py
os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")

# sizes each model is measured at ([B, T] or [B, 3, H, W]); the first is also the export's example
SIZES = {
    "bert_pool": [[2, 16], [16, 64], [64, 128]],
    "gpt2": [[2, 16], [16, 64], [64, 128]],
    "llama": [[2, 16], [16, 64], [64, 128]],
    "vit": [[2, 3, 64, 64], [8, 3, 224, 224], [16, 3, 320, 256]],
    "wav2vec2": [[2, 4000], [4, 16000], [8, 64000]],
}


def _torchvision_stand_in():
    import importlib.abc
    import importlib.machinery
    import types

    try:
        import torchvision  # noqa: F401
        return
    except Exception:
        pass

    class Any(type):  # a class whose every attribute is another such class (`InterpolationMode.NEAREST`)
        def __getattr__(cls, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Any(name, (), {})

    class Module(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Any(name, (), {})

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname, path, target=None):
            if fullname == "torchvision" or fullname.startswith("torchvision."):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None

        def create_module(self, spec):
            m = Module(spec.name)
            m.__path__ = []
            return m

        def exec_module(self, module):
            pass

    sys.meta_path.insert(0, Finder())


def _hf(model_cls, config_cls, **cfg):
    import torch
    import transformers

    torch.manual_seed(0)
    config = getattr(transformers, config_cls)(**cfg)
    config._attn_implementation = "eager"
    return getattr(transformers, model_cls)(config)


def model(name, batch_max=256):
    """(module, example inputs, dynamic shapes, what it is); ``batch_max``: the batch Dim's max (the GPU script's
    sizes need more)"""
    import torch
    from torch import nn
    from torch.export import Dim

    torch.manual_seed(0)
    b, t = Dim("batch", min=1, max=batch_max), Dim("seq", min=2, max=512)
    if name == "bert_pool":
        from sentence_transformers.models import Pooling

        class BertPool(nn.Module):
            def __init__(self):
                super().__init__()
                self.bert = _hf("BertModel", "BertConfig", vocab_size=200, hidden_size=64, num_hidden_layers=2,
                                num_attention_heads=4, intermediate_size=128, max_position_embeddings=512)
                self.pool = Pooling(64, pooling_mode="mean")

            def forward(self, input_ids, attention_mask):
                tok = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
                return self.pool({"token_embeddings": tok, "attention_mask": attention_mask})["sentence_embedding"]

        ids = torch.randint(0, 200, (2, 16))
        return (BertPool().eval(), (ids, torch.ones_like(ids)), ({0: b, 1: t}, {0: b, 1: t}),
                "transformers BertModel (2 layers, hidden 64, 4 heads) + sentence-transformers Pooling(mean)")
    if name == "gpt2":
        class GPT2(nn.Module):
            def __init__(self):
                super().__init__()
                self.m = _hf("GPT2Model", "GPT2Config", vocab_size=200, n_embd=64, n_layer=2, n_head=4, n_positions=512)

            def forward(self, input_ids):
                return self.m(input_ids=input_ids, use_cache=False).last_hidden_state

        return (GPT2().eval(), (torch.randint(0, 200, (2, 16)),), ({0: b, 1: t},),
                "transformers GPT2Model (2 layers, n_embd 64, 4 heads)")
    if name == "llama":
        class Llama(nn.Module):
            def __init__(self):
                super().__init__()
                self.m = _hf("LlamaModel", "LlamaConfig", vocab_size=200, hidden_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
                             max_position_embeddings=512)

            def forward(self, input_ids):
                return self.m(input_ids=input_ids, use_cache=False).last_hidden_state

        return (Llama().eval(), (torch.randint(0, 200, (2, 16)),), ({0: b, 1: t},),
                "transformers LlamaModel (2 layers, hidden 64, 4 heads, 2 kv heads)")
    if name == "vit":
        _torchvision_stand_in()
        import timm

        m = timm.create_model("vit_tiny_patch16_224", pretrained=False, dynamic_img_size=True, depth=2,
                              num_classes=10).eval()
        # a plain Dim for H fails export: the patch embedding guards `H % 16 == 0`, so H is 16 times a Dim
        h, w = 16 * Dim("hp", min=2, max=32), 16 * Dim("wp", min=2, max=32)
        return (m, (torch.randn(2, 3, 64, 64),), ({0: b, 2: h, 3: w},),
                "timm vit_tiny_patch16_224(dynamic_img_size=True, depth=2, num_classes=10)")
    if name == "wav2vec2":
        class W2V(nn.Module):
            def __init__(self):
                super().__init__()
                self.m = _hf("Wav2Vec2Model", "Wav2Vec2Config", hidden_size=64, num_hidden_layers=2,
                             num_attention_heads=4, intermediate_size=128, conv_dim=(32,) * 7,
                             num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)

            def forward(self, x):
                return self.m(x).last_hidden_state

        tt = Dim("samples", min=800, max=160000)
        return (W2V().eval(), (torch.randn(2, 4000),), ({0: b, 1: tt},),
                "transformers Wav2Vec2Model (conv kernels 10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2, conv_dim 32; 2 layers, hidden 64)")
    raise KeyError(name)


def inputs(name, size):
    import torch

    g = torch.Generator().manual_seed(1)
    if name == "vit":
        return (torch.randn(*size, generator=g),)
    if name == "wav2vec2":
        return (torch.randn(*size, generator=g),)
    ids = torch.randint(0, 200, size, generator=g)
    return (ids, torch.ones_like(ids)) if name == "bert_pool" else (ids,)


def build(name):
    import torch

    m, ex, dyn, what = model(name)
    d = HERE / name
    d.mkdir(exist_ok=True)
    pkg = d / f"{name}.pt2"
    t0 = time.time()
    with torch.no_grad():
        ep = torch.export.export(m, ex, dynamic_shapes=dyn, strict=False)
        torch._inductor.aoti_compile_and_package(ep, package_path=str(pkg),
                                                 inductor_configs={"aot_inductor.package_constants_in_so": False})
    secs = round(time.time() - t0, 1)
    _restore_deflated(pkg)
    info = {"source": "memory_cpu213", "name": name, "device": "cpu", "torch": torch.__version__,
            "what": what, "built_on": "this machine (2 cores, AVX2), torch 2.13 CPU, ISA capped at AVX2",
            "built_by": f"sample_packages/harvest/memory_cpu213/build_and_measure.py build {name}",
            "inductor_configs": {"aot_inductor.package_constants_in_so": False}, "build_s": secs,
            "dynamic_shapes": [{str(k): {"name": str(getattr(v, "__name__", v)), "min": getattr(v, "min", None),
                                         "max": getattr(v, "max", None)} for k, v in x.items()} for x in dyn],
            "example_inputs": [list(x.shape) for x in ex], "sizes_measured": SIZES[name]}
    (d / "index.json").write_text(json.dumps(info, indent=1) + "\n")
    print("built", name, secs, "s", pkg.stat().st_size, "B", flush=True)


def _restore_deflated(pkg: Path) -> None:
    tmp = pkg.with_suffix(".tmp")
    with zipfile.ZipFile(pkg) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    tmp.replace(pkg)


def _status(key: str) -> int:
    """A /proc/self/status figure in bytes (VmRSS: resident now; VmHWM: the most resident since the last reset)."""
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def measure_child(name):
    import gc

    import torch

    torch.set_num_threads(1)
    m, _, _, what = model(name)
    runner = torch._inductor.aoti_load_package(str(HERE / name / f"{name}.pt2"))
    fq = set(runner.get_constant_fqns())
    sd = {k: v for k, v in list(m.state_dict().items()) + list(m.named_buffers()) if k in fq}
    runner.load_constants(sd, check_full_update=True)
    res = {"model": name, "what": what, "torch": torch.__version__, "runs": [], "how": HOW,
           "env": {k: os.environ.get(k) for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS")}}
    with torch.no_grad():
        runner(*inputs(name, SIZES[name][0]))  # warm-up: code pages, BLAS buffers, the first run's one-off work
        for size in SIZES[name]:
            for attempt in (1, 2):
                x = inputs(name, size)
                gc.collect()
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")  # resets VmHWM to VmRSS
                before = _status("VmRSS")
                out = runner(*x)
                peak = _status("VmHWM") - before
                flat = out if isinstance(out, (list, tuple)) else [out]
                res["runs"].append({"size": size, "attempt": attempt, "peak_over_before": peak,
                                    "inputs_bytes": sum(t.numel() * t.element_size() for t in x),
                                    "outputs_bytes": sum(t.numel() * t.element_size() for t in flat),
                                    "out_shapes": [list(t.shape) for t in flat]})
                print(name, size, attempt, peak, flush=True)
                del out, flat, x
    (HERE / name / "measure.json").write_text(json.dumps(res, indent=1) + "\n")


HOW = ("a fresh child process per model: aoti_load_package, load_constants, one warm-up run at the smallest size; "
       "then per size, twice: make the inputs, gc.collect(), reset the peak resident size (write 5 to "
       "/proc/self/clear_refs), run, peak_over_before = VmHWM after the run - VmRSS before it (/proc/self/status): "
       "the most memory the run held at once above the inputs and constants, outputs included. glibc is told to "
       "serve every block of 64 KiB or more with its own mmap and to give it back at free (MALLOC_MMAP_THRESHOLD_="
       "65536, a fixed threshold: no dynamic growth), so resident memory follows the tensors alive, page-rounded; "
       "blocks under 64 KiB and a library's own scratch (oneDNN, BLAS) are in it too. torch.set_num_threads(1). "
       "Not torch.profiler(profile_memory=True): on this torch it missed the CPU allocations of oneDNN's "
       "convolution outputs (checked: an eager conv1d's 13 MB output gave no [memory] event).")


def main():
    cmd, names = sys.argv[1], sys.argv[2:] or list(SIZES)
    for name in names:  # one fresh process per model (the torchvision stand-in stays in the ViT's)
        if cmd in ("build", "measure"):
            env = dict(os.environ, OMP_NUM_THREADS="1", MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="0")
            subprocess.run([sys.executable, __file__, "_" + cmd, name], check=True, env=env)
        elif cmd == "_build":
            build(name)
        elif cmd == "_measure":
            measure_child(name)


if __name__ == "__main__":
    main()
