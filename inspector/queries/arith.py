"""A size or bound's integer arithmetic (``ks0 + ks1``, ``(-1) + ks0``, ``64L``) evaluated at given sizes: what
`check`, `memory` and `repro` compute a size with."""

from __future__ import annotations

from ..parse import expr_tree as E


# The arithmetic of a size or bound that `evaluate` takes: anything else (a call such as c10::div_floor_integer, a
# comparison, a ternary, a float) is not plain arithmetic and has no value here, as before the trees
ARITH = frozenset({"+", "-", "*", "//", "%"})


def _plain(tree, ops: frozenset, casts: bool) -> bool:
    """Whether ``tree`` is integer arithmetic of names and literals with the operators ``ops`` (and casts)."""
    for n in E.walk(tree):
        if isinstance(n, (E.Int, E.Name)) or (isinstance(n, E.Paren) and not isinstance(n.inner, E.Tuple)):
            continue
        if (isinstance(n, E.BinOp) and n.op in ops) or (isinstance(n, E.UnaryOp) and n.op == "-"):
            continue
        if casts and isinstance(n, E.Cast):  # `static_cast<int64_t>(s70*s70)`: `E.evaluate` takes integer casts only
            continue
        return False
    return True


def evaluate(expr, values: dict[str, int], ops: frozenset = ARITH, casts: bool = False) -> int | None:
    """An integer size expression (``ks0 + ks1``, ``(-1) + ks0``, ``ks1*ks2``, ``64L``; text or a typed tree) with
    ``values``; None when a name is unknown or the expression is not plain arithmetic (``ops``: the binary
    operators taken; ``casts``: integer casts too).  The typed tree's evaluation: C's ``/`` and ``%``."""
    tree = expr if isinstance(expr, E.Node) else E.parse_expr((expr or "").strip())
    if not _plain(tree, ops, casts):
        return None
    try:
        return E.evaluate(tree, values)
    except E.EvalError:
        return None
