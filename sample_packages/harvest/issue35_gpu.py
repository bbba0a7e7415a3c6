"""Issue 35: CUDA packages whose failing element is known by construction (§1), and the issue's six failures rebuilt
(§2-§6), built with aoti_compile_and_package on torch 2.11 (H200).  One child process per build and per run;
everything lands in $OUT/issue35_gpu.tar.gz.

    CXX=/usr/bin/g++ OUT=/tmp/out python sample_packages/harvest/issue35_gpu.py        # every case
    ISSUE35_CASES=pw1d,cond_branch ... issue35_gpu.py                                 # some
    python sample_packages/harvest/issue35_gpu.py build CASE / run CASE SCENARIO     # one step (the children)

Each `<case>/` gets `<case>.pt2` (re-stored deflated without the .so and the weights), `build.log`, `logs/<run>.log`,
`ttgir/*.ttgir` (the layouts Triton chose: sizePerThread, threadsPerWarp, warpsPerCTA; for the element rule) and
`index.json`: each run's command, environment, exit code, `expect`, `right_category` and, for a planted value,
`truth`: the input, its name, the element, its flat index (row-major), the value and the bound.

Truth cases (§1: one id past the table planted per run, at a known element):
- pw1d: `w[ids] * 2`, w a 1-D parameter of 50, ids [4, 300]: a pointwise kernel, 1-D grid, one element per id.
- pw1d_emb: `Embedding(50, 8)(ids) * 2`, ids [4, 300]: pointwise, 8 consecutive output elements per id.
- tiled2d: `(Embedding(50, 32)(ids) + pos).permute(0, 2, 1).contiguous()`, ids [4, 64]: a tiled y/x kernel, 2-D grid.
- per_red: `Embedding(50, 64)(ids).sum(-1)`, ids [4, 300]: a persistent reduction (triton_per_…), one row per id.
- red_loop: `Embedding(50, 4096)(ids).sum(-1)`, ids [4, 16]: a looped reduction (triton_red_…).
- dyn: `w[ids] * 2` with ids' both dims dynamic, run at [3, 500].
The six failures (each with a good run): topk_table, weightless, cond_branch, gat, nan_inf, mask_dtype.
"""
import json, os, subprocess, sys, tarfile, time, traceback, zipfile, shutil

OUT = os.environ.get("OUT", "/tmp/out")
WORK = os.path.join(os.environ.get("TMPDIR", "/tmp"), "issue35_work")
HERE = os.path.abspath(__file__)
TRUTH = ["pw1d", "pw1d_emb", "tiled2d", "per_red", "red_loop", "dyn", "pw_i32", "row1", "big1d"]
SIX = ["topk_table", "weightless", "cond_branch", "gat", "nan_inf", "mask_dtype"]
CASES = TRUTH + SIX
ROWS = 50  # the truth cases' table rows
# case -> (ids sizes at run time, planted positions)
TRUTH_RUNS = {
    "pw1d": ([4, 300], [(0, 3), (0, 40), (2, 150), (3, 299)]),
    "pw1d_emb": ([4, 300], [(0, 3), (0, 77), (1, 77), (3, 299)]),
    "tiled2d": ([4, 64], [(0, 5), (0, 40), (2, 40), (3, 63)]),
    "per_red": ([4, 300], [(0, 3), (0, 40), (1, 100), (3, 299)]),
    "red_loop": ([4, 16], [(0, 3), (2, 9), (3, 15)]),
    "dyn": ([3, 500], [(0, 3), (1, 40), (2, 499)]),
    "pw_i32": ([4, 300], [(0, 3), (0, 77), (2, 150)]),  # int32 ids: a 4-wide vector
    "row1": ([2, 1200], [(1, 7), (1, 300), (1, 1199)]),  # w[ei[1]]: the load is ks0 + x0 (num_edges dynamic)
    "big1d": ([8, 4096], [(0, 3), (3, 1000), (7, 4095)]),  # 32768 ids: several vectors per thread
}


def model(case):
    """(module, example args, dynamic_shapes, inductor configs) for a case, on cuda."""
    import torch
    from torch import nn
    Dim = torch.export.Dim
    torch.manual_seed(0)
    ids = lambda *s: torch.randint(0, ROWS, s).cuda()  # noqa: E731
    if case == "row1":
        class R(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.randn(ROWS))

            def forward(self, ei):
                return self.w[ei[1]] * 2.0
        return R().cuda(), (ids(2, 1200),), ({1: Dim("num_edges", min=2, max=10**6)},), {}
    if case == "pw_i32":
        return model("pw1d")[0], (ids(4, 300).int(),), None, {}
    if case == "big1d":
        return model("pw1d")[0], (ids(8, 4096),), None, {}
    if case in ("pw1d", "dyn"):
        class W(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.randn(ROWS))

            def forward(self, ids):
                return self.w[ids] * 2.0
        dyn = ({0: Dim("b", min=1, max=64), 1: Dim("l", min=2, max=4096)},) if case == "dyn" else None
        return W().cuda(), (ids(4, 300),), dyn, {}
    if case in ("pw1d_emb", "tiled2d", "per_red", "red_loop"):
        d = {"pw1d_emb": 8, "tiled2d": 32, "per_red": 64, "red_loop": 4096}[case]

        class E(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(ROWS, d)
                self.pos = nn.Parameter(torch.randn(64, d)) if case == "tiled2d" else None

            def forward(self, ids):
                e = self.emb(ids)
                if case == "pw1d_emb":
                    return e * 2.0
                if case == "tiled2d":  # pos [64, d] is read along d, the output written along the 64: tiled
                    return (e + self.pos).permute(0, 2, 1).contiguous()
                return e.sum(-1)
        return E().cuda(), (ids(*TRUTH_RUNS[case][0]),), None, {}
    if case == "topk_table":
        class T(nn.Module):
            def forward(self, x, emb_b):
                return emb_b[x.topk(4).indices]
        dyn = ({0: Dim("batch", min=1, max=64), 1: Dim("n", min=4, max=1024)},
               {0: Dim("rows", min=4, max=1024)})
        return T().cuda(), (torch.randn(2, 60).cuda(), torch.randn(60, 8).cuda()), dyn, {}
    if case == "weightless":
        class L(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(1000, 32)
                self.fc = nn.Linear(32, 16)

            def forward(self, ids):
                return self.fc(self.emb(ids)).relu()
        return L().cuda(), (torch.randint(0, 1000, (4, 16)).cuda(),), None, \
            {"aot_inductor.package_constants_in_so": False}
    if case == "cond_branch":
        class C(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb_a = nn.Embedding(100, 8)
                self.emb_b = nn.Embedding(60, 8)

            def forward(self, x, ids):
                return torch.cond(x.sum() < 0, lambda i: self.emb_a(i), lambda i: self.emb_b(i), (ids,))
        return C().cuda(), (torch.rand(4, 8).cuda(), torch.randint(0, 60, (4, 3)).cuda()), None, {}
    if case == "gat":
        import torch_geometric.nn as gnn

        class G(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1, self.conv2 = gnn.GATConv(16, 8, heads=2), gnn.GATConv(16, 8, heads=1)

            def forward(self, x, edge_index):
                return self.conv2(torch.relu(self.conv1(x, edge_index)), edge_index)
        dyn = {"x": {0: Dim("num_nodes", min=2, max=10**6)}, "edge_index": {1: Dim("num_edges", min=2, max=10**7)}}
        return G().cuda().eval(), gat_inputs(False), dyn, {}
    if case == "nan_inf":
        class N(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 16)

            def forward(self, x):
                return torch.relu(self.fc(x) * 2.0)
        return N().cuda(), (torch.randn(8, 16).cuda(),), None, {"nan_asserts": True}
    if case == "mask_dtype":
        class K(nn.Module):
            def forward(self, scores, mask):
                return scores.masked_fill(~mask, float("-inf")).softmax(-1)
        return K().cuda(), (torch.randn(2, 4, 16, 16).cuda(), torch.ones(2, 1, 16, 16, dtype=torch.bool).cuda()), \
            None, {}
    raise KeyError(case)


def gat_inputs(bad):
    import torch
    g = torch.Generator().manual_seed(1)
    n = 300
    x = torch.randn(n, 16, generator=g)
    ei = torch.randint(0, n, (2, 1200), generator=g)
    if bad:
        ei[1, 7] = n + 3
    return (x.cuda(), ei.cuda())


def scenarios(case):
    """run name -> dict(description, env, expect, right_category, truth)."""
    if case in TRUTH:
        sizes, poss = TRUTH_RUNS[case]
        out = {"good": dict(description=f"ids {sizes}, all in range", env={}, expect="none",
                            right_category="none (clean run)", truth=None)}
        for p in poss:
            flat = p[0] * sizes[1] + p[1]
            out[f"bad_{p[0]}_{p[1]}"] = dict(
                description=f"ids {sizes}; ids[{p[0]}, {p[1]}] = {ROWS + 5} (table of {ROWS} rows)", env={},
                expect=f"input 0 (ids) element [{p[0]}, {p[1]}] (flat {flat}) >= {ROWS}", right_category="index_assert",
                truth={"input": 0, "name": "ids", "element": list(p), "flat": flat, "sizes": sizes, "value": ROWS + 5,
                       "bound": ROWS})
        return out
    if case == "topk_table":
        return {"good": dict(description="x [2, 60], emb_b [60, 8]: positions < 60", env={}, expect="none",
                             right_category="none (clean run)", truth=None),
                "past_table": dict(description="x [2, 100] rising along dim 1 (top-4 positions 99..96), emb_b [60, 8]",
                                   env={}, expect="topk positions along input 0 dim 1 >= input 1 dim 0 (60 rows)",
                                   right_category="index_assert",
                                   truth={"input": 0, "name": "x", "note": "every top-4 position of both rows is >= 60"})}
    if case == "weightless":
        return {"good": dict(description="load_constants(state_dict) before the first call", env={}, expect="none",
                             right_category="none (clean run)", truth=None),
                "no_load": dict(description="called without load_constants", env={},
                                expect="the package holds no weights: load_constants(...) first", right_category="constants",
                                truth=None)}
    if case == "cond_branch":
        return {"good": dict(description="x >= 0 (false branch, emb_b 60 rows), ids < 60", env={}, expect="none",
                             right_category="none (clean run)", truth=None),
                "bad_false": dict(description="x >= 0 (false branch: emb_b, 60 rows), ids[2, 1] = 70", env={},
                                  expect="input 1 (ids) [2, 1] = 70 >= 60 rows of emb_b, false branch of torch.cond",
                                  right_category="index_assert",
                                  truth={"input": 1, "name": "ids", "element": [2, 1], "flat": 7, "sizes": [4, 3],
                                         "value": 70, "bound": 60, "branch": "false"}),
                "true_70": dict(description="x < 0 (true branch: emb_a, 100 rows), ids[2, 1] = 70: fine", env={},
                                expect="none", right_category="none (clean run)", truth=None)}
    if case == "gat":
        return {"good": dict(description="300 nodes, 1200 edges in range", env={}, expect="none",
                             right_category="none (clean run)", truth=None),
                "oob_dst": dict(description="300 nodes; edge_index[1, 7] = 303", env={},
                                expect="input 1 (edge_index) row 1 (dst), column 7 >= num_nodes (input 0 dim 0)",
                                right_category="index_assert",
                                truth={"input": 1, "name": "edge_index", "element": [1, 7], "flat": 1207,
                                       "sizes": [2, 1200], "value": 303, "bound": 300})}
    if case == "nan_inf":
        return {"good": dict(description="x [8, 16] finite", env={}, expect="none", right_category="none (clean run)",
                             truth=None),
                "inf": dict(description="x[1, 3] = inf", env={}, expect="the nan_asserts check: an Inf reached from input 0",
                            right_category="nan_inf",
                            truth={"input": 0, "name": "x", "element": [1, 3], "flat": 19, "sizes": [8, 16],
                                   "value": "inf"})}
    if case == "mask_dtype":
        chk = {"AOTI_RUNTIME_CHECK_INPUTS": "1"}
        return {"good": dict(description="a bool mask [2, 1, 16, 16]", env={}, expect="none",
                             right_category="none (clean run)", truth=None),
                "float_mask": dict(description="an additive float mask 0/-inf [2, 1, 16, 16] (causal) where bool was "
                                               "exported", env={}, expect="input 1's dtype: float32 read as bool",
                                   right_category="dtype", truth=None),
                "float_mask_checked": dict(description="the same with AOTI_RUNTIME_CHECK_INPUTS=1", env=chk,
                                           expect="the input check names input 1's dtype", right_category="dtype",
                                           truth=None)}
    raise KeyError(case)


def inputs(case, scen):
    import torch
    g = torch.Generator().manual_seed(1)
    if case in TRUTH:
        sizes = TRUTH_RUNS[case][0]
        ids = torch.randint(0, ROWS, tuple(sizes), generator=g)
        if case == "pw_i32":
            ids = ids.int()
        t = scenarios(case)[scen]["truth"]
        if t:
            ids[tuple(t["element"])] = t["value"]
        return (ids.cuda(),)
    if case == "topk_table":
        n = 60 if scen == "good" else 100
        x = torch.arange(n, dtype=torch.float32).repeat(2, 1)
        return (x.cuda(), torch.randn(60, 8, generator=g).cuda())
    if case == "weightless":
        return (torch.randint(0, 1000, (4, 16), generator=g).cuda(),)
    if case == "cond_branch":
        x = torch.rand(4, 8, generator=g)
        if scen == "true_70":
            x = -x
        ids = torch.randint(0, 60, (4, 3), generator=g)
        if scen != "good":
            ids[2, 1] = 70
        return (x.cuda(), ids.cuda())
    if case == "gat":
        return gat_inputs(scen != "good")
    if case == "nan_inf":
        x = torch.randn(8, 16, generator=g)
        if scen == "inf":
            x[1, 3] = float("inf")
        return (x.cuda(),)
    if case == "mask_dtype":
        s = torch.randn(2, 4, 16, 16, generator=g)
        if scen == "good":
            m = torch.ones(16, 16, dtype=torch.bool).tril().expand(2, 1, 16, 16).contiguous()
        else:
            m = torch.zeros(16, 16).masked_fill(torch.ones(16, 16, dtype=torch.bool).triu(1), float("-inf"))
            m = m.expand(2, 1, 16, 16).contiguous()
        return (s.cuda(), m.cuda())
    raise KeyError(case)


def build(case):
    import torch
    d = os.path.join(WORK, case)
    os.makedirs(d, exist_ok=True)
    t = time.time()
    m, args, dyn, cfg = model(case)
    print(f"[issue35] build {case} torch={torch.__version__} configs={cfg}", flush=True)
    with torch.no_grad():
        ep = torch.export.export(m, args, dynamic_shapes=dyn, strict=False)
    print(ep.graph_module.code[:6000])
    print("inputs:", [s.arg.name for s in ep.graph_signature.input_specs if hasattr(s.arg, "name")])
    torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, f"{case}.pt2"), inductor_configs=cfg)
    print(f"built in {time.time() - t:.0f} s")


def run(case, scen):
    import torch
    desc = scenarios(case)[scen]["description"]
    runner = torch._inductor.aoti_load_package(os.path.join(WORK, case, f"{case}.pt2"))
    if case == "weightless" and scen == "good":
        m = model(case)[0]
        runner.load_constants({k: v for k, v in m.state_dict().items()}, check_full_update=True)
    args = inputs(case, scen)
    print(f"[issue35] {case} scenario={scen} torch={torch.__version__}: {desc}; input sizes "
          f"{[list(a.shape) for a in args]} dtypes {[str(a.dtype) for a in args]}", flush=True)
    out = runner(*args)
    torch.cuda.synchronize()
    outs = out if isinstance(out, (list, tuple)) else [out]
    for o in outs:
        print("output", tuple(o.shape), o.dtype, "finite:", bool(torch.isfinite(o.float()).all()) if o.numel() else "-",
              "sum:", float(o.float().sum()) if o.numel() else 0.0, flush=True)


def strip(pt2, dst, keep_so=False):
    """Re-store ``pt2`` deflated without its .so (kept with ``keep_so``: what tells a weightless package's loader
    from one that holds its weights) and weights."""
    left = []
    with zipfile.ZipFile(pt2) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if (i.filename.endswith(".so") and not keep_so) or "/data/weights/" in i.filename or "/data/constants/" in i.filename:
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
    env0 = dict(os.environ, CXX=os.environ.get("CXX", "/usr/bin/g++"), PYTHONUNBUFFERED="1",
                TORCHINDUCTOR_COMPILE_THREADS="2")
    env0.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    want = os.environ.get("ISSUE35_CASES", ",".join(CASES)).split(",")
    cases = [c for c in CASES if c in want]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK, exist_ok=True)
    builds = {}
    for c in cases:
        os.makedirs(os.path.join(WORK, c, "logs"), exist_ok=True)
        f = open(os.path.join(WORK, c, "build.log"), "w")
        env = dict(env0, TORCHINDUCTOR_CACHE_DIR=os.path.join(WORK, c, "inductor_cache"))
        builds[c] = (subprocess.Popen([sys.executable, HERE, "build", c], stdout=f, stderr=subprocess.STDOUT, env=env),
                     f, time.time())
    runs, pending = {}, []
    for c, (p, f, t0) in builds.items():
        try:
            p.wait(timeout=max(10, 280 - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        f.close()
        ok = p.returncode == 0 and os.path.exists(os.path.join(WORK, c, f"{c}.pt2"))
        runs[c] = {"build_ok": ok, "build_rc": p.returncode, "build_s": round(time.time() - t0), "runs": []}
        if ok:
            for s, sc in scenarios(c).items():
                pending.append((c, s, sc))
    active = []
    while pending or active:
        while pending and len(active) < int(os.environ.get('ISSUE35_JOBS', '8')):
            c, s, sc = pending.pop(0)
            lf = open(os.path.join(WORK, c, "logs", f"{s}.log"), "w")
            cmd = [sys.executable, "-X", "faulthandler", HERE, "run", c, s]
            pr = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT,
                                  env={**env0, **sc["env"], "OMP_NUM_THREADS": "1"})
            r = {"scenario": s, "log": f"logs/{s}.log", "env": sc["env"],
                 "command": f"{' '.join(f'{k}={v}' for k, v in sc['env'].items())} "
                            f"python -X faulthandler issue35_gpu.py run {c} {s}".strip(),
                 **{k: v for k, v in sc.items() if k != "env"}}
            runs[c]["runs"].append(r)
            active.append((r, pr, lf, time.time()))
        time.sleep(0.5)
        for a in list(active):
            r, pr, lf, t = a
            if pr.poll() is None and time.time() - t < 150:
                continue
            if pr.poll() is None:
                pr.kill()
                pr.wait()
                r["killed_after_s"] = 150
            lf.close()
            r["rc"] = pr.returncode
            r["seconds"] = round(time.time() - t, 1)
            active.remove(a)
    with tarfile.open(os.path.join(OUT, "issue35_gpu.tar.gz"), "w:gz") as tar:
        for c, doc in runs.items():
            d = os.path.join(WORK, c)
            doc.update(case=c, torch=torch.__version__, device=torch.cuda.get_device_name(),
                       built_by="sample_packages/harvest/issue35_gpu.py",
                       build_command=f"python issue35_gpu.py build {c}")
            pt2 = os.path.join(d, f"{c}.pt2")
            if os.path.exists(pt2):
                doc["left_out"] = strip(pt2, os.path.join(d, f"{c}.stripped.pt2"), keep_so=c == "weightless")
                tar.add(os.path.join(d, f"{c}.stripped.pt2"), f"{c}/{c}.pt2")
            seen = set()
            for root, _, files in os.walk(os.path.join(d, "inductor_cache")):
                for fn in files:
                    if fn.endswith(".ttgir") and fn not in seen:
                        seen.add(fn)
                        tar.add(os.path.join(root, fn), f"{c}/ttgir/{fn}")
            doc["ttgir"] = sorted(seen)
            with open(os.path.join(d, "index.json"), "w") as f:
                json.dump(doc, f, indent=1)
            for name in ("index.json", "build.log"):
                tar.add(os.path.join(d, name), f"{c}/{name}")
            for r in doc["runs"]:
                tar.add(os.path.join(d, r["log"]), f"{c}/{r['log']}")
    print(json.dumps({c: {"build_ok": d["build_ok"], "build_s": d["build_s"],
                          "runs": {r["scenario"]: r["rc"] for r in d["runs"]}} for c, d in runs.items()}, indent=1))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
