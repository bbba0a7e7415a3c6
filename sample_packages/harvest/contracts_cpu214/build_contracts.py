"""Issue 34 §4: library models whose run computes garbage where the package's checks say nothing (torch 2.14.1 CPU
with torchvision 0.29.1, which timm needs: /work/venvs/contracts-tv; portable ISA: AVX2, no -march=native).  Each case is exported with dynamic dims, compiled with
aoti_compile_and_package, and RUN with the bad inputs in a fresh process (with AOTI_RUNTIME_CHECK_INPUTS=1 too), to
record what the run really does.

    OMP_NUM_THREADS=1 /work/venvs/contracts-tv/bin/python build_contracts.py build DIR CASE     # CASE: llama_shared_mask | vit_dynamic_size | wav2vec2_lengths
    OMP_NUM_THREADS=1 /work/venvs/contracts-tv/bin/python build_contracts.py run PT2 CASE SCENARIO
    OMP_NUM_THREADS=1 /work/venvs/contracts-tv/bin/python build_contracts.py rerun DIR CASE   # the runs again, same package

llama_shared_mask: transformers LlamaModel (tiny config, random weights, no hub) exported with ONE `Dim` for
  input_ids' and attention_mask's sequence (and batch); the bad run feeds ids [2,16] with a mask [2,12].
vit_dynamic_size: timm VisionTransformer(dynamic_img_size=True), patch 16, exported with height/width a multiple of the
  patch (`16*Dim`); the bad run feeds height 100 (not a multiple of 16).
wav2vec2_lengths: transformers Wav2Vec2Model (tiny config) behind torchaudio's calling convention
  forward(waveforms [B,T], lengths [B]) (the lengths make the attention mask); the bad run feeds lengths [1] for a
  batch of 2.
"""
import json, os, subprocess, sys, zipfile

os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")


def _hf(model_cls, config_cls, **cfg):
    import torch
    import transformers
    torch.manual_seed(0)
    config = getattr(transformers, config_cls)(**cfg)
    config._attn_implementation = "eager"
    return getattr(transformers, model_cls)(config).eval()


def llama():
    import torch

    class Llama(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = _hf("LlamaModel", "LlamaConfig", vocab_size=120, hidden_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, intermediate_size=64, max_position_embeddings=128)

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
    return Llama().eval()


def vit():
    import torch
    from timm.models.vision_transformer import VisionTransformer
    torch.manual_seed(0)
    return VisionTransformer(img_size=64, patch_size=16, in_chans=3, num_classes=4, embed_dim=32, depth=1, num_heads=2,
                             mlp_ratio=2.0, dynamic_img_size=True).eval()


def wav2vec2():
    import torch

    class W2V(torch.nn.Module):
        """torchaudio's wav2vec2 calling convention on transformers' model: (waveforms [B,T], lengths [B])."""

        def __init__(self):
            super().__init__()
            self.m = _hf("Wav2Vec2Model", "Wav2Vec2Config", hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, conv_dim=(8, 8), conv_kernel=(10, 3), conv_stride=(5, 2),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, feat_extract_norm="layer",
                         do_stable_layer_norm=True, mask_time_prob=0.0)

        def forward(self, waveforms, lengths):
            t = torch.arange(waveforms.shape[1], device=waveforms.device)
            mask = (t[None, :] < lengths[:, None]).long()
            return self.m(waveforms, attention_mask=mask).last_hidden_state
    return W2V().eval()


def case(name):
    """(model, example inputs, dynamic_shapes, {scenario: (inputs, what it is)})"""
    import torch
    from torch.export import Dim
    g = torch.Generator().manual_seed(1)
    if name == "llama_shared_mask":
        b, t = Dim("batch", min=1, max=8), Dim("seq", min=2, max=64)
        ids = torch.randint(0, 120, (2, 16), generator=g)
        ex = (ids, torch.ones(2, 16, dtype=torch.long))
        return llama(), ex, ({0: b, 1: t}, {0: b, 1: t}), {
            "good": (ex, "ids [2,16], mask [2,16] of ones"),
            "mask_short": ((ids, torch.ones(2, 12, dtype=torch.long)), "ids [2,16], mask [2,12] of ones"),
        }
    if name == "vit_dynamic_size":
        hp, wp = Dim("hp", min=2, max=16), Dim("wp", min=2, max=16)
        x = torch.randn(2, 3, 64, 64, generator=g)
        return vit(), (x,), ({2: 16 * hp, 3: 16 * wp},), {
            "good": ((x,), "images [2,3,64,64]"),
            "height_100": ((torch.randn(2, 3, 100, 64, generator=g),), "images [2,3,100,64]: height not a multiple of 16"),
        }
    if name == "wav2vec2_lengths":
        # torch.export's own suggestion for this model (its conv length arithmetic): the time a multiple of 10
        b, t = Dim("batch", min=1, max=8), 10 * Dim("_time", min=40, max=1600)
        w = torch.randn(2, 1600, generator=g)
        ex = (w, torch.tensor([1600, 1200]))
        return wav2vec2(), ex, ({0: b, 1: t}, {0: b}), {
            "good": (ex, "waveforms [2,1600], lengths [1600, 1200]"),
            "lengths_short": ((w, torch.tensor([1600])), "waveforms [2,1600], lengths [1] (one length for a batch of 2)"),
            "time_1605": ((torch.randn(2, 1605, generator=g), torch.tensor([1605, 1200])),
                          "waveforms [2,1605]: time not a multiple of 10"),
        }
    raise SystemExit(f"no case {name}")


def right_category(name, scen, checked, rc):
    """The category a person gives the run (tests/samples/test_diagnose_guide_samples.py reads it)."""
    if scen == "good":
        return "none (clean run)"
    if checked and rc != 0 and name != "roi_head":
        return "input_check"
    if rc == 0:
        return "none (silent: rc 0 and wrong numbers; check must say so before the run)"
    return f"none (rc {rc}: SIGSEGV inside the op, no message)" if rc == -11 else f"none (rc {rc})"


def run(pt2, name, scen):
    """Load in this (fresh) process, run the scenario, print what came back and how it compares to eager."""
    import torch
    model, _, _, scens = case(name)
    inputs, doc = scens[scen]
    print(f"scenario {scen}: {doc}; AOTI_RUNTIME_CHECK_INPUTS={os.environ.get('AOTI_RUNTIME_CHECK_INPUTS', '')}",
          flush=True)
    pk = torch._inductor.aoti_load_package(pt2)
    out = pk(*inputs)
    out = out[0] if isinstance(out, (list, tuple)) else out
    print(f"output shape {list(out.shape)} finite {bool(torch.isfinite(out).all())}", flush=True)
    with torch.no_grad():
        if name == "llama_shared_mask":  # what the mask should have been: eager with the ids and a [2,16] mask of ones
            ref = model(inputs[0], torch.ones_like(inputs[0]))
        elif name == "vit_dynamic_size":  # what the model saw: the image cut to a multiple of the patch (96 rows)?
            x = inputs[0]
            h, w = x.shape[2] // 16 * 16, x.shape[3] // 16 * 16
            ref = model(x[:, :, :h, :w])
            print(f"eager on the cut image [.., {h}, {w}]: max |aoti - eager| {float((out - ref).abs().max()):.3g}",
                  flush=True)
            # or the first B*C*h*w elements of its memory read as a contiguous [B, C, h, w] (the kernels' strides
            # are computed from h and w, not read from the tensor)
            flat = x.contiguous().flatten()[: x.shape[0] * x.shape[1] * h * w].view(x.shape[0], x.shape[1], h, w)
            ref = model(flat)
            print(f"eager on its memory read as [{x.shape[0]}, {x.shape[1]}, {h}, {w}]: max |aoti - eager| "
                  f"{float((out - ref).abs().max()):.3g}", flush=True)
            try:
                ref = model(x)
            except AssertionError as e:  # timm's PatchEmbed refuses it in eager
                print(f"eager refuses the image: {e}", flush=True)
                return
        elif inputs[1].shape[0] < inputs[0].shape[0]:  # lengths [2] with the first length repeated
            ref = model(inputs[0], torch.cat([inputs[1], inputs[1]])[: inputs[0].shape[0]])
        else:
            x = inputs[0]
            t = x.shape[1] // 10 * 10
            ref = model(x[:, :t], inputs[1].clamp(max=t))
            print(f"eager on the cut waveforms [.., {t}]: max |aoti - eager| {float((out - ref).abs().max()):.3g}",
                  flush=True)
            flat = x.contiguous().flatten()[: x.shape[0] * t].view(x.shape[0], t)
            ref = model(flat, inputs[1].clamp(max=t))
            print(f"eager on its memory read as [{x.shape[0]}, {t}]: max |aoti - eager| "
                  f"{float((out - ref).abs().max()):.3g}", flush=True)
            ref = model(x, inputs[1])
    try:
        print(f"eager on the intended inputs: output shape {list(ref.shape)}, max |aoti - eager| "
              f"{float((out - ref).abs().max()):.3g}", flush=True)
    except RuntimeError as e:
        print(f"eager comparison impossible: {e}", flush=True)


def build(D, name):
    import torch
    model, ex, dyn, scens = case(name)
    ep = torch.export.export(model, ex, dynamic_shapes=dyn)
    print(ep)
    tmp = f"/tmp/contracts_{name}.pt2"
    torch._inductor.aoti_compile_and_package(ep, package_path=tmp, inductor_configs={"cpp.march": ""})
    os.makedirs(f"{D}/{name}/logs", exist_ok=True)
    left = []
    with zipfile.ZipFile(tmp) as zi, zipfile.ZipFile(f"{D}/{name}/{name}.pt2", "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if i.filename.endswith(".so"):
                left.append(i.filename.rsplit("/", 1)[-1])
                continue
            zo.writestr(i.filename, zi.read(i.filename))
    runs = []
    for scen, (_, doc) in scens.items():
        for chk in ("", "1"):
            env = dict(os.environ, OMP_NUM_THREADS="1")
            env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
            if chk:
                env["AOTI_RUNTIME_CHECK_INPUTS"] = chk
            log = f"logs/{scen}{'_checked' if chk else ''}.log"
            with open(f"{D}/{name}/{log}", "w") as f:
                p = subprocess.run([sys.executable, os.path.abspath(__file__), "run", tmp, name, scen], stdout=f,
                                   stderr=subprocess.STDOUT, env=env)
            runs.append({"scenario": scen, "inputs": doc, "env": {"AOTI_RUNTIME_CHECK_INPUTS": chk} if chk else {},
                         "rc": p.returncode, "log": log, "right_category": right_category(name, scen, chk, p.returncode)})
            print(scen, chk, "rc", p.returncode, open(f"{D}/{name}/{log}").read()[-600:])
    import transformers
    try:
        import timm
        tv = timm.__version__
    except ImportError:
        tv = None
    json.dump({"source": "issue34", "name": name, "device": "cpu", "torch": torch.__version__,
               "transformers": transformers.__version__, "timm": tv,
               "built_on": f"this machine, torch {torch.__version__} CPU", "build_env": {"ATEN_CPU_CAPABILITY": "avx2"},
               "inductor_configs": {"cpp.march": ""}, "exported": str(ep.graph_module.code)[:6000],
               "range_constraints": {str(k): str(v) for k, v in ep.range_constraints.items()},
               "runs": runs, "left_out": left,
               "left_out_why": "the .so left out: nothing about its statements or logs needs it"},
              open(f"{D}/{name}/index.json", "w"), indent=1)


def rerun(D, name):
    """The scenarios again against the package compiled by `build` (/tmp/contracts_<CASE>.pt2, with its .so)."""
    tmp = f"/tmp/contracts_{name}.pt2"
    _, _, _, scens = case(name)
    runs = []
    for scen in scens:
        for chk in ("", "1"):
            env = dict(os.environ, OMP_NUM_THREADS="1")
            env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
            if chk:
                env["AOTI_RUNTIME_CHECK_INPUTS"] = chk
            log = f"logs/{scen}{'_checked' if chk else ''}.log"
            with open(f"{D}/{name}/{log}", "w") as f:
                p = subprocess.run([sys.executable, os.path.abspath(__file__), "run", tmp, name, scen], stdout=f,
                                   stderr=subprocess.STDOUT, env=env)
            print(scen, chk, "rc", p.returncode)
            runs.append({"scenario": scen, "inputs": scens[scen][1],
                         "env": {"AOTI_RUNTIME_CHECK_INPUTS": chk} if chk else {}, "rc": p.returncode, "log": log,
                         "right_category": right_category(name, scen, chk, p.returncode)})
    idx = json.load(open(f"{D}/{name}/index.json"))
    idx["runs"] = runs
    json.dump(idx, open(f"{D}/{name}/index.json", "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "rerun":
        rerun(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[2], sys.argv[3], sys.argv[4])
