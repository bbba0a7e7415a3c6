"""Issue 34 §5's benchmark row: doctor's memory estimate against the peak each real run held, per model and size.

    python bench/memory.py                                  # the CPU twins' measured runs (memory_cpu213)
    python bench/memory.py --gpu $OUT/gpu_memory.json       # and the H200's (sample_packages/harvest/gpu_memory.py)
    python bench/memory.py --json-out bench/memory_results.json

Rows: model, size, the measured peak above the inputs, doctor's figure (the activations), the ratio, its upper bound
and whether the bound held.  The CPU truths are sample_packages/harvest/memory_cpu213/*/measure.json (VmHWM above
VmRSS, glibc mmapping every block of 64 KiB or more; each size's second run, runs under 2 MiB left out); the GPU's
are torch.cuda.max_memory_allocated above memory_allocated, the second run at each size.  Not a test: targets
(±15 %, or an upper bound that holds) are printed beside the figures, the unit tests hold them
(tests/unit/test_memory_library.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CPU = ROOT / "sample_packages" / "harvest" / "memory_cpu213"
MiB = 1 << 20
TARGET = 0.15


def _specs(name, size):
    from inspector.queries.check import parse_spec

    if name == "roi_head":
        return [parse_spec(f"0=float32[{size[0]},3,256,256]"), parse_spec(f"1=float32[{size[1]},5]")]
    if name in ("vit", "wav2vec2"):
        return [parse_spec(f"0=float32[{','.join(map(str, size))}]")]
    one = f"[{','.join(map(str, size))}]"
    return [parse_spec(f"0=int64{one}")] + ([parse_spec(f"1=int64{one}")] if name == "bert_pool" else [])


def _row(device, name, pkg_path, size, measured):
    import inspector
    from inspector.queries.memory import memory_plan, symbol_values

    with inspector.open_package(pkg_path) as pkg:
        plan = memory_plan(pkg)
        v = symbol_values(pkg.index().eager(), _specs(name, size))
        e = plan.estimate({s: v.get(s, 64) for s in plan.symbols})
    ratio = e.steady.bytes / measured if measured else None
    held = None if e.upper is None else measured <= e.upper
    ok = (ratio is not None and abs(ratio - 1) <= TARGET) or bool(held)
    return {"device": device, "model": name, "size": size, "measured": measured, "estimate": e.steady.bytes,
            "ratio": round(ratio, 3) if ratio else None, "upper": e.upper, "upper_holds": held,
            "not_counted": [list(x) for x in e.not_counted], "meets_target": ok}


def rows(gpu: Path | None) -> list[dict]:
    out = []
    for d in sorted(p for p in CPU.iterdir() if (p / "measure.json").exists()):
        doc = json.loads((d / "measure.json").read_text())
        for r in doc["runs"]:
            if r.get("attempt") == 2 and r["peak_over_before"] >= 2 * MiB:
                out.append(_row("cpu", d.name, d / f"{d.name}.pt2", r["size"], r["peak_over_before"]))
    if gpu is not None:
        doc = json.loads(gpu.read_text())
        for name, m in doc["models"].items():
            for r in m.get("runs", []):
                if r["run"] == "second":
                    out.append(_row("cuda", name, gpu.parent / "pkgs" / f"{name}.pt2", r["size"], r["peak_over_before"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", type=Path, help="gpu_memory.py's gpu_memory.json (its pkgs/ beside it)")
    ap.add_argument("--json-out", type=Path)
    a = ap.parse_args()
    rs = rows(a.gpu)
    print(f"{'device':6} {'model':10} {'size':22} {'measured':>12} {'doctor':>12} {'ratio':>6} {'upper':>12} "
          f"{'holds':>5}  target ±{int(TARGET * 100)}% or a bound that holds")
    for r in rs:
        upper = f"{r['upper'] / MiB:.2f}Mi" if r["upper"] is not None else "none"
        print(f"{r['device']:6} {r['model']:10} {str(r['size']):22} {r['measured'] / MiB:10.2f}Mi "
              f"{r['estimate'] / MiB:10.2f}Mi {r['ratio'] if r['ratio'] is not None else '-':>6} "
              f"{upper:>12} "
              f"{str(r['upper_holds']) if r['upper_holds'] is not None else '-':>5}  "
              f"{'ok' if r['meets_target'] else 'MISSED'}"
              + (f"  (not counted: {', '.join(c for c, _ in r['not_counted'][:2])})" if r["not_counted"] else ""))
    if a.json_out:
        a.json_out.write_text(json.dumps(rs, indent=1) + "\n")


if __name__ == "__main__":
    main()
