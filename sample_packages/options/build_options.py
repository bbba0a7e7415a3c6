"""Build the packaging-option samples (issue 23, CPU half) with torch 2.13 CPU, and run each in fresh processes.

  OMP_NUM_THREADS=1 python build_options.py build NAME       # one package + its runs -> NAME/index.json, NAME/logs/
  OMP_NUM_THREADS=1 python build_options.py run NAME SCENARIO PKG   # one run, in a fresh process (build calls it)
  python build_options.py pack NAME        # after the runs: re-store deflated, the .so's debug sections stripped

Every package is built portable: the vector ISA capped at AVX2 (ATEN_CPU_CAPABILITY=avx2) and no -march
(TORCHINDUCTOR_CPP_MARCH=""), so it loads on a CPU without AVX-512.  index.json follows harvest/*/index.json:
per run the exact command, rc, first error line, the truth (`expect`) and `right_category`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PORTABLE = {"ATEN_CPU_CAPABILITY": "avx2", "TORCHINDUCTOR_CPP_MARCH": "", "OMP_NUM_THREADS": "1"}


def model(kind):
    import torch
    nn = torch.nn

    class Tiny(nn.Module):
        """An embedding lookup (the index assert) and a small linear: weights to load, an index to get wrong."""

        def __init__(self, n=16, d=8):
            super().__init__()
            self.emb = nn.Embedding(n, d)
            self.lin = nn.Linear(d, d)

        def forward(self, idx, x):
            return self.lin(self.emb(idx) + x).relu()

    class Gemm(nn.Module):
        """Two linears on a frozen model: max_autotune picks the CPP GEMM template for them."""

        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(16, 64)
            self.l1 = nn.Linear(64, 64)
            self.l2 = nn.Linear(64, 32)

        def forward(self, idx, x):
            h = self.emb(idx) + x
            return self.l2(self.l1(h).relu())

    torch.manual_seed(0)
    return (Gemm() if kind == "gemm" else Tiny()).eval()


def example(kind, n=4):
    import torch
    d = 64 if kind == "gemm" else 8
    return (torch.tensor([1, 2, 3, 0][:n] * (n // 4 or 1), dtype=torch.int64)[:n], torch.randn(n, d))


# name -> (model kind, inductor configs, how it is compiled, runs: (scenario, inputs, env, expect, right_category))
GOOD = ("good", "idx=[1,2,3,0], x=randn(4, d)", {}, None, "none (clean run)")
OOB = ("oob_index", "idx=[1,2,16,0] (16 rows)", {}, "index out of bounds: 0 <= tmp < 16L in the embedding kernel; index from input 0 (idx)",
       "index_assert")
JOBS = {
    "binary_blob": ("tiny", {"aot_inductor.package_constants_in_so": False,
                             "aot_inductor.package_constants_on_disk_format": "binary_blob"}, "package", [
        GOOD, OOB,
        ("so_alone", "the model's .so extracted and loaded alone (AOTIModelContainerRunnerCpu), no load_constants", {},
         "binary_blob: the weights blob is loaded by aoti_load_package only; the .so loaded alone has no constants",
         "weightless (load)"),
    ]),
    "aot_compile": ("tiny", {}, "aot_compile", [
        GOOD, OOB,
        ("wrong_dtype", "idx as int32", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "input 0 dtype int32, compiled for int64",
         "input_check"),
        ("empty_dim", "idx=[], x=randn(0, 8)", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, "input 0 dim 0 is 0, exported for >= 2",
         "input_check"),
    ]),
    "max_autotune": ("gemm", {"max_autotune": True, "freezing": True, "max_autotune_gemm_backends": "CPP,ATEN"},
                     "package", [GOOD, ("oob_index", "idx=[1,2,16,0] (16 rows)", {},
                                        "index out of bounds: 0 <= tmp < 16L in the embedding kernel; index from input 0 (idx)",
                                        "index_assert")]),
    # torch 2.13's aoti_load_package builds a package_cpp_only package itself (cmake + g++ at load, ~40 s)
    "cpp_only": ("tiny", {"aot_inductor.package_cpp_only": True}, "package", [GOOD, OOB]),
    "precompile_headers": ("tiny", {"aot_inductor.precompile_headers": False}, "package", [GOOD, OOB]),
    "named_files": ("tiny", {"aot_inductor.model_name_for_generated_files": "tiny_model"}, "package", [GOOD, OOB]),
    "standalone": ("tiny", {"aot_inductor_mode.compile_standalone": True}, "package", [
        ("load", "aoti_load_package on the package as written (no .so inside)", {},
         "compile_standalone: a libtorch-free CMake project, no compiled .so", "wrong_artifact"),
    ]),
}


def dynamic(kind):
    from torch.export import Dim
    b = Dim("batch", min=2, max=1024)
    return {"idx": {0: b}, "x": {0: b}}


def build(name):
    import torch
    kind, configs, how, runs = JOBS[name]
    out = os.path.join(HERE, name)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    m = model(kind)
    args = example(kind)
    t0 = time.time()
    log = []
    if how == "aot_compile":
        # the deprecated API: a bare .so (and its .cpp) in a folder, no .pt2
        cache = tempfile.mkdtemp(prefix="aotc_")
        so = torch._export.aot_compile(m, args, dynamic_shapes=dynamic(kind),
                                       options={**configs, "aot_inductor.output_path": os.path.join(cache, "model.so")})
        pkg_dir = os.path.join(out, "model")
        shutil.rmtree(pkg_dir, ignore_errors=True)
        os.makedirs(pkg_dir)
        for fn in sorted(os.listdir(os.path.dirname(so))):
            src = os.path.join(os.path.dirname(so), fn)
            if os.path.isfile(src):
                shutil.copy(src, pkg_dir)
        log.append(f"aot_compile -> {so}; copied {sorted(os.listdir(pkg_dir))}")
        pkg = pkg_dir
    else:
        ep = torch.export.export(m, args, dynamic_shapes=dynamic(kind))
        pkg = os.path.join(out, f"{name}.pt2")
        torch._inductor.aoti_compile_and_package(ep, package_path=pkg, inductor_configs=configs)
    secs = round(time.time() - t0, 1)
    index = {"source": "issue23", "name": name, "device": "cpu", "torch": torch.__version__,
             "build_env": {k: v for k, v in PORTABLE.items()}, "inductor_configs": configs,
             "compiled_with": "torch._export.aot_compile (deprecated)" if how == "aot_compile"
             else "torch._inductor.aoti_compile_and_package",
             "runs": [], "build_ok": True, "build_seconds": secs,
             "built_on": "the helper machine (x86_64 CPU with AVX-512), torch 2.13.0+cpu, g++; ISA capped at AVX2"}
    for scen, inputs, env, expect, right in runs:
        cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "run", name, scen, pkg]
        t1 = time.time()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env={**os.environ, **PORTABLE, **env}, timeout=600)
        text, trimmed = _trim(p.stdout.replace(out + "/", ""))
        lines = [l for l in text.splitlines() if l.strip()]
        first = next((l for l in lines if any(w in l for w in ("Error", "error", "Fatal", "Exception", "exception",
                                                                 "Segmentation", "out of bounds"))), None)
        logname = f"logs/{scen}.log"
        shown = " ".join(f"{k}={v}" for k, v in {**PORTABLE, **env}.items())
        with open(os.path.join(out, logname), "w") as f:
            f.write(text)
        index["runs"].append({"scenario": scen, "inputs": inputs, "rc": p.returncode, "env": env, "log": logname,
                              "expect": expect, "first_error_line": first, "right_category": right,
                              "seconds": round(time.time() - t1, 1),
                              "log_trimmed": f"{trimmed} lines of g++ warnings (the loader compiling the package) "
                                             "left out" if trimmed else None,
                              "command": f"{shown} python -X faulthandler build_options.py run {name} {scen} "
                                         f"{os.path.relpath(pkg, out)}"})
    index["members"] = member_list(pkg)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    with open(os.path.join(out, "build.log"), "w") as f:
        f.write("\n".join(log) + "\n")
    print(json.dumps({r["scenario"]: (r["rc"], r["first_error_line"]) for r in index["runs"]}, indent=1))


_GXX = re.compile(r"^(In file included from |\s+from /|.*: (warning|note): |\s*\d* \||\s+\||.*In (instantiation|member "
                  r"function|function)|.*required from|/usr/bin/ld: (warning|NOTE))")


def _trim(text):
    """The run's output without the g++ diagnostics a loader that compiles the package prints (thousands of lines
    of -Woverflow warnings from torch's own headers): the log is what the run said, not what the compiler said."""
    keep = [l for l in text.splitlines(keepends=True) if not _GXX.match(l)]
    return "".join(keep), text.count("\n") - "".join(keep).count("\n")


def member_list(pkg):
    if os.path.isdir(pkg):
        return {fn: os.path.getsize(os.path.join(pkg, fn)) for fn in sorted(os.listdir(pkg))}
    with zipfile.ZipFile(pkg) as z:
        return {i.filename: i.file_size for i in z.infolist()}


def run(name, scen, pkg):
    import torch
    kind = JOBS[name][0]
    idx, x = example(kind)
    if scen == "oob_index":
        idx = torch.tensor([1, 2, 16, 0])
    elif scen == "wrong_dtype":
        idx = idx.to(torch.int32)
    elif scen == "empty_dim":
        idx, x = idx[:0], x[:0]
    if name == "aot_compile":
        so = os.path.join(pkg, "model.so")
        print(f"torch._export.aot_load({os.path.basename(pkg)}/model.so, 'cpu')", flush=True)
        f = torch._export.aot_load(so, "cpu")
        out = f(idx, x)
        print("ok", out.shape, float(out.sum()), flush=True)
        return
    if scen == "so_alone":
        tmp = tempfile.mkdtemp(prefix="so_alone_")
        with zipfile.ZipFile(pkg) as z:
            so = next(n for n in z.namelist() if n.endswith(".so"))
            z.extract(so, tmp)
        print(f"AOTIModelContainerRunnerCpu({so}, 1).run(...) without load_constants", flush=True)
        runner = torch._C._aoti.AOTIModelContainerRunnerCpu(os.path.join(tmp, so), 1)
        outs = runner.run([idx, x])
        print("ok", [o.shape for o in outs], flush=True)
        return
    print(f"torch._inductor.aoti_load_package({os.path.basename(pkg)})", flush=True)
    f = torch._inductor.aoti_load_package(pkg)
    out = f(idx, x)
    print("ok", out.shape, float(out.sum()), flush=True)


def pack(name):
    """Shrink what is kept (the repo's byte budget): every member deflated, and each `.so` with its debug sections
    stripped (`objcopy --strip-debug`: -g1 debug info is ~75% of it; the dynamic symbols, version needs and the
    constants blob symbols doctor reads stay).  The runs used the unstripped build; index.json says so."""
    out = os.path.join(HERE, name)
    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    tmp = tempfile.mkdtemp(prefix="pack_")
    pkg_dir = os.path.join(out, "model")
    stripped = []
    if os.path.isdir(pkg_dir):
        for fn in sorted(os.listdir(pkg_dir)):
            if fn.endswith(".so"):
                subprocess.run(["objcopy", "--strip-debug", os.path.join(pkg_dir, fn)], check=True)
                stripped.append(fn)
    else:
        pt2 = os.path.join(out, f"{name}.pt2")
        new = os.path.join(tmp, f"{name}.pt2")
        with zipfile.ZipFile(pt2) as zin, zipfile.ZipFile(new, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
            for info in zin.infolist():
                data = zin.read(info.filename)
                if info.filename.endswith(".so"):
                    so = os.path.join(tmp, "x.so")
                    with open(so, "wb") as f:
                        f.write(data)
                    subprocess.run(["objcopy", "--strip-debug", so], check=True)
                    with open(so, "rb") as f:
                        data = f.read()
                    stripped.append(info.filename)
                zout.writestr(info.filename, data)
        shutil.move(new, pt2)
    index["stored"] = {"deflated": not os.path.isdir(pkg_dir),
                       "so_debug_stripped": stripped,
                       "note": "each .so kept with `objcopy --strip-debug` after the runs (the runs used the build "
                               "as torch wrote it; `members` lists the sizes torch wrote); nothing left out"}
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    # logs/index.json (the format sample_packages/failures.py writes): the package each log was made with
    rel = f"options/{name}/model" if os.path.isdir(pkg_dir) else f"options/{name}/{name}.pt2"
    logs = {r["scenario"]: {"env": r["env"], "inputs": r["inputs"], "mode": "plain", "package": rel,
                            "returncode": r["rc"], "scenario": r["scenario"], "what": r["expect"] or r["inputs"]}
            for r in index["runs"]}
    with open(os.path.join(out, "logs", "index.json"), "w") as f:
        json.dump(logs, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    for k, v in PORTABLE.items():
        os.environ.setdefault(k, v)
    if sys.argv[1] == "build":
        build(sys.argv[2])
    elif sys.argv[1] == "pack":
        pack(sys.argv[2])
    else:
        run(*sys.argv[2:5])
