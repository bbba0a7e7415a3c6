"""The pointer accesses in a kernel's text: ``in_ptr1[tmp3 + 8L*x0]`` (CPU), ``in_ptr0 + (x0)`` (Triton's
``tl.load``), ``in_ptr0 + static_cast<int64_t>(x0)`` (a vectorized load), each with its address as an `Expr`
(whose tree, `Expr.tree`, a query reads).  Read from raw lines, as the lazy index holds them (a vectorized
definition's lambda spans several lines the statement grammar does not read), so that the unchecked-access
search (inspector.queries.suspects) can run before any kernel is parsed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Expr

_PTR = re.compile(r"\b((?:in_out_ptr|in_ptr|out_ptr)\d+)\b")
_WS = re.compile(r"\s*")
_PLUS = re.compile(r"\s*\+\s*(static_cast<[\w:]+>\s*)?")
_WORD = re.compile(r"[\w.]+")
_TMP = re.compile(r"\btmp\d+\b")
_FIRST_ASSIGN = re.compile(r"(?<![=<>!])=(?!=)")


@dataclass(frozen=True)
class PtrAccess:
    """``pointer`` read or written at ``address`` (as written); ``closed``: its bracket closes in the text read
    (a Triton statement cut at its line's end does not)."""

    pointer: str
    address: str
    closed: bool = True

    @property
    def expr(self) -> Expr:
        return Expr(self.address.strip())


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


def accesses(text: str) -> list[PtrAccess]:
    """Each ``ptr[addr]``, ``ptr + (addr)``, ``ptr + static_cast<…>(addr)``, ``ptr + name`` in ``text``."""
    out = []
    for m in _PTR.finditer(text):
        j = _WS.match(text, m.end()).end()
        if j < len(text) and text[j] == "[":
            out.append(PtrAccess(m.group(1), *_balanced(text, j, "[", "]")))
            continue
        mm = _PLUS.match(text, m.end())
        if mm:
            j = mm.end()
            if j < len(text) and text[j] == "(":
                out.append(PtrAccess(m.group(1), *_balanced(text, j, "(", ")")))
            else:
                tok = _WORD.match(text, j)
                if tok:
                    out.append(PtrAccess(m.group(1), tok.group(0), tok.end() < len(text)))
    return out


def names_a_pointer(text: str) -> bool:
    """``text`` names a kernel pointer parameter (``in_ptr0``, ``out_ptr1``, ``in_out_ptr0``)."""
    return _PTR.search(text) is not None


def tmps_assigned(line: str) -> set[str]:
    """The tmps a raw line may define: those it names before its first ``=`` (over-counting is safe)."""
    m = _FIRST_ASSIGN.search(line)
    return set(_TMP.findall(line, 0, m.start())) if m else set()
