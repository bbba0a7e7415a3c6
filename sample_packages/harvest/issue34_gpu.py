"""Issue 34: CUDA packages from library model code and their real runs, built with aoti_compile_and_package on
torch 2.11 (H200).  One child process per build and per run; everything lands in $OUT/issue34_gpu.tar.gz.

    CXX=/usr/bin/g++ OUT=/tmp/out python sample_packages/harvest/issue34_gpu.py          # every case
    ISSUE34_CASES=llama_shared_dim ... issue34_gpu.py                                     # some
    python sample_packages/harvest/issue34_gpu.py build CASE / run CASE SCENARIO       # one step (the children)

Cases (each `<case>/` gets `<case>.pt2`, re-stored deflated without the .so and the weights, `build.log`,
`logs/<scenario>.log` and `index.json` with each run's command, environment, exit code, `expect` and
`right_category`):
- llama_shared_dim: a Hugging Face Llama (random weights, a small config), input_ids and attention_mask exported
  with the SAME Dims (the sequence a multiple of 8, as export asks); runs: good, a mask [2,8] with ids [2,16] (plain
  and AOTI_RUNTIME_CHECK_INPUTS=1).
- gpt2_dyn: a GPT-2 (small config), dynamic batch and sequence; runs: good, CPU tensors into the CUDA package,
  int32 ids into the int64 package.
- custom_op_ima: a `torch.library.custom_op` (a Triton kernel that reads table rows by index with no bounds check),
  then a matmul (cuBLAS); runs: good, an index of 1e6 plainly (the error surfaces later) and with
  CUDA_LAUNCH_BLOCKING=1.
- roi_align_head: torchvision's roi_align and batched_nms, when torchvision imports (runs: good, rois whose batch
  index is 1e6, plainly and with CUDA_LAUNCH_BLOCKING=1).
"""
import json, os, subprocess, sys, tarfile, time, traceback, zipfile

OUT = os.environ.get("OUT", "/tmp/out")
WORK = os.path.join(os.environ.get("TMPDIR", "/tmp"), "issue34_work")
HERE = os.path.abspath(__file__)
CASES = ["llama_shared_dim", "gpt2_dyn", "custom_op_ima", "roi_align_head"]


def _custom_op():
    """pt2demo::gather_rows: out[r] = table[idx[r]], a Triton kernel with no bounds check on idx (as a custom CUDA op
    of a library would be), registered in every process that builds or runs the package."""
    import torch, triton
    import triton.language as tl

    @triton.jit
    def gather_rows_kernel(tab, idx, out, D, BLOCK: tl.constexpr):
        r = tl.program_id(0)
        i = tl.load(idx + r)
        offs = tl.arange(0, BLOCK)
        m = offs < D
        tl.store(out + r * D + offs, tl.load(tab + i * D + offs, mask=m), mask=m)

    @torch.library.custom_op("pt2demo::gather_rows", mutates_args=())
    def gather_rows(tab: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        out = tab.new_empty((idx.shape[0], tab.shape[1]))
        gather_rows_kernel[(idx.shape[0],)](tab, idx, out, tab.shape[1], BLOCK=triton.next_power_of_2(tab.shape[1]))
        return out

    @gather_rows.register_fake
    def _(tab, idx):
        return tab.new_empty((idx.shape[0], tab.shape[1]))

    return gather_rows


def model(case):
    """(module, example args, dynamic_shapes) for a case, on cuda."""
    import torch
    Dim = torch.export.Dim
    torch.manual_seed(0)
    if case == "llama_shared_dim":
        from transformers import LlamaConfig, LlamaForCausalLM
        cfg = LlamaConfig(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
        inner = LlamaForCausalLM(cfg).eval()

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = inner

            def forward(self, input_ids, attention_mask):
                return self.m(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits

        # export asks the sequence to be a multiple of 8 here ("Suggested fixes: seq = 8*_seq")
        b, s = Dim("batch", min=1, max=64), 8 * Dim("_seq", min=1, max=16)
        args = (torch.randint(0, 1000, (2, 16)), torch.ones(2, 16, dtype=torch.int64))
        return M().cuda(), tuple(a.cuda() for a in args), ({0: b, 1: s}, {0: b, 1: s})
    if case == "gpt2_dyn":
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(vocab_size=1000, n_positions=256, n_embd=64, n_layer=2, n_head=2)
        inner = GPT2LMHeadModel(cfg).eval()

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = inner

            def forward(self, input_ids, attention_mask):
                return self.m(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits

        a = Dim.AUTO
        args = (torch.randint(0, 1000, (2, 16)), torch.ones(2, 16, dtype=torch.int64))
        return M().cuda(), tuple(x.cuda() for x in args), ({0: a, 1: a}, {0: a, 1: a})
    if case == "custom_op_ima":
        gather_rows = _custom_op()

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.table = torch.nn.Parameter(torch.randn(1000, 64))
                self.w = torch.nn.Parameter(torch.randn(64, 64))

            def forward(self, idx):
                return torch.relu(gather_rows(self.table, idx) @ self.w)

        return M().cuda(), (torch.randint(0, 1000, (256,)).cuda(),), ({0: Dim("n", min=2, max=1 << 20)},)
    if case == "roi_align_head":
        import torchvision
        from torchvision.ops import batched_nms, roi_align

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 16, 3, padding=1)
                self.fc = torch.nn.Linear(16 * 7 * 7, 5)

            def forward(self, images, rois):
                f = self.conv(images)
                r = roi_align(f, rois, output_size=(7, 7), spatial_scale=1.0, sampling_ratio=2)
                out = self.fc(r.flatten(1))
                scores = out[:, 0].sigmoid()
                keep = batched_nms(rois[:, 1:], scores, rois[:, 0].to(torch.int64), 0.5)
                return out, keep

        imgs = torch.randn(2, 3, 32, 32)
        xy = torch.rand(8, 2) * 16
        rois = torch.cat([torch.randint(0, 2, (8, 1)).float(), xy, xy + 8], 1)
        return M().cuda(), (imgs.cuda(), rois.cuda()), ({0: Dim("b", min=1, max=64)}, {0: Dim("k", min=1, max=4096)})
    raise KeyError(case)


def scenarios(case):
    """name -> (description, inputs code, env, expect, right_category)."""
    if case == "llama_shared_dim":
        return {
            "good": ("ids [2,16], mask [2,16]", "ids(2,16), mask(2,16)", {}, "none", "none (clean run)"),
            "short_mask": ("ids [2,16] with a mask [2,8]: the kernels read the mask with the ids' sizes",
                           "ids(2,16), mask(2,8)", {}, "silently wrong or a crash: mask dim 1 must equal ids dim 1",
                           "shape_contract"),
            "short_mask_checked": ("the same with AOTI_RUNTIME_CHECK_INPUTS=1", "ids(2,16), mask(2,8)",
                                   {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "the runtime checks catch it or not",
                                   "shape_contract"),
        }
    if case == "gpt2_dyn":
        return {
            "good": ("ids [2,16]", "ids(2,16), mask(2,16)", {}, "none", "none (clean run)"),
            "cpu_inputs": ("both inputs on the CPU", "ids(2,16).cpu(), mask(2,16).cpu()", {},
                           "an input on the CPU", "device_mismatch"),
            "int32_ids": ("int32 ids into the int64 package, no input checks", "ids(2,16).int(), mask(2,16)", {},
                          "input 0's dtype: int32 read as int64", "dtype"),
        }
    if case == "custom_op_ima":
        return {
            "good": ("indices in range", "idx(256)", {}, "none", "none (clean run)"),
            "oob": ("index 1e6 in a table of 1000 rows, plainly", "idx_bad(256)", {},
                    "the custom op pt2demo::gather_rows reads past its table (input 0)", "illegal_memory_access"),
            "oob_blocking": ("the same with CUDA_LAUNCH_BLOCKING=1", "idx_bad(256)", {"CUDA_LAUNCH_BLOCKING": "1"},
                             "the custom op pt2demo::gather_rows reads past its table (input 0)",
                             "illegal_memory_access"),
        }
    if case == "roi_align_head":
        return {
            "good": ("rois' batch index in range", "imgs(2), rois(8)", {}, "none", "none (clean run)"),
            "bad_batch": ("rois[:, 0] = 1e6 with 2 images, plainly", "imgs(2), rois_bad(8)", {},
                          "roi_align reads an image past the batch (input 1, rois[:, 0])", "illegal_memory_access"),
            "bad_batch_blocking": ("the same with CUDA_LAUNCH_BLOCKING=1", "imgs(2), rois_bad(8)",
                                   {"CUDA_LAUNCH_BLOCKING": "1"},
                                   "roi_align reads an image past the batch (input 1, rois[:, 0])",
                                   "illegal_memory_access"),
        }
    raise KeyError(case)


def inputs(code):
    import torch
    g = torch.Generator().manual_seed(1)

    def ids(b, t):
        return torch.randint(0, 1000, (b, t), generator=g).cuda()

    def mask(b, t):
        return torch.ones(b, t, dtype=torch.int64).cuda()

    def idx(n):
        return torch.randint(0, 1000, (n,), generator=g).cuda()

    def idx_bad(n):
        x = idx(n)
        x[7] = 1_000_000
        return x

    def imgs(b):
        return torch.randn(b, 3, 32, 32, generator=g).cuda()

    def rois(k):
        xy = torch.rand(k, 2, generator=g) * 16
        return torch.cat([torch.randint(0, 2, (k, 1), generator=g).float(), xy, xy + 8], 1).cuda()

    def rois_bad(k):
        r = rois(k)
        r[3, 0] = 1e6
        return r

    return eval(f"({code},)", {"ids": ids, "mask": mask, "idx": idx, "idx_bad": idx_bad, "imgs": imgs, "rois": rois,
                               "rois_bad": rois_bad})


def build(case):
    import torch
    d = os.path.join(WORK, case)
    os.makedirs(d, exist_ok=True)
    t = time.time()
    m, args, dyn = model(case)
    with torch.no_grad():
        ep = torch.export.export(m, args, dynamic_shapes=dyn, strict=False)
    print(ep.graph_module.code[:4000])
    torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, f"{case}.pt2"))
    print(f"built in {time.time() - t:.0f} s")


def run(case, scen):
    import torch
    if case == "custom_op_ima":
        _custom_op()
    if case == "roi_align_head":
        import torchvision  # noqa: F401  (registers torchvision::roi_align, nms)
    desc, code, env, expect, cat = scenarios(case)[scen]
    runner = torch._inductor.aoti_load_package(os.path.join(WORK, case, f"{case}.pt2"))
    args = inputs(code)
    print(f"[issue34] {case} scenario={scen} torch={torch.__version__}: {desc}", flush=True)
    out = runner(*args)
    torch.cuda.synchronize()
    outs = out if isinstance(out, (list, tuple)) else [out]
    for o in outs:
        print("output", tuple(o.shape), o.dtype, "finite:", bool(torch.isfinite(o.float()).all()) if o.numel() else "-",
              "sum:", float(o.float().sum()) if o.numel() else 0.0, flush=True)


def strip(pt2, dst):
    left = []
    with zipfile.ZipFile(pt2) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if i.filename.endswith(".so") or "/data/weights/" in i.filename or "/data/constants/" in i.filename:
                left.append(f"{i.filename.rsplit('/', 1)[-1]} ({i.file_size} B)")
                continue
            zo.writestr(i.filename, zi.read(i.filename))
    return left


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "build":
        return build(sys.argv[2])
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        return run(sys.argv[2], sys.argv[3])
    import torch
    os.makedirs(OUT, exist_ok=True)
    env0 = dict(os.environ, CXX=os.environ.get("CXX", "/usr/bin/g++"))
    env0.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    try:
        import torchvision  # noqa: F401
        have_tv = torchvision.__version__
    except Exception as e:  # what the machine lacks is recorded, the case skipped
        have_tv = f"not importable: {type(e).__name__}: {e}"
    want = os.environ.get("ISSUE34_CASES", ",".join(CASES)).split(",")
    cases = [c for c in CASES if c in want and (c != "roi_align_head" or not have_tv.startswith("not"))]
    os.makedirs(WORK, exist_ok=True)
    builds = {}
    for c in cases:
        os.makedirs(os.path.join(WORK, c, "logs"), exist_ok=True)
        f = open(os.path.join(WORK, c, "build.log"), "w")
        builds[c] = (subprocess.Popen([sys.executable, HERE, "build", c], stdout=f, stderr=subprocess.STDOUT, env=env0), f,
                     time.time())
    runs = {}
    for c, (p, f, t0) in builds.items():
        try:
            p.wait(timeout=max(10, 330 - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            p.kill()
        f.close()
        ok = p.returncode == 0 and os.path.exists(os.path.join(WORK, c, f"{c}.pt2"))
        runs[c] = {"build_ok": ok, "build_rc": p.returncode, "build_s": round(time.time() - t0), "runs": []}
        if not ok:
            continue
        for s, (desc, code, env, expect, cat) in scenarios(c).items():
            log = os.path.join(WORK, c, "logs", f"{s}.log")
            lf = open(log, "w")
            cmd = [sys.executable, HERE, "run", c, s]
            pr = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, env={**env0, **env, "OMP_NUM_THREADS": "1"})
            runs[c]["runs"].append({"scenario": s, "log": f"logs/{s}.log", "inputs": code, "env": env,
                                    "command": f"{' '.join(f'{k}={v}' for k, v in env.items())} python issue34_gpu.py run {c} {s}".strip(),
                                    "expect": expect, "right_category": cat, "description": desc, "_p": pr, "_f": lf,
                                    "_t": time.time()})
    for c, doc in runs.items():
        for r in doc["runs"]:
            try:
                r["_p"].wait(timeout=max(10, 200 - (time.time() - r["_t"])))
            except subprocess.TimeoutExpired:
                r["_p"].kill()
                r["_p"].wait()
            r["_f"].close()
            r["rc"] = r["_p"].returncode
            for k in ("_p", "_f", "_t"):
                r.pop(k)
    with tarfile.open(os.path.join(OUT, "issue34_gpu.tar.gz"), "w:gz") as tar:
        for c, doc in runs.items():
            d = os.path.join(WORK, c)
            doc.update(case=c, torch=torch.__version__, torchvision=have_tv, device=torch.cuda.get_device_name(),
                       built_by="sample_packages/harvest/issue34_gpu.py")
            pt2 = os.path.join(d, f"{c}.pt2")
            if os.path.exists(pt2):
                doc["left_out"] = strip(pt2, os.path.join(d, f"{c}.stripped.pt2"))
                tar.add(os.path.join(d, f"{c}.stripped.pt2"), f"{c}/{c}.pt2")
            with open(os.path.join(d, "index.json"), "w") as f:
                json.dump(doc, f, indent=1)
            for name in ("index.json", "build.log"):
                tar.add(os.path.join(d, name), f"{c}/{name}")
            for r in doc["runs"]:
                tar.add(os.path.join(d, r["log"]), f"{c}/{r['log']}")
    print(json.dumps({c: {"build_ok": d["build_ok"], "build_s": d["build_s"],
                          "runs": {r["scenario"]: r["rc"] for r in d["runs"]}} for c, d in runs.items()}, indent=1))
    print("torchvision:", have_tv)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
