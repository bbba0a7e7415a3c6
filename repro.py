#!/usr/bin/env python3
"""Reproduce: input 0 dim 0 is 0 (an empty table): `index out of bounds: 0 <= tmp9 < ks0` in triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2

Written by pt2-inspect 0.1.0 from the package alone (no data of the run that failed).
Loads the package with torch._inductor.aoti_load_package.

usage: python repro.py [jagged.pt2]
prints 'reproduced' (exit 0) or 'not reproduced' with what happened instead (exit 1).
"""

import json, os, signal, subprocess, sys, time

DONE_MARK = "PT2_REPRO_CALL_RETURNED"
REPRODUCED, NOT_REPRODUCED = "reproduced", "not reproduced"


def _dtype(torch, name):
    return getattr(torch, name)


def build_inputs(torch, case):
    """The inputs a case describes: dtype, shape, stride, device, and how to fill them."""
    gen = torch.Generator().manual_seed(0)
    out = []
    for spec in case["inputs"]:
        dt = _dtype(torch, spec["dtype"])
        shape = spec["shape"]
        numel = 1
        for d in shape:
            numel *= d
        fill = spec.get("fill", "randn")
        if fill == "randn" and (dt.is_floating_point or dt.is_complex):
            t = torch.randn(shape, generator=gen).to(dt)
        elif fill == "ramp":  # rising along the last dim: argmax, top-k and sort positions are the largest
            last = shape[-1] if shape else 1
            t = torch.arange(numel, dtype=torch.float64).remainder(max(last, 1)).reshape(shape).to(dt)
        elif fill == "range" and numel:  # index values 0..bound-1, every one of them when numel >= bound
            t = torch.arange(numel, dtype=torch.int64).remainder(max(spec["bound"], 1)).reshape(shape).to(dt)
        elif dt == torch.bool:
            t = torch.zeros(shape, dtype=dt)
        elif dt.is_floating_point:
            t = torch.randn(shape, generator=gen).to(dt)
        else:
            t = torch.zeros(shape, dtype=dt)
        flat = t.reshape(-1)
        for pos, value in spec.get("set", []):
            if numel:
                flat[pos % numel] = value
        t = flat.reshape(shape)
        if spec.get("stride") is not None:
            t = torch.empty_strided(shape, spec["stride"], dtype=dt).copy_(t)
        out.append(t.to(case["device"]))
    return out


def load(torch, path, case):
    """The package loaded the way it must be: aoti_load_package, or load_pt2 for weights stored beside the
    code, then constants from a file or random ones for a package built without them."""
    how = case["loader"]
    model = case.get("model")
    if how["kind"] == "load_pt2_disk":
        from torch.export.pt2_archive._package import load_pt2
        loaded = load_pt2(path, load_weights_from_disk=True)
        runner = loaded.aoti_runners[model or "model"]
    elif model:  # one model of several: load_package takes its name (aoti_load_package does only from torch 2.12)
        from torch._inductor.package import load_package
        runner = load_package(path, model)
    else:
        runner = torch._inductor.aoti_load_package(path)
    consts = how.get("constants")
    if consts:
        if consts.get("file"):
            weights = torch.load(consts["file"], map_location=case["device"], weights_only=True)
        else:
            gen = torch.Generator().manual_seed(0)
            weights = {c["name"]: torch.randn(c["shape"], generator=gen).to(_dtype(torch, c["dtype"])).to(case["device"])
                       for c in consts["specs"]}
        runner.load_constants(weights, check_full_update=True)
    return runner


def call(runner, inputs):
    loader = getattr(runner, "loader", None)
    if loader is not None and hasattr(loader, "run"):
        return loader.run(inputs)  # the flat inputs, as the wrapper numbers them
    return runner(*inputs)


def run_here(path, case):
    """Load, build, call, synchronize; print the mark when the call returned."""
    import torch
    torch.set_num_threads(1) if case["device"] == "cpu" else None
    runner = load(torch, path, case)
    inputs = build_inputs(torch, case)
    out = call(runner, inputs)
    if case["device"].startswith("cuda"):
        torch.cuda.synchronize()
    print(DONE_MARK, flush=True)
    return out


def case_env(case):
    env = {}
    for k, v in case.get("env", {}).items():
        env[k] = v
    return env


def matches(expect, text, rc):
    """Whether the captured output shows the expected failure, and what it shows otherwise."""
    if expect is None:
        return rc == 0 and DONE_MARK in text
    if rc == 0 and DONE_MARK in text:
        return False
    return all(s in text for s in expect.get("all_of", [])) and (
        not expect.get("any_of") or any(s in text for s in expect["any_of"]))


def first_error(text):
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith(("frame #", "Traceback", "File ", "W1", "warnings.warn", "<omitting")):
            continue
        if any(w in s for w in ("Error", "error", "Assertion", "what():", "Fatal", "failed", "Exception", "Aborted")):
            return s[:300]
    return ""


def describe(rc, timed_out):
    if timed_out:
        return "timed out"
    if rc is None:
        return "did not run"
    if rc < 0:
        try:
            return "killed by " + signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit %d" % rc

DEFAULT_PACKAGE = 'jagged.pt2'
CASE = json.loads(r'''{
 "device": "cuda:0",
 "env": {
  "CUDA_LAUNCH_BLOCKING": "1"
 },
 "expect": {
  "all_of": [
   "index out of bounds: 0 <= tmp9 < ks0"
  ],
  "kernel": "triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2",
  "kind": "assert"
 },
 "expect_words": "`index out of bounds: 0 <= tmp9 < ks0` in triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2",
 "inputs": [
  {
   "dtype": "float32",
   "fill": "randn",
   "shape": [
    0,
    8
   ]
  },
  {
   "dtype": "int64",
   "fill": "zeros",
   "shape": [
    4
   ]
  }
 ],
 "loader": {
  "kind": "aoti_load_package"
 },
 "model": null,
 "timeout": 300,
 "title": "input 0 dim 0 is 0 (an empty table): `index out of bounds: 0 <= tmp9 < ks0` in triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2",
 "unset_env": [
  "AOTI_RUNTIME_CHECK_INPUTS"
 ]
}''')


def main():
    args = [a for a in sys.argv[1:] if a != "--child"]
    path = args[0] if args else DEFAULT_PACKAGE
    if "--child" in sys.argv:
        run_here(path, CASE)
        return 0
    if not os.path.exists(path):
        print("usage: python %s [PACKAGE.pt2]   (no such file: %s)" % (os.path.basename(sys.argv[0]), path))
        return 2
    env = dict(os.environ)
    for k in CASE.get("unset_env", []):
        env.pop(k, None)
    env.update(case_env(CASE))
    t0 = time.time()
    timed_out = False
    try:
        p = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), path, "--child"],
                           env=env, capture_output=True, text=True, errors="replace", timeout=CASE.get("timeout", 300))
        rc, text = p.returncode, (p.stdout or "") + (p.stderr or "")
    except subprocess.TimeoutExpired as e:
        timed_out, rc = True, None
        text = ((e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")) + \
               ((e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or ""))
    took = time.time() - t0
    lines = text.splitlines()
    if len(lines) > 60:  # the whole output goes to a file: a diagnosis must not read a gap as evidence
        full = os.path.splitext(os.path.abspath(__file__))[0] + ".output.log"
        with open(full, "w") as f:
            f.write(text)
        lines = lines[:30] + ["[... %d lines left out: all of them are in %s ...]" % (len(lines) - 50,
                                                                                      os.path.basename(full))] + lines[-20:]
    sys.stdout.write("\n".join(lines) + "\n")
    what = describe(rc, timed_out)
    if not timed_out and matches(CASE["expect"], text, rc):
        print("%s: %s (%s, %.1f s)" % (REPRODUCED, CASE["title"], what, took))
        return 0
    print("%s: expected %s; the call %s%s (%.1f s)" % (NOT_REPRODUCED, CASE["expect_words"], what,
          (": " + first_error(text)) if first_error(text) else (" and returned" if DONE_MARK in text else ""), took))
    return 1


if __name__ == "__main__":
    sys.exit(main())
