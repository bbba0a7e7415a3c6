"""trace-assert: from a failing check to its kernel, size parameter, symbol, model input and FX nodes.

The debugging guide's six greps, as graph walks:

1. the assertion (kernel, line, index var, bound);
2. the bound's size parameter ``ksM`` -> the call-site argument ``sN`` -> its
   definition ``argK_1_size[d]`` -> model input K, dim d -> the range its guards allow;
3. where the index values come from: ``tmpN`` definitions -> loads from
   ``in_ptrK`` -> call argument -> (buffer -> the kernel or extern op that wrote
   it -> …) until a model input or constant;
4. the source FX nodes (the comment above the call, provenance, or derived from
   the kernel name) and ATen ops;
5. a plain explanation.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field

from .errors import UsageError
from .graph import call_params, value_node
from .logparse import LogReport, ReportedAssert, parse_log
from .model import Assertion, CallSite, Kernel, Model
from .parse.message import static_bound
from .package import Package

GUARD_NOTE = "input guards run only when AOTI_RUNTIME_CHECK_INPUTS=1 is set at run time"


@dataclass
class InputRef:
    index: int
    name: str
    dim: int | None = None


@dataclass
class BoundChain:
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
class IndexOrigin:
    input: InputRef | None
    constant: str | None
    path: list[str]
    unresolved: str | None = None  # why the walk stopped, when it did not reach an input or constant
    computed: str | None = None  # the index reads no tensor: it is made from loop indices and sizes


@dataclass
class TraceMatch:
    model: str
    kernel: str
    kernel_kind: str
    file_line: int
    assertion: dict
    static_bound: int | None
    bound: BoundChain | None
    index_origin: list[IndexOrigin]
    source_nodes: list[str]
    source_nodes_derived: bool
    aten_ops: list[str]
    explanation: list[str]
    exact: bool = True
    matched_by: str = ""
    call_sites: list[int] = field(default_factory=list)  # wrapper lines of the kernel's launches
    source_file: str = ""
    snippet: list[tuple[int, str]] = field(default_factory=list)
    stack_traces: list[str] = field(default_factory=list)
    post_grad_nodes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every hop resolved: the bound (unless static) and every index origin."""
        bound_ok = self.static_bound is not None or (self.bound is not None and self.bound.input is not None)
        return bound_ok and bool(self.index_origin) and all(o.unresolved is None for o in self.index_origin)


@dataclass
class TraceResult:
    package: str
    matches: list[TraceMatch]
    looked_for: str
    ambiguous: bool = False
    context: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = asdict(self)
        for m, md in zip(self.matches, d["matches"]):
            md["complete"] = m.complete
            md["snippet"] = [{"line": ln, "text": t} for ln, t in m.snippet]
        return d


# ---------------------------------------------------------------------------
# Finding the assertion
# ---------------------------------------------------------------------------


def _norm_msg(s: str) -> str:
    return re.sub(r"(\d+)L\b", r"\1", s.strip().strip("`\"'")).replace(" ", "")


def _all_assertions(pkg: Package, model: str | None):
    names = [model] if model else pkg.model_names
    for name in names:
        m = pkg.model(name)
        for k in m.kernels.values():
            for a in k.assertions:
                yield m, k, a


def _find_for_report(pkg: Package, r: ReportedAssert, model: str | None):
    """(model, kernel, assertion, exact, how) candidates for one reported failure."""
    out = []
    if r.kind == "cpu":
        for m, k, a in _all_assertions(pkg, model):
            if k.name == r.kernel and a.line == r.line:
                same_file = not m.kernel_member or os.path.basename(m.kernel_member) == r.file_name
                out.append((m, k, a, same_file, f"CPU check: {r.kernel} at kernel.cpp line {r.line}"
                            + ("" if same_file else " (kernel.cpp name differs from the package's)")))
        if len(out) > 1:
            exact = [o for o in out if o[3]]
            out = exact or out
        return out
    if r.kind == "cuda":
        cands = [(m, k, a) for m, k, a in _all_assertions(pkg, model)
                 if k.kind == "triton" and a.line == r.line and (not r.message or _norm_msg(a.message) == _norm_msg(r.message))]
        by_file = [(m, k, a) for m, k, a in cands if k.cubin and r.file in pkg.cubin_assert_files(k.cubin)]
        if by_file:
            return [(m, k, a, True, f"device assert at {r.file_name}:{r.line}; the kernel's cubin names that file") for m, k, a in by_file]
        return [(m, k, a, False, f"line {r.line} and message match; no cubin names {r.file_name}") for m, k, a in cands]
    return [(m, k, a, False, "message match") for m, k, a in _all_assertions(pkg, model)
            if _norm_msg(a.message) == _norm_msg(r.message)]


def trace_assert(pkg: Package, *, line: int | None = None, message: str | None = None, log: str | None = None,
                 kernel: str | None = None, model: str | None = None) -> TraceResult:
    """Trace one failing check.  Give the error text (``log``), or ``line`` and/or ``message``/``kernel``."""
    if model is not None:
        pkg.files(model)  # raises a UsageError naming the models when it is not there
    if log is None and line is None and message is None and kernel is None:
        raise UsageError("say what failed: --line N, --message TEXT, --kernel NAME or --log FILE (or paste the error)")
    cands: list[tuple[Model, Kernel, Assertion, bool, str]] = []
    looked: list[str] = []
    text = log if log is not None else message
    report = parse_log(text) if text else LogReport()
    located = [r for r in report.asserts if r.kind != "message"]  # with a file and line
    if not located and log is not None and not (line or message or kernel):
        bare = [r.message for r in report.asserts]
        if not bare:
            return TraceResult(package=str(pkg.path), matches=[], hints=report.hints,
                               looked_for="a device assert or CPU check failure in the log (none was found)",
                               context=_context(pkg, report))
        message = bare[0]
    for r in located:
        looked.append(f"{r.kind} failure `{r.message}`" + (f" at {r.file_name}:{r.line}" if r.file else ""))
        for c in _find_for_report(pkg, r, model):
            if kernel and c[1].name != kernel:
                continue
            cands.append(c)
    if not located:
        if message is not None and log is None:
            bare = [r.message for r in report.asserts]
            message = bare[0] if bare else message
        looked.append(" ".join(x for x in (f"line {line}" if line else "", f"message `{message}`" if message else "",
                                          f"kernel {kernel}" if kernel else "") if x))
        for m, k, a in _all_assertions(pkg, model):
            if line is not None and a.line != line:
                continue
            if message and _norm_msg(a.message) != _norm_msg(message):
                continue
            if kernel and k.name != kernel:
                continue
            cands.append((m, k, a, False, "line" if line else "filter"))
    # Rank: exact first, then a message match, then Triton numbering before kernel.cpp numbering.
    seen = set()
    uniq = []
    for c in sorted(cands, key=lambda c: (not c[3], c[1].kind != "triton", c[0].name, c[1].name, c[2].line)):
        key = (c[0].name, c[1].name, c[2].line)
        if key not in seen:
            seen.add(key)
            uniq.append(c)
    matches = [explain(pkg, m, k, a, exact, how) for m, k, a, exact, how in uniq]
    n_reports = max(1, len(located))
    ambiguous = len(matches) > n_reports or (bool(matches) and not any(x.exact for x in matches) and len(matches) > 1)
    warnings = [f"model {n!r}: {w}" for n in ([model] if model else pkg.model_names) for w in pkg.model(n).warnings]
    return TraceResult(package=str(pkg.path), matches=matches, looked_for="; ".join(looked), ambiguous=ambiguous,
                       context=_context(pkg, report), hints=report.hints + warnings)


def _context(pkg: Package, report: LogReport) -> list[str]:
    out = []
    for n in report.noticed:
        where = ""
        for name in pkg.model_names:
            m = pkg.model(name)
            if m.wrapper_member and os.path.basename(m.wrapper_member) == n.file_name:
                site = next((c for c in m.calls if c.line == n.line), None)
                where = f" = model {name!r}, wrapper.cpp line {n.line}" + (f" ({site.target})" if site else "")
        out.append(f"{n.call} reported the error at {n.file_name}, line {n.line}{where}: the next call that "
                   "noticed it, not the failing kernel (CUDA errors surface at a later call)")
    return out


# ---------------------------------------------------------------------------
# The chain for one assertion
# ---------------------------------------------------------------------------


def explain(pkg: Package, m: Model, k: Kernel, a: Assertion, exact: bool = True, how: str = "") -> TraceMatch:
    g = pkg.graph(m.name)
    sites = [c for c in m.calls if c.kind == "kernel" and c.target == k.name]
    site = sites[0] if sites else None
    call_node = f"call:{site.line}" if site else None
    static = _static(a.bound_expr)
    bound = None if static is not None else _bound_chain(m, g, k, a, call_node)
    origins = _index_origins(m, g, k, a, site) if a.index_var else []
    nodes, derived, aten, traces, post = _source_nodes(m, k, site)
    lo = a.line - 6
    snippet = [(ln, k.source_line(ln)) for ln in range(max(k.line_base, lo), a.line + 3) if k.source_line(ln) is not None]
    match = TraceMatch(
        model=m.name, kernel=k.name, kernel_kind=k.kind, file_line=a.line,
        assertion={"message": a.message, "index_var": a.index_var, "bound_expr": a.bound_expr,
                   "lower_bound": a.lower_bound, "condition": a.condition, "wrapper_line": a.wrapper_line},
        static_bound=static, bound=bound, index_origin=origins, source_nodes=nodes, source_nodes_derived=derived,
        aten_ops=aten, explanation=[], exact=exact, matched_by=how, call_sites=[c.line for c in sites],
        source_file=k.source_file, snippet=snippet, stack_traces=traces, post_grad_nodes=post)
    match.explanation = _explanation(m, k, a, match, len(sites))
    return match


def _static(bound: str | None) -> int | None:
    return static_bound(bound) if bound is not None else None


def _edges(g, node, kind, call=None):
    for _, v, d in g.out_edges(node, data=True):
        if d.get("kind") == kind and (call is None or d.get("call") in (None, call)):
            yield v, d


def _bound_chain(m: Model, g, k: Kernel, a: Assertion, call_node: str | None) -> BoundChain | None:
    an = f"assert:{k.name}:{a.line}"
    params = [v for v, _ in _edges(g, an, "bounded_by")]
    if not params:
        return None
    p = params[0]
    pname = g.nodes[p]["name"]
    bind = next(_edges(g, p, "binds", call_node), None)
    if bind is None:
        return BoundChain(kernel_param=pname, call_arg="?", symbol=None, input=None, min=None, max=None)
    v, d = bind
    chain = BoundChain(kernel_param=pname, call_arg=d.get("arg", ""), symbol=None, input=None, min=None, max=None)
    # A local scalar (int64_t x = 8L*s59;) stands for the symbol it is made from.
    if v.startswith("local:"):
        sym = next((w for w, _ in _edges(g, v, "uses") if w.startswith("sym:")), None)
        chain.aliases.append(g.nodes[v]["name"])
        v = sym or v
    if not v.startswith("sym:"):
        if v.startswith("input:"):
            chain.input = InputRef(index=g.nodes[v]["index"], name=g.nodes[v]["name"])
        return chain
    name = g.nodes[v]["name"]
    chain.symbol = name
    seen = {v}
    while True:
        nxt = next((w for w, _ in _edges(g, v, "aliases")), None)
        if not nxt or nxt in seen:
            break
        seen.add(nxt)
        chain.aliases.append(g.nodes[nxt]["name"])
        v = nxt
    sym = m.symbols[g.nodes[v]["name"]]
    chain.definition, chain.definition_line = sym.expr, sym.line
    if sym.input is not None:
        inp = next(i for i in m.inputs if i.index == sym.input)
        chain.input = InputRef(index=inp.index, name=inp.name, dim=sym.dim)
        chain.min, chain.max = sym.min, sym.max
    return chain


def _index_origins(m: Model, g, k: Kernel, a: Assertion, site: CallSite | None) -> list[IndexOrigin]:
    an = f"assert:{k.name}:{a.line}"
    start = next((v for v, _ in _edges(g, an, "asserts_on")), None)
    if start is None:
        if re.fullmatch(r"[xyzr]\d*(_\w+)?", a.index_var or ""):
            return [IndexOrigin(input=None, constant=None, path=[a.index_var],
                                computed=f"{a.index_var} is the kernel's own loop index (e.g. an arange position)")]
        return [IndexOrigin(input=None, constant=None, path=[a.index_var or "?"],
                            unresolved=f"no definition of {a.index_var} found in {k.name}")]
    out: list[IndexOrigin] = []
    _walk_kernel(m, g, k, start, site, [g.nodes[start].get("name", "?")], out, set(), 0)
    if not out:
        # The index is computed from sizes and loop variables only (e.g. an arange position).
        out.append(IndexOrigin(input=None, constant=None, path=[g.nodes[start].get("name", "?")],
                               computed=f"{a.index_var} reads no tensor: it is computed from loop indices and sizes "
                                        "(e.g. an arange position)"))
    uniq: dict[tuple, IndexOrigin] = {}
    for o in out:
        key = (o.input.index if o.input else None, o.constant, o.unresolved)
        uniq.setdefault(key, o)
    return list(uniq.values())


def _walk_kernel(m, g, k, start, site, path, out, seen, depth):
    """From a tmp/store inside ``k``, follow uses to loads, then out through the call's arguments."""
    if depth > 40:
        return
    parent = {start: None}
    queue = [start]
    loads = []
    while queue:
        n = queue.pop(0)
        for _, v, d in g.out_edges(n, data=True):
            kind = d.get("kind")
            if kind not in ("uses", "loads") or v in parent:
                continue
            parent[v] = n
            if kind == "loads":
                loads.append(v)
            elif v.startswith("tmp:"):
                queue.append(v)
    for p in loads:
        chain, x = [], p
        while x is not None:
            chain.append(g.nodes[x].get("name", x))
            x = parent.get(x)
        chain.reverse()
        here = path + chain[1:]
        if site is None:
            out.append(IndexOrigin(input=None, constant=None, path=here, unresolved=f"{k.name} is never called"))
            continue
        bind = next(_edges(g, p, "binds", f"call:{site.line}"), None)
        if bind is None:
            out.append(IndexOrigin(input=None, constant=None, path=here, unresolved=f"no argument for {g.nodes[p]['name']}"))
            continue
        v, d = bind
        _follow_value(m, g, v, site.line, here + [d.get("arg", v)], out, seen, depth + 1)


def _follow_value(m, g, v, before_line, path, out, seen, depth):
    t = g.nodes[v].get("type")
    if t == "input":
        out.append(IndexOrigin(input=InputRef(index=g.nodes[v]["index"], name=g.nodes[v]["name"]), constant=None,
                               path=path + [f"input {g.nodes[v]['index']}"]))
        return
    if t == "constant":
        out.append(IndexOrigin(input=None, constant=g.nodes[v].get("fqn") or g.nodes[v]["name"], path=path))
        return
    if t != "buffer" or (v, before_line) in seen or depth > 40:
        out.append(IndexOrigin(input=None, constant=None, path=path, unresolved=f"stopped at {v}"))
        return
    seen.add((v, before_line))
    writer = _last_writer(g, v, before_line)
    name = g.nodes[v]["name"]
    if path and path[-1] != name:
        path = path + [name]
    if writer is None:
        out.append(IndexOrigin(input=None, constant=None, path=path, unresolved=f"nothing writes {name} before line {before_line}"))
        return
    wnode, wdata = writer
    target = g.nodes[wnode]["target"]
    wline = g.nodes[wnode]["line"]
    path = path + [target]
    if g.nodes[wnode]["type"] == "extern_op":
        reads = [u for u, _, d in g.in_edges(wnode, data=True) if d.get("kind") == "reads"]
        if not reads:
            out.append(IndexOrigin(input=None, constant=None, path=path, unresolved=f"{target} reads no tensor"))
        for u in reads:
            _follow_value(m, g, u, wline, path + [g.nodes[u].get("name", u)], out, seen, depth + 1)
        return
    k = m.kernels.get(target)
    site = next((c for c in m.calls if c.line == wline), None)
    pname = wdata.get("param")
    stores = [s for s, _ in _edges(g, f"param:{target}:{pname}", "stored_by")] if pname else []
    if k is None or not stores:
        # No store parsed: every tensor the writer reads may feed the buffer.
        for u, _, d in g.in_edges(wnode, data=True):
            if d.get("kind") == "reads" and g.nodes[u].get("type") in ("buffer", "input", "constant"):
                _follow_value(m, g, u, wline, path + [g.nodes[u].get("name", u)], out, seen, depth + 1)
        return
    for s in stores:
        _walk_kernel(m, g, k, s, site, path + [pname], out, seen, depth + 1)


def _last_writer(g, buf, before_line):
    """The call that last wrote ``buf`` (or the buffer it reuses or views) before ``before_line``."""
    names, x = [buf], buf
    while True:
        nxt = next((w for w, _ in _edges(g, x, "aliases")), None)
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


# ---------------------------------------------------------------------------
# Source nodes
# ---------------------------------------------------------------------------

# ATen op names that contain "_", so a fused kernel name splits into the right ops.
_MULTI_WORD_OPS = sorted({
    "index_copy", "index_add", "index_put", "index_select", "index_fill", "zeros_like", "ones_like", "full_like",
    "empty_like", "rand_like", "native_layer_norm", "layer_norm", "group_norm", "batch_norm", "native_batch_norm",
    "scatter_add", "scatter_reduce", "scatter_reduce_two", "embedding_bag", "embedding_dense_backward",
    "masked_fill", "masked_scatter", "masked_select", "where_self", "log_softmax", "_softmax", "_log_softmax",
    "logical_and", "logical_or", "logical_not", "bitwise_and", "bitwise_or", "bitwise_not", "floor_divide",
    "true_divide", "remainder", "clamp_min", "clamp_max", "_to_copy", "slice_scatter", "select_scatter",
    "constant_pad_nd", "reflection_pad2d", "repeat_interleave", "unsafe_index", "_unsafe_index",
    "_unsafe_index_put", "scaled_dot_product", "avg_pool2d", "max_pool2d", "adaptive_avg_pool2d", "rsqrt",
    "new_zeros", "new_ones", "new_empty", "split_with_sizes", "_native_batch_norm_legit_no_training",
}, key=len, reverse=True)


def split_fused_name(name: str) -> list[str]:
    """``cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0`` -> [ge, index, index_copy, mul, sub, where, zeros_like]."""
    s = re.sub(r"^(cpp_fused_|triton_(poi|red|per|tem|for)_fused_|triton_(poi|red|per|tem|for)_|cpp_)", "", name)
    s = re.sub(r"_\d+$", "", s)
    out = []
    while s:
        s = s.lstrip("_")
        for op in _MULTI_WORD_OPS:
            if s == op or s.startswith(op + "_"):
                out.append(op)
                s = s[len(op):]
                break
        else:
            head, _, s = s.partition("_")
            if head:
                out.append(head)
    return out


def _source_nodes(m: Model, k: Kernel, site: CallSite | None):
    """(nodes, derived?, aten ops, stack traces, post-grad nodes) for a kernel's call."""
    prov = m.provenance.get(site.provenance) if site and site.provenance else None
    if prov is None:
        prov = next((p for key, p in m.provenance.items() if key.rsplit(":", 1)[0] == k.name), None)
    traces = prov.stack_traces if prov else []
    post = prov.post_grad_nodes if prov else []
    if site and site.source_nodes:
        return site.source_nodes, False, site.aten_ops, traces, post
    if prov and prov.pre_grad_nodes:
        ops = [f"aten.{o}" for o in split_fused_name(k.name)]
        return prov.pre_grad_nodes, False, ops, traces, post
    ops = split_fused_name(k.name)
    return ops, True, [f"aten.{o}" for o in ops], traces, post


# ---------------------------------------------------------------------------
# The plain explanation
# ---------------------------------------------------------------------------


def _explanation(m: Model, k: Kernel, a: Assertion, t: TraceMatch, n_sites: int) -> list[str]:
    out = []
    var = a.index_var or "the index"
    inputs = [o.input for o in t.index_origin if o.input]
    via = [o for o in t.index_origin if o.input and any(p.startswith("buf") for p in o.path)]
    src = ", ".join(f"input {i.index} ({i.name})" for i in inputs) if inputs else None
    if t.static_bound is not None:
        what = f"a {t.static_bound}-row table" if "embedding" in " ".join(t.source_nodes + t.aten_ops) else f"a dimension of size {t.static_bound}"
        if src:
            out.append(f"{src}'s values index {what} ({k.name}): a value outside 0..{t.static_bound - 1} fails "
                       f"`{a.message}`.")
            out.append(f"Fix: check the values of {src} before calling the model (e.g. ids < {t.static_bound}), "
                       "or grow the table.")
        else:
            out.append(f"{var} is computed inside {k.name} and must stay below {t.static_bound}.")
    elif t.bound and t.bound.input:
        b = t.bound
        rng = f"{b.min if b.min is not None else '?'}..{b.max if b.max is not None else '?'}"
        out.append(f"`{a.bound_expr}` is {b.kernel_param} = {b.call_arg} at the call = {b.symbol or '?'} = input "
                   f"{b.input.index} ({b.input.name})'s dim {b.input.dim}; the package was exported for {rng}, but "
                   f"the guard only runs with AOTI_RUNTIME_CHECK_INPUTS=1.")
        if b.min is not None and b.min >= 1:
            out.append(f"An empty input (dim {b.input.dim} = 0) makes the bound 0 and `{var} < 0` fails for every "
                       f"index: handle empty inputs in forward(), or export with size-0/1 samples; run with "
                       f"AOTI_RUNTIME_CHECK_INPUTS=1 to get a clear error instead of the assert.")
        if src:
            out.append(f"Otherwise a value from {src} is outside 0..(input {b.input.index} dim {b.input.dim}) - 1: "
                       "check those values against that size before calling the model.")
    elif a.bound_expr:
        out.append(f"The bound `{a.bound_expr}` could not be traced to a model input.")
    if via:
        for o in via:
            hops = [p for p in o.path if p.startswith(("triton_", "cpp_", "aoti_"))]
            if hops:
                out.append(f"The index values are computed from input {o.input.index} ({o.input.name}) through "
                           f"{' <- '.join(hops)} (an intermediate buffer), not read from it directly.")
    if n_sites > 1:
        out.append(f"{k.name} is launched {n_sites} times (wrapper lines {', '.join(str(s) for s in t.call_sites)}); "
                   "the chain above follows the first launch.")
    return out
