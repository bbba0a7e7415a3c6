"""The bound walk: an assertion's bound (``ks0 + ks1``) to the input dims it is made of, and the span a computed
index runs over (its loop's size, traced the same way)."""

from __future__ import annotations

import inspector.explain.trace as say
import inspector.graph.ids as ids
from ..model import Assertion, CallSite, Kernel, Model
from ..parse import expr_tree as E
from ..parse.names import range_index
from .walk import BoundChain, BoundTerm, InputRef, edges


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

    if not a.bound_expr or not a.bound_expr.isidentifier():
        return None
    names = call_params(m, site)
    if a.bound_expr not in names or names.index(a.bound_expr) >= len(site.args):
        return None
    return E.constant(site.args[names.index(a.bound_expr)].tree)


def limit_words(expr: str, terms: list[BoundTerm]) -> str:
    """``ks0 + ks1`` -> ``input 0.size(0) + input 1.size(0)`` (user names when known)."""
    return say.limit_words(E.parse_expr(expr), {t.kernel_param: term_words(t) for t in terms})


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
