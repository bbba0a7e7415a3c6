"""Issue 34 §4 on the CPU (torch 2.13): int32 ids into an int64 package, and a clean run of it.

    python sample_packages/harvest/issue34_cpu213/build.py      # from the repo root, torch 2.13 CPU

Builds ``dtype_ids_cpu``: an ``nn.Embedding(1000, 16)`` then a linear layer, ids exported int64 with a dynamic batch
(portable ISA: AVX2, no -march; the .so left out of the package kept here), then runs it in fresh processes
(OMP_NUM_THREADS=1) and keeps each run's output under ``dtype_ids_cpu/logs/``:

* ``good``: int64 ids in range (rc 0, the output printed: a clean run);
* ``int32_ids``: the same ids as int32, no input checks: the kernel reads them as int64 (two ids make one huge
  value) and its embedding check fails, `index out of bounds: 0 <= tmp… < 1000L`;
* ``int32_ids_checked``: the same with AOTI_RUNTIME_CHECK_INPUTS=1, the rerun that tells a dtype from a bad value:
  `unmatched dtype, expected: 4(at::kLong), but got: 3`.
"""
import json, os, subprocess, sys, time, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "dtype_ids_cpu"
D = os.path.join(HERE, NAME)
RUNS = [("good", {}, "no_failure", None),
        ("int32_ids", {}, "index_assert", "input 0 (ids) is int32 where int64 was compiled: read as int64"),
        ("int32_ids_checked", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "input_check", "input 0 dtype: int32 for int64")]


def model():
    import torch

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(1000, 16)
            self.fc = torch.nn.Linear(16, 4)

        def forward(self, ids):
            return self.fc(self.emb(ids)).sum(1)

    torch.manual_seed(0)
    return M().eval()


def ids(dtype):
    import torch
    return torch.tensor([[3, 5, 7, 11], [13, 17, 19, 23]], dtype=dtype)


def build():
    os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")
    import torch
    full = f"/tmp/{NAME}_full.pt2"
    ep = torch.export.export(model(), (ids(torch.int64),), dynamic_shapes=({0: torch.export.Dim("batch", min=1, max=64)},))
    torch._inductor.aoti_compile_and_package(ep, package_path=full)
    os.makedirs(os.path.join(D, "logs"), exist_ok=True)
    with zipfile.ZipFile(full) as zi, zipfile.ZipFile(os.path.join(D, f"{NAME}.pt2"), "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if not i.filename.endswith(".so"):
                zo.writestr(i.filename, zi.read(i.filename))
    return full, torch.__version__


def run(scenario):
    import torch
    print(f"[issue34] {NAME} scenario={scenario} torch={torch.__version__}", flush=True)
    pk = torch._inductor.aoti_load_package(f"/tmp/{NAME}_full.pt2")
    out = pk(ids(torch.int32 if scenario.startswith("int32") else torch.int64))
    print(f"[issue34] output 0: shape={tuple(out.shape)} dtype={out.dtype} sum={float(out.sum())}", flush=True)
    print("[issue34] run finished", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        run(sys.argv[1])
        sys.exit(0)
    full, version = build()
    index = {"name": NAME, "device": "cpu", "torch": version, "left_out": "the .so",
             "build_env": {"ATEN_CPU_CAPABILITY": "avx2", "TORCHINDUCTOR_CPP_MARCH": ""}, "runs": []}
    for scenario, env, right, expect in RUNS:
        t0 = time.time()
        p = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), scenario],
                           env=dict(os.environ, OMP_NUM_THREADS="1", **env), capture_output=True, text=True, timeout=300)
        with open(os.path.join(D, "logs", f"{scenario}.log"), "w") as f:
            f.write(p.stdout + p.stderr)
        index["runs"].append({"scenario": scenario, "env": env, "rc": p.returncode, "log": f"logs/{scenario}.log",
                              "right_category": right, "expect": expect, "seconds": round(time.time() - t0, 1)})
        print(scenario, p.returncode, flush=True)
    json.dump(index, open(os.path.join(D, "index.json"), "w"), indent=1)
