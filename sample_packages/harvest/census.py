"""Measure today's pt2-inspect on the harvested set: /work/harvest/*/*/ -> census.json (+ CENSUS.md by hand).

  PT2_INSPECT_CACHE_DIR=/tmp/harvest-cache python census.py /work/harvest
"""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import zipfile

TOOL = "/work/main/.venv/bin/pt2-inspect"
ENV = dict(os.environ, PT2_INSPECT_CACHE_DIR=os.environ.get("PT2_INSPECT_CACHE_DIR", "/tmp/harvest-cache"))


def sh(args, timeout=300):
    try:
        p = subprocess.run(["nice", "-n", "10", TOOL] + args, capture_output=True, text=True, env=ENV, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def shape_of(stmt: str) -> str:
    s = stmt.strip()
    rules = [
        (r"^bool \w+_scalar;", "bool <arg>_scalar; (cond/while_loop predicate)"),
        (r"^int(32|64)_t u\d+_raw;", "int64_t/int32_t u<N>_raw; (unbacked symbol)"),
        (r"StableTMADescriptor", "StableTMADescriptor (TMA)"),
        (r"^tl\.assume\(", "tl.assume(...) (template)"),
        (r"=\s*triton_helpers\.welford_reduce\($", "multi-line statement: ... = triton_helpers.welford_reduce("),
        (r'^extern "C"\s+void\s+cpp_fused\w*\(.*at::(Half|BFloat16)', 'extern "C" void cpp_fused_*(... at::Half*/at::BFloat16* ...) (CPU kernel signature)'),
        (r"^printf\(\"\[  (before|after)_launch", 'printf("[  before/after_launch - K - <scalar arg>: %ld  ]", ...) (printer, level 2)'),
        (r"\($|,$", "multi-line statement (open paren)"),
        (r"^if .*:$", "python if in a Triton template"),
    ]
    for pat, name in rules:
        if re.search(pat, s):
            return name
    s = re.sub(r"\b(buf|tmp|arg|u|s|ks|x|y|r)\d+\w*", r"\1N", s)
    s = re.sub(r"\d+", "N", s)
    return s[:90]


def cubins(pkg):
    """-> (cubin members, {cubin basename: kernel name from the wrapper's loadKernel})"""
    out, mapping = [], {}
    with zipfile.ZipFile(pkg) as z:
        for n in z.namelist():
            if n.endswith((".cubin", ".fatbin", ".hsaco", ".spv")):
                out.append(n)
            if n.endswith(".wrapper.cpp") or n.endswith(".cpp"):
                text = z.read(n).decode("utf-8", "replace")
                for m in re.finditer(r'kernels_\.(\w+)\s*=\s*loadKernel\("([^"]+)"\s*,\s*"(\w+)"', text):
                    # the kernels_ member is the launched kernel's name (a user-defined kernel's cubin function
                    # keeps its def name: `gather_kernel` for the kernel launched as gather_kernel_0)
                    mapping[os.path.basename(m.group(2))] = m.group(1)
    return out, mapping


OVERRIDES = {
    ("constants_cpu", "wrong_dtype"): "constants (float64 weights accepted silently, wrong numbers, then SIGSEGV at exit)",
    ("constants_cpu", "wrong_shape"): "none (silent: a [3,3] weight accepted for [16,16]; doctor --weights)",
    ("hf_bert", "good"): "constants (non-persistent buffers never loaded -> IMA)",
    ("hf_bert", "oob_token"): "constants (non-persistent buffers never loaded -> IMA)",
    ("test_runtime_assert_derived_dim", "bad_2099"): "none (silent: 2099 accepted, view(-1,100) drops 99 values)",
    ("test_runtime_assert_derived_dim", "bad_2099_checkinputs"): "input_check",
    ("nan_asserts_cpu", "neg_input"): "none (silent NaN made inside: CPU NaN asserts check inputs only)",
}


def right_category(scen, rc, text, name=""):
    """The category each log should get (issue 15/16 names where today's enum has none)."""
    if (name, scen) in OVERRIDES:
        return OVERRIDES[(name, scen)]
    t = text
    if "API call failed" in t and "aoti_torch_check_inf_and_nan" in t or re.search(r"At least one (NaN|INF)", t) or "NaN or Inf found" in t:
        return "nan_inf"
    if "[  before_launch" in t or "[ before_launch" in t or "after_launch -" in t:
        return "printer" if rc == 0 else "printer+failure"
    if re.search(r"Expected .* but received", t):
        return "symbolic_assert"
    if "Constant not found" in t or "constants_map" in t or "update_constant_buffer" in t:
        return "constants"
    if "Could not find schema" in t or "proxy executor" in t.lower():
        return "custom_op"
    if "out of memory" in t:
        return "oom"
    if scen.startswith(("export_archive", "aoti_package_to")):
        return "wrong_artifact"
    if scen == "no_weights":
        return "weightless (load)"
    if "Assertion `index out of bounds" in t:
        return "index_assert"
    if "device_assert" in t or "user gather index out of range" in t:
        return "device_assert/index_assert (user kernel)"
    if "setStorage" in t:
        return "aten_error (storage)"
    if "CUBLAS_STATUS_INTERNAL_ERROR" in t or "CUDNN_STATUS_INTERNAL_ERROR" in t:
        return "extern_op (library handle failure)"
    if "illegal memory access" in t:
        return "illegal_memory_access"
    if rc == 0:
        return "none (clean run)"
    return "unknown"


def main(root):
    res = []
    for idx in sorted(glob.glob(os.path.join(root, "*", "*", "index.json"))):
        d = os.path.dirname(idx)
        info = json.load(open(idx))
        pkgs = [p for p in glob.glob(os.path.join(d, "*.pt2")) if not p.endswith("exported_program.pt2")]
        entry = {"dir": os.path.relpath(d, root), "build_ok": info.get("build_ok"), "status": info.get("status"),
                 "build_error_tail": (info.get("build_error") or "")[-300:] or None}
        if not pkgs:
            res.append(entry)
            continue
        pkg = pkgs[0]
        ep = os.path.join(d, "exported_program.pt2")
        if os.path.exists(ep):
            rce, oe, ee = sh(["show", ep])
            entry["exported_program_show"] = {"rc": rce, "text": (oe + ee)[-300:]}
        entry["pkg"] = os.path.relpath(pkg, root)
        entry["pkg_bytes"] = os.path.getsize(pkg)
        rc, out, err = sh(["--strict", "show", pkg, "--json"])
        entry["show_rc"] = rc
        skipped, kernels = [], set()
        try:
            js = json.loads(out)
            for m in js["models"]:
                c = m["coverage"]
                entry.setdefault("coverage", []).append([c["understood"], c["total"]])
                entry.setdefault("dialect", []).append(m.get("dialect"))
                for r, v in c["regions"].items():
                    for s in v["skipped"]:
                        skipped.append({"region": r, "line": s.get("line"), "statement": s.get("statement"),
                                        "shape": shape_of(s.get("statement", ""))})
                for k in m.get("kernels", []):
                    kernels.add(k["name"])
                entry["n_kernels"] = len(m.get("kernels", []))
                entry["extern_ops"] = [e["name"] for e in m.get("extern_ops", [])]
        except Exception as e:
            entry["show_error"] = (err or str(e))[-500:]
        entry["skipped"] = skipped
        cbs, mapping = cubins(pkg)
        entry["cubins"] = len(cbs)
        unatt = []
        for c in cbs:
            k = mapping.get(os.path.basename(c))
            if k is None or k not in kernels:
                unatt.append({"cubin": os.path.basename(c), "loaded_as": k})
        entry["cubins_unattributed"] = unatt
        runs = []
        for r in info.get("runs", []):
            log = os.path.join(d, r["log"])
            if not os.path.exists(log):
                continue
            text = open(log, errors="replace").read()
            rr = {"scenario": r["scenario"], "rc": r["rc"], "right": r.get("right_category") or right_category(r["scenario"], r["rc"], text, info.get("name", "")),
                  "expect": r.get("expect")}
            rc2, o2, e2 = sh(["diagnose", pkg, "--log", log, "--json"])
            rr["diagnose_rc"] = rc2
            try:
                dj = json.loads(o2)
                rr["category"] = dj["category"]
                rr["verdict"] = dj["verdict"][:300]
            except Exception:
                rr["category"] = None
                rr["diagnose_err"] = (e2 or o2)[-300:]
            if rr["right"] in ("index_assert", "symbolic_assert", "device_assert/index_assert (user kernel)") and "Assertion" in text or \
                    "Assertion" in text:
                rc3, o3, e3 = sh(["trace-assert", pkg, "--log", log, "--json"])
                rr["trace_rc"] = rc3
                try:
                    tj = json.loads(o3)
                    ms = tj.get("matches", [])
                    rr["trace_matches"] = len(ms)
                    rr["assert_msgs"] = sorted({m["assertion"]["message"] for m in ms if m.get("assertion")})[:4]
                    rr["bound_found"] = bool(ms) and all((m.get("bound") is not None or m.get("static_bound") is not None) for m in ms)
                    rr["origin_found"] = bool(ms) and all(
                        any((o.get("input") or o.get("constant") or o.get("computed")) and not o.get("unresolved")
                            for o in (m.get("index_origin") or [])) for m in ms)
                    rr["trace_verdict"] = (tj.get("verdict") or "")[:300]
                except Exception:
                    rr["trace_err"] = (e3 or o3)[-300:]
            runs.append(rr)
        entry["runs"] = runs
        res.append(entry)
        print(entry["dir"], entry.get("show_rc"), len(skipped), len(unatt), [(x["scenario"], x["right"], x.get("category")) for x in runs],
              flush=True)
    json.dump(res, open(os.path.join(root, "census.json"), "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
