"""Issue 22 §7 (+§6): build the add_kernel family of torch's test/inductor user kernels with aoti_compile_and_package
on torch 2.11 (H200), run each once, and re-measure HF BERT / GPT-2 peak memory. One child process per case."""
import json, os, subprocess, sys, time, traceback, zipfile
OUT = os.environ.get("OUT", "/tmp/out")
CASES = ["add_kernel", "add_kernel_autotuned", "add_kernel_2d_autotuned", "add_kernel_with_optional_param",
         "add_kernel_with_scaling", "unbacked_grid", "tma_1d_new", "tma_2d_new", "tma_1d_old", "defaults_multiline",
         "bmm_template", "mem_bert", "mem_gpt2"]
# Run on the H200 in two calls (issue 22): the first ran every case but failed the kernel cases on a missing
# `expecttest` (load_tu now avoids it) and built mem_bert (193 s); mem_gpt2 failed at export (its sequence must be a
# multiple of 8: Dim("seq") gives a constraint violation).  The second call ran the kernel cases only.  Not built:
# tma_1d_old (Triton 3.6 has no triton.tools.experimental_descriptor) and defaults_multiline (Inductor's autotuning
# launcher lost an argument: "launcher() missing 1 required positional argument: '_launcher_s0'").


def strip(pt2, dst):
    """Re-store the package deflated, without the .so (nothing reads it) or weight blobs."""
    left = []
    with zipfile.ZipFile(pt2) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if i.filename.endswith(".so") or "/data/weights/" in i.filename or "/data/constants/" in i.filename:
                left.append(i.filename.rsplit("/", 1)[-1] + f" ({i.file_size} B)")
                continue
            zo.writestr(i.filename, zi.read(i.filename))
    return left


def load_tu():
    """torch 2.11's own torch/testing/_internal/triton_utils.py, verbatim but for its inductor_utils import (that
    chain imports expecttest, not installed on the device)."""
    import importlib.util, re, torch
    src = open(os.path.join(os.path.dirname(torch.__file__), "testing/_internal/triton_utils.py")).read()
    src = re.sub(r"from torch\.testing\._internal\.inductor_utils import \([^)]*\)",
                 "HAS_CUDA_AND_TRITON = HAS_GPU = True\nHAS_XPU_AND_TRITON = False", src, count=1)
    if "HAS_XPU_AND_TRITON = False" not in src:
        import types, unittest
        sys.modules.setdefault("expecttest", types.SimpleNamespace(TestCase=unittest.TestCase))
    p = "/tmp/tu_torch211/triton_utils_211.py"
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(src)
    spec = importlib.util.spec_from_file_location("triton_utils_211", p)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["triton_utils_211"] = mod
    spec.loader.exec_module(mod)
    return mod


def model(case):
    import torch, triton
    import triton.language as tl
    tu = load_tu()
    dev = "cuda"
    g = torch.Generator().manual_seed(0)
    Dim = torch.export.Dim
    if case == "add_kernel":
        class M(torch.nn.Module):
            def forward(self, x, y):
                out = torch.zeros_like(x)
                n = out.numel()
                tu.add_kernel[(triton.cdiv(n, 16),)](x, y, out, n, BLOCK_SIZE=16)
                return out
        a = (torch.randn(1000, generator=g).to(dev), torch.randn(1000, generator=g).to(dev))
        d = Dim("n", min=2, max=4096)
        return M(), a, ({0: d}, {0: d}), True
    if case == "add_kernel_autotuned":
        class M(torch.nn.Module):
            def forward(self, x, y):
                out = torch.zeros_like(x)
                n = out.numel()
                grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
                tu.add_kernel_autotuned[grid](x, y, out, n)
                return out
        a = (torch.randn(1000, generator=g).to(dev), torch.randn(1000, generator=g).to(dev))
        d = Dim("n", min=2, max=4096)
        return M(), a, ({0: d}, {0: d}), True
    if case == "add_kernel_2d_autotuned":
        class M(torch.nn.Module):
            def forward(self, x, y):
                out = torch.zeros_like(x)
                xe, ye = x.size(0), x.size(1)
                grid = lambda meta: (triton.cdiv(xe, meta["BLOCK_SIZE_X"]), triton.cdiv(ye, meta["BLOCK_SIZE_Y"]))
                tu.add_kernel_2d_autotuned[grid](x, y, out, xe, ye)
                return out
        a = (torch.randn(128, 96, generator=g).to(dev), torch.randn(128, 96, generator=g).to(dev))
        d0, d1 = Dim("r", min=2, max=1024), Dim("c", min=2, max=1024)
        return M(), a, ({0: d0, 1: d1}, {0: d0, 1: d1}), True
    if case == "add_kernel_with_optional_param":
        class M(torch.nn.Module):
            def forward(self, x, y):
                out = torch.zeros_like(x)
                out2 = torch.zeros_like(x)
                n = out.numel()
                tu.add_kernel_with_optional_param[(triton.cdiv(n, 16),)](x, y, out, n, ARGS_PASSED="two", BLOCK_SIZE=16)
                tu.add_kernel_with_optional_param[(triton.cdiv(n, 16),)](x, None, out2, n, ARGS_PASSED="one", BLOCK_SIZE=16)
                return out + out2
        a = (torch.randn(1000, generator=g).to(dev), torch.randn(1000, generator=g).to(dev))
        return M(), a, None, True
    if case == "add_kernel_with_scaling":
        class M(torch.nn.Module):
            def forward(self, x, y):
                out = torch.zeros_like(x)
                n = out.numel()
                tu.add_kernel_with_scaling[(triton.cdiv(n, 16),)](x, y, out, n, 2.5, BLOCK_SIZE=16)
                return out
        a = (torch.randn(1000, generator=g).to(dev), torch.randn(1000, generator=g).to(dev))
        return M(), a, None, True
    if case == "unbacked_grid":
        class M(torch.nn.Module):
            def forward(self, x, y, n_t):
                out = torch.zeros_like(x)
                n_sym = n_t.item()
                torch._check_is_size(n_sym)
                torch._check(n_sym <= x.numel())
                grid = lambda meta: (triton.cdiv(n_sym, meta["BLOCK_SIZE"]),)
                tu.add_kernel_autotuned[grid](x, y, out, n_sym)
                return out
        a = (torch.randn(1000, generator=g).to(dev), torch.randn(1000, generator=g).to(dev), torch.tensor(700, device=dev))
        return M(), a, None, True
    if case in ("tma_1d_new", "tma_2d_new", "tma_1d_old"):
        new = not case.endswith("old")
        two = "2d" in case
        class M(torch.nn.Module):
            def forward(self, a, b):
                out = torch.zeros_like(a)
                if two:
                    BX, BY = 32, 32
                    da, db, do = (tu.create_tensor_descriptor_shim(t, [BX, BY], new_api=new) for t in (a, b, out))
                    grid = (triton.cdiv(a.size(0), BX), triton.cdiv(a.size(1), BY))
                    (tu.add_kernel_with_tma_2d_new_api if new else tu.add_kernel_with_tma_2d_old_api)[grid](
                        da, db, do, BLOCK_SIZE_X=BX, BLOCK_SIZE_Y=BY)
                else:
                    B = 256
                    n = out.numel()
                    da, db, do = (tu.create_tensor_descriptor_shim(t, [B], new_api=new) for t in (a, b, out))
                    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
                    (tu.add_kernel_with_tma_1d_new_api if new else tu.add_kernel_with_tma_1d_old_api)[grid](
                        da, db, do, BLOCK_SIZE=B)
                return out
        shp = (128, 64) if two else (1024,)
        a = (torch.randn(*shp, generator=g).to(dev), torch.randn(*shp, generator=g).to(dev))
        return M(), a, None, True
    if case == "defaults_multiline":
        @triton.autotune(
            configs=[triton.Config({"BLOCK_SIZE": 64}, num_warps=2), triton.Config({"BLOCK_SIZE": 128}, num_warps=4)],
            key=["n_elements"],
        )
        @triton.jit
        def scaled_add_kernel(
            in_ptr0,
            in_ptr1,
            out_ptr,
            n_elements,
            alpha=1.0,
            BLOCK_SIZE: "tl.constexpr" = 64,
            EVEN: tl.constexpr = False,
        ):
            pid = tl.program_id(axis=0)
            offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
            mask = offsets < n_elements
            x = tl.load(in_ptr0 + offsets, mask=mask)
            y = tl.load(in_ptr1 + offsets, mask=mask)  # the second operand
            tl.store(out_ptr + offsets, x + alpha * y, mask=mask)

        class M(torch.nn.Module):
            def forward(self, x, y):
                out = torch.empty_like(x)
                n = x.numel()
                grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
                scaled_add_kernel[grid](x, y, out, n, 0.5)
                return out
        a = (torch.randn(1000, generator=g).to(dev), torch.randn(1000, generator=g).to(dev))
        d = Dim("n", min=2, max=4096)
        return M(), a, ({0: d}, {0: d}), True
    if case == "bmm_template":
        class M(torch.nn.Module):
            def forward(self, a, b):
                return torch.bmm(a, b).relu()
        a = (torch.randn(4, 64, 128, generator=g).to(dev), torch.randn(4, 128, 64, generator=g).to(dev))
        return M(), a, None, False
    raise KeyError(case)


def mem_model(case):
    import torch, transformers
    torch.manual_seed(0)
    if case == "mem_bert":
        m = transformers.BertModel(transformers.BertConfig()).eval().cuda()
        smax = 512
    else:
        cfg = transformers.GPT2Config(); cfg.use_cache = False
        m = transformers.GPT2LMHeadModel(cfg).eval().cuda()
        smax = 1024
    B, S = torch.export.Dim("batch", min=1, max=64), torch.export.Dim("seq", min=2, max=smax)
    return m, (torch.randint(0, 1000, (2, 16), device="cuda"),), ({0: B, 1: S},)


def child(case):
    import torch
    d = f"{OUT}/{case}"
    os.makedirs(d, exist_ok=True)
    info = {"case": case, "torch": torch.__version__, "gpu": torch.cuda.get_device_name()}
    t0 = time.time()
    pt2 = f"/tmp/pk/{case}/{case}.pt2"
    os.makedirs(os.path.dirname(pt2), exist_ok=True)
    try:
        if case.startswith("mem_"):
            m, args, dyn = mem_model(case)
            with torch.no_grad():
                ep = torch.export.export(m, args, dynamic_shapes=dyn, strict=False)
                torch._inductor.aoti_compile_and_package(ep, package_path=pt2)
            info["export"] = "strict=False, dynamic batch 1..64 and sequence"
            del m, ep
        else:
            m, args, dyn, strict = model(case)
            opts = {"max_autotune": True, "max_autotune_gemm_backends": "TRITON"} if case == "bmm_template" else {}
            try:
                ep = torch.export.export(m, args, dynamic_shapes=dyn, strict=strict)
                info["export"] = f"strict={strict}"
            except Exception as e:
                info["strict_error"] = repr(e)[:600]
                ep = torch.export.export(m, args, dynamic_shapes=dyn, strict=not strict)
                info["export"] = f"strict={not strict} (fallback)"
            torch._inductor.aoti_compile_and_package(ep, package_path=pt2, inductor_configs=opts)
            info["inductor_configs"] = opts
        info["build_ok"] = True
    except Exception as e:
        info["build_ok"] = False
        info["build_error"] = "".join(traceback.format_exception(e))[-3000:]
    info["build_s"] = round(time.time() - t0, 1)
    if info["build_ok"]:
        info["left_out"] = strip(pt2, f"{d}/{case}.pt2")
        try:
            torch.cuda.synchronize()
            pk = torch._inductor.aoti_load_package(pt2)
            if case.startswith("mem_"):
                runs = []
                for b, s in [(2, 16), (8, 128), (32, 512)]:
                    ids = torch.randint(0, 1000, (b, s), device="cuda")
                    for which in ("first", "second"):
                        torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats()
                        before = torch.cuda.memory_allocated()
                        with torch.no_grad():
                            out = pk(ids)
                        torch.cuda.synchronize()
                        peak = torch.cuda.max_memory_allocated() - before
                        ob = sum(o.numel() * o.element_size() for o in (out if isinstance(out, (list, tuple)) else [out]) if hasattr(o, "numel"))
                        runs.append({"ids": [b, s], "run": which, "peak_over_before": peak, "outputs_bytes": ob,
                                     "inputs_bytes": ids.numel() * ids.element_size()})
                        del out
                info["runs"] = runs
            else:
                m, args, dyn, strict = model(case)
                out = pk(*args)
                ref = m(*args)
                torch.cuda.synchronize()
                info["max_error"] = float((out - ref).abs().max()) if torch.is_tensor(out) else repr(type(out))
            info["run_ok"] = True
        except Exception as e:
            info["run_ok"] = False
            info["run_error"] = "".join(traceback.format_exception(e))[-2000:]
    info["total_s"] = round(time.time() - t0, 1)
    json.dump(info, open(f"{d}/info.json", "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        child(sys.argv[1])
        sys.exit(0)
    os.makedirs(OUT, exist_ok=True)
    procs = {}
    for c in CASES:
        os.makedirs(f"{OUT}/{c}", exist_ok=True)
        f = open(f"{OUT}/{c}/build.log", "w")
        env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHINDUCTOR_CACHE_DIR=f"/tmp/ic/{c}")
        procs[c] = (subprocess.Popen([sys.executable, "-X", "faulthandler", __file__, c], stdout=f, stderr=subprocess.STDOUT, env=env), time.time())
    deadline = time.time() + float(os.environ.get("BUDGET", "300"))
    for c, (p, t) in procs.items():
        try:
            p.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
        print(c, "rc", p.returncode, round(time.time() - t, 1), flush=True)
    # logs are capped so the answer stays small
    for c in CASES:
        lp = f"{OUT}/{c}/build.log"
        if os.path.exists(lp) and os.path.getsize(lp) > 60000:
            t = open(lp, errors="replace").read()
            open(lp, "w").write(t[:20000] + "\n[... cut ...]\n" + t[-30000:])
