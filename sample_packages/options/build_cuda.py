"""Build the CUDA packaging-option samples of issue 23 and run them, good and failing, in fresh processes.

  python build_cuda.py drive OUTROOT DEADLINE_EPOCH [ONLY]   # every case in parallel, one tgz per case in $OUT
  python build_cuda.py build NAME DIR                        # one package (index.json) then its runs, in parallel
  python build_cuda.py run NAME DIR SCENARIO                 # one run, in a fresh process

Built on the lent H200 (torch 2.11, Triton 3.6) with CXX=/usr/bin/g++; OPT_DEVICE=cpu builds the cases that
have a CPU form (the script's logic was tried that way on torch 2.13 CPU before the one GPU call).
Each case's index.json follows sample_packages/harvest/ (runs: scenario, inputs, rc, env, log, expect,
command, first_error) and adds `facts`: what the build's tools say about the package (members, readelf of the
.so, cuobjdump of the kernel binaries), the truth doctor's findings are checked against.
"""

import json
import os
import subprocess
import sys
import time
import traceback
import zipfile

DEV = os.environ.get("OPT_DEVICE", "cuda")


# --------------------------------------------------------------------------- models
def gather_model(mm=True):
    """idx int64[B] into a 1000-row table, plus x float[B, 32], then a linear: one gather kernel (device
    assert on idx), one extern mm."""
    import torch
    from torch import nn

    class Gather(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(1000, 32)
            self.lin = nn.Linear(32, 8)

        def forward(self, idx, x):
            if not mm:
                return (self.emb(idx) + x).relu()
            return self.lin(self.emb(idx) + x).relu()
    torch.manual_seed(0)
    return Gather()


def gather_inputs(scen, dev):
    import torch
    g = torch.Generator().manual_seed(3)
    b = 64
    idx = torch.randint(0, 1000, (b,), generator=g)
    x = torch.randn(b, 32, generator=g)
    if scen == "oob_index":
        idx[5] = 1007
    if scen == "checkinputs_bad_shape":
        x = torch.randn(b, 31, generator=g)
    if scen == "cpu_inputs":
        return (idx, x)
    return (idx.to(dev), x.to(dev))


GATHER_DYN = lambda Dim: ({0: Dim("B", min=2, max=4096)}, {0: Dim("B", min=2, max=4096)})
GATHER_RUNS = [
    ("good", "idx in [0, 1000), B=64", None),
    ("oob_index", "idx[5] = 1007 (table has 1000 rows)", "gather kernel: index bound 1000 (emb.weight rows), from input 0 (idx)"),
    ("cpu_inputs", "both inputs left on the CPU, into the CUDA package", "inputs on the wrong device (CPU tensors into a CUDA package)"),
    ("checkinputs_bad_shape", "AOTI_RUNTIME_CHECK_INPUTS=1, x of [64, 31] (the package wants [B, 32])", "input check: input 1 dim 1 is 31, expected 32"),
]


def cond_model():
    import torch
    from torch import nn

    class CondGather(nn.Module):
        def __init__(self):
            super().__init__()
            self.tab = nn.Parameter(torch.randn(100, 16))

        def forward(self, p, idx, x):
            def true_fn(i, y):
                return self.tab[i] + y           # gather inside the branch: its index is model input 1 (idx)

            def false_fn(i, y):
                return y * 2
            return torch.cond(p, true_fn, false_fn, (idx, x))
    torch.manual_seed(0)
    return CondGather()


def cond_inputs(scen, dev):
    import torch
    g = torch.Generator().manual_seed(4)
    idx = torch.randint(0, 100, (32,), generator=g)
    if scen == "oob_true":
        idx[9] = 250
    x = torch.randn(32, 16, generator=g)
    return (torch.tensor(scen != "good_false").to(dev), idx.to(dev), x.to(dev))


def mixed_model():
    """A CPU-side constant table (a buffer kept on the CPU) gathered by a CPU index, moved to the GPU, then
    added to a CUDA parameter: a graph with CPU and CUDA kernels and constants of both devices."""
    import torch
    from torch import nn

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("cpu_tab", torch.randn(4096, 64))       # 1 MiB, stays on the CPU
            self.w = nn.Parameter(torch.randn(64, 64))                   # moved to CUDA below

        def forward(self, idx, x):
            rows = self.cpu_tab[idx]                  # CPU gather (idx is a CPU tensor)
            return (rows.to(x.device) + x) @ self.w
    torch.manual_seed(0)
    m = Mixed()
    m.w.data = m.w.data.to(DEV)
    return m


def mixed_inputs(scen, dev):
    import torch
    g = torch.Generator().manual_seed(5)
    idx = torch.randint(0, 4096, (16,), generator=g)
    if scen == "oob_cpu_index":
        idx[3] = 5000
    return (idx, torch.randn(16, 64, generator=g).to(dev))


def sdpa_model():
    """bf16 token + position embeddings (the position table has 128 rows), one causal SDPA; sequence dynamic."""
    import torch
    from torch import nn

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(1000, 64)
            self.pos = nn.Embedding(128, 64)
            self.qkv = nn.Linear(64, 192)

        def forward(self, tokens):
            s = tokens.shape[1]
            h = self.tok(tokens) + self.pos(torch.arange(s, device=tokens.device))[None]
            q, k, v = self.qkv(h).view(tokens.shape[0], s, 3, 4, 16).permute(2, 0, 3, 1, 4)
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).sum()
    torch.manual_seed(0)
    return Attn().to(torch.bfloat16)


def sdpa_inputs(scen, dev):
    import torch
    g = torch.Generator().manual_seed(6)
    s = {"good": 96, "past_table": 160}[scen]
    return (torch.randint(0, 1000, (2, s), generator=g).to(dev),)


CASES = {
    # name: (model, inputs, dynamic shapes(Dim) or None, inductor configs, runs)
    "embed_kernel_cuda": ("gather", {"aot_inductor.embed_kernel_binary": True}, GATHER_RUNS),
    "multi_arch_cuda": ("gather", {"aot_inductor.emit_multi_arch_kernel": True}, GATHER_RUNS),
    "cpp_only_cuda": ("gather", {"aot_inductor.package_cpp_only": True},
                      [("load", "aoti_load_package on the package as written (no .so in it)", "cpp-only package: no .so to load; build it with its CMakeLists.txt")]),
    "standalone_cuda": ("gather_nomm", {"aot_inductor_mode.compile_standalone": True, "aot_inductor.model_name_for_generated_files": "gather"},
                        [("load", "aoti_load_package on the package as written", "standalone package: no .so to load; build it with its CMakeLists.txt")]),
    "cond_index_cuda": ("cond", {}, [
        ("good_true", "p=True, idx in [0, 100)", None),
        ("good_false", "p=False", None),
        ("oob_true", "p=True, idx[9] = 250 (tab has 100 rows)", "gather in cond's true branch: bound 100 (tab rows), from model input 1 (idx)")]),
    "mixed_cpu_cuda": ("mixed", {}, [
        ("good", "idx (CPU) in [0, 4096), x on CUDA", None),
        ("oob_cpu_index", "idx[3] = 5000 (cpu_tab has 4096 rows)", "CPU gather of cpu_tab: bound 4096, from input 0 (idx)")]),
    "sdpa_bf16_dyn_cuda": ("sdpa", {}, [
        ("good", "tokens [2, 96]", None),
        ("past_table", "tokens [2, 160]: positions 128..159 are past the 128-row position table",
         "position gather: bound 128 (pos.weight rows), index from input 0 dim 1 (the sequence length)")]),
    "cpu_and_cuda_models": ("multi", {}, [
        ("good_cuda", "torch._inductor.package.load_package(pkg, model_name='gather_cuda')", None),
        ("good_cpu", "load_package(pkg, model_name='gather_cpu')", None),
        ("oob_cuda", "model gather_cuda, idx[5] = 1007", "gather kernel (CUDA model): bound 1000, from input 0 (idx)")]),
}


def model_for(kind, dev):
    import torch
    from torch.export import Dim
    if kind == "gather":
        return gather_model().to(dev), gather_inputs("good", dev), GATHER_DYN(Dim)
    if kind == "gather_nomm":  # no extern mm: a standalone (libtorch-free) package cannot call aten's
        return gather_model(mm=False).to(dev), gather_inputs("good", dev), GATHER_DYN(Dim)
    if kind == "cond":
        ex = cond_inputs("good_true", dev)
        return cond_model().to(dev), ex, {"p": {}, "idx": {0: Dim("n", min=2, max=4096)}, "x": {0: Dim("n", min=2, max=4096)}}
    if kind == "mixed":
        return mixed_model(), mixed_inputs("good", dev), ({0: Dim("n", min=2, max=4096)}, {0: Dim("n", min=2, max=4096)})
    if kind == "sdpa":
        return sdpa_model().to(dev), sdpa_inputs("good", dev), ({1: Dim("seq", min=2, max=1024)},)
    raise KeyError(kind)


def first_error(log):
    try:
        lines = open(log, errors="replace").read().splitlines()
    except OSError:
        return None
    for ln in lines:
        if any(k in ln for k in ("Assertion", "Error", "error:", "Segmentation", "Fatal Python", "Aborted",
                                 "terminate called", "RuntimeError", "what():")):
            return ln.strip()[:400]
    return None


def facts(outdir, pkg):
    """What the toolchain says about the package, recorded as truth (never needed by pt2-inspect)."""
    f = {}
    try:
        with zipfile.ZipFile(pkg) as z:
            f["members"] = [[i.filename, i.file_size] for i in z.infolist()]
            tmp = os.path.join(outdir, "_x")
            os.makedirs(tmp, exist_ok=True)
            for i in z.infolist():
                n = i.filename
                if n.endswith((".so", ".cubin", ".fatbin")):
                    p = z.extract(i, tmp)
                    tools = [["readelf", "-SW", p], ["readelf", "-hW", p]] if n.endswith(".so") else []
                    tools += [["cuobjdump", "--list-elf", "--list-ptx", p], ["cuobjdump", "-elf", p]]
                    if n.endswith(".so"):
                        tools.append(["sh", "-c", f"nm -D --defined-only {p} | grep -i triton | head -40"])
                    for cmd in tools:
                        try:
                            r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
                            out = (r.stdout + r.stderr)
                            if cmd[1] == "-elf":
                                out = "\n".join(ln for ln in out.splitlines() if "arch" in ln.lower() or "sm_" in ln or "Fatbin" in ln)[:3000]
                            f.setdefault("tools", []).append({"member": n, "cmd": " ".join(cmd[:2]), "rc": r.returncode,
                                                              "out": out[:6000]})
                        except Exception as e:
                            f.setdefault("tools", []).append({"member": n, "cmd": " ".join(cmd[:2]), "error": repr(e)})
            subprocess.run(["rm", "-rf", tmp])
    except Exception as e:
        f["error"] = repr(e)
    return f


# --------------------------------------------------------------------------- build
def build(name, outdir):
    import torch
    os.makedirs(os.path.join(outdir, "logs"), exist_ok=True)
    kind, cfg, runs = CASES[name]
    pkg = os.path.join(outdir, name + ".pt2")
    info = {"source": "options", "name": name, "device": DEV, "torch": torch.__version__, "build_env": {},
            "inductor_configs": cfg, "runs": []}
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:
        pass
    if DEV == "cuda":
        info["gpu"] = torch.cuda.get_device_name(0)
        info["gpu_capability"] = list(torch.cuda.get_device_capability(0))
    t0 = time.time()
    try:
        if kind == "multi":
            from torch.export import Dim
            from torch.export.pt2_archive._package import package_pt2
            files = {}
            for dev in ("cuda", "cpu") if DEV == "cuda" else ("cpu",):
                model = gather_model().to(dev)
                ex = gather_inputs("good", dev)
                with torch.no_grad():
                    ep = torch.export.export(model, ex, dynamic_shapes=GATHER_DYN(Dim), strict=False)
                    fl = torch._inductor.aot_compile(ep.module(), ex, options={"aot_inductor.package": True})
                files["gather_" + dev] = [str(x) for x in fl]
            info["models"] = sorted(files)
            package_pt2(pkg, aoti_files=files)
        else:
            model, ex, dyn = model_for(kind, DEV)
            with torch.no_grad():
                ep = torch.export.export(model, ex, dynamic_shapes=dyn, strict=False)
            info["graph_signature_inputs"] = [s.arg.name for s in ep.graph_signature.input_specs if hasattr(s.arg, "name")]
            try:
                info["ep_graph"] = str(ep.graph_module.code)[:20000]
            except Exception:
                pass
            with torch.no_grad():
                torch._inductor.aoti_compile_and_package(ep, package_path=pkg, inductor_configs=cfg)
        info["build_ok"] = True
    except Exception as e:
        info["build_ok"] = False
        info["build_error"] = "".join(traceback.format_exception(e))[-6000:]
        traceback.print_exc()
    info["build_seconds"] = round(time.time() - t0, 1)
    if info["build_ok"]:
        info["pkg_size"] = os.path.getsize(pkg)
        info["facts"] = facts(outdir, pkg)
    json.dump(info, open(os.path.join(outdir, "index.json"), "w"), indent=1)
    if not info["build_ok"]:
        return 1
    procs = []
    for scen, desc, expect in runs:
        if DEV != "cuda" and scen == "cpu_inputs":
            continue
        renv = dict(os.environ)
        extra = {"AOTI_RUNTIME_CHECK_INPUTS": "1"} if scen.startswith("checkinputs") else {}
        renv.update(extra)
        renv["PYTHONUNBUFFERED"] = "1"
        log = os.path.join(outdir, "logs", scen + ".log")
        f = open(log, "w")
        p = subprocess.Popen([sys.executable, "-X", "faulthandler", __file__, "run", name, outdir, scen],
                             stdout=f, stderr=subprocess.STDOUT, env=renv)
        procs.append((p, f, scen, desc, expect, extra, log, time.time()))
    for p, f, scen, desc, expect, extra, log, t1 in procs:
        try:
            rc = p.wait(timeout=240)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "timeout"
        f.close()
        info["runs"].append({"scenario": scen, "inputs": desc, "rc": rc, "env": extra, "log": "logs/" + scen + ".log",
                             "expect": expect, "seconds": round(time.time() - t1, 1), "first_error": first_error(log),
                             "command": f"python -X faulthandler build_cuda.py run {name} DIR {scen}"})
        json.dump(info, open(os.path.join(outdir, "index.json"), "w"), indent=1)
    return 0


# --------------------------------------------------------------------------- run (fresh process)
def run(name, outdir, scen):
    import torch
    kind, cfg, runs = CASES[name]
    pkg = os.path.join(outdir, name + ".pt2")
    print(f"[options] {name} scenario={scen} torch={torch.__version__}", flush=True)
    if kind == "multi":
        mname = "gather_cpu" if scen == "good_cpu" else "gather_cuda"
        dev = "cpu" if scen == "good_cpu" else "cuda"
        from torch._inductor.package import load_package
        m = load_package(pkg, model_name=mname)
        out = m(*gather_inputs("oob_index" if scen == "oob_cuda" else "good", dev))
    else:
        m = torch._inductor.aoti_load_package(pkg)
        if kind in ("gather", "gather_nomm"):
            out = m(*gather_inputs(scen, DEV))
        elif kind == "cond":
            out = m(*cond_inputs(scen, DEV))
        elif kind == "mixed":
            out = m(*mixed_inputs(scen, DEV))
        elif kind == "sdpa":
            out = m(*sdpa_inputs(scen, DEV))
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    flat = out if isinstance(out, (list, tuple)) else [out]
    for i, t in enumerate(flat):
        if isinstance(t, torch.Tensor):
            tf = t.float()
            print(f"[options] output {i}: shape={tuple(t.shape)} dtype={t.dtype} device={t.device} "
                  f"finite={bool(torch.isfinite(tf).all())} sum={tf.sum().item() if t.numel() else 0.0}", flush=True)
    print("[options] run finished", flush=True)
    return 0


# --------------------------------------------------------------------------- driver
TAR_GROUP = {"cpp_only_cuda": "build_only", "standalone_cuda": "build_only"}  # at most 8 files come back
def drive(outroot, deadline, only=None):
    import concurrent.futures as cf
    import tarfile
    OUT = os.environ.get("OUT", "/tmp/out")
    names = [n for n in CASES if not only or n in only.split(",")]
    os.makedirs(OUT, exist_ok=True)
    import threading
    lock, finished = threading.Lock(), []

    def say(*a):
        print(time.strftime("%H:%M:%S"), *a, flush=True)

    def one(name):
        d = os.path.join(outroot, name)
        os.makedirs(d, exist_ok=True)
        left = deadline - time.time()
        with open(os.path.join(d, "build.log"), "w") as f:
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            p = subprocess.Popen([sys.executable, __file__, "build", name, d], stdout=f, stderr=subprocess.STDOUT,
                                 env=env, start_new_session=True)
            try:
                rc = p.wait(timeout=max(5, left))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()
                rc = "killed at deadline"
        group = TAR_GROUP.get(name, name)
        with lock:
            finished.append(name)
            path = os.path.join(OUT, group + ".tgz")
            with tarfile.open(path, "w:gz") as t:
                for n in finished:
                    if TAR_GROUP.get(n, n) == group:
                        t.add(os.path.join(outroot, n), arcname=n)
        say("done", name, rc, os.path.getsize(path))
        return name, rc

    say("start", names)
    with cf.ThreadPoolExecutor(len(names)) as ex:
        for fu in cf.as_completed([ex.submit(one, n) for n in names]):
            fu.result()
    say("all done")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "drive":
        drive(sys.argv[2], float(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else None)
    elif cmd == "build":
        sys.exit(build(*sys.argv[2:4]))
    elif cmd == "run":
        sys.exit(run(*sys.argv[2:5]))
