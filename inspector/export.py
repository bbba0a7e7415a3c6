"""Graph export: DOT and JSON (written here) and GraphML (networkx, imported only for it)."""

from __future__ import annotations

import io

from .minigraph import MultiDiGraph

_SHAPES = {"input": "box", "input_dim": "box", "symbol": "ellipse", "buffer": "cylinder", "kernel": "component",
           "call_site": "cds", "extern_op": "cds", "assertion": "octagon", "fx_node": "note", "constant": "box3d"}


def _q(s) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(g: MultiDiGraph) -> str:
    out = [f"digraph {_q(g.graph.get('model', 'model'))} {{", "  rankdir=LR;"]
    for n, d in g.nodes(data=True):
        t = d.get("type")
        label = d.get("name") or d.get("target") or n
        if t == "assertion":
            label = f"{d.get('message')} @{d.get('line')}"
        elif t == "store":
            label = f"store {d.get('ptr')} @{d.get('line')}"
        elif t == "input_dim":
            label = f"input {d.get('input')} dim {d.get('dim')}"
        elif t in ("tmp", "call_site", "extern_op"):
            label = f"{label} @{d.get('line')}"
        out.append(f"  {_q(n)} [label={_q(label)}, shape={_SHAPES.get(d.get('type'), 'plaintext')}, type={_q(d.get('type'))}];")
    for u, v, d in g.edges(data=True):
        # xlabel, not label: dot places it after layout; a label is a node in the layout (10x slower)
        out.append(f"  {_q(u)} -> {_q(v)} [xlabel={_q(d.get('kind', ''))}];")
    out.append("}")
    return "\n".join(out) + "\n"


def to_graphml(g: MultiDiGraph) -> str:
    import networkx as nx

    h = nx.MultiDiGraph()
    h.graph.update({k: str(v) for k, v in g.graph.items()})
    for n, d in g.nodes(data=True):
        h.add_node(n, **{k: (v if isinstance(v, (int, str)) else str(v)) for k, v in d.items() if v is not None})
    for u, v, d in g.edges(data=True):
        h.add_edge(u, v, **{k: (x if isinstance(x, (int, str)) else str(x)) for k, x in d.items() if x is not None})
    buf = io.BytesIO()
    nx.write_graphml(h, buf)
    return buf.getvalue().decode("utf-8")


def to_json(g: MultiDiGraph) -> str:
    """Node-link JSON: {"model", "nodes": [{"id", "type", …}], "edges": [{"source", "target", "kind", …}]}."""
    import json

    doc = {"model": g.graph.get("model"), "around": g.graph.get("around"), "depth": g.graph.get("depth"),
           "nodes": [{"id": n, **d} for n, d in g.nodes(data=True)],
           "edges": [{"source": u, "target": v, **d} for u, v, d in g.edges(data=True)]}
    return json.dumps(doc, indent=2, default=str) + "\n"


def resolve_node(g: MultiDiGraph, thing: str) -> str:
    """The node ``thing`` names: a node id, KERNEL:LINE (an assertion), a kernel, an input (index or
    wrapper name), a symbol, buffer, constant or FX node name.  A UsageError lists close names otherwise."""
    from .errors import UsageError

    if thing in g:
        return thing
    tries = [f"kernel:{thing}", f"sym:{thing}", f"buf:{thing}", f"const:{thing}", f"fx:{thing}", f"local:{thing}",
             f"assert:{thing}"]
    if thing.isdigit():
        tries.insert(0, f"input:{thing}")
    for t in tries:
        if t in g:
            return t
    for n, d in g.nodes(data=True):
        if d.get("type") == "input" and d.get("name") == thing:
            return n
    import difflib

    names = {}
    for n, d in g.nodes(data=True):
        if d.get("type") in ("kernel", "input", "symbol", "buffer", "constant", "fx_node"):
            names[d.get("name") or n] = n
        elif d.get("type") == "assertion":
            names[f"{d['kernel']}:{d['line']}"] = n
    close = difflib.get_close_matches(thing, list(names), n=5, cutoff=0.5)
    asserts = [k for k, n in names.items() if n.startswith("assert:")]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"--around {thing}: no such kernel, assertion, input, symbol, buffer or FX node in model "
                     f"{g.graph.get('model')!r}{hint} (assertions: {', '.join(asserts[:10]) or 'none'})")


def neighbourhood(g: MultiDiGraph, thing: str, depth: int = 2, max_nodes: int = 150) -> MultiDiGraph:
    """The subgraph within ``depth`` edges of ``thing`` (either direction).

    A kernel node ``contains`` all its params and tmps: it is crossed outward only from where the walk
    starts, so ``--around`` an assertion does not pull in every tmp of its kernel.  At most ``max_nodes``
    nodes are kept (nearest first): `dot` lays out 150 of them in a fraction of a second, 400 in a few.
    """
    start = resolve_node(g, thing)
    seen = {start: 0}
    frontier = [start]
    for d in range(1, depth + 1):
        nxt = []
        for n in frontier:
            if n != start and g.nodes[n].get("type") == "kernel":
                continue
            for m in list(g.successors(n)) + list(g.predecessors(n)):
                if m not in seen and len(seen) < max_nodes:
                    seen[m] = d
                    nxt.append(m)
        frontier = nxt
    h = g.subgraph(seen).copy()
    h.graph.update(around=start, depth=depth, truncated=len(seen) >= max_nodes)
    return h
