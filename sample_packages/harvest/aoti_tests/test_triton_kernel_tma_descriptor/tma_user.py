"""A user-defined Triton kernel that takes TMA tensor descriptors (Triton's stable host API,
triton.tools.tensor_descriptor.TensorDescriptor), launched through wrap_triton under torch.export: the wrapper's
`StableTMADescriptor` statements (issue 16)."""
import json, os, subprocess, sys, traceback
D = os.environ.get("OUTDIR", "/tmp/w/tma_user")


def kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def tma_add_kernel(a_desc, b_desc, c_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        a = a_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
        b = b_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], a + b)
    return tma_add_kernel


def model():
    import torch
    from torch.library import wrap_triton
    from triton.tools.tensor_descriptor import TensorDescriptor
    k = kernel()

    class M(torch.nn.Module):
        def forward(self, a, b):
            c = torch.empty_like(a)
            BM, BN = 32, 32
            ad = TensorDescriptor.from_tensor(a, [BM, BN])
            bd = TensorDescriptor.from_tensor(b, [BM, BN])
            cd = TensorDescriptor.from_tensor(c, [BM, BN])
            wrap_triton(k)[(a.shape[0] // BM, a.shape[1] // BN)](ad, bd, cd, BLOCK_M=BM, BLOCK_N=BN)
            return c.relu()
    return M()


def inputs():
    import torch
    g = torch.Generator().manual_seed(0)
    return torch.randn(128, 64, generator=g).cuda(), torch.randn(128, 64, generator=g).cuda()


if sys.argv[1] == "build":
    import torch
    os.makedirs(D + "/logs", exist_ok=True)
    info = {"source": "aoti_tests", "name": "test_triton_kernel_tma_descriptor", "device": "cuda", "torch": torch.__version__,
            "built_on": "the lent H200, torch 2.11 (stop 18)", "from": "tma_user.py (beside)", "runs": []}
    try:
        ep = torch.export.export(model(), inputs(), strict=False)
        torch._inductor.aoti_compile_and_package(ep, package_path=D + "/test_triton_kernel_tma_descriptor.pt2")
        info["build_ok"] = True
    except Exception as e:
        info["build_ok"] = False
        info["build_error"] = "".join(traceback.format_exception(e))[-4000:]
        traceback.print_exc()
    if info["build_ok"]:
        with open(f"{D}/logs/good.log", "w") as f:
            p = subprocess.run([sys.executable, "-X", "faulthandler", __file__, "run"], stdout=f, stderr=subprocess.STDOUT,
                               env=dict(os.environ, PYTHONUNBUFFERED="1"), timeout=150)
        info["runs"].append({"scenario": "good", "rc": p.returncode, "log": "logs/good.log", "inputs": "two 128x64 float32",
                             "expect": None, "right_category": "none (clean run)"})
    json.dump(info, open(D + "/index.json", "w"), indent=1)
else:
    import torch
    m = torch._inductor.aoti_load_package(D + "/test_triton_kernel_tma_descriptor.pt2")
    a, b = inputs()
    out = m(a, b)
    torch.cuda.synchronize()
    print("[harvest] max error", float((out - (a + b).relu()).abs().max()), flush=True)
