"""Issue 34 §2: a detection head on torchvision's custom ops, torchvision::roi_align and batched_nms (torchvision::nms),
called through the proxy executor (torch 2.14.1 + torchvision 0.29.1, CPU, portable ISA: AVX2, no -march=native).
The rois' column 0 is a batch index into the images; roi_align checks no bound on it.

    OMP_NUM_THREADS=1 /work/venvs/contracts-tv/bin/python build_roi_head.py build DIR
    OMP_NUM_THREADS=1 /work/venvs/contracts-tv/bin/python build_roi_head.py run PT2 SCENARIO

Scenarios: good (batch indices 0..B-1); batch_index_b (one roi's batch index is B: one past the images);
batch_index_1e6 (one roi's batch index is 1e6, as in the issue's CUDA run)."""
import json, os, subprocess, sys, zipfile

os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")
NAME = "roi_head"


def model():
    import torch
    import torchvision
    from torchvision.ops import batched_nms, roi_align

    class RoIHead(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.fc = torch.nn.Linear(8 * 4 * 4, 5)

        def forward(self, images, rois):
            feats = torch.relu(self.backbone(images))  # [B, 8, H/2, W/2]
            pooled = roi_align(feats, rois, output_size=(4, 4), spatial_scale=0.5, sampling_ratio=2, aligned=True)
            out = self.fc(pooled.flatten(1))  # [K, 5]
            scores = out[:, 0].sigmoid()
            boxes = rois[:, 1:] + out[:, 1:]
            keep = batched_nms(boxes, scores, rois[:, 0].long(), 0.5)
            return boxes[keep], scores[keep]

    torch.manual_seed(0)
    assert torchvision.__version__
    return RoIHead().eval()


def inputs(scen):
    import torch
    g = torch.Generator().manual_seed(1)
    B, K = 2, 6
    images = torch.randn(B, 3, 32, 32, generator=g)
    xy = torch.rand(K, 2, generator=g) * 16
    wh = torch.rand(K, 2, generator=g) * 12 + 2
    rois = torch.cat([torch.arange(K).remainder(B).float()[:, None], xy, xy + wh], dim=1)
    if scen == "batch_index_b":
        rois[1, 0] = B
    if scen == "batch_index_1e6":
        rois[1, 0] = 1e6
    return images, rois


def right_category(name, scen, checked, rc):
    """The category a person gives the run (tests/samples/test_diagnose_guide_samples.py reads it)."""
    if scen == "good":
        return "none (clean run)"
    if checked and rc != 0 and name != "roi_head":
        return "input_check"
    if rc == 0:
        return "none (silent: rc 0 and wrong numbers; check must say so before the run)"
    return f"none (rc {rc}: SIGSEGV inside the op, no message)" if rc == -11 else f"none (rc {rc})"


def run(pt2, scen):
    import torch
    import torchvision  # noqa: F401 - registers torchvision::roi_align and torchvision::nms in this process
    images, rois = inputs(scen)
    print(f"scenario {scen}: images {list(images.shape)}, rois {list(rois.shape)}, batch indices "
          f"{rois[:, 0].tolist()}; AOTI_RUNTIME_CHECK_INPUTS={os.environ.get('AOTI_RUNTIME_CHECK_INPUTS', '')}",
          flush=True)
    pk = torch._inductor.aoti_load_package(pt2)
    boxes, scores = pk(images, rois)
    print(f"boxes {list(boxes.shape)} scores {scores.tolist()} finite {bool(torch.isfinite(boxes).all())}", flush=True)
    good = pk(*inputs("good"))
    print(f"against the good run's scores: {good[1].tolist()}", flush=True)


def build(D):
    import torch
    from torch.export import Dim
    b, k = Dim("batch", min=1, max=16), Dim("rois", min=2, max=512)
    ep = torch.export.export(model(), inputs("good"), dynamic_shapes=({0: b}, {0: k}))
    print(ep)
    tmp = f"/tmp/contracts_{NAME}.pt2"
    torch._inductor.aoti_compile_and_package(ep, package_path=tmp, inductor_configs={"cpp.march": ""})
    os.makedirs(f"{D}/{NAME}/logs", exist_ok=True)
    left = []
    with zipfile.ZipFile(tmp) as zi, zipfile.ZipFile(f"{D}/{NAME}/{NAME}.pt2", "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if i.filename.endswith(".so"):
                left.append(i.filename.rsplit("/", 1)[-1])
                continue
            zo.writestr(i.filename, zi.read(i.filename))
    runs = []
    for scen in ("good", "batch_index_b", "batch_index_1e6"):
        for chk in ("", "1"):
            env = dict(os.environ, OMP_NUM_THREADS="1")
            env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
            if chk:
                env["AOTI_RUNTIME_CHECK_INPUTS"] = chk
            log = f"logs/{scen}{'_checked' if chk else ''}.log"
            with open(f"{D}/{NAME}/{log}", "w") as f:
                p = subprocess.run([sys.executable, os.path.abspath(__file__), "run", tmp, scen], stdout=f,
                                   stderr=subprocess.STDOUT, env=env)
            runs.append({"scenario": scen, "env": {"AOTI_RUNTIME_CHECK_INPUTS": chk} if chk else {},
                         "rc": p.returncode, "log": log, "right_category": right_category(NAME, scen, chk, p.returncode)})
            print(scen, chk, "rc", p.returncode, open(f"{D}/{NAME}/{log}").read()[-600:])
    import torchvision
    json.dump({"source": "issue34", "name": NAME, "device": "cpu", "torch": torch.__version__,
               "torchvision": torchvision.__version__, "built_on": "this machine, torch 2.14.1 CPU",
               "build_env": {"ATEN_CPU_CAPABILITY": "avx2"}, "inductor_configs": {"cpp.march": ""},
               "exported": str(ep.graph_module.code)[:6000],
               "range_constraints": {str(k): str(v) for k, v in ep.range_constraints.items()},
               "runs": runs, "left_out": left,
               "left_out_why": "the .so left out: nothing about its statements or logs needs it"},
              open(f"{D}/{NAME}/index.json", "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3])
