"""The chain of one traced failure, as the report draws it: a small graph from the assertion through its bound
(param -> call argument -> symbol -> input dim) and its index origin (tmps, params, buffers, writer kernels) to an
input or constant.

A chain is typed (issue 21 §1: every sentence is in inspector/explain/): each node a ``code`` and the ``facts``
its words use, each edge a code, each source panel a `Panel`; `inspector.explain.report` words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..explain import report as say
from ..graph import ids
from ..model import Kernel, Model
from ..package import Package
from .report_panels import Panel, _Sources
from .trace import TraceMatch


@dataclass
class Node:
    """One box of a chain.  ``code``: what it is, ``facts``: the names and numbers its words use (both listed in
    `inspector.explain.report`, which says them: ``label``, ``detail``); ``kind``: how it is drawn."""

    key: str
    kind: str  # assertion | param | call | symbol | input | tmp | buffer | kernel | constant | value | end
    code: str
    facts: dict = field(default_factory=dict)
    source: Panel | None = None

    @property
    def label(self) -> str:
        return say.node_label(self)

    @property
    def detail(self) -> str:
        return say.node_detail(self)


@dataclass
class Chain:
    """Nodes by key, edges ``(from, to, code)`` (`inspector.explain.report.EDGES` names each code), the root."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    root: str = ""

    def add(self, node: Node) -> str:
        self.nodes.setdefault(node.key, node)
        return node.key

    def link(self, a: str, b: str, code: str = "") -> None:
        if a != b and (a, b, code) not in self.edges:
            self.edges.append((a, b, code))


def _tmp_def(k: Kernel, name: str, before: float):
    best = None
    for t in k.tmps:
        if t.name == name and t.line < before and (best is None or t.line > best.line):
            best = t
    return best


def _bound_term(c: Chain, m: Model, src: "_Sources", mt: TraceMatch, k: Kernel | None, bc, call_line: int | None) -> None:
    """One size parameter of the bound: param -> call argument -> symbol (and aliases) -> input dim."""
    def call_arg() -> str:
        return c.add(Node(f"call:{call_line}:{bc.call_arg}", "call", "call_arg", {"arg": bc.call_arg, "line": call_line},
                          src.wrapper_at(call_line, 3, 2)))

    if k is not None:
        p = c.add(Node(f"param:{mt.kernel}:{bc.kernel_param}", "param", "bound_param",
                       {"param": bc.kernel_param, "kernel": mt.kernel}, src.kernel_head(k)))
        c.link(c.root, p, "bound")
        ca = call_arg()
        c.link(p, ca, "bound_at_call")
    else:  # an extern op: no kernel params, the bound is an argument of the call itself
        ca = call_arg()
        c.link(c.root, ca, "bound")
    prev = ca
    for al in ([bc.symbol] if bc.symbol and bc.symbol != bc.call_arg else []) + list(bc.aliases):
        sy = m.symbols.get(al)
        n = c.add(Node(f"sym:{al}", "symbol", "symbol", {"name": al, "expr": sy.expr if sy else ""},
                       src.wrapper_at(sy.line if sy else None, 2, 2)))
        c.link(prev, n, "alias")
        prev = n
    if bc.definition:
        d = c.add(Node(f"def:{bc.symbol or bc.call_arg}", "symbol", "definition",
                       {"name": bc.symbol or bc.call_arg, "definition": bc.definition, "line": bc.definition_line},
                       src.wrapper_at(bc.definition_line, 2, 2)))
        c.link(prev, d, "defined_as")
        prev = d
    if bc.input:
        inp = m.inputs[bc.input.index] if bc.input.index < len(m.inputs) else None
        guards = [g.line for g in (inp.guards if inp else []) if g.dim == bc.input.dim]
        n = c.add(Node(f"input:{bc.input.index}:dim{bc.input.dim}", "input", "input_dim",
                       {"index": bc.input.index, "name": bc.input.name, "dim": bc.input.dim, "min": bc.min, "max": bc.max},
                       src.wrapper_at(guards[0], 2, 6) if guards else None))
        c.link(prev, n, "size_of")
    else:
        n = c.add(Node(f"bound:unresolved:{bc.kernel_param}", "end", "bound_unresolved", {"param": bc.kernel_param}))
        c.link(prev, n)


def trace_model(pkg: Package, matches: list[TraceMatch], model: str) -> Model:
    """What the chains of ``matches`` in ``model`` read: the slice of the model around their kernels' launches
    (and, for an extern op, around its call), as `trace_assert` reads it; the whole parse only when it is
    there already."""
    mine = [mt for mt in matches if mt.model == model]
    return pkg.index(model).slice(kernels=[mt.kernel for mt in mine if mt.kernel_kind != "extern"],
                                  call_lines=[mt.file_line for mt in mine if mt.kernel_kind == "extern"])


def _step_node(m: Model, src: "_Sources", st, cur: Kernel | None, before: dict[str, float]) -> tuple[Node, Kernel | None]:
    """The node of one step of an index origin's path (a `walk.Step`, drawn by its kind), and the kernel the
    steps after it are in."""
    step = st.name
    if st.kind == "kernel" and step in m.kernels:
        cur = m.kernels[step]
        before[step] = float("inf")
        site = next((s for s in m.calls if s.target == step), None)
        return Node(f"kernel:{step}", "kernel", "writer", {"kernel": step, "line": site.line if site else None},
                    src.wrapper_at(site.line, 3, 2) if site else src.kernel_head(cur)), cur
    if st.kind in ("kernel_param", "store") and cur is not None and cur.param(step):
        return Node(f"param:{cur.name}:{step}", "param", "param", {"param": step, "kernel": cur.name},
                    src.kernel_head(cur)), cur
    if st.kind in ("tmp", "loop_index") and cur is not None and (
            t := _tmp_def(cur, step, before.get(cur.name, float("inf")))) is not None:
        before[cur.name] = t.line
        text = (cur.source_line(t.line) or "").strip().removeprefix("auto ").rstrip(";")
        code = text if text.startswith(step) else f"{step} = {t.expr}"
        return Node(f"tmp:{cur.name}:{t.line}", "tmp", "tmp", {"code": code, "kernel": cur.name, "line": t.line},
                    src.kernel_at(cur, t.line)), cur
    if st.kind in ("buffer", "handle") and step in m.buffers:
        bd = m.buffers[step]
        return Node(f"buf:{step}", "buffer", "buffer", {"name": step, "kind": bd.kind, "line": bd.line},
                    src.wrapper_at(bd.line, 2, 2)), cur
    if st.kind == "input":
        inp = next((i for i in m.inputs if ids.input_(i.index) == st.node_id), None)
        if inp is None:
            return Node(f"v:{step}", "input", "value", {"name": step}), cur
        guards = [g.line for g in inp.guards]
        return Node(f"input:{inp.index}", "input", "input",
                    {"index": inp.index, "name": inp.name, "dtype": inp.dtype, "shape": list(inp.shape)},
                    src.wrapper_at(guards[0], 2, 6) if guards else None), cur
    if st.kind == "constant" and step in m.constant_bindings:
        const = next((x for x in m.constants if x.index == m.constant_bindings[step]), None)
        return Node(f"const:{step}", "constant", "constant", {"name": step, "fqn": const.fqn if const else None}), cur
    return Node(f"v:{step}", "value", "value", {"name": step}), cur


def trace_chain(pkg: Package, mt: TraceMatch, m: Model | None = None, src: _Sources | None = None) -> Chain:
    """The chain of one match: assertion -> bound -> call argument -> symbol -> input/dim, and the index
    origin through tmps, params, buffers and writer kernels to an input or constant.  ``m``: the model it
    reads (default: `trace_model` of this match alone); ``src``: its lines, when already read."""
    m = m if m is not None else trace_model(pkg, [mt], mt.model)
    src = src if src is not None else _Sources(pkg, m)
    k = m.kernels.get(mt.kernel)
    a = mt.assertion
    c = Chain()
    call_line = mt.call_sites[0] if mt.call_sites else None
    extern = mt.kernel_kind == "extern"
    # An extern ATen op checks inside ATen: its "line" is the wrapper.cpp line of the failing call.
    at = src.kernel_at(k, mt.file_line) if k is not None else src.wrapper_at(mt.file_line, 3, 2)
    c.root = c.add(Node(f"assert:{mt.kernel}:{mt.file_line}", "assertion", "assertion",
                        {"kernel": mt.kernel, "line": mt.file_line, "message": a.message, "extern": extern}, at))

    # The bound.
    if mt.static_bound is not None:
        b = c.add(Node("bound:static", "constant", "static_bound",
                       {"expr": a.bound_expr, "value": mt.static_bound, "in_kernel": k is not None}, at))
        c.link(c.root, b, "bound")
    elif mt.bound:
        # Every size parameter of the bound (one, or several in a compound bound such as `ks0 + ks1`).
        for t in (mt.bound.terms or [mt.bound]):
            _bound_term(c, m, src, mt, k, t, call_line)

    # Where the index comes from.
    for o in mt.index_origin:
        prev = c.root
        cur = k
        before: dict[str, float] = {mt.kernel: mt.file_line}
        code = "index"
        for st in o.path:  # each step is typed where the walk took it (`walk.Step`): drawn by its kind
            node, cur = _step_node(m, src, st, cur, before)
            key = c.add(node)
            c.link(prev, key, code)
            code = ""
            prev = key
        end = None
        if o.constant and f"const:{o.constant}" not in c.nodes:
            end = Node(f"const:{o.constant}", "constant", "constant", {"name": o.constant, "fqn": None})
        elif o.computed:
            end = Node(f"end:computed:{o.computed}", "end", "computed", {"text": o.computed})
        elif o.unresolved:
            end = Node(f"end:unresolved:{o.unresolved}", "end", "stopped", {"text": o.unresolved})
        if end is not None:
            c.link(prev, c.add(end))
    return c
