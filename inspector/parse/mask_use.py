"""How a kernel reads a bool input (issue 35 §5): the value it keeps where the mask is True, from its tmp definitions.

``masked_fill(~mask, -inf)`` (keep where True) and ``masked_fill(mask, -inf)`` (True = masked out) compile to a
select on the loaded mask, negated or not, between the computed value and a fill:

* CPU: ``tmp1 = ~tmp0; tmp5 = decltype(tmp4)::blendv(tmp2, tmp4, tmp1.template cast<float,1>())`` (blendv(a, b, m)
  takes b where m), or a scalar ``tmp1 ? tmp3 : tmp2``;
* Triton: ``tmp1 = tmp0 == 0`` (a bool's ``~``) and ``tmp3 = tl.where(tmp1, tmp2, tmp4)``.

The fill is a literal or a tmp made from one (``-std::numeric_limits<float>::infinity()``, ``float("-inf")``, a
number).  Anything else (the mask multiplied in, read through another buffer) is not read: None."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NEG = re.compile(r"^(?:~|!)\s*(?P<t>tmp\d+)$|^(?P<u>tmp\d+)\s*==\s*(?:0|false|False)$")
_BLEND = re.compile(r"blendv\(\s*(?P<a>\w+)\s*,\s*(?P<b>\w+)\s*,\s*(?P<m>tmp\d+)\b")
_WHERE = re.compile(r"(?:tl\.)?where\(\s*(?P<m>tmp\d+)\s*,\s*(?P<a>\w+)\s*,\s*(?P<b>\w+)\s*\)")
_TERNARY = re.compile(r"^(?P<m>tmp\d+)\s*\?\s*(?P<a>\w+)\s*:\s*(?P<b>\w+)$")
_FILL = re.compile(r"infinity\(\)|float\(\s*['\"]-?inf['\"]\s*\)|^-?\s*[\d.]+(?:e[+-]?\d+)?[fL]?$|"
                   r"lowest\(\)|max\(\)|^-?inf$")


def _fill_words(e: str) -> str:
    """``- std::numeric_limits < float >::infinity()`` -> ``-inf``; a number as written."""
    if "inf" in e:
        return "-inf" if e.lstrip().startswith("-") or "-inf" in e.replace(" ", "") else "inf"
    return e.replace(" ", "")


@dataclass(frozen=True)
class MaskUse:
    """``keeps``: "true" (the value is kept where the mask is True, the fill where False) or "false" (True = filled,
    masked out); ``kernel``, the file ``line`` of the select that says so, and the ``fill`` as written."""

    keeps: str
    kernel: str
    line: int
    fill: str


def mask_use(kernel, param: str) -> MaskUse | None:
    """How ``kernel`` (a `model.Kernel`) uses its bool pointer ``param``: the first select on it, or None."""
    defs = {}
    for t in kernel.tmps:
        defs.setdefault(t.name, str(t.expr))
    loads = {n for n, e in defs.items() if re.search(rf"\b{re.escape(param)}\b", e)}
    if not loads:
        return None
    negated = {}
    for n, e in defs.items():
        m = _NEG.match(e.strip())
        if m and (m.group("t") or m.group("u")) in loads:
            negated[n] = True
    sel = loads | set(negated)

    def is_fill(name: str, depth: int = 0) -> str | None:
        e = defs.get(name, name).strip()
        if _FILL.search(e):
            return e
        inner = re.fullmatch(r"(?:at::vec::Vectorized\s*<[^>]*>|decltype\(\w+\))\s*\(\s*(tmp\d+)\s*\)", e)
        return is_fill(inner.group(1), depth + 1) if inner and depth < 4 else None

    for t in kernel.tmps:
        e = str(t.expr)
        for rx, where_true in ((_BLEND, "b"), (_WHERE, "a"), (_TERNARY, "a")):
            m = rx.search(e) if rx is not _TERNARY else rx.match(e.strip())
            if not m or m.group("m") not in sel:
                continue
            neg = m.group("m") in negated
            on_true, on_false = (m.group("b"), m.group("a")) if where_true == "b" else (m.group("a"), m.group("b"))
            f_true, f_false = is_fill(on_true), is_fill(on_false)
            if bool(f_true) == bool(f_false):
                return None
            fill_where_selector = bool(f_true)
            masked_where_true = fill_where_selector != neg  # the mask's True fills (masks out)
            return MaskUse("false" if masked_where_true else "true", kernel.name, t.line, _fill_words(f_true or f_false))
    return None
