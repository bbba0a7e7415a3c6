"""Issue 35 §4: does each certainty level mean something?  Every real log of sample_packages/ whose truth is known,
answered by `diagnose` and by `trace-assert`; per level, the share of answers whose top hypothesis is right.

    python bench/certainty.py                 # print the table (and the wrong answers)
    python bench/certainty.py --write-doc     # rewrite the table in docs/certainty.md
    python bench/certainty.py --json-out F    # every answer, for a look

The truth (known by construction, never read from the tool's answers):

* a sample built by sample_packages/build.py (``<build>/<name>/manifest.json`` and its ``error.log``): the spec's
  trigger, ``expect``: the model input that holds the bad value (``index_input``), an empty input (``jagged``: the
  bound is 0) or a position past the bound (``topk_gather``, ``argmax_embedding``: `POSITION`); a trigger that did
  not fire is left out;
* a harvested or packaging-option run (``harvest/*/*/index.json``, ``options/*/index.json``): its ``right_category``
  (a person's, by construction: README there); `INPUT` adds, for the runs whose bad value sits in one model input,
  that input;
* every other log (``logs/`` of a sample, its sweeps, its reruns) has no truth recorded: left out and counted.

Right: the answer's category is the truth's (`same_category`; trace-assert's is the failing check's kind, or the
category it gives a log with no check), and where the truth names a cause, the top hypothesis is that cause (its
kind, `CAUSE_CLASS`) about that input.  Bars (issue 35): certain ≥ 99 %, likely ≥ 80 %; "possible" has none.
tests/samples/test_certainty_table.py recomputes the table and holds the bars and docs/certainty.md's copy.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
S = ROOT / "sample_packages"
DOC = ROOT / "docs" / "certainty.md"
BARS = {"certain": 0.99, "likely": 0.80}
LEVELS = ("certain", "likely", "possible")

# The manifest samples whose trigger is not a value in an input (sample_packages/specs.py's trigger_doc)
EMPTY = {"jagged"}  # "values is empty (0x8), lengths all zero: the bound values.size(0) is 0"
POSITION = {"topk_gather", "argmax_embedding"}  # positions a top-k / an argmax returns, past the table
# x = 2.0 past the last boundary makes bucket 8, a position bucketize returns, past the 6-row table: both causes hold
BOTH = {"bucketize_index"}
# The cause kinds (inspector.queries.causes.CAUSE_KINDS) each truth is
CAUSE_CLASS = {
    "value": {"static_read_value", "static_computed_value", "bound_value", "extern_index"},
    "empty": {"empty_input"},
    "position": {"position"},
    "value_or_position": {"static_read_value", "static_computed_value", "bound_value", "position"},
    "nan_input": {"finite_input", "finite_computed"},
    "dtype": {"input_dtype"},
}
# Harvested runs whose bad value sits in one model input (index.json's ``inputs``/``expect`` say which), by
# (folder, scenario): (truth's cause class, the input's position)
INPUT = {
    ("issue15/runtime_triton_nan_cuda", "nan_input"): ("nan_input", 0),  # x[3,5] = nan; x is input 0 (arg2_1)
    ("issue15/runtime_triton_nan_cuda", "nan_y"): ("nan_input", 1),  # y[1,2] = nan, through the extern addmm
    ("issue15_cpu213/nan_asserts_cpu", "nan_input"): ("nan_input", 0),
    ("issue15_cpu213/nan_asserts_cpu", "inf_input"): ("nan_input", 0),
    ("issue15_cpu213/nan_asserts_cpu", "nan_y"): ("nan_input", 1),
    # int32 ids into a package compiled for int64: read as int64, they pair up into huge values (no value is bad)
    ("issue34_cpu213/dtype_ids_cpu", "int32_ids"): ("dtype", 0),
    ("issue34_gpu/gpt2_dyn", "int32_ids"): ("dtype", 0),
    # torch_geometric: edge_index (input 1, after x) holds a node id past num_nodes (307) or below (-1e6)
    **{(f"pyg/{net}", scen): ("value", 1) for net in ("edgeconv", "gat", "gatv2", "gcn", "gin", "graphconv", "sage")
       for scen in ("oob_id", "neg_id")},
    ("timm_hf/hf_gpt2", "oob_token"): ("value", 0),  # token id vocab_size + 100 in input_ids
    ("issue15/two_bags_cuda", "bad_items"): ("value", 1),  # item_ids[3, 2] = 77, a 50-row table
    # the arange's position past GPT-2's 32-row wpe table (a sequence of 33 or 40): no input value is bad
    ("hf_ctx/gpt2_positions_cuda", "seq33"): ("position", None),
    ("hf_ctx_cpu213/gpt2_positions", "seq33"): ("position", None),
    ("hf_ctx_cpu213/gpt2_positions", "seq40"): ("position", None),
    ("options/sdpa_bf16_dyn_cuda", "past_table"): ("position", None),  # positions 128..159, a 128-row table
    # the packaging options' gather: idx (input 0, or 1 after the cond's predicate) past the table
    **{(f"options/{o}", "oob_index"): ("value", 0) for o in ("aot_compile", "binary_blob", "cpp_only", "max_autotune",
                                                           "named_files", "precompile_headers", "embed_kernel_cuda",
                                                           "multi_arch_cuda")},
    ("options/cond_index_cuda", "oob_true"): ("value", 1),
    ("options/cpu_and_cuda_models", "oob_cuda"): ("value", 0),
    ("options/mixed_cpu_cuda", "oob_cpu_index"): ("value", 0),
}
# right_category values that name no category of diagnose's (a silent wrong run, a crash with no message, a user's
# TypeError): diagnose answers "no_failure" or "unknown" on those, and neither is a verdict to measure
SILENT = ("none (silent", "none (rc", "none (a ")


@dataclass
class Case:
    pkg: Path
    log: Path
    category: str  # diagnose's category the truth is
    cause: str | None = None  # CAUSE_CLASS key, when the truth names the cause
    input: int | None = None  # the model input that holds the bad value
    model: str | None = None


def _category(right: str) -> str | None:
    """index.json's right_category as diagnose's category (None: no truth diagnose can be right about)."""
    if right.startswith(SILENT):
        return None
    if right.startswith("none (clean run)"):
        return "no_failure"
    if right.startswith("weightless"):
        return "weights_not_loaded"
    if right.startswith("constants"):
        return "constants"
    if right.startswith("device_assert/index_assert"):
        return "index_assert"
    if right.startswith("aten_error") or right.startswith("extern_op"):
        return "extern_op"
    return right.split(" ")[0]


def cases() -> tuple[list[Case], list[str]]:
    """Every real log with a known truth, and the logs left out (no truth recorded, or none diagnose can meet)."""
    out: list[Case] = []
    used: set[Path] = set()
    for mf in sorted(S.glob("*/*/manifest.json")):
        man = json.loads(mf.read_text())
        exp = man.get("expect") or {}
        log = mf.parent / "error.log"
        if not log.exists() or not exp.get("fired", True):
            continue
        used.add(log)
        name = man["name"]
        cause = ("empty" if name in EMPTY else "position" if name in POSITION else "value_or_position" if name in BOTH
                 else "value")
        cat = "extern_op" if exp.get("kernel_kind") == "extern" else "index_assert"
        out.append(Case(mf.parent / f"{name}.pt2", log, cat, cause, exp.get("index_input"), exp.get("model")))
    for idx in sorted(glob.glob(str(S / "harvest/*/*/index.json")) + glob.glob(str(S / "options/*/index.json"))):
        d = Path(idx).parent
        info = json.loads(Path(idx).read_text())
        pkgs = sorted(p for p in d.glob("*.pt2") if p.name != "exported_program.pt2")
        pkg = d / "model" if (d / "model").is_dir() and not pkgs else (pkgs[0] if pkgs else None)
        for r in info.get("runs", []):
            log = d / (r.get("log") or f"logs/{r['scenario']}.log")
            if pkg is None or not log.exists() or "right_category" not in r:
                continue
            cat = _category(r["right_category"])
            if cat is None:
                continue
            used.add(log)
            key = (str(d.relative_to(S / "harvest")) if "harvest" in d.parts else str(d.relative_to(S)), r["scenario"])
            cause, inp = INPUT.get(key, (None, None))
            out.append(Case(pkg, log, cat, cause, inp))
    every = sorted({*S.glob("*/*/error.log"), *S.glob("**/logs/**/*.log")})
    left = [str(p.relative_to(S)) for p in every if p not in used]
    return out, left


def _top_right(case: Case, mt) -> bool:
    """The top hypothesis of trace match ``mt`` is the truth's cause, about the truth's input."""
    if not mt.hypotheses:
        return False
    top = mt.hypotheses[0]
    if top.kind not in CAUSE_CLASS[case.cause]:
        return False
    if case.input is None or case.cause in ("empty", "position") or top.kind == "position":
        return True
    return any(o.input is not None and o.input.index == case.input for o in mt.index_origin)


def by_basis(rows: list[dict]) -> list[tuple[str, str, int, int]]:
    """(level, basis, answers, right), for a look at what each level rests on."""
    from inspector.queries.causes import BASES

    out = []
    for b, lv in BASES.items():
        at = [r for r in rows if r["basis"] == b]
        if at:
            out.append((lv, b, len(at), sum(r["right"] for r in at)))
    return out


def _trace_category(r) -> str:
    if not r.matches:
        return r.log_category or "unknown"
    mt = r.matches[0]
    if mt.assertion.checks == "finite":
        return "nan_inf"
    return "extern_op" if mt.kernel_kind == "extern" else "index_assert"


def same_category(truth: str, got: str) -> bool:
    # an index check a user's Triton kernel makes is its device_assert: diagnose's "device_assert" is that answer
    return got == truth or (truth == "index_assert" and got == "device_assert")


def judge(case: Case) -> list[dict]:
    """The two answers on ``case`` (diagnose, trace-assert), each with its level, basis and whether it is right."""
    import inspector
    from inspector.logs import parse_log
    from inspector.queries.diagnose import diagnose
    from inspector.queries.trace_log import trace_log

    rows = []
    text = case.log.read_text(errors="replace")
    with inspector.open_package(case.pkg) as pkg:
        for cmd in ("diagnose", "trace-assert"):
            report = parse_log(text)
            try:
                if cmd == "diagnose":
                    d = diagnose(pkg, report, model=case.model)
                    cat, level, basis = d.category, d.certainty, d.certainty_basis
                    trace = d.trace if d.trace is not None and getattr(d.trace, "matches", None) else None
                    verdict = d.verdict
                else:
                    trace = trace_log(pkg, report, model=case.model)
                    cat, level, basis, verdict = _trace_category(trace), trace.certainty, trace.certainty_basis, trace.verdict
                    trace = trace if trace.matches else None
            except Exception as e:  # noqa: BLE001 - a bug is an answer that is wrong, counted and shown
                cat, level, basis, trace, verdict = "error", "possible", "no_evidence", None, repr(e)
            right = same_category(case.category, cat)
            if right and case.cause is not None:
                if trace is not None:
                    right = _top_right(case, trace.matches[0])
                elif cmd == "diagnose":  # a check the wrapper makes on an input: the input it names
                    right = case.cause == "nan_input" and d.nan_input == case.input
                # trace-assert on a log with no kernel's check: its answer is the category diagnose gives it
            rows.append({"log": str(case.log.relative_to(S)), "command": cmd, "level": level, "basis": basis,
                         "category": cat, "truth": case.category, "cause": case.cause, "input": case.input,
                         "right": right, "verdict": verdict[:160]})
    return rows


def table(rows: list[dict]) -> list[tuple[str, int, int, float | None]]:
    out = []
    for lv in LEVELS:
        at = [r for r in rows if r["level"] == lv]
        n, ok = len(at), sum(r["right"] for r in at)
        out.append((lv, n, ok, ok / n if n else None))
    return out


def markdown(rows: list[dict], n_logs: int, left: int) -> str:
    lines = [f"Measured on {n_logs} real logs with a known truth, each answered by `diagnose` and `trace-assert` "
             f"({len(rows)} answers; {left} logs left out: no truth recorded, or a silent wrong run): "
             "`python bench/certainty.py`.",
             "", "| level | answers | right | share | bar |", "| --- | ---: | ---: | ---: | --- |"]
    for lv, n, ok, share in table(rows):
        bar = f"≥ {BARS[lv]:.0%}" if lv in BARS else "none"
        lines.append(f"| {lv} | {n} | {ok} | {'-' if share is None else f'{share:.1%}'} | {bar} |")
    return "\n".join(lines) + "\n"


BEGIN, END = "<!-- certainty table: bench/certainty.py --write-doc -->", "<!-- end of the certainty table -->"


def doc_table(doc_text: str) -> str:
    """The table docs/certainty.md holds (between its markers)."""
    return doc_text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def measure() -> tuple[list[dict], int, list[str]]:
    cs, left = cases()
    rows = [r for c in cs for r in judge(c)]
    return rows, len(cs), left


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("--json-out")
    a = ap.parse_args(argv)
    os.environ.setdefault("PT2_INSPECT_CACHE_DIR", "/tmp/pt2-inspect-certainty-cache")
    rows, n, left = measure()
    md = markdown(rows, n, len(left))
    print(md)
    for lv, b, n, ok in by_basis(rows):
        print(f"  {lv:9} {b:17} {ok:4} of {n:4} right")
    for r in rows:
        if not r["right"] and r["level"] in BARS:
            print(f"wrong [{r['level']}/{r['basis']}] {r['command']} {r['log']}: {r['category']} (truth {r['truth']}"
                  f"{', ' + r['cause'] if r['cause'] else ''}{' input ' + str(r['input']) if r['input'] is not None else ''})"
                  f": {r['verdict'][:100]}")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({"rows": rows, "left_out": left}, indent=1) + "\n")
    if a.write_doc:
        text = DOC.read_text()
        head, rest = text.split(BEGIN, 1)
        DOC.write_text(head + BEGIN + "\n" + md + END + rest.split(END, 1)[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
