"""Issue 34 §1, a library model: a tiny Hugging Face BERT (transformers 5.24.0, from a config, random weights)
with sentence-transformers-style mean pooling written without its clamp, built with the intermediate value printer
at level 2 on torch 2.13 CPU, and its real runs.  Batch 2, sequence 2, hidden 16: the encoder's [2, 2, 16] outputs are
printed as n-d slices (`(1,.,.) = `) each in `Columns` chunks; a row whose attention mask is all 0 makes the pooling
0/0 = NaN.

    OMP_NUM_THREADS=1 python build_bert_pool.py build DIR [LEVEL]
    OMP_NUM_THREADS=1 python build_bert_pool.py run PKG SCENARIO

Scenarios: good; empty_mask (sentence 1's attention mask all 0: the pooled mean is 0/0); ffn_weights (the inputs
of good, the feed-forward's output weight loaded x1e10: the first output that diverges is that layer's addmm)."""
import json, os, subprocess, sys, zipfile

SCENARIOS = {
    "good": "2 sentences of 2 tokens, every token attended",
    "empty_mask": "sentence 1's attention mask all 0 (an empty sentence after truncation): the pooled mean is 0/0",
    "ffn_weights": "the inputs of good, encoder.layer.0.output.dense.weight loaded x1e10",
}
EXPECT = {
    "empty_mask": "first NaN: after_launch of the fused pooling kernel (the division by the mask's sum), row 1",
    "ffn_weights": "against good: the addmm of the feed-forward's output dense (the layer's 2nd linear of the FFN)",
}


def model():
    import torch
    from transformers import BertConfig, BertModel

    class Pooled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.bert = BertModel(BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                             intermediate_size=32, max_position_embeddings=16), add_pooling_layer=False)

        def forward(self, input_ids, attention_mask):
            h = self.bert(input_ids=input_ids, attention_mask=attention_mask, return_dict=False)[0]
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            return (h * m).sum(1) / m.sum(1)  # sentence-transformers' mean pooling, its clamp(min=1e-9) left out

    return Pooled().eval()


def inputs(scen):
    import torch
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(1, 64, (2, 2), generator=g)
    mask = torch.ones(2, 2, dtype=torch.int64)
    if scen == "empty_mask":
        mask[1] = 0
    return ids, mask


CONSTANTS = {"ffn_weights": lambda m: {"bert.encoder.layer.0.output.dense.weight":
                                        m.bert.encoder.layer[0].output.dense.weight.detach() * 1e10}}


def build(D, level):
    import torch
    os.environ["AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER"] = level
    os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")  # portable ISA: AVX2, no -march=native
    os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")
    name = os.path.basename(os.path.normpath(D))
    os.makedirs(D + "/logs", exist_ok=True)
    B = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(model(), inputs("good"), dynamic_shapes=({0: B}, {0: B}), strict=False)
    tmp = f"/tmp/{name}_{torch.__version__}.pt2"
    cfg = {"cpp.march": "", "trace.provenance_tracking_level": 1}
    torch._inductor.aoti_compile_and_package(ep, package_path=tmp, inductor_configs=cfg)
    left = []
    with zipfile.ZipFile(tmp) as zi, zipfile.ZipFile(f"{D}/{name}.pt2", "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if i.filename.endswith(".so"):
                left.append(i.filename.rsplit("/", 1)[-1])
                continue
            zo.writestr(i, zi.read(i.filename))
    runs = []
    for scen, what in SCENARIOS.items():
        cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "run", tmp, scen]
        env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
        with open(f"{D}/logs/{scen}.log", "w") as f:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=600)
        runs.append({"scenario": scen, "inputs": what, "rc": p.returncode, "log": f"logs/{scen}.log",
                     "command": f"OMP_NUM_THREADS=1 python build_bert_pool.py run PKG {scen}",
                     "right_category": "printer", "expect": EXPECT.get(scen)})
    json.dump({"source": "issue34", "name": name, "library": "transformers==5.24.0", "device": "cpu", "torch": torch.__version__,
               "built_on": f"this machine (no GPU), torch {torch.__version__}",
               "command": f"OMP_NUM_THREADS=1 python build_bert_pool.py build {D} {level}",
               "build_env": {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": level, "ATEN_CPU_CAPABILITY": "avx2",
                             "TORCHINDUCTOR_CPP_MARCH": ""},
               "inductor_configs": cfg, "runs": runs, "left_out": left,
               "left_out_why": "the .so (debug build) left out: nothing about its statements or logs needs it"},
              open(f"{D}/index.json", "w"), indent=1)


def run(pkg_path, scen):
    import torch
    pk = torch._inductor.aoti_load_package(pkg_path)
    print(f"[issue34] bert_pool scenario={scen} torch={torch.__version__}", flush=True)
    if scen in CONSTANTS:
        pk.load_constants(CONSTANTS[scen](model()), check_full_update=False)
    with torch.no_grad():
        out = pk(*inputs(scen))
    print("[issue34] output:", [round(float(x), 4) for x in out.flatten()], flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "2")
    else:
        run(sys.argv[2], sys.argv[3])
