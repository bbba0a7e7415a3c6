"""trace-assert on the issue 8 patterns, on the real CPU zoo (torch 2.13) and their real error logs:
compound bounds, an index the same kernel stored, failures inside extern ATen ops."""

from __future__ import annotations

import json

import pytest
from _samples import S

import inspector
from inspector.cli import main
from inspector.queries.bound_walk import limit_words
from inspector.queries.walk import BoundTerm, InputRef
from inspector import trace_assert

CPU = S / "cpu"


def _trace_json(name: str, capsys, *extra) -> dict:
    pkg = CPU / name / f"{name}.pt2"
    assert main(["trace-assert", str(pkg), "--log", str(CPU / name / "error.log"), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name,op,limit", [
    ("take", "*", "input 0's dim 1 * input 0's dim 0"),
    ("cat_index", "+", "input 0's dim 0 + input 1's dim 0"),
])
def test_compound_bound_has_one_term_per_size_parameter(name, op, limit, capsys):
    man = json.loads((CPU / name / "manifest.json").read_text())
    r = _trace_json(name, capsys)
    m = r["matches"][0]
    assert op in m["assertion"]["bound_expr"]
    terms = m["bound"]["terms"]
    assert len(terms) == 2
    for t in terms:
        assert {"kernel_param", "call_arg", "symbol", "input", "min", "max"} <= set(t)
        assert {"index", "name", "dim"} <= set(t["input"])
        assert t["min"] is not None and t["max"] is not None
    assert sorted((t["input"]["index"], t["input"]["dim"]) for t in terms) == sorted(
        (t["index"], t["dim"]) for t in man["expect"]["bound_terms"])
    assert m["bound"]["limit"] == limit
    assert limit in m["verdict"] and m["complete"]
    # The advice states the real limit, never one term alone.
    assert all("0..(input 0 dim 0) - 1" not in h["text"] for h in m["hypotheses"])
    assert any(f"..({limit}) - 1" in h["text"] for h in m["hypotheses"])


def test_limit_words_with_user_names():
    a = BoundTerm("ks0", "s1", "s1", InputRef(0, "arg0_1", 0, "a"), 2, 8)
    b = BoundTerm("ks1", "s2", "s2", InputRef(1, "arg1_1", 0, "b"), 2, 8)
    assert limit_words("ks0 + ks1", [a, b]) == "`a`.size(0) + `b`.size(0)"
    assert limit_words("(-1) + ks0", [a]) == "(-1) + `a`.size(0)"


def test_index_stored_by_the_same_kernel_is_followed(capsys):
    """argmax -> embedding: tmp0 = out_ptr0[x0], which the kernel stored from an argmax over in_ptr0."""
    man = json.loads((CPU / "argmax_embedding/manifest.json").read_text())
    m = _trace_json("argmax_embedding", capsys)["matches"][0]
    (o,) = m["index_origin"]
    assert o["input"]["index"] == man["expect"]["index_input"]
    assert "out_ptr0" in o["path"] and o["path"][-1] == "input 0"
    assert o["computed"] is None and o["unresolved"] is None
    assert m["verdict"].startswith("an index computed from input 0")
    assert any("stores out_ptr0 and reads it back" in h for h in m["notes"])


def test_cpu_exception_in_an_extern_op_is_that_op(capsys):
    man = json.loads((CPU / "embedding_bag/manifest.json").read_text())
    r = _trace_json("embedding_bag", capsys)
    m = r["matches"][0]
    assert (m["kernel"], m["kernel_kind"]) == (man["expect"]["kernel"], "extern")
    assert m["assertion"]["op"] == man["expect"]["extern_op"]
    assert [o["input"]["index"] for o in m["index_origin"]] == [man["expect"]["index_input"]]
    assert m["table"]["fqn"] == "bag.weight" and m["static_bound"] == 300
    assert m["complete"]
    # On CPU the named call is the one that failed, not "the next call that noticed it".
    assert not any("next call that noticed" in c for c in r["context"])


def test_aten_cuda_kernel_assert_maps_to_the_extern_calls_that_launch_it():
    """The EmbeddingBag.cu line quoted in FORMAT_NOTES (torch 2.11 CUDA), against the real package whose
    run_impl calls _embedding_bag (CPU here: the mapping is by op name)."""
    line = ("/pytorch/aten/src/ATen/native/cuda/EmbeddingBag.cu:149: EmbeddingBag_updateOutputKernel_sum_mean: "
            "block: [0,0,0], thread: [0,0,0] Assertion `!has_invalid_index && \"Invalid input index in "
            "EmbeddingBag: index out of range [0, numRows)\"` failed.")
    with inspector.open_package(CPU / "embedding_bag/embedding_bag.pt2") as p:
        r = trace_assert(p, log=line)
    (m,) = r.matches
    assert (m.kernel, m.kernel_kind) == ("aoti_torch_cpu__embedding_bag", "extern")
    assert "EmbeddingBag_updateOutputKernel_sum_mean" in m.matched_by
    assert [o.input.index for o in m.index_origin] == [0]


@pytest.mark.parametrize("pkg,log", [
    # Real torch 2.8 run: the unchecked call printed `Exception in aoti_torch: index 20 …` and went on.
    ("cpu-2.8/scatter_reduce/scatter_reduce.pt2", "cpu-2.8/scatter_reduce/error.log"),
    # torch 2.13 emits the same unchecked call but its run printed nothing: the 2.8 line against it.
    ("cpu/scatter_reduce/scatter_reduce.pt2", "cpu-2.8/scatter_reduce/error.log"),
])
def test_swallowed_exception_in_aoti_torch_points_at_the_unchecked_call(pkg, log):
    text = (S / log).read_text()
    assert "Exception in aoti_torch: index 20 is out of bounds for dimension 0 with size 16" in text
    with inspector.open_package(S / pkg) as p:
        r = trace_assert(p, log=text)
    (m,) = r.matches
    assert (m.kernel, m.kernel_kind) == ("aoti_torch_cpu_scatter_reduce_two_out", "extern")
    assert [o.input.index for o in m.index_origin] == [1]
    # The table is buf0, a copy of input 0 made by the kernel before: the limit is input 0's dim 0.
    assert m.static_bound is None and m.table.from_inputs == [0]
    assert [(t.input.index, t.input.dim) for t in m.bound.terms] == [(0, 0)]
    assert m.complete and "garbage" in m.matched_by
