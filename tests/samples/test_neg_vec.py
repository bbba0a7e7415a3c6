"""Negative indices in vectorized CPU kernels, against real runs (sample_packages/cpu/neg_vec, torch 2.13 CPU):
what trace and the sweep plan say about each index input's -1 is what its real run did.  Before the wrap matcher
read a mask through its casts (inspector/queries/wraps.py), trace said "-1 already fails its check" for the
index_select and v[vidx] kernels, whose -1 runs returned with no error."""

from __future__ import annotations

import json

import pytest

import inspector
from _samples import S
from inspector.queries.sweep import plan
from inspector import trace_assert

D = S / "cpu/neg_vec"
PKG = D / "package/neg_vec.pt2"
RUNS = json.loads((D / "logs/index.json").read_text())
# which input each op's index is (the model's forward(x, cols, g, v, vidx, ids)), and whether it wraps negatives,
# as the real runs showed: a -1 run that returned (rc 0) wraps; one that failed its check (rc 1) does not
OPS = {"index_select": 1, "gather": 2, "vindex": 4, "embedding": 5}


def _wraps_by_run() -> dict[str, bool]:
    out = {}
    for op in OPS:
        run = RUNS.get(f"{op}_minus_one")
        assert run is not None and run["returncode"] in (0, 1), op
        out[op] = run["returncode"] == 0
    return out


def test_the_runs_show_which_kernels_wrap():
    assert _wraps_by_run() == {"index_select": True, "gather": False, "vindex": True, "embedding": False}
    assert "columns read equal x[:, cols % 24]: True" in (D / "logs/index_select_minus_one.log").read_text()
    assert "v[vidx] equals eager v[vidx]: True" in (D / "logs/vindex_minus_one.log").read_text()


@pytest.mark.parametrize("case", ["index_select_below_n", "vindex_below_n", "gather_minus_one", "embedding_minus_one"])
def test_trace_of_each_failing_run_says_what_its_minus_one_did(case):
    op = next(o for o in OPS if case.startswith(o))
    assert RUNS[case]["returncode"] == 1
    with inspector.open_package(PKG) as p:
        r = trace_assert(p, log=(D / "logs" / f"{case}.log").read_text())
    mt = r.matches[0]
    assert mt.index_origin and mt.index_origin[0].input.index == OPS[op]
    assert mt.negative_wrap is _wraps_by_run()[op]
    if mt.negative_wrap:
        assert "(or < -" in mt.verdict and any("pass silently" in n for n in mt.notes)
    else:
        assert "(or < 0)" in mt.verdict and any("-1 already fails" in n for n in mt.notes)


def test_the_sweep_plan_predicts_each_minus_one_as_it_ran():
    with inspector.open_package(PKG) as p:
        rows, *_ = plan(p)
    by = {r.id: r for r in rows}
    wraps = _wraps_by_run()
    for op, i in OPS.items():
        row = by[f"input{i}=-1"]
        assert row.prediction.kind == ("fit" if wraps[op] else "assert"), op
        assert ("wraps" if wraps[op] else "does not wrap") in row.note
