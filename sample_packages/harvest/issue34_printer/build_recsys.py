"""Issue 34 §1: a DLRM-style recommender, built with the intermediate value printer at level 2 (and 3), and its real
runs, on torch 2.13 CPU (the project's venv) and torch 2.14.1 (a CUDA build run on the CPU, the issue's host).

The tensors are small (batch 2) so the printer prints their values (numel <= 64) in torch's C++ layout, which is
what the log reading must follow: 13 dense features printed wide (``Columns 1 to 10`` chunks) with a scale prefix
(``0.001 *`` run into the chunk header), int64 ids, a bool mask, the dense tower's and the MLP's outputs wide, NaN as
``-nan``.  The concatenation ``cat([dense_tower(dense), masked_mean(item_emb(hist))])`` is one buffer whose second
half a fused kernel writes through a ``reinterpret_tensor`` view (``auto bufN = …reinterpret_tensor_wrapper(bufM,
2, …, 32L);``) while the first half is written by an addmm through another view.

    OMP_NUM_THREADS=1 python build_recsys.py build DIR [LEVEL]     # package + every scenario's run
    OMP_NUM_THREADS=1 python build_recsys.py run PKG SCENARIO

Scenarios: good; no_history (user 1's history mask is all False: the masked mean is 0/0 = NaN, written through
the view); mlp_weights (the inputs of good, the first MLP layer's weight loaded x1e10: the first output that
diverges from good is that layer's addmm, printed wide in scientific form); dense_scaled (dense features x1e6: an
input differs from good)."""
import json, os, subprocess, sys, zipfile

SCENARIOS = {
    "good": "2 users, each with 1..4 history items",
    "no_history": "user 1 has an empty history (hist_mask row 1 all False): the masked mean is 0/0 = NaN",
    "mlp_weights": "the inputs of good, mlp1's weight loaded x1e10 (load_constants with a wrong file for one layer): "
                   "the first output that diverges from good is mlp1's addmm",
    "dense_scaled": "dense features x1e6 (a unit bug upstream): an input differs from good, first at the dense tower",
}
EXPECT = {
    "no_history": "first NaN: after_launch of the fused masked-mean kernel, its output a view at offset 32 into the "
                  "cat buffer (row 1, the user with no history)",
    "mlp_weights": "against good: mlp1's addmm (the FX node after the cat) writes values ~1e10 against ~0.1; inputs equal",
    "dense_scaled": "against good: the dense tower's addmm differs, and so does the dense input",
}


def model():
    import torch
    from torch import nn

    class DLRMish(nn.Module):
        """Dense tower + mean-pooled item history, concatenated; an MLP; a user embedding bag; a head."""

        def __init__(self):
            super().__init__()
            self.dense_tower = nn.Linear(13, 32)
            self.item_emb = nn.Embedding(50, 32)
            self.user_bag = nn.EmbeddingBag(40, 16, mode="sum")
            self.mlp1 = nn.Linear(64, 16)
            self.mlp2 = nn.Linear(32, 1)

        def forward(self, dense, hist_ids, hist_mask, user_ids, user_offsets):
            d = self.dense_tower(dense)  # [B, 32]
            m = hist_mask.unsqueeze(-1).to(d.dtype)  # [B, H, 1]
            hist_mean = (self.item_emb(hist_ids) * m).sum(1) / m.sum(1)  # [B, 32]: 0/0 for an empty history
            x = torch.cat([d, hist_mean], dim=1)  # [B, 64]
            z = torch.relu(self.mlp1(x))  # [B, 16]
            u = self.user_bag(user_ids, user_offsets)  # [B, 16]
            return self.mlp2(torch.cat([z, u], dim=1))  # [B, 1]

    torch.manual_seed(0)
    return DLRMish().eval()


def inputs(scen):
    import torch
    g = torch.Generator().manual_seed(1)
    B, H = 2, 4
    dense = torch.rand(B, 13, generator=g) * 0.009 + 0.001  # in [0.001, 0.01): printed with a "0.001 *" scale
    hist = torch.randint(0, 50, (B, H), generator=g)
    lens = torch.tensor([3, 2])
    mask = torch.arange(H)[None, :] < lens[:, None]  # bool
    user_ids = torch.randint(0, 40, (5,), generator=g)
    user_offsets = torch.tensor([0, 3])
    if scen == "no_history":
        mask[1] = False
    if scen == "dense_scaled":
        dense = dense * 1e6
    return dense, hist, mask, user_ids, user_offsets


def build(D, level):
    import torch
    os.environ["AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER"] = level
    os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")  # portable ISA: AVX2, no -march=native
    os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")
    name = os.path.basename(os.path.normpath(D))
    os.makedirs(D + "/logs", exist_ok=True)
    B = torch.export.Dim("batch", min=2, max=1024)
    ep = torch.export.export(model(), inputs("good"),
                             dynamic_shapes=({0: B}, {0: B}, {0: B}, None, {0: B}))
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
        if level == "3" and scen not in ("good", "no_history"):
            continue
        cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "run", tmp, scen]
        env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
        with open(f"{D}/logs/{scen}.log", "w") as f:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=600)
        runs.append({"scenario": scen, "inputs": what, "rc": p.returncode, "log": f"logs/{scen}.log",
                     "command": f"OMP_NUM_THREADS=1 python build_recsys.py run PKG {scen}",
                     "right_category": "printer", "expect": EXPECT.get(scen)})
    json.dump({"source": "issue34", "name": name, "device": "cpu", "torch": torch.__version__,
               "built_on": f"this machine (no GPU), torch {torch.__version__}",
               "command": f"OMP_NUM_THREADS=1 python build_recsys.py build {D} {level}",
               "build_env": {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": level, "ATEN_CPU_CAPABILITY": "avx2",
                             "TORCHINDUCTOR_CPP_MARCH": ""},
               "inductor_configs": cfg, "runs": runs, "left_out": left,
               "left_out_why": "the .so (debug build) left out: nothing about its statements or logs needs it"},
              open(f"{D}/index.json", "w"), indent=1)


def run(pkg_path, scen):
    import torch
    pk = torch._inductor.aoti_load_package(pkg_path)
    print(f"[issue34] recsys scenario={scen} torch={torch.__version__}", flush=True)
    if scen == "mlp_weights":
        pk.load_constants({"mlp1.weight": model().mlp1.weight.detach() * 1e10}, check_full_update=False)
    with torch.no_grad():
        out = pk(*inputs(scen))
    print("[issue34] output:", [round(float(x), 4) for x in out.flatten()], flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "2")
    else:
        run(sys.argv[2], sys.argv[3])
