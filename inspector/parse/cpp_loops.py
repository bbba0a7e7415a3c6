"""What a CPU kernel's loop nest says beyond the statements ``grammars/cpp_kernel.lark`` reads: its loop headers
(``for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(ks1); …)``), read from the kernel's lines on
demand, each bound an `Expr` whose tree (`Expr.tree`) a query matches.  (The accumulator updates are
``Kernel.acc_updates``.)"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Expr, Kernel
from .expr_tree import has_opaque, names as tree_names, parse_expr

_IDENT = re.compile(r"[A-Za-z_]\w*")
_LOOP = re.compile(r"for\s*\(\s*int64_t\s+(\w+)\s*=[^;]*;\s*(\w+)\s*<\s*([^;]+?)\s*;")


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


def loop_headers(k: Kernel) -> list[LoopHeader]:
    """The ``for`` headers of CPU kernel ``k`` whose condition tests their own variable (``x1<…``)."""
    out = []
    for i, text in enumerate(k.lines()):
        mm = _LOOP.search(text)
        if mm and mm.group(1) == mm.group(2):
            out.append(LoopHeader(mm.group(1), _expr(mm.group(3)), k.line_base + i))
    return out
