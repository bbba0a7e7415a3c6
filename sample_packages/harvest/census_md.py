"""census.json -> the counted part of CENSUS.md (printed)."""
import collections
import json
import sys

root = sys.argv[1]
C = json.load(open(f"{root}/census.json"))
pk = [e for e in C if e.get("pkg")]
nob = [e for e in C if not e.get("pkg")]
print(f"- package folders: {len(C)}; packages built and read: {len(pk)}; not built: {len(nob)}")
rcs = collections.Counter(e.get("show_rc") for e in pk)
print(f"- `--strict show --json` exit codes: {dict(rcs)} (0 = every statement understood, 1 = statements skipped, 4 = internal error)")
tot_u = sum(c[0] for e in pk for c in e.get("coverage", []))
tot_t = sum(c[1] for e in pk for c in e.get("coverage", []))
print(f"- statements understood: {tot_u} of {tot_t}; packages with skipped statements: {sum(1 for e in pk if e['skipped'])}")
print()
print("### Skipped statements by shape\n")
print("| shape | statements | packages | example (package: line: text) |")
print("| --- | --- | --- | --- |")
by = collections.defaultdict(list)
for e in pk:
    for s in e["skipped"]:
        by[(s["region"], s["shape"])].append((e["dir"], s))
for (reg, shape), lst in sorted(by.items(), key=lambda kv: -len(kv[1])):
    d, s = lst[0]
    ex = s["statement"].replace("|", "\\|")[:110]
    print(f"| {reg}: {shape.replace('|', '/')} | {len(lst)} | {len({x[0] for x in lst})} | {d}:{s['line']}: `{ex}` |")
print()
cub = sum(e.get("cubins", 0) for e in pk)
un = [(e["dir"], u) for e in pk for u in e.get("cubins_unattributed", [])]
print(f"### Cubins\n\n- cubins in packages: {cub}; not attributed to a kernel that `show` lists: {len(un)}")
for d, u in un:
    print(f"  - {d}: {u['cubin']} (wrapper loads it as {u['loaded_as']})")
print()
print("### Logs: diagnose category vs the right one\n")
print("| package | scenario | rc | right category | diagnose says | trace-assert rc | bound | origin |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
agree = collections.Counter()
for e in pk:
    for r in e.get("runs", []):
        print(f"| {e['dir']} | {r['scenario']} | {r['rc']} | {r['right']} | {r.get('category')} | {r.get('trace_rc', '')} | "
              f"{r.get('bound_found', '')} | {r.get('origin_found', '')} |")
        agree[(r["right"], r.get("category"))] += 1
ALIAS = {"weightless (load)": "weights_not_loaded", "oom": "out_of_memory"}


def right(r):
    want, got = ALIAS.get(r["right"], r["right"]), r.get("category")
    return got == want or (want.startswith("none") and got == "unknown")


runs = [(e["dir"], r) for e in pk for r in e.get("runs", [])]
print()
print(f"- logs answered with the right category: {sum(right(r) for _, r in runs)} of {len(runs)} "
      "(a clean or silently wrong run counts as right when diagnose finds no failure in it: `unknown`)")
for d, r in runs:
    if not right(r):
        print(f"  - {d} {r['scenario']}: right {r['right']}, diagnose says {r.get('category')}")
print()
print("| right category | diagnose category | logs |")
print("| --- | --- | --- |")
for (a, b), n in sorted(agree.items(), key=lambda kv: (kv[0][0], -kv[1])):
    print(f"| {a} | {b} | {n} |")
asserts = [(e["dir"], r) for e in pk for r in e.get("runs", []) if "trace_rc" in r and r["right"] == "index_assert"]
print()
print(f"- logs of a failed index assertion given to trace-assert: {len(asserts)}; no bound: "
      f"{sum(1 for _, r in asserts if not r.get('bound_found'))}; no origin: {sum(1 for _, r in asserts if not r.get('origin_found'))}")
for d, r in asserts:
    if not (r.get("bound_found") and r.get("origin_found")):
        print(f"  - {d} {r['scenario']}: {r.get('assert_msgs')} (trace rc {r['trace_rc']}, bound {r.get('bound_found')}, origin {r.get('origin_found')})")
print()
print("### Not built\n")
for e in nob:
    print(f"- {e['dir']}: {e.get('status') or ''} {(e.get('build_error_tail') or '').strip().splitlines()[-1:] }")
