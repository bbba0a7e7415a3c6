"""The index walk: an assertion's index to the tensors its values come from, through the kernel's tmps and loads,
the launches and extern ops that wrote each buffer, back to a model input or constant; and the tensor a pointer
argument binds (`value_table`)."""

from __future__ import annotations

import inspector.explain.trace as say
import inspector.graph.ids as ids
from ..dialects.base import Dialect
from ..model import Assertion, CallSite, Kernel, Model
from ..parse import expr_tree as E
from ..parse.names import is_accumulator, is_loop_index, is_tmp
from .bound_walk import index_span, span_words
from .walk import IndexOrigin, InputRef, Step, TableRef, edges, node_step, value_step


def index_origins(m: Model, g, k: Kernel, a: Assertion, site: CallSite | None) -> list[IndexOrigin]:
    an = ids.assertion(k.name, a.line)
    start = next((v for v, _ in edges(g, an, "asserts_on")), None)
    if start is None:
        if is_loop_index(a.index_var):
            return [IndexOrigin(input=None, constant=None, path=[Step("loop_index", a.index_var)],
                                computed=say.loop_index(a.index_var))]
        return [IndexOrigin(input=None, constant=None, path=[Step("tmp", a.index_var or "?")],
                            unresolved=say.no_definition(a.index_var, k.name))]
    out: list[IndexOrigin] = []
    seen: set = set()
    first = node_step(g, start)
    loads = walk_kernel(m, g, k, start, site, [first], out, seen, 0)
    made = [x for x in seen if len(x) == 3 and x[0] == "computed"]  # a writer that computes its store
    if not out and loads and not made:  # it reads a tensor, but every trail ended without saying where: the walk gave up
        out.append(IndexOrigin(input=None, constant=None, path=[first],
                               unresolved=say.walk_lost(a.index_var)))
    elif not out:
        span = index_span(m, g, k, a, site)
        out.append(IndexOrigin(input=None, constant=None, path=[first],
                               computed=say.computed_index(a.index_var, span_words(span) if span else "")))
    return dedupe(out)


def dedupe(out: list[IndexOrigin]) -> list[IndexOrigin]:
    uniq: dict[tuple, IndexOrigin] = {}
    for o in out:
        key = (o.input.index if o.input else None, o.constant, o.unresolved, o.computed)
        uniq.setdefault(key, o)
    return list(uniq.values())


def _line(g, n) -> float:
    x = g.nodes[n].get("line")
    return float(x) if isinstance(x, (int, float)) else float("inf")


def _accumulator_edges(g, k: Kernel, store_node: str) -> list[tuple]:
    """A CPU reduction stores its accumulator (``out_ptr0[x0] = tmp_acc0.index``); the accumulator is
    updated by plain assignments the tmp grammar does not cover (``tmp_acc0_vec = argmax_combine_vec(…,
    tmp0, x1)``: ``Kernel.acc_updates``).  Link the tmps/params those before the store use."""
    from ..graph.build import resolve_tmp

    line = g.nodes[store_node].get("line")
    st = next((x for x in k.stores if x.line == line), None)
    accs = {n.split("_vec")[0] for n in E.names(st.value.tree) if is_accumulator(n)} if st is not None else set()
    if not accs:
        return []
    out = []
    for up in k.acc_updates:
        if up.line >= line or up.base not in accs:
            continue
        ln = up.line
        for name in (up.value.names if E.has_opaque(up.value.tree) else E.names(up.value.tree)):
            p = k.param(name)
            if p is not None and p.role in ("in", "inout"):
                out.append((store_node, ids.param(k.name, name), {"kind": "loads"}))
                continue
            if is_tmp(name):
                scope = next((t.scope for t in k.tmps if t.name == name and t.line < ln), ())
                t = resolve_tmp(k, name, ln, scope)
                if t is not None:
                    out.append((store_node, ids.tmp(k.name, t.line), {"kind": "uses"}))
    return out


def walk_kernel(m, g, k, start, site, path, out, seen, depth) -> int:
    """From a tmp/store inside ``k``, follow uses to loads, then out through the call's arguments; returns how
    many loads it followed (0: the value reads no tensor).

    A read of an ``out_ptr``/``in_out_ptr`` that this kernel stored earlier (argmax, cumsum in one kernel)
    follows that store, so the walk stays inside the kernel."""
    if depth > 40:
        out.append(IndexOrigin(input=None, constant=None, path=path, unresolved=say.walk_too_deep(depth, k.name)))
        return 0
    parent = {start: None}
    queue = [start]
    loads = []
    while queue:
        n = queue.pop(0)
        extra = _accumulator_edges(g, k, n) if ids.kind_of(n) == ids.STORE else []
        for _, v, d in list(g.out_edges(n, data=True)) + extra:
            kind = d.get("kind")
            if kind not in ("uses", "loads") or v in parent:
                continue
            role = g.nodes[v].get("role") if ids.kind_of(v) == ids.PARAM else None
            parent[v] = n
            if role in ("out", "inout"):
                here = _line(g, n)
                stores = [s for s, _ in edges(g, v, "stored_by") if _line(g, s) < here]
                for s in stores:
                    if s not in parent:
                        parent[s] = v
                        queue.append(s)
                if role == "inout" and kind == "loads":
                    loads.append(v)  # its value on entry comes from the caller too
                continue
            if kind == "loads":
                loads.append(v)
            elif ids.kind_of(v) == ids.TMP:
                queue.append(v)
    for p in loads:
        chain, x = [], p
        while x is not None:
            if ids.kind_of(x) != ids.STORE:
                st = node_step(g, x)
                if x != p and st.kind == "kernel_param":  # an out/in_out pointer reached through its store
                    st = Step("store", st.name, st.node_id, st.role)
                chain.append(st)
            x = parent.get(x)
        chain.reverse()
        here = path + chain[1:]
        if site is None:
            out.append(IndexOrigin(input=None, constant=None, path=here, unresolved=say.never_called(k.name)))
            continue
        bind = next(edges(g, p, "binds", ids.call(site.line)), None)
        if bind is None:
            out.append(IndexOrigin(input=None, constant=None, path=here, unresolved=say.no_argument(g.nodes[p]["name"])))
            continue
        v, d = bind
        arg = d.get("arg", v)
        step = value_step(g, v) if arg == g.nodes[v].get("name") else Step("call_arg", arg, v)
        follow_value(m, g, v, site.line, here + [step], out, seen, depth + 1)
    return len(loads)


def follow_value(m, g, v, before_line, path, out, seen, depth):
    t = g.nodes[v].get("type")
    if t == "input":
        out.append(IndexOrigin(input=InputRef(index=g.nodes[v]["index"], name=g.nodes[v]["name"]), constant=None,
                               path=path + [Step("input", f"input {g.nodes[v]['index']}", v)]))
        return
    if t == "constant":
        out.append(IndexOrigin(input=None, constant=g.nodes[v].get("fqn") or g.nodes[v]["name"], path=path))
        return
    if t != "buffer" or (v, before_line) in seen or depth > 40:
        out.append(IndexOrigin(input=None, constant=None, path=path, unresolved=say.stopped_at(v)))
        return
    seen.add((v, before_line))
    writer = last_writer(g, v, before_line)
    name = g.nodes[v]["name"]
    step = value_step(g, v)
    if writer is not None and g.nodes[writer[0]].get("target") in Dialect.assign_calls:
        step = Step("handle", name, v)  # a new handle to the tensor the assign reads: no intermediate buffer
    if path and path[-1].name != name:
        path = path + [step]
    elif path and path[-1].node_id == v:
        path = path[:-1] + [step]
    if writer is None:
        out.append(IndexOrigin(input=None, constant=None, path=path, unresolved=say.nothing_writes(name, before_line)))
        return
    wnode, wdata = writer
    target = g.nodes[wnode]["target"]
    wline = g.nodes[wnode]["line"]
    path = path + [Step("extern_op" if g.nodes[wnode]["type"] == "extern_op" else "kernel", target, wnode)]
    if g.nodes[wnode]["type"] == "extern_op":
        reads = [u for u, _, d in g.in_edges(wnode, data=True) if d.get("kind") == "reads"]
        if not reads:
            out.append(IndexOrigin(input=None, constant=None, path=path, unresolved=say.reads_no_tensor(target)))
        for u in reads:
            follow_value(m, g, u, wline, path + [value_step(g, u)], out, seen, depth + 1)
        return
    k = m.kernels.get(target)
    site = next((c for c in m.calls if c.line == wline), None)
    pname = wdata.get("param")
    stores = [s for s, _ in edges(g, ids.param(target, pname), "stored_by")] if pname else []
    if k is None or not stores:
        # No store parsed: every tensor the writer reads may feed the buffer.
        reads = [u for u, _, d in g.in_edges(wnode, data=True)
                 if d.get("kind") == "reads" and g.nodes[u].get("type") in ("buffer", "input", "constant")]
        if not reads:  # nothing to follow: say so, not "reads no tensor"
            out.append(IndexOrigin(input=None, constant=None, path=path,
                                   unresolved=say.no_store(name, target, wline)))
        for u in reads:
            follow_value(m, g, u, wline, path + [value_step(g, u)], out, seen, depth + 1)
        return
    for s in stores:
        pn = ids.param(target, pname)
        if not walk_kernel(m, g, k, s, site, path + [Step("store", pname, pn, g.nodes[pn].get("role"))], out, seen,
                           depth + 1):
            # The writer's store reads no tensor: the buffer is computed there (an arange, a fill), which
            # is an answer, not a trail the walk lost.
            seen.add(("computed", name, target))


def last_writer(g, buf, before_line):
    """The call that last wrote ``buf`` (or the buffer it reuses or views) before ``before_line``."""
    names, x = [buf], buf
    while True:
        nxt = next((w for w, _ in edges(g, x, "aliases")), None)
        if not nxt or nxt in names:
            break
        names.append(nxt)
        x = nxt
    best = None
    for b in names:
        for u, _, d in g.in_edges(b, data=True):
            if d.get("kind") == "writes" and g.nodes[u]["line"] < before_line:
                if best is None or g.nodes[u]["line"] > g.nodes[best[0]]["line"]:
                    best = (u, d)
    return best


def value_origins(m: Model, g, name: str, before_line: int) -> list[IndexOrigin]:
    """Where the values of a run_impl name (an extern op's index argument) come from."""
    from ..graph.build import value_node

    v = value_node(m, name)
    if v is None:
        return [IndexOrigin(input=None, constant=None, path=[Step("value", name)],
                            unresolved=say.not_a_tensor(name))]
    out: list[IndexOrigin] = []
    follow_value(m, g, v, before_line, [value_step(g, v, name)], out, set(), 0)
    return dedupe(out)


def value_table(m: Model, g, v: str, param: str | None, arg: str | None) -> TableRef | None:
    """The tensor a pointer argument binds (node ``v``): a constant, an input (rows: its dim 0) or a buffer."""
    node = g.nodes[v]
    t = node.get("type")
    if t == "constant":
        c = m.constant_by_name(node["name"]) or next(
            (c for c in m.constants if c.index == m.constant_bindings.get(node["name"])), None)
        return TableRef("constant", node["name"], param, arg, fqn=node.get("fqn"),
                        rows=c.shape[0] if c and c.shape else None, shape=list(c.shape) if c and c.shape else None)
    if t == "input":
        inp = next(i for i in m.inputs if i.index == node["index"])
        return TableRef("input", inp.name, param, arg, index=inp.index, rows=inp.shape[0] if inp.shape else None)
    if t == "buffer":
        src = assigned_from(g, v)
        if src is not None:  # a subgraph's handle to the caller's tensor: the table is that tensor
            return value_table(m, g, src, param, arg)
        return TableRef("buffer", node["name"], param, arg)
    return None


def assigned_from(g, v: str, depth: int = 0) -> str | None:
    """The node buffer ``v`` is a new handle to, when its only writer is an assign call
    (``aoti_torch_assign_tensors_out(src, &v_handle)``: a torch.cond / while_loop subgraph's input); else None."""
    writers = [u for u, _, d in g.in_edges(v, data=True) if d.get("kind") == "writes"]
    if len(writers) != 1 or g.nodes[writers[0]].get("target") not in Dialect.assign_calls or depth > 8:
        return None
    reads = [u for u, _, d in g.in_edges(writers[0], data=True) if d.get("kind") == "reads"]
    if len(reads) != 1:
        return None
    inner = assigned_from(g, reads[0], depth + 1) if g.nodes[reads[0]].get("type") == "buffer" else None
    return inner or reads[0]
