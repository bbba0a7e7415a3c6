"""The report's chains are typed (queries/report_chain.py: a node's code and facts, an edge's code, a source `Panel`) and
worded in one place (explain/report.py): every code the query makes has its words there, and the words are what
the page drew before they moved (the snapshot of every sample's report.html is byte-identical)."""

from __future__ import annotations

import ast

import pytest

from inspector.explain import report as say
from inspector.queries.report_chain import Chain, Node
from inspector.queries.report_panels import Panel

from _paths import ROOT

PKG = ROOT / "inspector"
REPORT_MODULES = ("queries/report.py", "queries/report_chain.py", "queries/report_panels.py")


def _made(kind: str) -> set[str]:
    """The codes the report's modules make: ``Node(key, kind, CODE, …)``'s, ``c.link(a, b, CODE)``'s, ``Panel(file,
    VIEW, …)``'s (string literals only; a code held in a variable is each literal assigned to it)."""
    tree = ast.Module([s for rel in REPORT_MODULES for s in ast.parse((PKG / rel).read_text()).body], [])
    out: set[str] = set()
    at = {"node": ("Node", 2), "edge": ("link", 2), "panel": ("Panel", 1)}[kind]
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if name == at[0] and len(n.args) > at[1] and isinstance(n.args[at[1]], ast.Constant):
                out.add(n.args[at[1]].value)
    if kind == "edge":  # `code = "index"` … `c.link(prev, key, code)`
        out |= {n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                and any(isinstance(t, ast.Name) and t.id == "code" for t in n.targets)}
    return out


FACTS = {
    "assertion": {"kernel": "k", "line": 38, "message": "index out of bounds: 0 <= tmp9 < ks0", "extern": False},
    "static_bound": {"expr": "1000L", "value": 1000, "in_kernel": True},
    "bound_param": {"param": "ks0", "kernel": "k"},
    "call_arg": {"arg": "s0", "line": 120},
    "symbol": {"name": "s1", "expr": "s0"},
    "definition": {"name": "s0", "definition": "arg0_1_size[0]", "line": 80},
    "input_dim": {"index": 0, "name": "arg0_1", "dim": 0, "min": 2, "max": None},
    "bound_unresolved": {"param": "ks0"},
    "writer": {"kernel": "k2", "line": None},
    "param": {"param": "in_ptr1", "kernel": "k"},
    "tmp": {"code": "tmp0 = in_ptr1[x0]", "kernel": "k", "line": 30},
    "buffer": {"name": "buf0", "kind": "alloc", "line": 90},
    "input": {"index": 1, "name": "arg1_1", "dtype": "int64", "shape": ["s0", 8]},
    "constant": {"name": "_frozen_param0", "fqn": None},
    "value": {"name": "x"},
    "computed": {"text": "x0 is computed from the loop index"},
    "stopped": {"text": "tmp3"},
}


def test_every_code_the_query_makes_has_its_words():
    nodes, edges, panels = _made("node"), _made("edge"), _made("panel")
    assert {"assertion", "input_dim", "tmp", "writer"} <= nodes and {"bound", "index", ""} <= edges  # the scan reads them
    assert nodes == set(FACTS), nodes ^ set(FACTS)
    assert edges == set(say.EDGES), edges ^ set(say.EDGES)
    for code in nodes:
        n = Node("k", "value", code, FACTS[code])
        assert n.label and isinstance(n.detail, str), code
    assert panels == {"wrapper", "kernel", "signature", "around"}
    for view in panels:
        assert say.panel_title(Panel("f", view, [[1, "x"]], 1, "k", "cpp"))
    with pytest.raises(KeyError):
        say.node_label(Node("k", "value", "no_such_code"))
    with pytest.raises(KeyError):
        say.edge_label("no_such_edge")


def test_the_words_are_the_ones_the_page_drew():
    """Word for word what queries/report.py wrote before the words moved (read off the real reports)."""
    got = {c: (Node("k", "value", c, f).label, Node("k", "value", c, f).detail) for c, f in FACTS.items()}
    assert got["assertion"] == ("assert line 38: 0 <= tmp9 < ks0", "k, line 38")
    ext = Node("k", "assertion", "assertion", {**FACTS["assertion"], "extern": True})
    assert (ext.label, ext.detail) == ("extern call, wrapper.cpp line 38: 0 <= tmp9 < ks0", "k, wrapper.cpp line 38")
    assert got["static_bound"] == ("bound 1000L = 1000 (a constant)", "the bound is a number baked into the kernel")
    assert got["input_dim"] == ("input 0 (arg0_1) dim 0", "guards allow 2..? (only with AOTI_RUNTIME_CHECK_INPUTS=1)")
    assert got["writer"] == ("kernel k2", "writes the buffer")
    assert got["input"] == ("input 1 (arg1_1)", "int64 [s0, 8]")
    assert got["constant"] == ("constant _frozen_param0", "") and got["stopped"][0] == "? tmp3"
    assert say.panel_title(Panel("f", "kernel", [], 3, "triton_poi_0", "triton")) == "triton_poi_0 (its .py numbering)"
    assert say.panel_title(Panel("f", "around", [], 38, "k")) == "k around line 38"


def test_a_chain_is_codes():
    c = Chain()
    c.root = c.add(Node("a", "assertion", "assertion", FACTS["assertion"]))
    c.link(c.root, c.add(Node("b", "constant", "static_bound", FACTS["static_bound"])), "bound")
    c.link(c.root, c.root, "bound")  # no loop
    assert c.edges == [("a", "b", "bound")] and say.edge_label(c.edges[0][2]) == "bounded by"
