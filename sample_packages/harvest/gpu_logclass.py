"""Issue 34 §2-§4 on the GPU: the real logs of failures that are not asserts, and of a clean run.

Run on the lent H200 (torch 2.11, transformers and torchvision from the image; nothing fetched), from the repo root:

    OUT=$OUT PYTHONUNBUFFERED=1 python3 sample_packages/harvest/gpu_logclass.py

It builds three packages with aoti_compile_and_package, each in a child process, then runs every scenario in a
fresh child process of its own (the environment a scenario names is set before CUDA starts) with a timeout, and
writes under ``$OUT/<package>/``: ``<package>.pt2`` (re-stored deflated, the ``.so`` left out: nothing reads it),
``build.log``, ``logs/<scenario>.log`` (the child's stdout and stderr, as printed) and ``index.json`` (how it was
built, and per run its environment, exit code and ``right_category``).  BUDGET (seconds, default 480) caps it all.

* ``oom_square``: returns ``x[:, None] * x[None, :]`` for a dynamic n; run with n = 256,000: 4*n*n bytes = 244.14 GiB
  (`CUDA out of memory. Tried to allocate 244.14 GiB`).
* ``gpt2``: a 2-layer GPT-2 from ``transformers.GPT2Config`` (no hub, random weights), dynamic batch and sequence;
  ``good`` (a clean run: rc 0, outputs printed), ``cpu_inputs`` (the ids on the CPU: cuBLAS's handle fails, then
  an illegal memory access), ``int32_ids`` (int32 ids into the int64 package, no input checks).
* ``roi_head``: a conv, torchvision's ``roi_align`` (a custom op: the proxy executor) and a linear layer; ``good``,
  ``bad_batch_index`` (rois' column 0 = 1e6: roi_align has no bounds check; the error surfaces at the next cuBLAS
  call) and ``bad_batch_index_blocking`` (the same with CUDA_LAUNCH_BLOCKING=1: reported inside roi_align).  Where
  torchvision does not import, the op is ``logclass::take_rows``, a ``torch.library`` custom op whose Triton kernel
  reads rows at indices it never checks (``index.json`` says which op was used).
"""
import json, os, subprocess, sys, time, traceback, zipfile

OUT = os.environ.get("OUT", "/tmp/out")
HERE = os.path.abspath(__file__)
PACKAGES = ("oom_square", "gpt2", "roi_head")
# (package, scenario, extra environment, right_category, what the failure is, by construction)
RUNS = [
    ("oom_square", "oom", {}, "out_of_memory", "buf of 4*s*s bytes at n=256000: 244.14 GiB"),
    ("gpt2", "good", {}, "no_failure", "a clean run"),
    ("gpt2", "cpu_inputs", {}, "illegal_memory_access", "input 0 (input_ids) on the CPU"),
    ("gpt2", "int32_ids", {}, "index_assert", "input 0 is int32, compiled int64 (read as int64 pairs)"),
    ("roi_head", "good", {}, "no_failure", "a clean run"),
    ("roi_head", "bad_batch_index", {}, "illegal_memory_access", "rois[:, 0] = 1e6 >= images.size(0) in roi_align"),
    ("roi_head", "bad_batch_index_blocking", {"CUDA_LAUNCH_BLOCKING": "1"}, "illegal_memory_access",
     "rois[:, 0] = 1e6 in roi_align, reported by its own launch check"),
]


def strip(pt2, dst):
    """Re-store the package deflated, without the .so or weight blobs (the wrapper, kernels, cubins and the
    proxy executor's .wrapper.json stay)."""
    left = []
    with zipfile.ZipFile(pt2) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if i.filename.endswith(".so") or "/data/weights/" in i.filename or "/data/constants/" in i.filename:
                left.append(i.filename.rsplit("/", 1)[-1] + f" ({i.file_size} B)")
                continue
            zo.writestr(i.filename, zi.read(i.filename))
    return left


def take_rows_op():
    """A custom op with no bounds check, for a machine without torchvision: out[i] = table[idx[i]] in Triton."""
    import torch, triton
    import triton.language as tl

    @triton.jit
    def _take(table, idx, out, n, D: tl.constexpr):
        i = tl.program_id(0)
        r = tl.load(idx + i)
        cols = tl.arange(0, D)
        tl.store(out + i * D + cols, tl.load(table + r * D + cols))  # no check of r: an illegal access

    @torch.library.custom_op("logclass::take_rows", mutates_args=())
    def take_rows(table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        out = torch.empty(idx.shape[0], table.shape[1], device=table.device, dtype=table.dtype)
        _take[(idx.shape[0],)](table, idx, out, idx.shape[0], D=table.shape[1])
        return out

    @take_rows.register_fake
    def _(table, idx):
        return table.new_empty(idx.shape[0], table.shape[1])

    return take_rows


def build(name):
    import torch
    Dim = torch.export.Dim
    info = {"package": name, "torch": torch.__version__, "gpu": torch.cuda.get_device_name()}
    if name == "oom_square":
        class M(torch.nn.Module):
            def forward(self, x):
                return x[:, None] * x[None, :]  # the output is the n*n buffer run_impl allocates
        m, args, dyn = M(), (torch.randn(64, device="cuda"),), ({0: Dim("n", min=2, max=10**7)},)
    elif name == "gpt2":
        import transformers
        cfg = transformers.GPT2Config(vocab_size=1000, n_positions=128, n_embd=64, n_layer=2, n_head=4)
        torch.manual_seed(0)
        net = transformers.GPT2LMHeadModel(cfg).cuda().eval()

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.net = net

            def forward(self, input_ids):
                return self.net(input_ids=input_ids, use_cache=False).logits
        info["transformers"] = transformers.__version__
        m, args = M(), (torch.randint(0, 1000, (2, 16), device="cuda"),)
        dyn = ({0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=128)},)
    else:
        try:
            import torchvision
            op = lambda feat, rois: torchvision.ops.roi_align(feat, rois, output_size=(4, 4), spatial_scale=0.5,
                                                              sampling_ratio=2, aligned=True)
            info["op"] = f"torchvision::roi_align (torchvision {torchvision.__version__})"
        except Exception as e:  # noqa: BLE001 - no torchvision: a custom op of our own, as unchecked
            take = take_rows_op()
            op = lambda feat, rois: take(feat.flatten(1).T.contiguous(), rois[:, 0].long()).reshape(-1, 1, 1, 1)
            info["op"] = f"logclass::take_rows (torchvision did not import: {e!r})"[:300]

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
                self.fc = torch.nn.LazyLinear(16)

            def forward(self, images, rois):
                pooled = op(self.conv(images), rois)
                return self.fc(pooled.flatten(1))
        torch.manual_seed(0)
        m = M().cuda().eval()
        args = (torch.randn(2, 3, 32, 32, device="cuda"), good_rois(2, 8))
        with torch.no_grad():
            m(*args)  # the lazy layer takes its size
        dyn = ({0: Dim("batch", min=1, max=16)}, {0: Dim("k", min=1, max=1024)})
    pt2 = f"/tmp/lc_pk/{name}/{name}.pt2"
    os.makedirs(os.path.dirname(pt2), exist_ok=True)
    with torch.no_grad():
        ep = torch.export.export(m, args, dynamic_shapes=dyn, strict=False)
        torch._inductor.aoti_compile_and_package(ep, package_path=pt2)
    info["left_out"] = strip(pt2, f"{OUT}/{name}/{name}.pt2")
    info["dynamic_shapes"] = repr(dyn)
    json.dump(info, open(f"{OUT}/{name}/build.json", "w"), indent=1)


def good_rois(batch, k):
    import torch
    g = torch.Generator().manual_seed(1)
    xy = torch.rand(k, 2, generator=g) * 40
    return torch.cat([torch.randint(0, batch, (k, 1), generator=g).float(), xy, xy + 16], 1).cuda()


def run(name, scenario):
    import torch
    print(f"[logclass] {name} scenario={scenario} torch={torch.__version__} "
          f"env CUDA_LAUNCH_BLOCKING={os.environ.get('CUDA_LAUNCH_BLOCKING', 'unset')} "
          f"AOTI_RUNTIME_CHECK_INPUTS={os.environ.get('AOTI_RUNTIME_CHECK_INPUTS', 'unset')}", flush=True)
    if name == "roi_head":
        try:
            import torchvision  # noqa: F401 - registers torchvision::roi_align for the proxy executor
        except Exception:  # noqa: BLE001
            take_rows_op()
    pk = torch._inductor.aoti_load_package(f"/tmp/lc_pk/{name}/{name}.pt2")
    if name == "oom_square":
        args = (torch.randn(256000, device="cuda"),)
    elif name == "gpt2":
        ids = torch.randint(0, 1000, (2, 16))
        args = ({"good": ids.cuda(), "cpu_inputs": ids, "int32_ids": ids.int().cuda()}[scenario],)
    else:
        rois = good_rois(2, 8)
        if scenario != "good":
            rois[:, 0] = 1e6
        args = (torch.randn(2, 3, 32, 32, device="cuda"), rois)
    with torch.no_grad():
        out = pk(*args)
    torch.cuda.synchronize()
    outs = out if isinstance(out, (list, tuple)) else [out]
    for i, o in enumerate(outs):
        print(f"[logclass] output {i}: shape={tuple(o.shape)} dtype={o.dtype} device={o.device} "
              f"finite={bool(torch.isfinite(o).all())} sum={float(o.float().sum())}", flush=True)
    print("[logclass] run finished", flush=True)


def child_env(extra):
    env = dict(os.environ, PYTHONUNBUFFERED="1", **extra)
    for k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        env.setdefault(k, "0" if k == "NCCL_NVLS_ENABLE" else "1")
    return env


def main():
    deadline = time.time() + float(os.environ.get("BUDGET", "480"))
    procs = {}
    for name in PACKAGES:  # the builds, side by side
        os.makedirs(f"{OUT}/{name}/logs", exist_ok=True)
        f = open(f"{OUT}/{name}/build.log", "w")
        procs[name] = subprocess.Popen([sys.executable, "-X", "faulthandler", HERE, "build", name], stdout=f,
                                       stderr=subprocess.STDOUT, env=child_env({"TORCHINDUCTOR_CACHE_DIR": f"/tmp/lc_ic/{name}"}))
    built = {}
    for name, p in procs.items():
        try:
            p.wait(timeout=max(1, deadline - time.time() - 120))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        built[name] = p.returncode == 0
        print(name, "build rc", p.returncode, flush=True)
    index = {n: {"runs": []} for n in PACKAGES}
    for name, scenario, extra, right, expect in RUNS:
        if not built[name]:
            continue
        left = deadline - time.time()
        if left < 20:
            print(name, scenario, "skipped: no time left", flush=True)
            continue
        log = f"{OUT}/{name}/logs/{scenario}.log"
        t0 = time.time()
        with open(log, "w") as f:
            p = subprocess.Popen([sys.executable, "-X", "faulthandler", HERE, "run", name, scenario], stdout=f,
                                 stderr=subprocess.STDOUT, env=child_env(extra))
            try:
                rc = p.wait(timeout=min(120, left - 5))
            except subprocess.TimeoutExpired:
                p.kill()
                rc = "timeout"
        if os.path.getsize(log) > 60000:  # keep the answer small: a device assert prints a line per thread
            t = open(log, errors="replace").read()
            open(log, "w").write(t[:20000] + "\n[... cut ...]\n" + t[-30000:])
        index[name]["runs"].append({"scenario": scenario, "env": extra, "rc": rc, "right_category": right,
                                    "expect": expect, "seconds": round(time.time() - t0, 1)})
        print(name, scenario, "rc", rc, round(time.time() - t0, 1), flush=True)
    for name in PACKAGES:
        b = f"{OUT}/{name}/build.json"
        index[name]["build"] = json.load(open(b)) if os.path.exists(b) else None
        json.dump(index[name], open(f"{OUT}/{name}/index.json", "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "build":
        try:
            build(sys.argv[2])
        except Exception:
            traceback.print_exc()
            sys.exit(1)
    elif len(sys.argv) > 3 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        main()
