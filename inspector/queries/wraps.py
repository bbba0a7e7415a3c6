"""The wrap of negative indices (Python's indexing, ``x < 0 ? x + N : x``) in a kernel's definitions, read from
their typed expression trees (`inspector.parse.expr_tree`), in every form inductor writes it:

- scalar C++: ``tmp0 < 0 ? tmp0 + 64L : tmp0``, or ``auto tmp2 = tmp0 < 0;`` then ``auto tmp3 = tmp2 ? tmp1 : tmp0;``
- Triton: ``tl.where(tmp2, tmp1, tmp0)`` with ``tmp2 = tmp0 < 0``
- vectorized C++ (torch 2.6 to 2.13): ``decltype(tmp4)::blendv(tmp0, tmp4, tmp7.template cast<int64_t,2>())`` with
  ``tmp7 = at::vec::VecMask<int64_t,2>(tmp0 < tmp6)``, ``tmp6 = at::vec::VectorizedN<int64_t,2>(tmp5)``,
  ``tmp5 = static_cast<int64_t>(0)`` and ``tmp4 = tmp0 + tmp3``; torch 2.15 casts the mask with
  ``inductor_vec_mask_cast<int64_t,2>(tmp7)``.  ``blendv(a, b, mask)`` is ``mask ? b : a``.

The mask, the zero and both operands are followed through the definitions they name (``defs``: tmp name -> its
definition, an object with ``.expr.tree``), so a cast of the mask (``.template cast<…>()``, ``…_cast<…>(m)``,
``VecMask<…>(m)``, ``VecMask<…>::from(m)``) or a zero made a vector is the same test as the scalar one.  Read by
trace (``explanation.negative_wrap``) and by repro and sweep (``repro._wraps``): one matcher for both.
"""

from __future__ import annotations

from ..parse import expr_tree as E

_DEPTH = 8  # definitions followed from one operand (copies, casts, vectors of a scalar)
_MASK_CASTS = ("cast", "from")  # a mask's conversions: `.template cast<T,n>()`, `VecMask<T,n>::from(m)`


def _plain(name: str) -> str:
    """A C++ name without its template arguments: ``at::vec::VecMask<int64_t,2>::from`` -> ``at::vec::VecMask::from``."""
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out).replace("template ", "").strip()


def _last(name: str) -> str:
    """The last part of a call's name, without template arguments (``decltype(tmp4)::blendv`` -> ``blendv``)."""
    return _plain(name).rsplit("::", 1)[-1].rsplit(".", 1)[-1].strip()


def _func(n) -> str:
    """The name a call calls; "" for any other node."""
    if not isinstance(n, E.Call):
        return ""
    if isinstance(n.func, E.Attr):
        return n.func.name
    return E.dotted(n.func) or ""


def _resolve(defs, n, depth: int = 0):
    """``n`` without its parentheses, and a tmp by the tree of its definition (through copies)."""
    n = E.strip_parens(n)
    while isinstance(n, E.Name) and n.id in defs and depth < _DEPTH:
        n = E.strip_parens(defs[n.id].expr.tree)
        depth += 1
    return n


def _mask(n):
    """A mask without its conversions: ``m.template cast<int64_t,2>()``, ``inductor_vec_mask_cast<int64_t,2>(m)``,
    ``at::vec::VecMask<int64_t,2>(m)``, ``at::vec::VecMask<int64_t,2>::from(m)`` -> ``m``."""
    for _ in range(_DEPTH):
        n = E.strip_parens(n)
        if not isinstance(n, E.Call):
            return n
        last = _last(_func(n))
        if isinstance(n.func, E.Attr) and not n.args and last in _MASK_CASTS:
            n = n.func.base
        elif len(n.args) == 1 and (last in _MASK_CASTS or last.endswith("_cast") or last == "VecMask"):
            n = n.args[0]
        else:
            return n
    return n


def _bare(n):
    """A value without its casts and parentheses (``static_cast<int64_t>(tmp0)`` -> ``tmp0``)."""
    while True:
        n = E.strip_parens(n)
        if isinstance(n, E.Cast):
            n = n.operand
        elif isinstance(n, E.Call) and len(n.args) == 1 and _last(_func(n)) == "convert":  # c10::convert<int64_t>(x)
            n = n.args[0]
        else:
            return n


def _is_zero(defs, n, depth: int = 0) -> bool:
    """``0``, ``static_cast<int64_t>(0)``, ``tl.full([1], 0, tl.int64)``, a vector of one of those
    (``at::vec::VectorizedN<int64_t,2>(tmp5)``), or a tmp defined so."""
    if depth > _DEPTH:
        return False
    n = _bare(_resolve(defs, n))
    if isinstance(n, E.Int):
        return n.value == 0
    if isinstance(n, E.Call):
        f = _func(n)
        if _last(f) == "full" and len(n.args) >= 2:  # tl.full(shape, value, dtype)
            return _is_zero(defs, n.args[1], depth + 1)
        if len(n.args) == 1 and _last(f).startswith("Vectorized"):  # a vector of a scalar
            return _is_zero(defs, n.args[0], depth + 1)
    return False


def _same(defs, a, b) -> bool:
    """Whether two operands are the same value: the same tmp, or definitions that read alike."""
    a, b = _bare(E.strip_parens(a)), _bare(E.strip_parens(b))
    if a == b:
        return True
    return _bare(_resolve(defs, a)) == _bare(_resolve(defs, b))


def negative_test(defs, cond):
    """The value ``cond`` tests for being negative (``tmp0 < 0``, ``0 > tmp0``, ``VecMask<…>(tmp0 < tmp6)`` with
    ``tmp6`` a vector of 0, through a mask's casts and the tmps that hold it), else None."""
    n = cond
    for _ in range(_DEPTH):
        nxt = _mask(_resolve(defs, n))
        if nxt == n:
            break
        n = nxt
    if not isinstance(n, E.Compare) or len(n.ops) != 1:
        return None
    left, right = n.operands
    if n.ops == ("<",) and _is_zero(defs, right):
        return left
    if n.ops == (">",) and _is_zero(defs, left):
        return right
    return None


def selects(tree):
    """Every select in ``tree`` as (condition, value where it holds, value where not): ``c ? a : b``,
    ``tl.where(c, a, b)``, ``blendv(a, b, mask)`` (``mask ? b : a``)."""
    for n in E.walk(tree):
        if isinstance(n, E.Ternary):
            yield n.cond, n.a, n.b
        elif isinstance(n, E.Call) and len(n.args) == 3:
            last = _last(_func(n))
            if last == "where":
                yield n.args[0], n.args[1], n.args[2]
            elif last == "blendv":
                yield n.args[2], n.args[1], n.args[0]


def _adds(defs, n, raw) -> bool:
    """Whether ``n`` (or the definition it names) adds something to ``raw``: ``tmp0 + tmp3``, ``tmp0 + 64L``."""
    for x in E.walk(_resolve(defs, n)):
        if isinstance(x, E.BinOp) and x.op == "+" and (_same(defs, x.left, raw) or _same(defs, x.right, raw)):
            return True
    return False


def wrap_in(defs, tree):
    """The raw value a wrap of negatives in ``tree`` maps (``c ? x + N : x`` with ``c`` testing ``x < 0``, in any
    form the module's docstring lists), else None."""
    for cond, yes, no in selects(tree):
        raw = negative_test(defs, cond)
        if raw is not None and _same(defs, raw, no) and _adds(defs, yes, raw):
            return E.strip_parens(no)
    return None
