"""Graph export: DOT and JSON (written here) and GraphML (networkx, imported only for it)."""

from __future__ import annotations

import io

import inspector.graph.ids as ids
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
    from ..errors import UsageError

    if thing in g:
        return thing
    tries = [ids.kernel(thing), ids.sym(thing), ids.buf(thing), ids.const(thing), ids.fx(thing), ids.local(thing),
             ids.assertion_at(thing)]  # (KERNEL:LINE as typed)
    if thing.isdigit():
        tries.insert(0, ids.input_(thing))
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
    asserts = [k for k, n in names.items() if ids.kind_of(n) == ids.ASSERT]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"--around {thing}: no such kernel, assertion, input, symbol, buffer or FX node in model "
                     f"{g.graph.get('model')!r}{hint} (assertions: {', '.join(asserts[:10]) or 'none'})")


def _walk(g: MultiDiGraph, start: str, depth: int, max_nodes: int) -> dict[str, int]:
    """The nodes within ``depth`` edges of ``start``, nearest first, with their distance (see `neighbourhood`)."""
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
    return seen


def neighbourhood(g: MultiDiGraph, thing: str, depth: int = 2, max_nodes: int = 150) -> MultiDiGraph:
    """The subgraph within ``depth`` edges of ``thing`` (either direction).

    A kernel node ``contains`` all its params and tmps: it is crossed outward only from where the walk
    starts, so ``--around`` an assertion does not pull in every tmp of its kernel.  At most ``max_nodes``
    nodes are kept (nearest first): `dot` lays out 150 of them in a fraction of a second, 400 in a few.
    """
    start = resolve_node(g, thing)
    seen = _walk(g, start, depth, max_nodes)
    h = g.subgraph(seen).copy()
    h.graph.update(around=start, depth=depth, truncated=len(seen) >= max_nodes)
    return h


def _crossed(g: MultiDiGraph, start: str, depth: int, max_nodes: int) -> list[str]:
    """The nodes whose edges `neighbourhood`'s walk follows: nearer than ``depth``, a kernel only at the start."""
    seen = _walk(g, start, depth, max_nodes)
    return [n for n, d in seen.items() if d < depth and (n == start or g.nodes[n].get("type") != "kernel")]


def _needs(ix, g: MultiDiGraph, nodes) -> tuple[set[str], set[str], set[str]]:
    """What the full graph may hold beyond a lazy model's around these nodes: (run_impl names whose statements
    are needed, kernels whose launches are needed, FX nodes whose calls are needed)."""
    names, kernels, fx = set(), set(), set()
    for n in nodes:
        d = g.nodes[n]
        t = d.get("type")
        if t in ("input", "symbol", "scalar", "constant", "buffer"):
            names.add(d["name"])
            if t == "buffer":
                names.add(d["name"] + "_handle")
        elif t in ("kernel", "kernel_param"):
            kernels.add(d["name"] if t == "kernel" else d["kernel"])
        elif t == "fx_node":
            fx.add(d["name"])
    return names, kernels, fx


def neighbourhood_of(pkg, model: str | None, thing: str, depth: int = 2, max_nodes: int = 150) -> MultiDiGraph:
    """`neighbourhood` of ``thing`` in the model's graph, built from a lazy model that holds the statements
    naming what the walk crosses (`inspector.index.closure`), not from the whole parse: the same nodes, edges
    and order as ``neighbourhood(pkg.graph(model), …)``, at the cost of what is near ``thing``.  A thing the
    lazy model does not name is looked up in the whole graph (for the same error and the same suggestions)."""
    from ..errors import UsageError
    from .build import build_graph
    from ..index import closure

    name = pkg._name(model)
    if name in pkg._models:  # parsed already (or read from the index cache): nothing to save
        return neighbourhood(pkg.graph(name), thing, depth, max_nodes)
    ix = pkg.index(name)
    if ix.parsed_whole:
        return neighbourhood(pkg.graph_of(ix.full()), thing, depth, max_nodes)
    tokens = ids.names_in(thing)
    seed_kernels = {t for t in tokens if ix.kernel_backend(t)}
    seeds = (closure.statements_naming(ix, tokens) | closure.calls_of(ix, seed_kernels)
             | closure.calls_below_comments_naming(ix, tokens - seed_kernels)  # (`kernel:` resolves first)
             | closure.calls_at(ix, ids.numbers_in(thing)))
    kernels, names, fx = set(seed_kernels), set(tokens), set(tokens)
    for _ in range(64):
        m = closure.model_naming(ix, seeds, sorted(kernels, key=ix.kernel_names().index) if kernels else ())
        g = build_graph(m)
        try:
            start = resolve_node(g, thing)
        except UsageError:
            break
        kept = _walk(g, start, depth, max_nodes)
        more_names, more_kernels, more_fx = _needs(ix, g, _crossed(g, start, depth, max_nodes))
        # an edge between two kept nodes comes from a statement the model holds, but for `binds` (param ->
        # value), which any launch of the param's kernel adds: every launch of a kept param's kernel
        more_kernels |= {g.nodes[n]["kernel"] for n in kept if g.nodes[n].get("type") == "kernel_param"}
        more_names -= names
        more_kernels -= kernels
        more_fx -= fx
        if not (more_names or more_kernels or more_fx):
            return neighbourhood(g, thing, depth, max_nodes)
        names |= more_names
        kernels |= more_kernels
        fx |= more_fx
        seeds |= (closure.statements_naming(ix, more_names) | closure.calls_of(ix, more_kernels)
                  | closure.calls_below_comments_naming(ix, more_fx))
    return neighbourhood(pkg.graph(name), thing, depth, max_nodes)
