"""Where a kernel reads and writes its pointer parameters: `Access` records, read from the kernel's own lines.

An address is what follows a pointer parameter (``in_ptrN``, ``out_ptrN``, ``in_out_ptrN``): ``ptr[addr]``,
``ptr + (addr)``, ``ptr + static_cast<int64_t>(addr)`` or ``ptr + word``.  Vectorized CPU loads are cut short in
a tmp's value (a lambda spans lines: ``auto tmp2 =\\n[&]\\n{ … in_ptr1[tmp1[x1_inner] + …] … }\\n();``), so a
tmp's accesses are read from its whole definition in the source and from its value; a store's from its line.
The address keeps the kernel's own text (answers quote it) and gives its typed tree on use
(``access.address.tree``; `expr_tree.Opaque` for a text cut short, ``closed`` False).

Built on demand (`kernel_accesses`), never during the index: only the queries that ask for accesses pay.
"""

from __future__ import annotations

import re

from ..model import Access, Expr, Kernel
from .tokens import NAME_OR_SUFFIX

_PTR = re.compile(r"\b((?:in_out_ptr|in_ptr|out_ptr)\d+)\b")
_WS = re.compile(r"\s*")
_PLUS = re.compile(r"\s*\+\s*(static_cast<[\w:]+>\s*)?")
_WORD = re.compile(r"[\w.]+")


def _balanced(text: str, i: int, open_: str, close: str) -> tuple[str, bool]:
    """The text inside the bracket at ``i`` and whether it closes (else the rest of ``text``)."""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return text[i + 1:j], True
    return text[i + 1:], False


def accesses_in(text: str) -> list[tuple[str, str, bool]]:
    """(pointer, address text, whether its bracket closes in ``text``) for each pointer access in ``text``."""
    out = []
    for m in _PTR.finditer(text):
        j = _WS.match(text, m.end()).end()
        if j < len(text) and text[j] == "[":
            out.append((m.group(1), *_balanced(text, j, "[", "]")))
            continue
        mm = _PLUS.match(text, m.end())
        if mm:
            j = mm.end()
            if j < len(text) and text[j] == "(":
                out.append((m.group(1), *_balanced(text, j, "(", ")")))
            else:
                tok = _WORD.match(text, j)
                if tok:
                    out.append((m.group(1), tok.group(0), tok.end() < len(text)))
    return out


def definition_text(k: Kernel, line: int) -> str:
    """A tmp definition's whole text from the kernel's lines (vectorized ones span a lambda over several lines):
    from ``line`` to the next tmp, store or assertion, at most 30 lines."""
    starts = sorted({t.line for t in k.tmps} | {st.line for st in k.stores} | {a.line for a in k.assertions})
    end = next((x for x in starts if x > line), line + 1)
    return " ".join(k.source_line(ln) or "" for ln in range(line, min(end, line + 30)))


def _address(text: str) -> Expr:
    return Expr(text, tuple(dict.fromkeys(NAME_OR_SUFFIX.findall(text))))


def kernel_accesses(k: Kernel) -> list[Access]:
    """Every pointer access of ``k``'s tmps (kind "load", at the tmp's line, read from its definition and its
    value) and stores (kind "store", at the store's line + 0.5), in that order; the same access read twice (the
    source and the value) is listed twice.  Addresses as written, stripped."""
    out: list[Access] = []
    for t in k.tmps:
        for ptr, addr, closed in accesses_in(definition_text(k, t.line) + " " + t.expr.text):
            out.append(Access(ptr, _address(addr.strip()), t.line, "load", t.scope, closed))
    for s in k.stores:
        for ptr, addr, closed in accesses_in(k.source_line(s.line) or ""):
            out.append(Access(ptr, _address(addr.strip()), s.line + 0.5, "store", s.scope, closed))
    return out
