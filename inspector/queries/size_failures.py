"""What given sizes make fail, for `check`: assertions whose bound they make 0 or negative and unchecked indirect
loads from a table they make empty (`_predict`), divisions by a size they make 0, extern ops given sizes the package
was not built for, and checks on a top-k/sort/argmax position that these sizes let run past their table."""

from __future__ import annotations

import inspector.graph.ids as ids
from ..explain import check as say
from ..model import Model
from ..package import Package
from ..parse import expr_tree as E
from ..parse.message import static_bound
from ..parse.tokens import identifiers
from .arith import evaluate
from .loop_checks import _first_launches


def _zero_divisors(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[dict]:
    """CPU kernels whose integer division or modulo divides by a size these dims make 0 (the expression trees of
    their statements, inspector.queries.divisions): the process dies of SIGFPE when the kernel runs
    that statement, which a loop over an empty range may skip, so "may"."""
    from .divisions import zero_divisions

    out = []
    for s in zero_divisions(pkg, name, dims):
        refs = [(r.input, r.dim) for r in s.symbols if dims.get((r.input, r.dim)) == 0]
        out.append({"kernel": s.target, "message": s.divisor, "line": s.line, "op": "division", "index_size": 0,
                    "bound": 0, "why": say.zero_divisor_why(s.divisor, refs)})
    return out


def _unvouched(m: Model, values: dict[str, tuple[int, int, int]]) -> dict[str, tuple[int, int, int, int]]:
    """root symbol -> (value, input, dim, the nearest size the package was built for) for each given size that is
    0 or outside its symbol's range (the input guards': with AOTI_RUNTIME_CHECK_INPUTS unset nothing stops it)."""
    out = {}
    for name, (v, i, d) in values.items():
        sym = m.symbols.get(name)
        lo, hi = (sym.min, sym.max) if sym is not None else (None, None)
        if v <= 0 or (lo is not None and v < lo):
            out[name] = (v, i, d, lo if lo is not None else 1)
        elif hi is not None and v > hi:
            out[name] = (v, i, d, hi)
    return out


def _unvouched_externs(pkg: Package, m: Model, values: dict[str, tuple[int, int, int]]) -> list[dict]:
    """Extern ATen ops whose inputs' shapes hold a size these inputs set to a value the package was not built for
    (inspector.queries.divisions): the generated code fits, but whether ATen's kernel takes that size (an empty
    sequence kills cpu_flash_attention with SIGFPE) is not in the package, so "may"."""
    from .divisions import unvouched_externs_read
    from .fused import extern_op_name

    bad = _unvouched(m, values)
    by_op: dict[str, list] = {}  # one entry per op, at its first call (later calls of it counted)
    sites, stopped = unvouched_externs_read(pkg, m.name, bad)
    for s in sites:
        by_op.setdefault(s.target, []).append(s)
    out = []
    for target, sites in by_op.items():
        first = min(sites, key=lambda s: s.line)
        syms = list(dict.fromkeys(r.symbol for s in sites for r in s.symbols if r.symbol in bad))
        sizes = [{"symbol": x, "input": bad[x][1], "dim": bad[x][2], "value": bad[x][0],
                  "min": m.symbols[x].min if x in m.symbols else None,
                  "max": m.symbols[x].max if x in m.symbols else None} for x in syms]
        op = extern_op_name(target)
        out.append({"kernel": target, "message": op, "line": first.line, "op": "extern",
                    "index_size": sizes[0]["value"], "bound": bad[syms[0]][3], "sizes": sizes,
                    "why": say.extern_size_why(op, first.line, len(sites) - 1, sizes)})
    if stopped is not None and out:
        out[-1]["why"] += say.externs_unread(stopped)
    return out


def _may_fail(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[dict]:
    """Checks whose index is a position a top-k/sort/argmax/bucketize returns (its values reach a length the
    package names) where these sizes make that length larger than the check's bound: the shapes alone let the
    index run past the table.  Whether it does depends on the values (which positions top-k picks), so "may"."""
    from .positions import _op_name, index_position, reduction_position
    from .bound_walk import bound_chain
    from .index_walk import index_origins

    ix = pkg.index(name)
    if not any(c.kind == "extern" and _op_name(c.target) for c in ix.calls()) and not any(
            w in k for k in ix.kernel_names() for w in ("argmax", "argmin", "sort", "topk", "bucketize")):
        return []
    asserting = list(dict.fromkeys(s.kernel for s in ix.assert_sites()))
    if not asserting:
        return []
    m = ix.slice(kernels=asserting)
    g = pkg.graph_of(m)
    first = _first_launches(m)
    out = []
    for k in m.kernels.values():
        site = first.get(k.name)
        for a in k.assertions:
            if not a.index_var or a.checks != "index":
                continue
            origins = index_origins(m, g, k, a, site)
            pos = index_position(m, origins, ix.allocation_sizes) or reduction_position(m, origins)
            if pos is None:
                continue
            length = dims.get((pos.input, pos.dim)) if pos.input is not None else pos.static
            bound = static_bound(a.bound_expr) if a.bound_expr else None
            table = str(bound) if bound is not None else None
            if bound is None and a.bound_expr:
                chain = bound_chain(m, g, k, a, ids.call(site.line) if site else None)
                terms = [t for t in (chain.terms if chain else []) if t.input is not None]
                vals = {t.kernel_param: dims[(t.input.index, t.input.dim)] for t in terms
                        if (t.input.index, t.input.dim) in dims}
                bound = evaluate(a.bound_expr, vals)
                table = say.table_terms(terms) or a.bound_expr
            if length is None or bound is None or length - 1 + pos.past < bound:
                continue
            top = length - 1 + pos.past
            out.append({"kernel": k.name, "message": a.message, "line": a.line, "op": pos.op,
                        "index_size": length, "bound": bound,
                        "why": say.may_fail_why(pos, length, top, table, bound)})
    return out


def _names(expr: str) -> tuple[str, ...] | list[str]:
    """The names a bound reads: its tree's, or its words when the grammar does not read it."""
    tree = E.parse_expr(expr)
    return identifiers(expr) if E.has_opaque(tree) else E.names(tree)


def _holds_bound_args(m: Model) -> bool:
    """Whether every argument a non-constant bound reads at a kernel's first launch is a value ``m`` holds
    (a `bounds_model` holds scalars, not buffers: a bound on a buffer argument needs the slice)."""
    from ..graph.build import call_params, value_node

    first = _first_launches(m)
    for k in m.kernels.values():
        bounds = [a.bound_expr for a in k.assertions if a.bound_expr and static_bound(a.bound_expr) is None]
        site = first.get(k.name)
        if not bounds or site is None:
            continue
        args = dict(zip(call_params(m, site), site.args))
        for n in {n for b in bounds for n in _names(b)}:
            arg = args.get(n) if k.param(n) else None
            if arg is not None and arg.base and value_node(m, arg.base) is None:
                return False
    return True


def _predict(pkg: Package, m: Model, sym_values: dict[str, int], dims: dict[tuple[int, int], int]) -> list[dict]:
    """Assertions whose bound these sizes make 0 or negative, and unchecked indirect loads from an empty table.

    The asserts are read in a slice of the kernels that hold one (the scan knows which); the unchecked
    loads need every kernel, so the whole model is parsed only when a given dim is 0."""
    from ..index.closure import bounds_model
    from .suspects import model_suspects
    from .bound_walk import bound_chain

    ix = pkg.index(m.name)
    asserting = list(dict.fromkeys(s.kernel for s in ix.assert_sites()))
    if asserting:
        light = None if m.name in pkg._models or ix.parsed_whole else bounds_model(ix, asserting)
        m = light if light is not None and _holds_bound_args(light) else ix.slice(kernels=asserting)
    g = pkg.graph_of(m)
    out = []
    first = _first_launches(m)
    for k in m.kernels.values():
        site = first.get(k.name)
        for a in k.assertions:
            if not a.bound_expr or static_bound(a.bound_expr) is not None:
                continue
            chain = bound_chain(m, g, k, a, ids.call(site.line) if site else None)
            if chain is None:
                continue
            vals = {}
            for t in chain.terms:
                if t.input is not None and (t.input.index, t.input.dim) in dims:
                    vals[t.kernel_param] = dims[(t.input.index, t.input.dim)]
            v = evaluate(a.bound_expr, vals)
            if v is not None and v <= 0:
                parts = say.bound_terms([t for t in chain.terms if t.input and (t.input.index, t.input.dim) in dims],
                                        dims)
                out.append({"kernel": k.name, "message": a.message, "line": a.line,
                            "why": say.empty_bound_why(a.bound_expr, v, parts, a.index_var, k.name)})
    if not any(v == 0 for v in dims.values()):
        return out
    for s in model_suspects(pkg, m.name):
        t = s.get("table") or {}
        empty = [d for (i, d), v in dims.items() if i == t.get("index") and v == 0] if t.get("kind") == "input" else []
        if empty:
            out.append({"kernel": s["kernel"], "message": say.unchecked_load(s["access"], s["pointer"], s["address"]),
                        "line": s["line"], "why": say.empty_table_why(t["index"], t["name"], empty[0])})
    return out
