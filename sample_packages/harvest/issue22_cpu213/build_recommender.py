"""Issue 22 §1: a small recommender, built with torch 2.13 CPU and the intermediate value printer at level 2, and
its real runs. Several addmm calls (nn.Linear), and a fused masked mean over a user's history written into a slice
of the concatenation buffer (a view at an offset into a bigger buffer): 0/0 = NaN for a user with no history.

    OMP_NUM_THREADS=1 python build_recommender.py build DIR    # package, portable ISA (AVX2, no -march=native)
    OMP_NUM_THREADS=1 python build_recommender.py run DIR SCENARIO

Scenarios: good; no_history (user 3 has an empty history: NaN from the masked mean); item_scaled (item features
of every row ×1000: an input differs); item_weights (same inputs, the item tower's weight ×1000: the first
divergence from good is the item tower's addmm, the 4th of 5 addmm launches)."""
import json, os, subprocess, sys, zipfile

NAME = "recommender_printer2"
SCENARIOS = {
    "good": "8 users with 1..10 history items each",
    "no_history": "user 3 has an empty history (hist_mask row 3 all zero): the masked mean is 0/0",
    "item_scaled": "item_feat scaled ×1000 (a unit bug upstream): an input differs from good, first at the item tower",
    "item_weights": "the inputs of good, the item tower's weight loaded ×1000 (load_constants with a wrong file for one "
                    "layer): the first output that diverges from good is the item tower's addmm",
}


def model():
    import torch
    from torch import nn

    class Recommender(nn.Module):
        def __init__(self):
            super().__init__()
            self.user = nn.Linear(16, 32)
            self.item = nn.Linear(16, 32)
            self.mlp1 = nn.Linear(64, 64)
            self.mlp2 = nn.Linear(64, 32)
            self.head = nn.Linear(64, 1)

        def forward(self, user_feat, item_feat, hist, hist_mask):
            u = self.user(user_feat)
            it = self.item(item_feat)
            m = hist_mask.unsqueeze(-1)
            hist_mean = (hist * m).sum(1) / m.sum(1)
            x = torch.cat([u, hist_mean], dim=1)
            h = self.mlp2(torch.relu(self.mlp1(x)))
            return self.head(torch.cat([h, it], dim=1))

    torch.manual_seed(0)
    return Recommender().eval()


def inputs(scen):
    import torch
    g = torch.Generator().manual_seed(1)
    B, H = 8, 10
    user = torch.randn(B, 16, generator=g)
    item = torch.randn(B, 16, generator=g)
    hist = torch.randn(B, H, 32, generator=g)
    lens = torch.randint(1, H + 1, (B,), generator=g)
    mask = (torch.arange(H)[None, :] < lens[:, None]).float()
    if scen == "no_history":
        mask[3] = 0.0
    if scen == "item_scaled":
        item = item * 1000.0
    return user, item, hist, mask


if __name__ == "__main__":
    import torch
    D = sys.argv[2]
    if sys.argv[1] == "build":
        os.environ["AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER"] = "2"
        os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
        os.makedirs(D + "/logs", exist_ok=True)
        Bd = torch.export.Dim("batch", min=2, max=1024)
        ep = torch.export.export(model(), inputs("good"), dynamic_shapes=({0: Bd}, {0: Bd}, {0: Bd}, {0: Bd}))
        tmp = f"/tmp/{NAME}.pt2"
        torch._inductor.aoti_compile_and_package(ep, package_path=tmp, inductor_configs={"cpp.march": "", "trace.provenance_tracking_level": 1})
        left = []
        with zipfile.ZipFile(tmp) as zi, zipfile.ZipFile(f"{D}/{NAME}.pt2", "w", zipfile.ZIP_DEFLATED) as zo:
            for i in zi.infolist():
                if i.filename.endswith(".so"):
                    left.append(i.filename.rsplit("/", 1)[-1])
                    continue
                zo.writestr(i.filename, zi.read(i.filename))
        runs = []
        for scen, what in SCENARIOS.items():
            cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "run", tmp, scen]
            with open(f"{D}/logs/{scen}.log", "w") as f:
                p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                                   timeout=300)
            runs.append({"scenario": scen, "inputs": what, "rc": p.returncode, "log": f"logs/{scen}.log",
                         "command": f"OMP_NUM_THREADS=1 python build_recommender.py run PKG {scen}",
                         "right_category": "printer"})
        json.dump({"source": "issue22", "name": NAME, "device": "cpu", "torch": torch.__version__,
                   "built_on": "this machine, torch 2.13 CPU",
                   "build_env": {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "2", "ATEN_CPU_CAPABILITY": "avx2"},
                   "inductor_configs": {"cpp.march": "", "trace.provenance_tracking_level": 1}, "runs": runs, "left_out": left,
                   "left_out_why": "the .so (debug build) left out: nothing about its statements or logs needs it"},
                  open(f"{D}/index.json", "w"), indent=1)
    else:
        pk = torch._inductor.aoti_load_package(D)
        print(f"[issue22] {NAME} scenario={sys.argv[3]} torch={torch.__version__}", flush=True)
        if sys.argv[3] == "item_weights":
            pk.load_constants({"item.weight": model().item.weight.detach() * 1000.0}, check_full_update=False)
        out = pk(*inputs(sys.argv[3]))
        print("[issue22] output rows with NaN:", torch.isnan(out).any(1).nonzero().flatten().tolist(), flush=True)
