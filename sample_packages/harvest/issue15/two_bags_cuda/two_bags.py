"""Two nn.EmbeddingBag of the same op in one CUDA package; a run with an out-of-range id in the second (issue 15 §3:
an ATen-internal assert with several extern calls of the same op)."""
import json, os, subprocess, sys, time
D = os.environ.get("OUTDIR", "/tmp/w/two_bags")


def model():
    import torch
    from torch import nn

    class TwoBags(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.users = nn.EmbeddingBag(300, 16, mode="sum")
            self.items = nn.EmbeddingBag(50, 16, mode="sum")

        def forward(self, user_ids, item_ids):
            return (self.users(user_ids) * self.items(item_ids)).sum(1)
    return TwoBags()


def inputs(scen):
    import torch
    g = torch.Generator().manual_seed(1)
    u = torch.randint(0, 300, (8, 4), generator=g)
    i = torch.randint(0, 50, (8, 4), generator=g)
    if scen == "bad_items":
        i[3, 2] = 77
    return u.cuda(), i.cuda()


if sys.argv[1] == "build":
    import torch
    from torch.export import Dim
    os.makedirs(D + "/logs", exist_ok=True)
    m = model().cuda()
    b = Dim("batch", min=2, max=4096)
    ep = torch.export.export(m, inputs("good"), dynamic_shapes=({0: b}, {0: b}), strict=False)
    torch._inductor.aoti_compile_and_package(ep, package_path=D + "/two_bags.pt2")
    runs = []
    for scen in ("good", "bad_items"):
        with open(f"{D}/logs/{scen}.log", "w") as f:
            p = subprocess.run([sys.executable, "-X", "faulthandler", __file__, "run", scen], stdout=f, stderr=subprocess.STDOUT,
                               env=dict(os.environ, PYTHONUNBUFFERED="1"), timeout=150)
        runs.append({"scenario": scen, "rc": p.returncode, "log": f"logs/{scen}.log",
                     "inputs": "user ids in 0..299, item ids in 0..49" + ("; item_ids[3, 2] = 77 (the items table has 50 rows)" if scen != "good" else ""),
                     "expect": None if scen == "good" else "the items bag's call (input 1 against items.weight, 50 rows); the log cannot say which of the two embedding_bag calls",
                     "right_category": "none (clean run)" if scen == "good" else "extern_op"})
    json.dump({"source": "issue15", "name": "two_bags_cuda", "device": "cuda", "torch": torch.__version__,
               "built_on": "the lent H200, torch 2.11 (stop 18)", "build_ok": True, "runs": runs,
               "from": "two_bags.py (beside)"}, open(D + "/index.json", "w"), indent=1)
else:
    import torch
    m = torch._inductor.aoti_load_package(D + "/two_bags.pt2")
    out = m(*inputs(sys.argv[2]))
    torch.cuda.synchronize()
    print("[harvest] output", tuple(out.shape), float(out.sum()), flush=True)
