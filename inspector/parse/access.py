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

import functools
import re

from ..model import Access, Expr, Kernel
from .names import is_tmp, names_a_pointer, tmp_names, tmps_assigned
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


# -- the tmps a definition or an address reads (for the walks of `inspector.queries`) ------------------------------

def expr_tmps(expr: Expr) -> list[str]:
    """The tmps an expression names, in order: from its tree, or by the lexer where the grammar does not read it
    (a vectorized load cut short)."""
    from . import expr_tree as E  # here: the index imports this module, and a cached `show` builds no tree

    tree = expr.tree
    return tmp_names(expr.text) if E.has_opaque(tree) else [n for n in E.names(tree) if is_tmp(n)]


def definition_tmps(k: Kernel, line: int) -> list[str]:
    """The tmps a tmp definition's whole text names (a vectorized one spans a lambda over several lines)."""
    return tmp_names(definition_text(k, line))


def definition_reads_pointer(k: Kernel, line: int) -> bool:
    """Whether a tmp definition's whole text names a kernel pointer parameter (it loads, not merely copies)."""
    return names_a_pointer(definition_text(k, line))


def tmps_read(k: Kernel, t) -> list[str]:
    """The tmps definition ``t`` reads: from its lines when it is a vectorized lambda (``tmpbuf``, a body the
    grammar does not read), else from its expression (`expr_tmps`)."""
    return definition_tmps(k, t.line) if "tmpbuf" in t.expr.text else expr_tmps(t.expr)


# -- before any parse: may a kernel's raw text hold an unchecked indirect access? ------------------------------------

@functools.lru_cache(maxsize=4096)
def _assert_index_var(text: str) -> str | None:
    """The index a ``tl.device_assert(…, "…")`` line checks, read as `inspector.parse.triton` reads it."""
    from .message import parse_check_message
    from .triton import parse_triton_statement

    r = parse_triton_statement(text, "call_stmt")  # no coverage: a probe, not the kernel's parse (a TritonCall)
    if not r or r.callee != "tl.device_assert" or len(r.args) < 2:
        return None
    cm = parse_check_message(r.args[1].text.strip("\"'"))
    return cm.index_var if cm else None


def triton_may_index_unchecked(lines: list[str], assert_at: list[int]) -> bool:
    """From a Triton kernel's raw lines: may an unchecked indirect access be found in it?  False only when every
    tmp an address names is defined on one line and asserted on a later one (so the whole parse marks it
    checked); anything less certain is True (the kernel is parsed and asked).  A Triton statement is one
    line, so addresses are read line by line; one that does not close on its line makes the kernel parsed."""
    names: set[str] = set()
    for line in lines:
        if "ptr" in line and "tmp" in line:
            for _, addr, closed in accesses_in(line):
                if not closed:
                    return True
                names.update(tmp_names(addr))
    if not names:
        return False
    defs: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        if "=" in line and "tmp" in line:
            for n in tmps_assigned(line) & names:
                defs.setdefault(n, []).append(i)
    for n in names:
        at = defs.get(n, [])
        if len(at) != 1:
            return True
        if not any(j > at[0] and _assert_index_var(lines[j].strip()) == n for j in assert_at):
            return True
    return False


def cpp_may_index_indirectly(text: str) -> bool:
    """From a CPU kernel's raw text: does an address name a tmp (an indirect-looking access)?"""
    return "tmp" in text and any(tmp_names(addr) for _, addr, _ in accesses_in(text))


def _callee(func) -> str | None:
    """``tl_math.abs`` for a call of ``tl_math.abs``; None for what is not a plain or dotted name."""
    from . import expr_tree as E

    if isinstance(func, E.Name):
        return func.id
    if isinstance(func, E.Attr) and isinstance(func.base, E.Name):
        return f"{func.base.id}.{func.name}"
    return None


def value_ops(k: Kernel, var: str, before: int) -> list[str] | None:
    """The ops that make tmp ``var`` (defined before line ``before``) from one load, outermost first and "load"
    last (``tmp1 = tl_math.abs(tmp0)``, ``tmp0 = tl.load(...)``: ``["tl_math.abs", "load"]``; a copy ``tmp2 =
    tmp1`` is "copy", a unary minus "neg"); None when a step reads two values or is not read by the grammar."""
    from . import expr_tree as E

    defs = {t.name: t for t in sorted(k.tmps, key=lambda t: t.line) if t.line < before}
    ops: list[str] = []
    name = var
    while len(ops) < 16:
        t = defs.get(name)
        if t is None:
            return None
        tree = t.expr.tree
        if isinstance(tree, E.Call) and (_callee(tree.func) or "").endswith("load"):
            return ops + ["load"]
        if isinstance(tree, E.Name):
            ops.append("copy")
            name = tree.id
        elif isinstance(tree, E.UnaryOp) and tree.op == "-" and isinstance(tree.operand, E.Name):
            ops.append("neg")
            name = tree.operand.id
        elif (isinstance(tree, E.Call) and len(tree.args) == 1 and isinstance(tree.args[0], E.Name)
              and _callee(tree.func)):
            ops.append(_callee(tree.func))
            name = tree.args[0].id
        else:
            return None
    return None
