"""One assertion or extern call explained: ``TraceMatch`` and the walks that fill it (`explain`, `explain_extern`).

`trace_assert` (inspector.queries.trace) finds which assertions a failure names and calls these; `assert_candidates`
(inspector.queries.candidates) explains its candidates with them.  Both import this module, and it imports
neither: the walks (inspector.queries.bound_walk, index_walk), the match helpers and the words are below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import inspector.explain as words
import inspector.explain.headline as headline
import inspector.graph.ids as ids
from . import causes
from ..errors import InspectorError
from ..model import Assertion, CallSite, Kernel, Model
from ..naming import root_symbol
from ..package import Package
from ..logs import OpError
from ..parse.access import tmps_read, value_ops
from ..parse.message import static_bound
from .fused import extern_op_name, source_nodes
from .match import index_args
from .positions import PositionBound, index_position
from .wraps import wrap_in
from .bound_walk import bound_chain, literal_bound, loop_position
from .index_walk import index_origins, value_origins, value_table
from .walk import BoundChain, BoundTerm, IndexOrigin, InputRef, TableRef, edges


CERTAINTY = causes.CERTAINTY


@dataclass
class Hypothesis:
    """One cause, with how sure the answer is of it and what that rests on (a log line, a thread, a guard, a
    value the package fixes).  ``certain``: the evidence excludes every alternative."""

    sentence: str  # the cause in words (inspector.explain); JSON's "text"
    certainty: str  # "certain" | "likely" | "possible"
    evidence: list[str] = field(default_factory=list)
    kind: str | None = None  # the cause (`causes.CAUSE_KINDS`)
    basis: str | None = None  # what its certainty rests on (`causes.BASES`)
    cause: causes.Cause | None = field(default=None, repr=False)  # the typed cause (repro plans its case from it)

    def __str__(self) -> str:
        return self.sentence


@dataclass
class ExternCheck(Assertion):
    """The check an extern ATen op makes inside ATen, as a match holds it: ``kernel`` is the extern op's call,
    ``line`` its wrapper.cpp line; ``op`` the ATen op; ``checked``: the call is wrapped in a check (None: not
    known).  ``checks``: "index", or "storage" | "shape" | "dtype" when its error is about a tensor's layout."""

    op: str | None = None
    checked: bool | None = None


def assertion_dict(a: Assertion) -> dict:
    """The assertion as the JSON answers write it (the keys and their order of ``trace-assert --json``)."""
    d = {"message": a.message, "index_var": a.index_var, "bound_expr": a.bound_expr, "lower_bound": a.lower_bound,
         "condition": a.condition, "wrapper_line": a.wrapper_line}
    if isinstance(a, ExternCheck):
        d["op"], d["checked"] = a.op, a.checked
    d["checks"] = a.checks
    return d


@dataclass
class TraceMatch:
    model: str
    kernel: str
    kernel_kind: str  # "triton" | "cpp" | "extern"
    file_line: int
    assertion: Assertion  # the typed check (an `ExternCheck` for an extern op); JSON: `assertion_dict`
    static_bound: int | None
    bound: BoundChain | None
    index_origin: list[IndexOrigin]
    source_nodes: list[str]
    source_nodes_derived: bool
    aten_ops: list[str]
    exact: bool = True
    matched_by: str = ""
    call_sites: list[int] = field(default_factory=list)  # wrapper lines of the kernel's launches
    source_file: str = ""
    snippet: list[tuple[int, str]] = field(default_factory=list)
    stack_traces: list[str] = field(default_factory=list)
    post_grad_nodes: list[str] = field(default_factory=list)
    verdict: str = ""  # the verdict in full: its alternatives, the kernel it was checked in
    headline: str = ""  # the verdict in plain words, ≤ 120 characters with its label (explain.headline)
    hypotheses: list[Hypothesis] = field(default_factory=list)  # the one ranked list of causes, likeliest first
    notes: list[str] = field(default_factory=list)  # facts beside the causes (paths, launches, your code): no rank
    certainty: str = "possible"  # of the verdict: "certain" | "likely" | "possible"
    certainty_basis: str = "no_evidence"  # what that certainty rests on (`causes.BASES`)
    evidence: list[str] = field(default_factory=list)  # what the verdict rests on
    confirm: list[str] = field(default_factory=list)  # commands that tell the alternatives apart (no evidence here)
    negative_wrap: bool | None = None  # the kernel maps -1..-N to N-1..0 before its check (None: not known)
    position: PositionBound | None = None  # the index is a position a top-k/sort/argmax/bucketize returns
    table: TableRef | None = None  # what the index reads (JSON: `TableRef.to_dict`)
    source_locations: list = field(default_factory=list)  # the user's lines: parse.exported_program.SourceLocation
    # A NaN/Inf check's value: the ops from the load of an input to the checked value ("load" last: ["abs",
    # "load"]); None when the value is not one input's, or another check (`causes.own_message` reads it).
    value_ops: list[str] | None = None
    # the decision its words came from (`causes.Decision`): the headline is worded again once the element is known
    decided: object = field(default=None, repr=False, compare=False)
    element: object = None  # the element the failing threads held (`inspector.queries.element.ElementAnswer`), from a log
    branch: object | None = None  # the higher-order op's subgraph the kernel runs in (queries.branches.BranchContext)

    @property
    def complete(self) -> bool:
        """Every hop resolved: the bound (unless static) and every index origin."""
        if self.kernel_kind == "extern":
            bound_ok = True
        else:
            terms = self.bound.terms if self.bound is not None else []
            bound_ok = self.static_bound is not None or (bool(terms) and all(t.input is not None for t in terms))
        return bound_ok and bool(self.index_origin) and all(o.unresolved is None for o in self.index_origin)


def _allocation_sizes(pkg, m: Model):
    """``(buffer, wrapper line) -> its sizes`` from the index of ``m``'s model (`ModelIndex.allocation_sizes`),
    read only when a buffer's size is asked for (None for a model the index does not know)."""
    def sizes(buf: str, line: int):
        try:
            ix = pkg.index(m.name)
        except InspectorError:  # a Model the package does not hold (hand-made, in a test): no buffer sizes
            return None
        return ix.allocation_sizes(buf, line)

    return sizes


def _ep_usable(pkg, m: Model, ep) -> bool:
    from ..parse.exported_program import disagreements

    return ep is not None and not any("user inputs" in d for d in disagreements(ep, m))


def explain(pkg: Package, m: Model, k: Kernel, a: Assertion, exact: bool = True, how: str = "", ep=None) -> TraceMatch:
    g = pkg.graph_of(m)
    sites = [c for c in m.calls if c.kind == "kernel" and c.target == k.name]
    site = sites[0] if sites else None
    call_node = ids.call(site.line) if site else None
    static = static_bound(a.bound_expr) if a.bound_expr is not None else None
    if static is None and site is not None:
        static = literal_bound(m, site, a)
    bound = None if static is not None else bound_chain(m, g, k, a, call_node)
    origins = index_origins(m, g, k, a, site) if a.index_var else []
    nodes, derived, aten, traces, post = source_nodes(m, k, site)
    lo = a.line - 6
    snippet = [(ln, k.source_line(ln)) for ln in range(max(k.line_base, lo), a.line + 3) if k.source_line(ln) is not None]
    match = TraceMatch(
        model=m.name, kernel=k.name, kernel_kind=k.backend, file_line=a.line,
        assertion=a,
        static_bound=static, bound=bound, index_origin=origins, source_nodes=nodes, source_nodes_derived=derived,
        aten_ops=aten, exact=exact, matched_by=how, call_sites=[c.line for c in sites],
        source_file=k.source_file, snippet=snippet, stack_traces=traces, post_grad_nodes=post,
        table=_table(m, g, k, a, call_node), negative_wrap=negative_wrap(k, a) if a.index_var else None)
    if a.checks == "finite" and a.index_var:
        match.value_ops = value_ops(k, a.index_var, a.line)
    match.position = index_position(m, origins, _allocation_sizes(pkg, m))
    if match.position is None and origins and all(o.computed for o in origins):
        match.position = loop_position(m, g, k, a, site)  # an arange: the kernel's own loop position
    _finish(pkg, m, match, ep, len(sites))
    return match


def _finish(pkg, m: Model, match: TraceMatch, ep, n_sites: int) -> None:
    if _ep_usable(pkg, m, ep):
        refs = [o.input for o in match.index_origin if o.input]
        if match.bound:
            refs += [t.input for t in match.bound.terms if t.input]
        for r in refs:
            r.user_name = ep.user_name(r.index)
        if match.bound:
            from .bound_walk import limit_words

            match.bound.input = match.bound.terms[0].input if match.bound.terms else match.bound.input
            match.bound.limit = limit_words(match.assertion.bound_expr or "", match.bound.terms)
        names = match.source_nodes
        if match.source_nodes_derived:
            # Op names, not node names: prefer the nodes of those ops that read the index's input directly.
            ops = set(names)
            users = [n for o in match.index_origin if o.input for n in ep.input_users(o.input.index)]
            pref = [n for n in users if n in ep.nodes and _op_of(ep.nodes[n].target) in ops]
            names = pref or [n for n in names if n in ep.nodes and _op_of(ep.nodes[n].target) == n.rstrip("_0123456789")]
        match.source_locations = list(ep.locations(names))
        if match.table and match.table.kind == "input":
            match.table.user_name, match.table.named = ep.user_name(match.table.index), True
    reason(pkg, match, n_sites)


def _input_dtypes(pkg, model: str) -> dict[int, str]:
    """The model's inputs' compiled dtypes by position (its interface: no kernel parsed)."""
    try:
        return {i.index: i.dtype for i in pkg.index(model).eager().inputs if i.dtype}
    except KeyError:  # a model the package does not hold (a match made without one): no dtype known
        return {}


def reason(pkg, match: TraceMatch, n_sites: int, first_thread_failed: bool | None = None,
           thread_line: str | None = None) -> None:
    """The verdict, the ranked hypotheses with their certainty and evidence, the notes, and the commands that
    tell the alternatives apart when no evidence does: decided by `inspector.queries.causes`, worded by
    `inspector.explain`.  ``first_thread_failed``/``thread_line``: the log's thread [0,0,0] of block [0,0,0]
    evidence (CUDA), when it has some."""
    d = causes.decide(match, n_sites, first_thread_failed=first_thread_failed, thread_line=thread_line,
                      dtypes=_input_dtypes(pkg, match.model))
    match.verdict = words.verdict_words(d.verdict, match)
    match.headline = headline.trace_headline(d.verdict, match, headline.MATCH_BUDGET)
    match.decided = d.verdict
    match.hypotheses = [Hypothesis(words.cause_words(c, match), c.certainty,
                                   [words.evidence_words(e, match) for e in c.evidence], c.kind, c.basis, cause=c)
                        for c in d.causes]
    match.notes = [words.note_words(n, match) for n in d.notes]
    match.certainty, match.certainty_basis = d.certainty, d.basis
    match.evidence = list(match.hypotheses[0].evidence) if match.hypotheses else []
    match.confirm = words.confirm_commands(str(pkg.path)) if d.confirm else []


def negative_wrap(k: Kernel, a: Assertion) -> bool | None:
    """Whether the kernel maps a negative index to one counted from the end before it checks it (Python's
    semantics: ``tl.where(tmp0 < 0, tmp0 + N, tmp0)``, ``tmp4 ? tmp3 : tmp0`` with ``tmp4 = tmp0 < 0``, a
    vectorized ``blendv`` with a cast mask: `inspector.queries.wraps`).  False: the checked value reaches its load with no such select (an embedding);
    None: the chain could not be read."""
    defs: dict[str, object] = {}
    for t in sorted(k.tmps, key=lambda t: t.line):
        if t.line < a.line:
            defs[t.name] = t
    seen: set[str] = set()
    todo = [a.index_var]
    complete = True
    while todo:
        name = todo.pop()
        if name in seen or len(seen) > 40:
            continue
        seen.add(name)
        t = defs.get(name)
        if t is None:
            complete = False
            continue
        if wrap_in(defs, t.expr.tree) is not None:  # every form inductor writes: inspector.queries.wraps
            return True
        todo += [n for n in tmps_read(k, t) if n != name]
    return False if complete else None


def _op_of(target: str) -> str:
    """``torch.ops.aten.embedding.default`` -> ``embedding``."""
    parts = target.split(".")
    return parts[3] if len(parts) > 3 and parts[:3] == ["torch", "ops", "aten"] else target


def _table(m: Model, g, k: Kernel, a: Assertion, call_node: str | None) -> TableRef | None:
    """The tensor the checked index reads from: a load whose address uses the index variable."""
    an = ids.assertion(k.name, a.line)
    start = next((v for v, _ in edges(g, an, "asserts_on")), None)
    if start is None or call_node is None:
        return None
    from .suspects import copies

    users = [u for c in copies(g, start) for u, _, d in g.in_edges(c, data=True)
             if d.get("kind") == "uses" and ids.kind_of(u) == ids.TMP]
    for u in users:
        for p, d2 in edges(g, u, "loads"):
            bind = next(edges(g, p, "binds", call_node), None)
            if bind is None:
                continue
            return value_table(m, g, bind[0], g.nodes[p]["name"], bind[1].get("arg"))
    return None


# ---------------------------------------------------------------------------
# Failures inside extern ATen ops
# ---------------------------------------------------------------------------


def _extern_bound(m: Model, table: TableRef | None, site: CallSite) -> BoundChain | None:
    """The size an extern op checks its index against: the indexed dim of its table, when that table is an
    input (or a buffer made from exactly one input, taken to share its shape) and the dim is symbolic."""
    from .match import indexed_dim
    from .bound_walk import term_words

    if not table:
        return None
    if table.kind == "input":
        idx = table.index
    elif table.kind == "buffer" and len(table.from_inputs or []) == 1:
        idx = table.from_inputs[0]
    else:
        return None
    inp = next((i for i in m.inputs if i.index == idx), None)
    d = indexed_dim(site)
    if inp is None or d >= len(inp.shape):
        return None
    sym = root_symbol(m.symbols, inp.shape[d])
    if sym is None or sym.input is None:
        return None
    owner = next(i for i in m.inputs if i.index == sym.input)
    name = f"{table.name}.size({d})"
    t = BoundChain(kernel_param=name, call_arg=table.name, symbol=sym.name,
                   input=InputRef(index=owner.index, name=owner.name, dim=sym.dim), min=sym.min, max=sym.max,
                   definition=sym.expr, definition_line=sym.line)
    t.terms = [BoundTerm(**{f: getattr(t, f) for f in BoundTerm.__dataclass_fields__})]
    t.limit = term_words(t)
    return t


def explain_extern(pkg: Package, m: Model, site: CallSite, how: str, msg: str, ep=None,
                   said: OpError | None = None) -> TraceMatch:
    """The extern call ``site`` as the failing check, with ``msg`` its message; ``said``: the log's error of the op
    as read (``inspector.logs``: about a tensor's layout, or the size an index must stay under), None when the
    message is no log's."""
    g = pkg.graph_of(m)
    table_name, idx_names = index_args(site)
    origins = []
    for n in idx_names:
        origins += value_origins(m, g, n, site.line)
    table = None
    if table_name:
        from ..graph.build import value_node

        v = value_node(m, table_name)
        table = value_table(m, g, v, None, table_name) if v else None
        if table and table.kind == "buffer":
            made = [o.input.index for o in value_origins(m, g, table_name, site.line) if o.input]
            table.from_inputs = sorted(set(made))
    nodes, derived, aten, traces, post = source_nodes(m, None, site)
    limit = None
    layout = said.layout if said is not None else None
    bound = None if layout else _extern_bound(m, table, site)
    if bound is None and not layout:
        if table and table.kind == "constant" and isinstance(table.rows, int):
            limit = table.rows
        elif said is not None and said.limit is not None:
            limit = said.limit
    match = TraceMatch(
        model=m.name, kernel=site.target, kernel_kind="extern", file_line=site.line,
        assertion=ExternCheck(
            kernel=site.target, line=site.line, message=msg, index_var=", ".join(idx_names) or None,
            bound_expr=str(limit) if limit else (bound.kernel_param if bound else None), lower_bound="0",
            condition="", wrapper_line=site.line, op=extern_op_name(site.target), checked=getattr(site, "checked", None),
            # "storage" | "shape" | "dtype": the op's error is about a tensor's layout, no index bound
            checks=layout or "index"),
        static_bound=limit, bound=bound, index_origin=origins, source_nodes=nodes, source_nodes_derived=derived,
        aten_ops=aten, exact=True, matched_by=how, call_sites=[site.line],
        source_file=m.wrapper_member or "", snippet=[], stack_traces=traces, post_grad_nodes=post, table=table)
    match.position = index_position(m, origins, _allocation_sizes(pkg, m))
    _finish(pkg, m, match, ep, 1)
    return match
