"""A size or bound's integer arithmetic (``ks0 + ks1``, ``(-1) + ks0``, ``64L``) evaluated at given sizes: what
`check`, `memory` and `repro` compute a size with."""

from __future__ import annotations

import math

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


# -- a size as the C++ wrapper computes it -------------------------------------------------------------------------
# The functions Inductor's C++ printer writes in a size (`c10::div_floor_integer`, `std::max`, `std::floor`, …); a
# float (`(1.0/16.0)*arg32_1_size_2`: torch 2.13's CPU wrapper dividing a size by a patch) is a C double, and the
# `int64_t` it is assigned to truncates it.
_REAL_TYPES = ("double", "float")


def _floor_div(a, b):
    if b == 0:
        E._floor_div(0, 0)  # raises the tree's own division-by-zero error
    return a // b if isinstance(a, int) and isinstance(b, int) else math.floor(a / b)


def _c_div(a, b):
    if b == 0:
        E._floor_div(0, 0)
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


_C_CALLS = {
    "c10::div_floor_integer": _floor_div, "c10::mod_floor_integer": lambda a, b: a - b * _floor_div(a, b),
    "std::max": max, "std::min": min, "max": max, "min": min, "std::abs": abs, "abs": abs,
    "std::floor": math.floor, "floor": math.floor, "std::ceil": math.ceil, "ceil": math.ceil,
    "c10::CeilDiv": lambda a, b: -_floor_div(-a, b), "c10::div_ceil_integer": lambda a, b: -_floor_div(-a, b),
}
_C_BINARY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _c_div,
             "//": _floor_div, "%": lambda a, b: a - b * _c_div(a, b)}


def c_value(tree, values: dict[str, int]):
    """The value of a size expression as the C++ wrapper computes it (an int, or a float inside a float
    subexpression): ``/`` is C's (integer division of two ints, truncating), ``//`` floors, integer casts truncate,
    and the functions of `_C_CALLS` are taken; raises `E.EvalError` (`E.UnknownName`) for anything else."""
    n = tree
    if isinstance(n, E.Int):
        return n.value
    if isinstance(n, E.Float):
        return n.value
    if isinstance(n, E.Name):
        if n.id in values:
            return values[n.id]
        raise E.UnknownName(n.id)
    if isinstance(n, E.Paren):
        if isinstance(n.inner, E.Tuple):
            raise E.NotEvaluable(n)
        return c_value(n.inner, values)
    if isinstance(n, E.BinOp) and n.op in _C_BINARY:
        return _C_BINARY[n.op](c_value(n.left, values), c_value(n.right, values))
    if isinstance(n, E.UnaryOp) and n.op in ("-", "+"):
        v = c_value(n.operand, values)
        return -v if n.op == "-" else v
    if isinstance(n, E.Compare):
        vals = [c_value(x, values) for x in n.operands]
        return int(all(E._COMPARE[op](a, b) for op, a, b in zip(n.ops, vals, vals[1:])))
    if isinstance(n, E.Ternary):
        return c_value(n.a, values) if c_value(n.cond, values) else c_value(n.b, values)
    if isinstance(n, E.Cast):
        t = n.type.replace("const ", "")
        v = c_value(n.operand, values)
        if t in E._INT_TYPES:
            return int(v)  # toward zero, as C's conversion
        if t in _REAL_TYPES:
            return float(v)
        raise E.NotEvaluable(n)
    if isinstance(n, E.Call):
        f = _C_CALLS.get(E.dotted(n.func) or "")
        if f is None or any(isinstance(a, E.Keyword) for a in n.args):
            raise E.NotEvaluable(n)
        return f(*(c_value(a, values) for a in n.args))
    raise E.NotEvaluable(n)


def c_size(expr, values: dict[str, int]) -> int | None:
    """An integer size (text or a typed tree) as the wrapper computes it into an ``int64_t`` (`c_value`, truncated
    toward zero); None when a name is unknown or the expression is not a size's arithmetic."""
    tree = expr if isinstance(expr, E.Node) else E.parse_expr((expr or "").strip())
    try:
        v = c_value(tree, values)
    except (E.EvalError, OverflowError, ValueError):
        return None
    return int(v) if isinstance(v, (int, float)) else None
