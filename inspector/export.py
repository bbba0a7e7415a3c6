"""Graph export: DOT (written here, no pydot needed) and GraphML (networkx)."""

from __future__ import annotations

import io

import networkx as nx

_SHAPES = {"input": "box", "input_dim": "box", "symbol": "ellipse", "buffer": "cylinder", "kernel": "component",
           "call_site": "cds", "extern_op": "cds", "assertion": "octagon", "fx_node": "note", "constant": "box3d"}


def _q(s) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(g: nx.MultiDiGraph) -> str:
    out = [f"digraph {_q(g.graph.get('model', 'model'))} {{", "  rankdir=LR;"]
    for n, d in g.nodes(data=True):
        label = d.get("name") or d.get("target") or n
        if d.get("type") in ("tmp", "assertion", "call_site", "extern_op", "store"):
            label = f"{label} @{d.get('line')}"
        out.append(f"  {_q(n)} [label={_q(label)}, shape={_SHAPES.get(d.get('type'), 'plaintext')}, type={_q(d.get('type'))}];")
    for u, v, d in g.edges(data=True):
        out.append(f"  {_q(u)} -> {_q(v)} [label={_q(d.get('kind', ''))}];")
    out.append("}")
    return "\n".join(out) + "\n"


def to_graphml(g: nx.MultiDiGraph) -> str:
    h = nx.MultiDiGraph()
    h.graph.update({k: str(v) for k, v in g.graph.items()})
    for n, d in g.nodes(data=True):
        h.add_node(n, **{k: (v if isinstance(v, (int, str)) else str(v)) for k, v in d.items() if v is not None})
    for u, v, d in g.edges(data=True):
        h.add_edge(u, v, **{k: (x if isinstance(x, (int, str)) else str(x)) for k, x in d.items() if x is not None})
    buf = io.BytesIO()
    nx.write_graphml(h, buf)
    return buf.getvalue().decode("utf-8")
