"""Issue 35 §1: the element the failing threads held, against truth by construction.

sample_packages/harvest/issue35_gpu holds real H200 runs (torch 2.11, Triton 3.6) with one bad id planted per run at
a known element of a known input (`index.json`'s `truth`): pointwise 1-D (pw1d, pw1d_emb), a tiled 2-D grid
(tiled2d), a persistent reduction (per_red), a looped reduction (red_loop), a dynamic shape (dyn), the torch.cond
branch (cond_branch).  The element trace-assert names must be the planted one.  On main no answer names one.
"""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from inspector.logs import parse_log
from inspector.package import open_package
from inspector.queries.trace import trace_assert

from _paths import S

pytestmark = pytest.mark.samples

H = S / "harvest" / "issue35_gpu"


def _truth_runs():
    out = []
    for idx in sorted(H.glob("*/index.json")):
        d = json.loads(idx.read_text())
        for r in d["runs"]:
            t = r.get("truth") or {}
            if t.get("element") and r["right_category"] == "index_assert" and d["case"] != "gat":  # gat: a buffer
                out.append(pytest.param(d["case"], r["log"], t, id=f"{d['case']}-{r['scenario']}"))
    return out


TRUTH = _truth_runs()


def _trace(case: str, log: str, sizes=None):
    pkg = open_package(H / case / f"{case}.pt2")
    return trace_assert(pkg, report=parse_log((H / case / log).read_text()), sizes=sizes)


def test_truth_runs_cover_every_kernel_kind():
    cases = {p.values[0] for p in TRUTH}
    assert {"pw1d", "pw1d_emb", "tiled2d", "per_red", "red_loop", "dyn", "cond_branch", "pw_i32", "row1",
            "big1d"} <= cases
    assert len(TRUTH) >= 20


@pytest.mark.parametrize("case,log,truth", TRUTH)
def test_predicted_element_is_the_planted_one(case, log, truth):
    sizes = {truth["input"]: truth["sizes"]} if case == "dyn" else None  # dyn: both dims are symbols
    res = _trace(case, log, sizes)
    el = res.matches[0].element
    assert el is not None and el.named, el
    assert el.tensor == "input" and el.input == truth["input"]
    assert truth["flat"] in el.candidates or all(isinstance(c, str) for c in el.candidates)  # row1: ks0 + 7
    assert truth["element"] in el.elements
    assert len(el.candidates) <= 2  # at most the thread's 2-wide int64 vector
    assert any("contiguous" in x for x in el.assumptions)
    assert any("num_warps" in x for x in el.assumptions)


def test_a_symbolic_offset_is_placed_by_the_launch_argument_the_input_shape_names():
    # w[ei[1]] with num_edges dynamic: the load is ks0 + x0, ks0 is launched as the symbol of ei's dim 1
    el = _trace("row1", "logs/bad_1_7.log").matches[0].element
    assert el.candidates == ["ks0 + 7"] and el.elements == [[1, 7]]
    assert any("inside that dim" in x for x in el.assumptions)


def test_dynamic_shape_without_sizes_gives_the_flat_offset_and_says_what_is_unknown():
    el = _trace("dyn", "logs/bad_1_40.log").matches[0].element
    assert 540 in el.candidates  # ids [3, 500]: [1, 40]
    assert el.elements and all(e is None for e in el.elements)
    assert any("symbol" in u for u in el.unknown)


def test_a_log_that_prints_too_few_threads_says_so():
    # the real looped-reduction run printed 480 of the 512 threads of block 3 that hold ids[0, 3]
    el = _trace("red_loop", "logs/bad_0_3.log").matches[0].element
    assert el.elements == [[0, 3]]
    assert el.too_few_threads and "480 of the 512" in el.too_few_threads
    full = _trace("red_loop", "logs/bad_2_9.log").matches[0].element
    assert full.too_few_threads is None


def test_a_cut_log_with_one_thread_of_a_replicated_element(tmp_path):
    # per_red holds each row in 8 threads (one per warp); keep only the first thread line
    lines = (H / "per_red" / "logs" / "bad_1_100.log").read_text().splitlines()
    first = next(i for i, x in enumerate(lines) if "thread:" in x)
    cut = [x for i, x in enumerate(lines) if "thread:" not in x or i == first]
    res = trace_assert(open_package(H / "per_red" / "per_red.pt2"), report=parse_log("\n".join(cut)))
    el = res.matches[0].element
    assert el.elements == [[1, 100]]
    assert "1 of the 8 threads" in el.too_few_threads


def test_cpu_check_names_no_element_and_says_what_to_run(capsys):
    d = S / "cpu" / "embedding"
    assert main(["diagnose", str(next(d.glob("*.pt2"))), "--log", str(d / "error.log"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    el = out["trace"]["matches"][0]["element"]
    assert el["named"] is False and "no block or thread" in el["why"]
    assert "repro" in el["why"] and "sweep" in el["why"]


def test_element_in_the_text_and_json_of_trace_assert_and_diagnose(capsys):
    pkg, log = H / "cond_branch" / "cond_branch.pt2", H / "cond_branch" / "logs" / "bad_false.log"
    assert main(["trace-assert", str(pkg), "--log", str(log)]) == 0
    assert "[2, 1]" in capsys.readouterr().out
    assert main(["diagnose", str(pkg), "--log", str(log), "--json"]) == 0
    el = json.loads(capsys.readouterr().out)["trace"]["matches"][0]["element"]
    assert el["elements"] == [[2, 1]] and el["input"] == 1
    assert el["config"]["num_warps"] == 1


def test_intermediate_buffer_gives_its_offsets_not_a_guess():
    # GAT: the dst ids are read from a cat of edge_index row 1 with the self loops; edge 7 is at offset 7 of it
    el = _trace("gat", "logs/oob_dst.log").matches[0].element
    assert el.tensor == "buffer" and el.from_input == 1
    assert 7 in el.candidates and not el.elements
