"""The closing-note table of issue 8: per build folder, samples, assertions, and how many trace completely.

    python sample_packages/report.py            # a Markdown table
    python sample_packages/report.py --json     # the same, one JSON object

Uses pt2-inspect's Python API only (no torch).  For each folder under sample_packages/ (cpu, cuda,
cpu-2.6, ...): the torch build the manifests name, how many samples, how many assertions the
packages hold and how many of those trace with no unknown hop, and how many real error logs trace
to their manifest's truth (kernel, index input, bound input or terms).  Samples the tool rejects,
extern-op failures and compound bounds are called out by name.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import inspector  # noqa: E402
from inspector.queries.trace import trace_assert  # noqa: E402


def _truth_ok(mt, exp) -> bool:
    if mt.kernel != exp.get("kernel") or not mt.complete:
        return False
    if {o.input.index for o in mt.index_origin if o.input} != {exp["index_input"]}:
        return False
    terms = exp.get("bound_terms")
    if terms and len(terms) > 1:
        got = sorted((t.input.index, t.input.dim) for t in (getattr(mt.bound, "terms", None) or []))
        return got == sorted((t["index"], t["dim"]) for t in terms)
    if exp.get("bound_input"):
        b = exp["bound_input"]
        return bool(mt.bound and mt.bound.input and (mt.bound.input.index, mt.bound.input.dim) == (b["index"], b["dim"]))
    return mt.static_bound == exp.get("static_bound")


def folder_row(folder: Path) -> dict:
    row = {"folder": folder.name, "torch": set(), "device": set(), "samples": 0, "assertions": 0,
           "assertions_traced": 0, "logs": 0, "logs_traced": 0, "rejected": [], "extern": [], "compound": [],
           "not_fired": [], "log_misses": []}
    for mf in sorted(folder.glob("*/manifest.json")):
        man = json.loads(mf.read_text())
        exp = man["expect"]
        row["samples"] += 1
        row["torch"].add(man.get("torch", "?"))
        row["device"].add(man["device"])
        if exp.get("kernel_kind") == "extern":
            row["extern"].append(man["name"])
        if len(exp.get("bound_terms") or []) > 1:
            row["compound"].append(man["name"])
        try:
            with inspector.open_package(mf.parent / f"{man['name']}.pt2") as pkg:
                for m in pkg.models:
                    for k in m.kernels.values():
                        for a in k.assertions:
                            row["assertions"] += 1
                            r = trace_assert(pkg, line=a.line, kernel=k.name, model=m.name)
                            mt = next((x for x in r.matches if x.kernel == k.name), None)
                            row["assertions_traced"] += bool(mt and mt.complete)
                if not exp.get("fired", True):
                    row["not_fired"].append(man["name"])
                    continue
                row["logs"] += 1
                r = trace_assert(pkg, log=man["error"]["stderr"])
                if r.matches and _truth_ok(r.matches[0], exp):
                    row["logs_traced"] += 1
                else:
                    row["log_misses"].append(man["name"])
        except Exception as e:  # the tool refuses the package: count it, say why
            row["rejected"].append(f"{man['name']} ({type(e).__name__})")
            row["logs"] += exp.get("fired", True)
    row["torch"] = ", ".join(sorted(row["torch"]))
    row["device"] = ", ".join(sorted(row["device"]))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [folder_row(f) for f in sorted(HERE.iterdir()) if f.is_dir() and any(f.glob("*/manifest.json"))]
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    print("| folder | torch | device | samples | assertions traced completely | real logs traced to truth | "
          "extern-op failures | compound bounds | rejected / not traced |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        missing = r["rejected"] + [f"{n} (log)" for n in r["log_misses"]] + [f"{n} (no error)" for n in r["not_fired"]]
        print(f"| {r['folder']} | {r['torch']} | {r['device']} | {r['samples']} | "
              f"{r['assertions_traced']}/{r['assertions']} | {r['logs_traced']}/{r['logs']} | "
              f"{', '.join(r['extern']) or '-'} | {', '.join(r['compound']) or '-'} | {', '.join(missing) or '-'} |")


if __name__ == "__main__":
    main()
