"""What a package knows of an input's dims and strides where its wrapper checks none (issue 34 §6: `show`'s `?`).

torch 2.11's CUDA wrapper checks an input's static sizes and strides and its sizes' ranges, and reads the dynamic
sizes it needs into symbols; it says nothing of a dynamic stride (``[?, 1]``) nor of a dim it only range-checks
(``[?, s75]``: a second input's batch, the same Dim as the first's).  What is known there all the same:

* the exported program, where the package ships it (``models/*.json``: each input's sizes and strides as the export
  saw them, in the wrapper's own symbols): it says both (`inspector.parse.exported_program.from_exported_program`,
  applied by `annotate_summary`);
* a stride the wrapper does not read into a symbol of its own is a product of the sizes (torch makes a fresh stride
  symbol, which the wrapper would read, for anything else): the input is dense in some order of its dims, and the
  checked strides leave the orders that agree with them (`dense_strides`).  One order left: its strides are the ones
  the compiled code indexes with; several (``[?, ?, ?, 1]``): the row-major one among them is written, said as an
  assumption (a row-major tensor is what export sees unless it was given another);
* a range-checked dim's range (``2..4096``), written where nothing else is known.

None of it is checked at run time: the input's stride there is what the kernels assume, and a tensor with another
(a transposed view, a slice) is read wrong without an error.  Nothing here reads text: sizes are the wrapper
model's strings, parsed into typed trees.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

UNKNOWN = "?"
MOST_DIMS = 6  # 720 orders; a higher rank is left as it is


@dataclass
class Layout:
    shape: list
    stride: list | None
    unchecked: list[int]  # dims whose stride the package checks nowhere
    basis: str | None  # "exported program" | "dense" | "row-major assumed" | None (nothing inferred)


def _factors(size) -> tuple[int, tuple[str, ...]] | None:
    """A size as (integer coefficient, symbolic factors): 4 -> (4, ()), "s77" -> (1, ("s77",)),
    "16L*s45" -> (16, ("s45",)), "1L + s45*s84" -> (1, ("(1 + s45*s84)",)); None when unknown."""
    if isinstance(size, int):
        return size, ()
    if not isinstance(size, str) or size == UNKNOWN or ".." in size:
        return None
    if size.isidentifier():  # a symbol: no expression parser loaded (a cached `show` parses nothing)
        return 1, (size,)
    from ..parse import expr_tree as E  # on first use: a cached `show` of plain symbols loads no tree module

    tree = E.parse_expr(size)
    if isinstance(tree, E.Opaque):  # a size the expression grammar does not take: unknown, as before
        return None
    coef, out = 1, []

    def walk(n):
        nonlocal coef
        n = E.strip_parens(n)
        if isinstance(n, E.BinOp) and n.op == "*":
            walk(n.left)
            walk(n.right)
        elif isinstance(n, E.Int):
            coef *= n.value
        else:
            t = E.unparse(n).replace(" ", "")
            t = "".join(_plain_ints(t))
            out.append(f"({t})" if isinstance(n, E.BinOp) else t)

    walk(tree)
    return coef, tuple(out)


def _plain_ints(text: str):
    """``16L`` -> ``16`` inside an unparsed factor (C++'s suffix, not part of the value)."""
    prev = ""
    for ch in text:
        if ch == "L" and prev.isdigit():
            continue
        yield ch
        prev = ch if not (ch == "L" and prev.isdigit()) else prev


def _spell(coef: int, factors: tuple[str, ...]) -> int | str:
    if not factors:
        return coef
    body = "*".join(factors)
    return body if coef == 1 else f"{coef}*{body}"


def dense_strides(shape: list, stride: list) -> tuple[list, str] | None:
    """The strides of ``stride``'s unknown (``?``) dims from the dense layouts of ``shape`` that agree with its
    known ones, and how sure: ("dense": one layout agrees; "row-major assumed": several do, the row-major one
    written); None when nothing could be inferred (no layout agrees, a size needed is unknown, too many dims)."""
    n = len(shape)
    if n != len(stride) or n > MOST_DIMS or UNKNOWN not in stride:
        return None
    facts = [_factors(s) for s in shape]
    results = []  # (inversions from row-major, strides)
    for order in permutations(range(n)):  # order[0]: the innermost dim
        coef, factors, st, ok = 1, (), [None] * n, True
        for d in order:
            st[d] = (coef, factors)
            f = facts[d]
            if f is None:
                coef = None  # every stride outside of it is unknown
                break
            coef, factors = coef * f[0], f[1] + factors  # written outer to inner, as torch writes a stride
        if coef is None:
            k = order.index(d)
            for d2 in order[k + 1:]:
                st[d2] = None
        for d in range(n):
            want = stride[d]
            if want == UNKNOWN or shape[d] == 1:  # a size-1 dim's stride is anything
                continue
            got = st[d]
            if got is None or isinstance(want, str) or got[1] or got[0] != want:
                if not (isinstance(want, str) and got is not None and _spell(*got) == want):
                    ok = False
                    break
        if ok:
            inv = sum(1 for i in range(n) for j in range(i + 1, n) if order[i] < order[j])
            results.append((inv, st))
    if not results:
        return None
    results.sort(key=lambda r: r[0])
    out, sure = list(stride), True
    for d in range(n):
        if stride[d] != UNKNOWN:
            continue
        spelled = {(_spell(*st[d]) if st[d] is not None else UNKNOWN) for _, st in results}
        first = results[0][1][d]
        out[d] = _spell(*first) if first is not None else UNKNOWN
        if len(spelled) > 1:
            sure = False
    if out == stride:
        return None
    return out, "dense" if sure else "row-major assumed"


def known_layout(shape: list | None, stride: list | None, ranges: dict[int, tuple[int | None, int | None]]) -> Layout:
    """An input's shape and stride with what the wrapper alone knows put for each ``?``: a range-only dim's range
    (``ranges``: dim -> (min, max), the guards'), an unchecked stride from the dense layouts (`dense_strides`)."""
    shape = list(shape) if shape is not None else None
    stride = list(stride) if stride is not None else None
    unchecked = [d for d, x in enumerate(stride or []) if x == UNKNOWN]
    basis = None
    if shape is not None and stride is not None:
        r = dense_strides(shape, stride)
        if r is not None:
            stride, basis = r
    if shape is not None:
        shape = [(f"{ranges[d][0] if ranges[d][0] is not None else ''}..{ranges[d][1] if ranges[d][1] is not None else ''}"
                  if x == UNKNOWN and d in ranges else x) for d, x in enumerate(shape)]
    return Layout(shape, stride, unchecked, basis)
