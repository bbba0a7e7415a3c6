"""Issue 22 §7: a model whose output is a size (a SymInt, not a tensor): the CPU wrapper wraps it into a tensor,
`RAIIAtenTensorHandle scalar_to_tensor_0 = scalar_to_tensor_handle(...);` (torch 2.13 CPU, portable ISA).

    OMP_NUM_THREADS=1 python build_scalar_output.py DIR"""
import json, os, subprocess, sys, zipfile

NAME = "scalar_output_cpu"


def model():
    import torch

    class M(torch.nn.Module):
        def forward(self, x, y):
            n = x.size(0)
            return x * 2.0, (y.size(0) - n) * 0, n
    return M()


if __name__ == "__main__":
    import torch
    D = sys.argv[1]
    os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    if len(sys.argv) > 2:  # run
        pk = torch._inductor.aoti_load_package(D)
        print([o if not torch.is_tensor(o) else (tuple(o.shape), o.dtype) for o in pk(torch.randn(5, 3), torch.randn(7, 3))])
        sys.exit(0)
    d0, d1 = torch.export.Dim("a", min=2, max=64), torch.export.Dim("b", min=2, max=64)
    ep = torch.export.export(model(), (torch.randn(4, 3), torch.randn(6, 3)), dynamic_shapes=({0: d0}, {0: d1}))
    print(ep.graph_module.code)
    tmp = f"/tmp/{NAME}.pt2"
    torch._inductor.aoti_compile_and_package(ep, package_path=tmp, inductor_configs={"cpp.march": ""})
    left = []
    with zipfile.ZipFile(tmp) as zi, zipfile.ZipFile(f"{D}/{NAME}.pt2", "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if i.filename.endswith(".so"):
                left.append(i.filename.rsplit("/", 1)[-1])
                continue
            zo.writestr(i.filename, zi.read(i.filename))
    os.makedirs(D + "/logs", exist_ok=True)
    with open(D + "/logs/good.log", "w") as f:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), tmp, "run"], stdout=f, stderr=subprocess.STDOUT)
    json.dump({"source": "issue22", "name": NAME, "device": "cpu", "torch": torch.__version__,
               "built_on": "this machine, torch 2.13 CPU", "build_env": {"ATEN_CPU_CAPABILITY": "avx2"},
               "inductor_configs": {"cpp.march": ""},
               "runs": [{"scenario": "good", "inputs": "x [5,3], y [7,3]", "rc": p.returncode, "log": "logs/good.log",
                         "right_category": "none (clean run)"}],
               "left_out": left, "left_out_why": "the .so left out: nothing about its statements or logs needs it"},
              open(f"{D}/index.json", "w"), indent=1)
