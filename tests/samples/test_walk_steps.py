"""An index origin's path is typed where the walk takes each step (`walk.Step`): its kind, and the graph node it
is, which ``graph --json`` lists.  Real packages and the real logs they printed: a Triton index through a
cumsum's buffer (cuda/jagged), a CPU argmax stored and read back in one kernel (cpu/argmax_embedding), a topk's
positions (cpu/topk_gather) and a torch.cond subgraph's handle to the caller's input (options/cond_index_cuda)."""

from __future__ import annotations

import json

import pytest

import inspector
from inspector.graph.export import to_json
from inspector import trace_assert
from inspector.queries.walk import Step

from _paths import S

KINDS = {"tmp", "loop_index", "kernel_param", "store", "call_arg", "input", "constant", "buffer", "handle", "kernel",
         "extern_op", "value"}

# package, log, the kinds the first origin's path goes through (in order, a run of one kind once), and whether the
# values pass through a buffer or a store (computed from the input, not read from it)
CASES = [
    ("cuda/jagged/jagged.pt2", "cuda/jagged/error.log",
     ["tmp", "kernel_param", "buffer", "kernel", "store", "tmp", "kernel_param", "input"], True),
    ("cpu/argmax_embedding/argmax_embedding.pt2", "cpu/argmax_embedding/error.log",
     ["tmp", "store", "tmp", "kernel_param", "call_arg", "input"], True),
    ("cpu/topk_gather/topk_gather.pt2", "cpu/topk_gather/error.log",
     ["tmp", "kernel_param", "call_arg", "buffer", "extern_op", "input"], True),
    ("options/cond_index_cuda/cond_index_cuda.pt2", "options/cond_index_cuda/logs/oob_true.log",
     ["tmp", "kernel_param", "handle", "extern_op", "input"], False),
]


def _runs(kinds: list[str]) -> list[str]:
    return [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]


@pytest.mark.parametrize("pkg_rel,log_rel,kinds,through", CASES, ids=[c[0].split("/")[1] for c in CASES])
def test_steps_are_typed_graph_nodes(pkg_rel, log_rel, kinds, through):
    with inspector.open_package(S / pkg_rel) as pkg:
        r = trace_assert(pkg, log=(S / log_rel).read_text())
        assert r.matches, r.verdict
        mt = r.matches[0]
        assert mt.index_origin and mt.index_origin[0].input is not None
        o = mt.index_origin[0]
        assert all(isinstance(s, Step) and s.kind in KINDS for s in o.path), o.path
        assert _runs([s.kind for s in o.path]) == kinds
        assert o.through_buffer is through
        # every node a step names is a node of the model's graph, as `graph --json` writes it
        graph = json.loads(to_json(pkg.graph(mt.model)))
        nodes = {n["id"]: n for n in graph["nodes"]}
        steps = [s for s in o.path if s.node_id is not None]
        assert len(steps) == len(o.path)
        for s in steps:
            assert s.node_id in nodes, s
            want = {"tmp": "tmp", "kernel_param": "kernel_param", "store": "kernel_param", "input": "input",
                    "buffer": "buffer", "handle": "buffer", "kernel": "call_site", "extern_op": "extern_op"}.get(s.kind)
            if want:
                assert nodes[s.node_id]["type"] == want, s
        # the JSON answer writes the path as names, as before
        d = r.to_dict()["matches"][0]["index_origin"][0]
        assert d["path"] == [s.name for s in o.path]


def test_the_assertion_is_typed_and_its_json_unchanged():
    with inspector.open_package(S / "cuda/jagged/jagged.pt2") as pkg:
        r = trace_assert(pkg, log=(S / "cuda/jagged/error.log").read_text())
    mt = r.matches[0]
    assert mt.assertion.kernel == mt.kernel and mt.assertion.line == mt.file_line
    d = r.to_dict()["matches"][0]["assertion"]
    assert list(d) == ["message", "index_var", "bound_expr", "lower_bound", "condition", "wrapper_line", "checks"]
    assert d["message"] == mt.assertion.message and d["index_var"] == mt.assertion.index_var
