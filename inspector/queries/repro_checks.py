"""The package's range assertions as repro and sweep read them (`BoundsCheck`): each one's trace (its bound, where
its index comes from) and, from the kernel's typed trees, whether the index holds the input's values unchanged and
whether it wraps negative values first."""

from __future__ import annotations

from dataclasses import dataclass

from ..package import Package
from ..parse import expr_tree as E
from .arith import evaluate
from .wraps import wrap_in


ARITH_OPS = ("+", "-", "*", "/", "//", "%", "**")  # the operators that change an index on its way from the load


@dataclass
class BoundsCheck:
    """One assertion of the package, as its trace explains it: what a case needs to fill or violate it."""

    model: str
    kernel: str
    kernel_backend: str  # TraceMatch.kernel_kind: "triton" | "cpp" | "extern"
    line: int
    message: str
    bound_expr: str | None
    static_bound: int | None
    terms: list[tuple[str, int, int]]  # (kernel param, input, dim) of a bound made of input dims
    direct_input: int | None  # the input the index values are read from, unchanged (None: computed, or unknown)
    computed_input: int | None  # the input a computed index (top-k, argmax, cumsum…) is made from
    wraps_negative: bool | None  # the kernel adds the bound to negative values first (Python indexing)

    def bound(self, dims: dict[tuple[int, int], int]) -> int | None:
        if self.static_bound is not None:
            return self.static_bound
        if not self.bound_expr or not self.terms:
            return None
        return evaluate(self.bound_expr, {p: dims[(i, d)] for p, i, d in self.terms if (i, d) in dims})


def _tmps(defs, t) -> list[str]:
    return [n for n in t.expr.names if n in defs and n.startswith("tmp")]


def _func(n) -> str:
    """The name a call calls (``tl.full``, ``at::vec::Vectorized<int64_t>::loadu``); "" for any other node."""
    return (E.dotted(n.func) or "") if isinstance(n, E.Call) else ""


def _loads(tree) -> bool:
    """A load: ``in_ptr0[x0]``, ``tl.load(in_ptr0 + x0, xmask)``, ``Vectorized<int64_t>::loadu(in_ptr0 + x0, 16)``
    (a constant such as ``tl.full([1], 4, tl.int64)`` is none)."""
    return any(isinstance(n, E.Index) or "load" in _func(n) for n in E.walk(tree))


def _computes(tree) -> bool:
    """Arithmetic on the way (a binary or unary arithmetic operator; a string's "-inf" is none)."""
    return any((isinstance(n, E.BinOp) and n.op in ARITH_OPS) or (isinstance(n, E.UnaryOp) and n.op in ("+", "-"))
               for n in E.walk(tree))


def _unwrap(defs, t) -> tuple[bool, str | None]:
    """(whether ``t`` is the wrap of negatives ``c ? x + N : x`` / ``tl.where(c, x + N, x)`` / ``blendv(x, x + N, c)``
    with a cast mask, in every form `inspector.queries.wraps` reads, the unwrapped ``x``)."""
    raw = wrap_in(defs, t.expr.tree)
    if raw is None:
        return False, None
    return True, raw.id if isinstance(raw, E.Name) else next((n for n in E.names(raw) if n in defs), None)


def _defs(k, a) -> dict:
    """The tmp definitions the assertion ``a`` sees: in its scope (or an enclosing one), the last before it."""
    out = {}
    for t in sorted(k.tmps, key=lambda t: t.line):
        if a is not None and (t.line > a.line or tuple(a.scope[:len(t.scope)]) != tuple(t.scope)):
            continue
        out[t.name] = t
    return out


def _wraps(k, var: str | None, a=None) -> bool | None:
    """Whether the index variable wraps negative values (``x < 0 ? x + N : x``) on its way from the load."""
    if k is None or not var:
        return None
    defs = _defs(k, a)
    seen, todo = set(), [var]
    while todo:
        v = todo.pop()
        if v in seen or v not in defs:
            continue
        seen.add(v)
        wrapped, _ = _unwrap(defs, defs[v])
        if wrapped:
            return True
        todo += _tmps(defs, defs[v])
    return False


def _unchanged(k, var: str | None, a=None) -> bool | None:
    """Whether the index variable holds the loaded input values themselves (casts, copies and the wrap of
    negatives on the way, no arithmetic): then a value of the input equal to the bound reaches the check."""
    if k is None or not var:
        return None
    defs = _defs(k, a)
    v, seen = var, set()
    while v in defs and v not in seen:
        seen.add(v)
        t = defs[v]
        tmps = _tmps(defs, t)
        if not tmps:  # the load (in_ptr0[...], tl.load(in_ptr0 + ...), loadu(in_ptr0 + ...)): reached
            return _loads(t.expr.tree)
        wrapped, inner = _unwrap(defs, t)
        if wrapped:
            v = inner
            continue
        if len(tmps) == 1 and not _computes(t.expr.tree):
            v = tmps[0]
            continue
        return False
    return None


def bounds_checks(pkg: Package, name: str) -> list[BoundsCheck]:
    """Every range assertion of model ``name``, traced (bound, index origin, wrap-around)."""
    from .trace import trace_assert

    ix = pkg.index(name)
    out = []
    seen = set()
    for s in ix.assert_sites():
        if (s.kernel, s.line) in seen:
            continue
        seen.add((s.kernel, s.line))
        r = trace_assert(pkg, kernel=s.kernel, line=s.line, model=name)
        for mt in r.matches:
            if mt.assertion.checks != "index" or (mt.kernel, mt.file_line) in {(f.kernel, f.line) for f in out}:
                continue
            out.append(bounds_check_of(pkg, mt))
    return out


def bounds_check_of(pkg: Package, mt) -> BoundsCheck:
    terms = []
    if mt.bound is not None:
        for t in mt.bound.terms or [mt.bound]:
            if t.input is not None and t.input.dim is not None:
                terms.append((t.kernel_param, t.input.index, t.input.dim))
    direct = computed = None
    for o in mt.index_origin:
        if o.input is None:
            continue
        if o.through_buffer:
            computed = o.input.index if computed is None else computed
        elif direct is None:
            direct = o.input.index
    k = a = None
    if mt.kernel_kind != "extern":
        k = pkg.index(mt.model).slice(kernels=[mt.kernel]).kernels.get(mt.kernel)
        a = next((x for x in (k.assertions if k else []) if x.line == mt.file_line), None)
        if direct is not None and _unchanged(k, mt.assertion.index_var, a) is not True:
            computed, direct = direct, None  # read from the input, then changed (key // 4): a computed index
    return BoundsCheck(model=mt.model, kernel=mt.kernel, kernel_backend=mt.kernel_kind, line=mt.file_line,
                     message=(mt.assertion.message or ""), bound_expr=mt.assertion.bound_expr,
                     static_bound=mt.static_bound, terms=terms, direct_input=direct, computed_input=computed,
                     wraps_negative=_wraps(k, mt.assertion.index_var, a))
