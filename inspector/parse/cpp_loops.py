"""What a CPU kernel's loop nest says beyond the statements ``grammars/cpp_kernel.lark`` reads: its loop headers
(``for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(ks1); …)``), read from the kernel's own lines
on demand (`kernel_span`: a CPU kernel's ``lines()`` are the whole file), each bound an `Expr` whose tree
(`Expr.tree`) a query matches.  (The accumulator updates are ``Kernel.acc_updates``.)"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Expr, Kernel
from .expr_tree import has_opaque, names as tree_names, parse_expr
from .tokens import NAME_OR_SUFFIX

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
    return Expr(text, tuple(dict.fromkeys(NAME_OR_SUFFIX.findall(text))) if has_opaque(tree) else tree_names(tree))


def kernel_span(k: Kernel) -> range:
    """The indices into ``k.lines()`` of kernel ``k`` alone.  A CPU kernel's lines are its whole kernel.cpp (torch
    2.6: the whole ``<hash>.cpp``), numbered from ``line_base``: the kernel runs from its signature at ``first_line``
    to the brace that closes its body, as `inspector.parse.cpp_kernel.parse_kernel_region` reads it.  A Triton
    kernel's lines are its own."""
    lines = k.lines()
    if k.backend != "cpp":
        return range(len(lines))
    start = max(k.first_line - k.line_base, 0)
    depth, opened = 0, False
    for i in range(start, len(lines)):
        text = lines[i]
        if "{" in text or "}" in text:
            opens = text.count("{")
            depth += opens - text.count("}")
            opened = opened or opens > 0
            if opened and depth <= 0:
                return range(start, i + 1)
    return range(start, len(lines))  # a body that never closes: to the file's end


def loop_headers(k: Kernel) -> list[LoopHeader]:
    """The ``for`` headers of CPU kernel ``k`` whose condition tests their own variable (``x1<…``): read from
    its own lines only (`kernel_span`), not from every kernel of the file."""
    out = []
    lines = k.lines()
    for i in kernel_span(k):
        text = lines[i]
        if "for" not in text:
            continue
        mm = _LOOP.search(text)
        if mm and mm.group(1) == mm.group(2):
            out.append(LoopHeader(mm.group(1), _expr(mm.group(3)), k.line_base + i))
    return out
