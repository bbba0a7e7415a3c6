"""Real load_constants runs on sample_packages/cpu/embedding (torch 2.13 CPU): what it accepts and refuses."""
import sys, torch, traceback
sys.path.insert(0, "sample_packages")
from models import EmbeddingModel  # the sample's own model class (sample_packages/models.py)
torch.manual_seed(0)
m = EmbeddingModel().eval()
sd = m.state_dict()
case = sys.argv[1]
pkg = torch._inductor.aoti_load_package("sample_packages/cpu/embedding/embedding.pt2")
ids = torch.tensor([[1, 2, 3]])
if case == "full":
    w = dict(sd)
elif case == "no_bias":
    w = {k: v for k, v in sd.items() if k != "proj.bias"}
elif case == "half":
    w = {k: v for k, v in sd.items() if k != "proj.bias"}; w["emb.weight"] = w["emb.weight"].half()
elif case == "transposed":
    w = {k: v for k, v in sd.items() if k != "proj.bias"}; w["proj.weight"] = w["proj.weight"].t().contiguous().t()
elif case == "wrong_shape":
    w = {k: v for k, v in sd.items() if k != "proj.bias"}; w["emb.weight"] = torch.randn(500, 32)
elif case == "ddp":
    w = {"module." + k: v for k, v in sd.items() if k != "proj.bias"}
elif case == "missing":
    w = {k: v for k, v in sd.items() if k not in ("proj.bias", "proj.weight")}
torch.save(w, f"sample_packages/cpu/embedding/weights/{case}.pt")
print("case", case, {k: (str(v.dtype), list(v.shape), list(v.stride())) for k, v in w.items()}, flush=True)
ref = m(ids)
try:
    pkg.load_constants(w, check_full_update=(case == "missing"))
    out = pkg(ids)
    print("ran: max |out - eager| =", float((out - ref).abs().max()), flush=True)
except Exception as e:
    print("FAILED:", type(e).__name__, str(e).splitlines()[0][:500], flush=True)
