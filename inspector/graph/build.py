"""The model as a graph: what defines, binds, reads and writes what.

Nodes (``id``: ``type``)::

    input:K            input         a model input (position K)
    dim:K:D            input_dim     its dimension D
    sym:sN             symbol        int64_t sN = argK_1_size[D];   (aliases too)
    local:NAME         scalar        int64_t x_xnumel = 8L*s59;
    const:NAME         constant      a constant bound in run_impl
    buf:NAME           buffer        an allocation, reuse or view
    kernel:NAME        kernel        a Triton or CPU kernel
    call:LINE          call_site     a kernel launch in run_impl (wrapper line)
    extern:LINE        extern_op     an extern op call in run_impl
    param:KERNEL:NAME  kernel_param  in_ptr0, out_ptr1, ks0…
    tmp:KERNEL:LINE    tmp           one tmpN definition (kernel-file line)
    assert:KERNEL:LINE assertion
    fx:NAME            fx_node       a source FX node named by the wrapper or provenance

Edges carry ``kind``: ``has_dim`` (input→dim), ``defines`` (dim→symbol),
``aliases`` (newer→older name, symbols and buffers), ``binds`` (param→value,
with ``call``), ``launches`` (call→kernel), ``reads`` (value→call),
``writes`` (call→buffer), ``contains`` (kernel→param/tmp/assertion),
``uses`` (tmp→tmp|param), ``loads`` (tmp→pointer param), ``asserts_on``
(assertion→tmp), ``bounded_by`` (assertion→param|symbol), ``originates_from``
(call→fx node).
"""

from __future__ import annotations

import inspector.graph.ids as ids
from .minigraph import MultiDiGraph
from ..model import CallSite, Kernel, Model, TmpDef
from ..parse.tokens import identifiers_and_suffixes


def value_node(m: Model, name: str | None) -> str | None:
    """The graph node a run_impl name stands for (input, symbol, local, constant or buffer)."""
    if not name:
        return None
    inp = m.input_by_name(name)
    if inp is not None:
        return ids.input_(inp.index)
    if name in m.symbols:
        return ids.sym(name)
    if name in m.locals:
        return ids.local(name)
    if name in m.constant_bindings:
        return ids.const(name)
    if name in m.buffers:
        return ids.buf(name)
    return None


def resolve_tmp(kernel: Kernel, name: str, line: int, scope: tuple[int, ...]) -> TmpDef | None:
    """The definition of ``name`` visible at ``line`` in ``scope`` (nearest earlier, same or enclosing block)."""
    best = None
    for t in kernel.tmps:
        if t.name == name and t.line < line and scope[: len(t.scope)] == t.scope:
            if best is None or t.line > best.line:
                best = t
    return best


def call_params(m: Model, site: CallSite) -> list[str]:
    """Parameter names in call-argument order: the launcher's for Triton, the signature's for CPU."""
    if site.target in m.launcher_params:
        return [p.name for p in m.launcher_params[site.target]]
    k = m.kernels.get(site.target)
    return [p.name for p in k.params] if k else []


def build_graph(m: Model) -> MultiDiGraph:
    """The graph of a model or of a slice of one (`inspector.graph.minigraph.MultiDiGraph`: networkx's interface,
    without its import cost; `inspector.graph.export` hands it to networkx for GraphML)."""
    g = MultiDiGraph(model=m.name)
    for inp in m.inputs:
        g.add_node(ids.input_(inp.index), type="input", name=inp.name, index=inp.index)
    for sym in m.symbols.values():
        g.add_node(ids.sym(sym.name), type="symbol", name=sym.name, line=sym.line)
        if sym.alias_of:
            g.add_edge(ids.sym(sym.name), ids.sym(sym.alias_of), kind="aliases")
        elif sym.input is not None and sym.dim is not None:
            d = ids.dim(sym.input, sym.dim)
            g.add_node(d, type="input_dim", input=sym.input, dim=sym.dim)
            g.add_edge(ids.input_(sym.input), d, kind="has_dim")
            g.add_edge(d, ids.sym(sym.name), kind="defines")
    for name, expr in m.locals.items():
        g.add_node(ids.local(name), type="scalar", name=name, expr=str(expr))
        for n in expr.names:
            v = value_node(m, n)
            if v and v != ids.local(name):
                g.add_edge(ids.local(name), v, kind="uses")
    for name, idx in m.constant_bindings.items():
        c = next((c for c in m.constants if c.index == idx), None)
        g.add_node(ids.const(name), type="constant", name=name, fqn=c.fqn if c else None)
    for b in m.buffers.values():
        g.add_node(ids.buf(b.name), type="buffer", name=b.name, line=b.line, how=b.kind)
        if b.origin and value_node(m, b.origin):
            g.add_edge(ids.buf(b.name), value_node(m, b.origin), kind="aliases", line=b.line)
    for k in m.kernels.values():
        _add_kernel(g, k)
    for site in m.calls:
        _add_call(g, m, site)
    return g


def _add_kernel(g: MultiDiGraph, k: Kernel):
    kn = ids.kernel(k.name)
    g.add_node(kn, type="kernel", name=k.name, kind=k.backend, flavor=k.heuristic)
    for p in k.params:
        pn = ids.param(k.name, p.name)
        g.add_node(pn, type="kernel_param", name=p.name, role=p.role, kernel=k.name)
        g.add_edge(kn, pn, kind="contains")
    params = {p.name for p in k.params}

    def link(src: str, names, line: int, scope):
        for n in dict.fromkeys(names):
            if n in params:
                role = k.param(n).role
                g.add_edge(src, ids.param(k.name, n), kind="loads" if role in ("in", "inout") else "uses")
                continue
            t = resolve_tmp(k, n, line, scope)
            if t is not None:
                g.add_edge(src, ids.tmp(k.name, t.line), kind="uses")

    for t in k.tmps:
        tn = ids.tmp(k.name, t.line)
        g.add_node(tn, type="tmp", name=t.name, kernel=k.name, line=t.line, expr=str(t.expr))
        g.add_edge(kn, tn, kind="contains")
    for t in k.tmps:
        link(ids.tmp(k.name, t.line), t.expr.names, t.line, t.scope)
    for s in k.stores:
        sn = ids.store(k.name, s.line)
        g.add_node(sn, type="store", kernel=k.name, line=s.line, ptr=s.ptr)
        if s.ptr in params:
            g.add_edge(ids.param(k.name, s.ptr), sn, kind="stored_by")
        link(sn, s.value.names, s.line + 0.5, s.scope)
    for a in k.assertions:
        an = ids.assertion(k.name, a.line)
        g.add_node(an, type="assertion", kernel=k.name, line=a.line, message=a.message)
        g.add_edge(kn, an, kind="contains")
        if a.index_var:
            t = resolve_tmp(k, a.index_var, a.line, a.scope)
            if t is not None:
                g.add_edge(an, ids.tmp(k.name, t.line), kind="asserts_on")
            elif a.index_var in params:
                g.add_edge(an, ids.param(k.name, a.index_var), kind="asserts_on")
        for n in identifiers_and_suffixes(a.bound_expr):
            if n in params:
                g.add_edge(an, ids.param(k.name, n), kind="bounded_by")


def _add_call(g: MultiDiGraph, m: Model, site: CallSite):
    cn = ids.site(site.kind, site.line)
    g.add_node(cn, type="call_site" if site.kind == "kernel" else "extern_op", target=site.target, line=site.line)
    for node in site.source_nodes:
        g.add_node(ids.fx(node), type="fx_node", name=node)
        g.add_edge(cn, ids.fx(node), kind="originates_from")
    if site.kind == "extern":
        for b in site.reads:
            v = value_node(m, b)
            if v:
                g.add_edge(v, cn, kind="reads", line=site.line)
        for b in site.writes:
            v = value_node(m, b)
            if v:
                g.add_edge(cn, v, kind="writes", line=site.line)
        return
    g.add_edge(cn, ids.kernel(site.target), kind="launches")
    k = m.kernels.get(site.target)
    names = call_params(m, site)
    for pname, arg in zip(names, site.args):
        v = value_node(m, arg.base)
        if not v or (k and not k.param(pname)):
            continue
        role = k.param(pname).role if k else "other"
        g.add_edge(ids.param(site.target, pname), v, kind="binds", call=cn, arg=str(arg))
        if role in ("in", "inout", "size"):
            g.add_edge(v, cn, kind="reads", line=site.line)
        if role in ("out", "inout"):
            g.add_edge(cn, v, kind="writes", line=site.line, param=pname)
