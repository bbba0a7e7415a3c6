"""Which branch of a higher-order op a failing kernel runs in (issue 35 §3): torch.cond's true or false subgraph,
the predicate that selects it (the kernel that computes it, its ATen ops, the model inputs it reads; the user's own
wording only where the package or ``--ep`` keeps it), and the same check in the other branch (its bound: "ids up
to 99 are fine in the true branch"); a while_loop body with the tensors it carries from step to step.

Read from the typed tier (`ModelIndex.branches`: `inspector.parse.branches`) and the model's graph; asked only for
a kernel launched inside a subgraph (a package without one costs one look over its statements' comments)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..graph import ids
from ..model import Model
from ..package import Package
from ..parse.branches import Branch, branch_at


@dataclass
class OtherBranchBound:
    """An index check of the other branch: kernel ``kernel`` checks ``bound`` (``table``, ``rows``), on the values of
    model inputs ``inputs``."""

    subgraph: str
    role: str
    kernel: str
    bound: int | None
    bound_expr: str | None
    table: str | None
    rows: int | None
    inputs: list[int] = field(default_factory=list)


@dataclass
class BranchContext:
    op: str  # "cond" | "while_loop"
    subgraph: str  # true_graph_0, while_loop_body_graph_0
    role: str  # cond: "true" | "false"; while_loop: "body" | "cond"
    first_line: int  # the subgraph's wrapper lines
    last_line: int
    condition: str | None = None  # the C condition the wrapper tests (`buf1_scalar`, `s68 > 5L`)
    predicate: str | None = None  # the tensor whose value it is (buf1, arg1_1), None for a size condition
    predicate_kernel: str | None = None  # the kernel that computes it
    predicate_line: int | None = None  # where that kernel is launched
    predicate_ops: list[str] = field(default_factory=list)  # its ATen ops / FX nodes (the comment or its name)
    predicate_inputs: list[int] = field(default_factory=list)  # the model inputs it reads
    predicate_symbols: list[str] = field(default_factory=list)  # the sizes a size condition reads (s68)
    # the predicate as the user wrote it: kept by no package (no stack trace, no exported program); None here
    user_predicate: str | None = None
    # while_loop: the caller's tensors the body takes each step (carried values and the ones it only reads), and
    # the model inputs among what they start as (a torch map is lowered to such a loop over its batch)
    body_inputs: list[str] = field(default_factory=list)
    body_model_inputs: list[int] = field(default_factory=list)
    carried: list[str] = field(default_factory=list)  # those of body_inputs the body's results replace, step to step
    sentence: str = ""  # the answer's body line (explain.branches)
    other: list[OtherBranchBound] = field(default_factory=list)  # the other branch's index checks


def _input_of(g, node: str, depth: int = 0) -> int | None:
    """The model input a buffer node is a handle to (through assign calls and moves), else None."""
    from .index_walk import assigned_from

    d = g.nodes.get(node) if hasattr(g.nodes, "get") else (g.nodes[node] if node in g.nodes else None)
    if d is None or depth > 8:
        return None
    if d.get("type") == "input":
        return d["index"]
    if d.get("type") == "buffer":
        src = assigned_from(g, node)
        if src is not None:
            return _input_of(g, src, depth + 1)
    return None


def _kernel_inputs(g, m: Model, line: int) -> tuple[str | None, list[int]]:
    """The kernel launched at wrapper line ``line`` and the model inputs it reads (through subgraph handles)."""
    call = ids.call(line)
    kernel, inputs = None, []
    for u, v, d in g.edges(data=True):
        if d.get("kind") == "binds" and d.get("call") == call:
            kernel = g.nodes[u].get("kernel") or kernel
            if g.nodes[u].get("role") in ("in", "inout"):
                i = _input_of(g, v)
                if i is not None and i not in inputs:
                    inputs.append(i)
    return kernel, sorted(inputs)


def _writer(m: Model, g, name: str, before: int, lo: int = 0):
    """The last kernel launch in wrapper lines ``lo``..``before`` whose output argument is buffer ``name``."""
    best = None
    for c in m.calls:
        if c.kind != "kernel" or not (lo <= c.line < before):
            continue
        for u, v, d in g.in_edges(ids.buf(name), data=True) if ids.buf(name) in g.nodes else ():
            if d.get("kind") == "binds" and d.get("call") == ids.call(c.line) and g.nodes[u].get("role") in ("out", "inout"):
                best = c
    return best


def branch_context(pkg: Package, model: str, mt) -> BranchContext | None:
    """The branch of the kernel of match ``mt`` (a `TraceMatch`), None when it runs at the top level."""
    if mt.kernel_kind == "extern" or not mt.call_sites:
        return None
    ix = pkg.index(model)
    bs = ix.branches()
    if not bs:
        return None
    b = branch_at(bs, mt.call_sites[0])
    if b is None or b.op == "unknown":
        return None
    m = ix.full() if hasattr(ix, "full") else pkg.model(model)
    g = pkg.graph_of(m)
    ctx = BranchContext(op=b.op, subgraph=b.subgraph, role=b.role, first_line=b.first, last_line=b.last,
                        condition=b.condition, predicate=b.predicate)
    if b.predicate is not None:
        if b.op == "while_loop":
            cond = next((x for x in bs if x.op == "while_loop" and x.role == "cond" and x.last < b.first
                         and x.subgraph.endswith(b.subgraph.rsplit("_", 1)[-1])), None)
            w = next((c for c in m.calls if c.kind == "kernel" and cond and cond.holds(c.line)), None)
        elif b.predicate.startswith("arg") and any(i.name == b.predicate for i in m.inputs):
            w = None
            ctx.predicate_inputs = [next(i.index for i in m.inputs if i.name == b.predicate)]
        else:
            w = _writer(m, g, b.predicate, b.predicate_line or b.first)
        if w is not None:
            ctx.predicate_kernel, ctx.predicate_line = w.target, w.line
            from .explanation import source_nodes

            nodes, _, aten, _, _ = source_nodes(m, m.kernels.get(w.target), w)
            ctx.predicate_ops = list(aten or nodes)
            ctx.predicate_inputs = _kernel_inputs(g, m, w.line)[1]
    elif b.condition:
        ctx.predicate_symbols = [s for s in m.symbols if s in b.condition.replace("(", " ").replace(")", " ").split()]
    if b.op == "while_loop":
        ctx.body_inputs, ctx.body_model_inputs = _carried(m, g, b)
        ctx.carried = [x for x in ctx.body_inputs if x in b.replaces]
    ctx.other = _other_bounds(pkg, model, m, g, bs, b, mt)
    from ..explain.branches import branch_sentence

    ctx.sentence = branch_sentence(ctx, mt)
    return ctx


def _handle_of(g, v: str) -> str | None:
    """The tensor buffer ``v`` is a new handle to, one step (``aoti_torch_assign_tensors_out(src, &v_handle)``)."""
    from ..dialects.base import Dialect

    writers = [u for u, _, d in g.in_edges(v, data=True) if d.get("kind") == "writes"]
    if len(writers) != 1 or g.nodes[writers[0]].get("target") not in Dialect.assign_calls:
        return None
    reads = [u for u, _, d in g.in_edges(writers[0], data=True) if d.get("kind") == "reads"]
    return reads[0] if len(reads) == 1 else None


def _carried(m: Model, g, b: Branch) -> tuple[list[str], list[int]]:
    """A while_loop body's inputs (its ``…_argK_1`` handles) as the caller's tensors, and the model inputs those
    start as."""
    names, inputs = [], []
    for n, d in g.nodes(data=True):
        if d.get("type") == "buffer" and d["name"].startswith(b.prefix + "arg") and b.holds(d.get("line", -1)):
            src = _handle_of(g, n)
            if src is not None:
                names.append(g.nodes[src].get("name", src))
                i = _input_of(g, src)
                if i is not None and i not in inputs:
                    inputs.append(i)
    return names, sorted(inputs)


def _other_bounds(pkg, model, m: Model, g, bs: list[Branch], b: Branch, mt) -> list[OtherBranchBound]:
    """The index checks of the other branch of the same cond that read the same model inputs as ``mt``."""
    if b.op != "cond":
        return []
    twin = next((x for x in bs if x.op == "cond" and x is not b and x.predicate_line == b.predicate_line
                 and x.condition == b.condition and x.depth == b.depth and x.role != b.role
                 and abs(x.first - b.first) < 10 ** 7), None)
    if twin is None:
        return []
    from .explanation import explain

    mine = {o.input.index for o in mt.index_origin if o.input is not None}
    out, seen = [], set()
    for c in m.calls:
        if c.kind != "kernel" or not twin.holds(c.line) or c.target not in m.kernels:
            continue
        k = m.kernels[c.target]
        for a in k.assertions:
            if a.checks != "index":
                continue
            other = explain(pkg, m, k, a, True, "branch")
            ins = sorted({o.input.index for o in other.index_origin if o.input is not None})
            if mine and not (mine & set(ins)):
                continue
            t = other.table
            key = (k.name, other.static_bound, a.bound_expr, (t.fqn or t.name) if t is not None else None)
            if key in seen:
                continue
            seen.add(key)
            out.append(OtherBranchBound(twin.subgraph, twin.role, k.name, other.static_bound, a.bound_expr,
                                        (t.fqn or t.name) if t is not None else None,
                                        t.rows if t is not None else None, ins))
    return out
