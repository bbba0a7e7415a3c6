"""What a CPU kernel's loop nest says beyond the statements ``grammars/cpp_kernel.lark`` reads: the updates of
its reduction accumulators (``tmp_acc0_vec = argmax_combine_vec<float, 1, 16, true>(tmp_acc0_vec, tmp0, x1);``)
and its loop headers (``for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(ks1); …)``), read from
the kernel's lines on demand, each value an `Expr` whose tree (`Expr.tree`) a query matches."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Expr, Kernel
from .expr_tree import has_opaque, names as tree_names, parse_expr

_ACC_ASSIGN = re.compile(r"\s*(tmp_acc\d+)\w*\s*=\s*(.+);\s*$")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_LOOP = re.compile(r"for\s*\(\s*int64_t\s+(\w+)\s*=[^;]*;\s*(\w+)\s*<\s*([^;]+?)\s*;")


@dataclass(frozen=True)
class AccAssign:
    """``tmp_acc0_vec = …;`` at kernel line ``line``: ``acc`` the accumulator (``tmp_acc0``, its ``_vec`` twin
    counted as it), ``value`` what is assigned."""

    acc: str
    value: Expr
    line: int


@dataclass(frozen=True)
class LoopHeader:
    """``for(int64_t x1=…; x1<BOUND; …)`` at kernel line ``line``: the loop variable and its bound."""

    var: str
    bound: Expr
    line: int


def _expr(text: str) -> Expr:
    """``text`` as an `Expr`: its names from its tree (from its words when the grammar does not read it)."""
    tree = parse_expr(text)
    return Expr(text, tuple(dict.fromkeys(_IDENT.findall(text))) if has_opaque(tree) else tree_names(tree))


def acc_assigns(k: Kernel, before: int | None = None) -> list[AccAssign]:
    """The accumulator updates of CPU kernel ``k`` (those above kernel line ``before`` when given)."""
    out = []
    end = before if before is not None else k.line_base + len(k.lines())
    for ln in range(k.line_base, end):
        mm = _ACC_ASSIGN.match(k.source_line(ln) or "")
        if mm:
            out.append(AccAssign(mm.group(1), _expr(mm.group(2)), ln))
    return out


def loop_headers(k: Kernel) -> list[LoopHeader]:
    """The ``for`` headers of CPU kernel ``k`` whose condition tests their own variable (``x1<…``)."""
    out = []
    for i, text in enumerate(k.lines()):
        mm = _LOOP.search(text)
        if mm and mm.group(1) == mm.group(2):
            out.append(LoopHeader(mm.group(1), _expr(mm.group(3)), k.line_base + i))
    return out
