"""Graph walks: a bound to the input dims it is made of, an index to the tensors its values come from."""

from __future__ import annotations

from dataclasses import dataclass, field

import inspector.explain.trace as say
import inspector.graph.ids as ids
from ..dialects.base import Dialect
from ..model import Assertion, CallSite, Kernel, Model
from ..parse import expr_tree as E
from ..parse.names import is_accumulator, is_loop_index, is_tmp, range_index


@dataclass
class InputRef:
    index: int
    name: str
    dim: int | None = None
    user_name: str | None = None  # the name in the user's forward(), when an exported program is known


@dataclass
class BoundTerm:
    """One size parameter of a bound expression (``ks0`` in ``ks0 + ks1``) traced to its input dim."""

    kernel_param: str
    call_arg: str
    symbol: str | None
    input: InputRef | None
    min: int | None
    max: int | None
    aliases: list[str] = field(default_factory=list)  # s23 -> s2 …
    definition: str | None = None  # "arg3_1_size[0]"
    definition_line: int | None = None


@dataclass
class BoundChain(BoundTerm):
    """The bound of an assertion: its first size parameter's chain (fields), every term (``terms``) and the
    limit in words (``limit``: "input 0 dim 0 + input 1 dim 0")."""

    terms: list[BoundTerm] = field(default_factory=list)
    limit: str | None = None


@dataclass(frozen=True)
class Step:
    """One hop of an index origin's path, typed where the walk takes it (never re-derived from its name).

    ``kind``: "tmp" (a tmp definition in a kernel), "loop_index" (the kernel's own loop index: no node),
    "kernel_param" (a pointer parameter a load reads), "store" (an out/in_out parameter whose store in the same
    kernel the walk follows back), "call_arg" (the argument a launch passes for a parameter: ``name`` is its
    text, ``node_id`` the value it binds), "input", "constant", "buffer" (a run_impl tensor), "handle" (a buffer
    that is a new handle to another tensor: ``aoti_torch_assign_tensors_out``, a torch.cond subgraph's input),
    "kernel" (the launch that wrote a buffer: ``name`` is the kernel, ``node_id`` its call), "extern_op" (the
    extern call that wrote a buffer), "value" (a name the graph has no node for, where a walk stopped).
    ``node_id``: the graph's node (`inspector.graph.ids`), as ``graph --json`` names it; None when there is
    none.  ``role``: a kernel parameter's role ("in", "out", "inout")."""

    kind: str
    name: str
    node_id: str | None = None
    role: str | None = None

    def __str__(self) -> str:
        return self.name


# The kind of step a graph node's ``type`` is, for the values a walk reaches in run_impl.
_VALUE_KIND = {"input": "input", "constant": "constant", "buffer": "buffer"}


def value_step(g, v: str, name: str | None = None) -> Step:
    """The step to run_impl value node ``v`` (named ``name``, else as the graph names it)."""
    node = g.nodes[v] if v in g.nodes else {}
    return Step(_VALUE_KIND.get(node.get("type"), "value"), name if name is not None else node.get("name", v),
                v if v in g.nodes else None)


def node_step(g, n: str) -> Step:
    """The step to a node inside a kernel (a tmp or a parameter) as the walk reaches it."""
    node = g.nodes[n]
    t = node.get("type")
    if t == "tmp":
        return Step("tmp", node.get("name", n), n)
    if t == "kernel_param":
        return Step("kernel_param", node.get("name", n), n, node.get("role"))
    return value_step(g, n)


def path_names(path: list[Step]) -> list[str]:
    """The path as the JSON answers write it: a list of names."""
    return [s.name for s in path]


@dataclass
class IndexOrigin:
    input: InputRef | None
    constant: str | None
    path: list[Step]
    unresolved: str | None = None  # why the walk stopped, when it did not reach an input or constant
    computed: str | None = None  # the index reads no tensor: it is made from loop indices and sizes

    @property
    def through_buffer(self) -> bool:
        """The values pass through an intermediate buffer or a store of the same kernel (argmax, cumsum, an
        extern op's output): computed from the input, not read from it."""
        return any(s.kind in ("buffer", "store") or (s.kind == "kernel_param" and s.role == "inout")
                   for s in self.path)


def edges(g, node, kind, call=None):
    out = g.out_edges_of_kind(node, kind) if hasattr(g, "out_edges_of_kind") else [
        e for e in g.out_edges(node, data=True) if e[2].get("kind") == kind]
    for _, v, d in out:
        if call is None or d.get("call") in (None, call):
            yield v, d


def _term(m: Model, g, p: str, call_node: str | None) -> BoundTerm:
    pname = g.nodes[p]["name"]
    bind = next(edges(g, p, "binds", call_node), None)
    if bind is None:
        return BoundTerm(kernel_param=pname, call_arg="?", symbol=None, input=None, min=None, max=None)
    v, d = bind
    t = BoundTerm(kernel_param=pname, call_arg=d.get("arg", ""), symbol=None, input=None, min=None, max=None)
    # A local scalar (int64_t x = 8L*s59;) stands for the symbol it is made from.
    if ids.kind_of(v) == ids.LOCAL:
        sym = next((w for w, _ in edges(g, v, "uses") if ids.kind_of(w) == ids.SYM), None)
        t.aliases.append(g.nodes[v]["name"])
        v = sym or v
    if ids.kind_of(v) != ids.SYM:
        if ids.kind_of(v) == ids.INPUT:
            t.input = InputRef(index=g.nodes[v]["index"], name=g.nodes[v]["name"])
        return t
    t.symbol = g.nodes[v]["name"]
    seen = {v}
    while True:
        nxt = next((w for w, _ in edges(g, v, "aliases")), None)
        if not nxt or nxt in seen:
            break
        seen.add(nxt)
        t.aliases.append(g.nodes[nxt]["name"])
        v = nxt
    sym = m.symbols[g.nodes[v]["name"]]
    t.definition, t.definition_line = sym.expr, sym.line
    if sym.input is not None:
        inp = next(i for i in m.inputs if i.index == sym.input)
        t.input = InputRef(index=inp.index, name=inp.name, dim=sym.dim)
        t.min, t.max = sym.min, sym.max
    return t


def term_words(t: BoundTerm) -> str:
    """One term of a bound in words (`inspector.explain.trace.term_words`)."""
    if t.input is None:
        return t.kernel_param
    return say.term_words(t.input.index, t.input.dim, t.input.user_name)


def bound_chain(m: Model, g, k: Kernel, a: Assertion, call_node: str | None) -> BoundChain | None:
    an = ids.assertion(k.name, a.line)
    params = list(dict.fromkeys(v for v, _ in edges(g, an, "bounded_by")))
    if not params:
        return None
    terms = [_term(m, g, p, call_node) for p in params]
    first = terms[0]
    chain = BoundChain(**{f: getattr(first, f) for f in BoundTerm.__dataclass_fields__}, terms=terms)
    chain.limit = limit_words(a.bound_expr or "", terms)
    return chain


def literal_bound(m: Model, site: CallSite, a: Assertion) -> int | None:
    """The bound when it is one kernel parameter that the launch passes as an integer literal (a user-defined
    kernel's `idx < rows`, launched with `rows` = 50)."""
    from ..graph.build import call_params
    from ..parse.message import static_bound

    if not a.bound_expr or not a.bound_expr.isidentifier():
        return None
    names = call_params(m, site)
    if a.bound_expr not in names or names.index(a.bound_expr) >= len(site.args):
        return None
    return static_bound(site.args[names.index(a.bound_expr)].text)


def limit_words(expr: str, terms: list[BoundTerm]) -> str:
    """``ks0 + ks1`` -> ``input 0.size(0) + input 1.size(0)`` (user names when known)."""
    return say.limit_words(E.parse_expr(expr), {t.kernel_param: term_words(t) for t in terms})


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


def index_span(m: Model, g, k: Kernel, a: Assertion, site: CallSite | None) -> BoundTerm | None:
    """For an index the kernel computes from its own loop index (``y0 = (yindex % ks0)``, ``x0 = xindex``): the
    size parameter it runs below (``ks0``; ``xnumel`` for a plain ``xindex``), traced to its symbol and input dim.
    The index reaches that size minus one, so the input dim's range says whether shapes alone can break it."""
    from ..graph.build import resolve_tmp

    t = resolve_tmp(k, a.index_var or "", a.line, a.scope)
    if t is None:
        return None
    pname = _span_param(t.expr.tree)
    if not pname or k.param(pname) is None:
        return None
    return _term(m, g, ids.param(k.name, pname), ids.call(site.line) if site else None)


def _span_param(tree) -> str | None:
    """The size parameter a loop-index expression runs below: ``ks0`` of ``(yindex % ks0)`` or ``((xindex // 8) %
    ks0)``, ``xnumel`` of a plain ``xindex``; None for anything else."""
    top = E.strip_parens(tree)
    if isinstance(top, E.Name):
        tree_of = range_index(top.id)
        return f"{tree_of}numel" if tree_of else None
    if not (isinstance(top, E.BinOp) and top.op == "%" and isinstance(E.strip_parens(top.right), E.Name)):
        return None
    left = list(E.walk(top.left))
    if any(isinstance(x, E.Name) and range_index(x.id) for x in left) and \
            not any(isinstance(x, E.BinOp) and x.op == "%" for x in left):
        return E.strip_parens(top.right).id
    return None


def span_words(span: BoundTerm) -> str:
    """`` (0 … ks0-1, ks0 = s27: input 0 dim 1, 2 … 1024)``: what a computed index runs over."""
    return say.span_words(span.kernel_param, span.symbol or span.call_arg, span.input.index if span.input else None,
                          span.input.dim if span.input else None, span.min, span.max)


def shape_reachable(span: BoundTerm | None, bound: int | None) -> bool:
    """The input dim's allowed range lets the computed index reach ``bound``: shapes alone make it fire."""
    return span is not None and bound is not None and span.max is not None and span.max > bound


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


@dataclass
class TableRef:
    """The tensor an index reads (what a pointer argument binds): a constant (``fqn``, ``rows``: its dim 0,
    ``shape``), an input (``index``, ``rows``; ``user_name`` once an exported program names it) or a buffer
    (``from_inputs``: the inputs it is made from, when an extern op's trace asked).  ``param``/``arg``: the
    kernel parameter and call argument it was read through.  `to_dict` writes the JSON answers' keys."""

    kind: str  # "constant" | "input" | "buffer"
    name: str
    param: str | None = None
    arg: str | None = None
    fqn: str | None = None
    rows: int | None = None
    shape: list[int] | None = None
    index: int | None = None
    user_name: str | None = None
    named: bool = False  # an exported program was asked for ``user_name`` (the JSON then has the key)
    from_inputs: list[int] | None = None

    def to_dict(self) -> dict:
        if self.kind == "constant":
            return {"kind": self.kind, "name": self.name, "fqn": self.fqn, "rows": self.rows, "param": self.param,
                    "arg": self.arg, "shape": self.shape}
        if self.kind == "input":
            d = {"kind": self.kind, "name": self.name, "index": self.index, "rows": self.rows, "param": self.param,
                 "arg": self.arg}
            if self.named:
                d["user_name"] = self.user_name
            return d
        d = {"kind": self.kind, "name": self.name, "param": self.param, "arg": self.arg}
        if self.from_inputs is not None:
            d["from_inputs"] = self.from_inputs
        return d


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


def loop_position(m: Model, g, k: Kernel, a: Assertion, site: CallSite | None):
    """The index of check ``a`` is a position the kernel runs over in full (an arange: GPT-2's position ids), as a
    `positions.PositionBound` of op "loop" along a model input's dim: a CPU kernel's loop variable
    (`positions.cpu_loop_position`), or a Triton grid index whose size is one (``y0 = (yindex % ks0)``, `index_span`).
    None for any other index."""
    from .positions import PositionBound, cpu_loop_position

    if k.backend == "cpp":
        return cpu_loop_position(m, k, a)
    span = index_span(m, g, k, a, site) if a.index_var else None
    if span is None or span.input is None:
        return None
    return PositionBound(op="loop", where=k.name, input=span.input.index, dim=span.input.dim,
                         input_name=span.input.name, symbol=span.symbol, min=span.min, max=span.max,
                         loop_index=a.index_var, grid=True)
