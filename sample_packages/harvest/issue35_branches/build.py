"""Issue 35 §3 and §5 on the CPU (torch 2.13): an out-of-range id inside a branch of torch.cond, a while_loop body
and a map body; a float mask where a bool one was compiled.

    python sample_packages/harvest/issue35_branches/build.py [NAME ...]   # from the repo root, torch 2.13 CPU

Each package is exported (portable ISA: AVX2, no -march; the .so left out of the package kept here) and run in fresh
processes (OMP_NUM_THREADS=1); each run's output is kept under ``NAME/logs/SCENARIO.log`` and ``NAME/index.json``
says how it was made (the command, the inputs, the rc, what the failure must trace to: known by construction).

* ``cond_two_tables_cpu``: ``torch.cond(x.sum() < 0, true: emb_a (100 rows), false: emb_b (60 rows), (ids,))``;
  runs: good in each branch, ``ids[2, 1] = 70`` with x.sum() >= 0 (the false branch: emb_b's 60 rows fail), and
  the same ids with x.sum() < 0 (the true branch: 70 < 100, a clean run).
* ``while_table_cpu``: ``while_loop(i < n, body: acc + emb(ids + i).sum(0), (i, acc))``, emb 50 rows: ids[1, 2] = 47
  fails at the body's fourth step (47 + 3 = 50).
* ``map_table_cpu``: ``map(lambda row, w: embedding(row, w).sum(0), ids, emb.weight)``, 40 rows: ids[3, 0] = 45 fails.
* ``mask_keep_true_cpu``: attention scores ``masked_fill(~mask, -inf)`` (a bool mask, keep where True), called with a
  float 0/1 mask and a float additive 0/-inf mask, with AOTI_RUNTIME_CHECK_INPUTS=1 (the input check's message) and
  without (what happens then).
* ``mask_keep_false_cpu``: ``masked_fill(mask, -inf)`` (a bool padding mask: True = masked out), the same runs.
"""
import json, os, subprocess, sys, time, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _build_env():
    os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    os.environ.setdefault("TORCHINDUCTOR_CPP_MARCH", "")


# -- models -------------------------------------------------------------------------------------------------------
def cond_model():
    import torch

    class CondTwoTables(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb_a = torch.nn.Embedding(100, 16)
            self.emb_b = torch.nn.Embedding(60, 16)

        def forward(self, x, ids):
            def true_fn(ids):
                return self.emb_a(ids).sum(1)

            def false_fn(ids):
                return self.emb_b(ids).sum(1) * 2.0

            return torch.cond(x.sum() < 0, true_fn, false_fn, (ids,)) + x[:, :16]

    return CondTwoTables()


def while_model():
    import torch
    from torch._higher_order_ops.while_loop import while_loop

    class WhileTable(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(50, 8)

        def forward(self, n, ids, acc):
            def cond_fn(i, acc):
                return i < n

            def body_fn(i, acc):
                return i + 1, acc + self.emb(ids + i).sum(0)

            i0 = torch.zeros((), dtype=torch.int64)
            return while_loop(cond_fn, body_fn, (i0, acc))[1]

    return WhileTable()


def map_model():
    import torch
    from torch._higher_order_ops.map import map as hop_map

    class MapTable(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(40, 8)

        def forward(self, ids):
            def body(row, w):
                return torch.nn.functional.embedding(row, w).sum(0)

            return hop_map(body, ids, self.emb.weight)

    return MapTable()


def mask_model(keep_where_true):
    import torch

    class Attn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q = torch.nn.Linear(16, 16)
            self.k = torch.nn.Linear(16, 16)

        def forward(self, x, mask):
            s = self.q(x) @ self.k(x).transpose(-1, -2)
            s = s.masked_fill(~mask if keep_where_true else mask, float("-inf"))
            return s.softmax(-1) @ x

    return Attn()


# -- inputs per scenario ------------------------------------------------------------------------------------------
def inputs(name, scenario):
    import torch
    g = torch.Generator().manual_seed(1)
    if name == "cond_two_tables_cpu":
        x = torch.rand(4, 32, generator=g) + 0.1  # x.sum() > 0: the false branch
        if scenario.endswith("true"):
            x = -x
        ids = torch.randint(0, 60, (4, 6), generator=g)
        if scenario.startswith("oob"):
            ids[2, 1] = 70
        return (x, ids)
    if name == "while_table_cpu":
        ids = torch.randint(0, 40, (3, 5), generator=g)
        if scenario == "oob":
            ids[1, 2] = 47
        return (torch.tensor(4), ids, torch.zeros(5, 8))
    if name == "map_table_cpu":
        ids = torch.randint(0, 40, (6, 3), generator=g)
        if scenario == "oob":
            ids[3, 0] = 45
        return (ids,)
    if name.startswith("mask_"):
        x = torch.randn(2, 8, 16, generator=g)
        keep = torch.ones(2, 8, 8, dtype=torch.bool)
        keep[:, :, 6:] = False  # the last two keys padded
        keep_true = name == "mask_keep_true_cpu"
        bool_mask = keep if keep_true else ~keep
        if scenario == "good":
            return (x, bool_mask)
        if scenario.startswith("float01"):  # the same mask as 0/1 floats
            return (x, bool_mask.float())
        # additive: 0 where kept, -inf where masked
        return (x, torch.zeros(2, 8, 8).masked_fill(~keep, float("-inf")))
    raise KeyError(name)


SILENT = "silently wrong (a float mask read as bool; no check fires)"
PACKAGES = {
    "cond_two_tables_cpu": dict(model=cond_model, dynamic=None, runs=[
        ("good_true", {}, "no_failure", "x.sum() < 0: the true branch (emb_a, 100 rows)"),
        ("good_false", {}, "no_failure", "x.sum() >= 0: the false branch (emb_b, 60 rows)"),
        ("oob_false", {}, "index_assert", "input 1 (ids)[2, 1] = 70 >= emb_b's 60 rows, in the false branch of torch.cond (x.sum() < 0 is False); emb_a (true branch) has 100 rows"),
        ("oob_true", {}, "no_failure", "ids[2, 1] = 70 < emb_a's 100 rows: the true branch runs clean")]),
    "while_table_cpu": dict(model=while_model, dynamic=None, runs=[
        ("good", {}, "no_failure", None),
        ("oob", {}, "index_assert", "input 1 (ids)[1, 2] = 47, plus the loop counter i (carried) reaches 50 >= emb's 50 rows at i = 3, in the while_loop body")]),
    "map_table_cpu": dict(model=map_model, dynamic=None, runs=[
        ("good", {}, "no_failure", None),
        ("oob", {}, "index_assert", "input 0 (ids)[3, 0] = 45 >= emb's 40 rows, in the map body (mapped over ids dim 0)")]),
    "mask_keep_true_cpu": dict(model=lambda: mask_model(True), dynamic=None, runs=[
        ("good", {}, "no_failure", None),
        ("float01", {}, SILENT, "a float 0/1 mask where bool was compiled, no input checks: read as bool bytes"),
        ("float01_checked", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "input_check", "input 1 (mask) dtype float32 for bool; fix mask.to(torch.bool) (keep where true)"),
        ("additive", {}, SILENT, "an additive 0/-inf float mask, no input checks"),
        ("additive_checked", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "input_check", "input 1 (mask) dtype float32 for bool; fix mask == 0 (keep where 0)")]),
    "mask_keep_false_cpu": dict(model=lambda: mask_model(False), dynamic=None, runs=[
        ("good", {}, "no_failure", None),
        ("float01", {}, SILENT, "a float 0/1 mask where bool was compiled, no input checks"),
        ("float01_checked", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "input_check", "input 1 (mask) dtype float32 for bool; fix mask.to(torch.bool) (True = masked out)"),
        ("additive", {}, SILENT, "an additive 0/-inf float mask, no input checks"),
        ("additive_checked", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "input_check", "input 1 (mask) dtype float32 for bool; fix mask != 0 (masked where -inf)")]),
}


def build(name):
    _build_env()
    import torch
    spec = PACKAGES[name]
    torch.manual_seed(0)
    mdl = spec["model"]().eval()
    args = inputs(name, "good" if not name.startswith("cond") else "good_false")
    ep = torch.export.export(mdl, args, strict=False)
    full = f"/tmp/i35_{name}_full.pt2"
    torch._inductor.aoti_compile_and_package(ep, package_path=full)
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, "logs"), exist_ok=True)
    with zipfile.ZipFile(full) as zi, zipfile.ZipFile(os.path.join(d, f"{name}.pt2"), "w", zipfile.ZIP_DEFLATED) as zo:
        for i in zi.infolist():
            if not i.filename.endswith(".so"):
                zo.writestr(i.filename, zi.read(i.filename))
    return ep, torch.__version__


def run(name, scenario):
    import torch
    print(f"[issue35] {name} scenario={scenario} torch={torch.__version__}", flush=True)
    pk = torch._inductor.aoti_load_package(f"/tmp/i35_{name}_full.pt2")
    out = pk(*inputs(name, scenario))
    if isinstance(out, (list, tuple)):
        out = out[0]
    print(f"[issue35] output 0: shape={tuple(out.shape)} dtype={out.dtype} finite={bool(torch.isfinite(out).all())} "
          f"sum={float(out.sum())}", flush=True)
    print("[issue35] run finished", flush=True)


def main(names):
    for name in names:
        t0 = time.time()
        ep, version = build(name)
        d = os.path.join(HERE, name)
        index = {"name": name, "device": "cpu", "torch": version, "left_out": "the .so",
                 "build_env": {"ATEN_CPU_CAPABILITY": "avx2", "TORCHINDUCTOR_CPP_MARCH": ""},
                 "command": f"python sample_packages/harvest/issue35_branches/build.py {name}",
                 "exported": str(ep.graph_module.code), "build_seconds": round(time.time() - t0, 1), "runs": []}
        for scenario, env, right, expect in PACKAGES[name]["runs"]:
            t0 = time.time()
            cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "run", name, scenario]
            p = subprocess.run(cmd, env=dict(os.environ, OMP_NUM_THREADS="1", **env), capture_output=True, text=True,
                               timeout=300)
            with open(os.path.join(d, "logs", f"{scenario}.log"), "w") as f:
                f.write(p.stdout + p.stderr)
            index["runs"].append({"scenario": scenario, "env": env, "rc": p.returncode, "log": f"logs/{scenario}.log",
                                  "command": f"OMP_NUM_THREADS=1 {' '.join(f'{k}={v}' for k, v in env.items())} python -X faulthandler build.py run {name} {scenario}".replace("  ", " "),
                                  "right_category": right, "expect": expect, "seconds": round(time.time() - t0, 1)})
            print(name, scenario, p.returncode, flush=True)
        json.dump(index, open(os.path.join(d, "index.json"), "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
        sys.exit(0)
    main(sys.argv[1:] or list(PACKAGES))
