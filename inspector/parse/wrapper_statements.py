"""One statement of an AOTInductor C++ wrapper read: its text, with the start rule its leading word selects, parsed
by ``grammars/wrapper.lark`` and transformed into its `inspector.parse.statements` record (`parse_statement`; None
when no rule accepts it).  The constructor's indexed assignments and the launchers' ``loadKernel(`` lines are read
in a fixed frame, so that one parse serves every line of their shape.  `inspector.parse.wrapper` files the records
into the model."""

from __future__ import annotations

import re

from ..model import Coverage, Expr
from .grammar import STARTS as GRAMMAR_STARTS, ExprTransformer, parse_one
from .statements import (
    Assign, CallStmt, ConstantSlot, CType, Decl, GuardDim, GuardNames, HandleDecl, InputSlot, LauncherParam, LoadKernel,
    Moved, RaiiDecl, SizeOf, Tail, View,
)
from .tokens import IDENTIFIER


STARTS = GRAMMAR_STARTS["wrapper"]


class _WrapperTransformer(ExprTransformer):
    """Statements -> the dataclasses of `inspector.parse.statements` the scanner files into the model."""

    def declaration(self, c):
        names = [str(t) for t in c if getattr(t, "type", None) == "NAME"]
        value = next(e for e in c if isinstance(e, (Expr, InputSlot, ConstantSlot, Moved, SizeOf, View)))
        tail = next((t for t in c if isinstance(t, Tail)), None)
        typ = next(str(t) for t in c if getattr(t, "type", None) == "TYPE")
        return Decl(typ, names[0], value, tail.expr if tail else None)

    def input_slot(self, c):
        return InputSlot(int(c[1]))

    def constant_slot(self, c):
        return ConstantSlot(int(c[1]))

    def view(self, c):
        return View(base=str(c[1]), args=tuple(next((x for x in c if isinstance(x, list)), [])))

    def value(self, c):  # `wrap_with_raii_handle_if_needed(` view `)`: the view it wraps
        return next(x for x in c if isinstance(x, View))

    def moved(self, c):
        return Moved(str(c[1]))

    def size_of(self, c):
        tensor, _, rest = str(c[0]).rpartition("_")
        kind, _, dim = rest.partition("[")
        return SizeOf(tensor=tensor, kind=kind, dim=int(dim.rstrip("]")))

    def tail(self, c):
        return Tail(c[0])

    def bare_declaration(self, c):  # `int64_t u0_raw;`: declared here, filled by the call after it
        names = [str(t) for t in c if getattr(t, "type", None) == "NAME"]
        typ = next(str(t) for t in c if getattr(t, "type", None) == "TYPE")
        return Decl(typ, names[0], Expr(""), None)

    def handle_decl(self, c):
        return HandleDecl(str(c[1]))

    def raii_decl(self, c):
        return RaiiDecl(str(c[1]), str(c[2]))

    def assignment(self, c):
        target = str(c[0])
        index = next((int(str(t).rstrip("L")) for t in c if getattr(t, "type", None) == "NUMBER"), None)
        names = [str(t) for t in c if getattr(t, "type", None) == "NAME"]
        return Assign(target, index, names[1] if len(names) > 1 else None, c[-1])

    def call(self, c):  # a `tail` (a second call on the line: the printer's `printf("\\n");`) is not a graph fact
        return CallStmt(str(c[0]), tuple(c[1]) if len(c) > 1 and isinstance(c[1], list) else (), False)

    def checked_call(self, c):
        return CallStmt(str(c[0]), tuple(c[1]) if len(c) > 1 else (), True)

    def guard(self, c):
        return c[0]

    def guard_dim_const(self, c):
        return GuardDim(str(c[0]), int(c[1]), str(c[2]), int(str(c[3]).rstrip("L")))

    def guard_const_dim(self, c):
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(str(c[1]), str(c[1]))
        return GuardDim(str(c[2]), int(c[3]), op, int(str(c[0]).rstrip("L")))

    def launcher_param(self, c):
        name = next(str(t) for t in c if getattr(t, "type", None) == "NAME")
        return LauncherParam(name, next(x.text for x in c if isinstance(x, CType)))

    def ctype(self, c):
        names = [x for x in c if getattr(x, "type", None) == "NAME"]
        inner = next((x for x in c if isinstance(x, CType)), None)
        return CType("::".join(str(n) for n in names) + (f"<{inner.text}>" if inner else ""))

    def guard_names(self, c):
        return GuardNames(str(c[0]), str(c[1]), str(c[2]))

    def load_kernel(self, c):
        strings = [str(t).strip('"') for t in c if getattr(t, "type", None) == "STRING"]
        return LoadKernel(strings[0], strings[1])

    def load_kernel_embedded(self, c):
        """No member to load: the image is in the .so, named by its start symbol."""
        names = [str(t) for t in c if getattr(t, "type", None) == "NAME"]
        strings = [str(t).strip('"') for t in c if getattr(t, "type", None) == "STRING"]
        return LoadKernel(None, strings[0], names[3])


_TRANSFORMER = _WrapperTransformer()


# The constructor writes a dozen facts per constant (`constants_info_[3].name = "fc_weight";`, `.shape = {64, 3, 7,
# 7};`, `.offset = 0;`, `.type = static_cast<int32_t>(…ConstantType::Parameter);`): 29,000 lines for ten
# torchvision models, each a distinct text, so neither memo nor shape sharing saved Lark a parse.  The grammar's
# `assignment` rule reads `NAME [NUMBER] . NAME` and the value independently, so such a line is read in two parts:
# its target by this pattern, and its value as it is when it is one literal (a string, an unsigned number, a
# name, or a brace of unsigned numbers), else by Lark in a fixed frame (`_[0]._ = VALUE;`), where the same value
# text (the same static_cast in every constant) is parsed once.  tests/unit/test_grammar.py checks the result equals
# the plain parse on every such statement of every sample.
_INDEXED_ASSIGNMENT = re.compile(rf"^(?P<target>{IDENTIFIER})\[(?P<idx>\d+)\]\.(?P<attr>{IDENTIFIER}) = (?P<value>.+);$")


_LITERAL = re.compile(rf'(?:(?P<string>"(?:\\.|[^"\\])*")|(?P<number>\d+L?)|(?P<name>{IDENTIFIER})|'
                      r'\{(?P<brace>\d+L?(?:, \d+L?)*)?\})')


def _literal(value: str) -> Expr | None:
    m = _LITERAL.fullmatch(value)
    if m is None:
        return None
    if m.group("name") is not None:
        return Expr(value, (value,))
    if m.group("string") is not None or m.group("number") is not None:
        return Expr(value)
    inner = m.group("brace")
    return Expr("{" + (inner or "") + "}")


def indexed_assignment(text: str, cov: Coverage | None = None, line: int = 0):
    """``target[i].attr = value;`` read as the grammar's ``assignment`` rule reads it (None: another shape, or a
    value no rule accepts, then counted in ``cov`` as skipped)."""
    m = _INDEXED_ASSIGNMENT.match(text)
    if m is None:
        return _NOT_INDEXED
    toks = [m.group("target"), m.group("idx"), m.group("attr")]
    value = _literal(m.group("value"))
    if value is not None:
        if cov is not None:
            cov.ok()
        return Assign(toks[0], int(toks[1]), toks[2], value)
    framed = parse_one("wrapper", STARTS, _TRANSFORMER, f"_[0]._ = {m.group('value')};", "assignment")
    if cov is not None:
        cov.skip(line, text) if framed is None else cov.ok()
    return None if framed is None else Assign(toks[0], int(toks[1]), toks[2], framed.value)


_NOT_INDEXED = object()


# A launcher's `kernels_.triton_x = loadKernel("/tmp/…/<hash>.cubin", "triton_x", 0, cubin_dir_);` names a cubin
# path with a hash of its own and assigns a slot named after its kernel (an attribute: `canonical` keeps its digits):
# each line was a shape of its own, a whole Lark parse per kernel.  Neither is part of what the rule returns, nor of
# its shape: the line is parsed with each string literal as "<k>" and the slot as `k` (one text for every launcher
# of a kind), and the literals put back.  tests/samples/test_grammar_samples.py checks it equals the plain parse on
# every launcher of every sample.
_STRING_LITERAL = re.compile(r'"(?:\\.|[^"\\])*"')


_LOAD_SLOT = re.compile(r"^(\w+)\.\w+(\s*=)")


def load_kernel(text: str, cov: Coverage | None = None, line: int = 0, remember: bool = True):
    """A ``loadKernel(`` statement read as the grammar's ``load_kernel`` rule reads it (None: not one)."""
    literals = _STRING_LITERAL.findall(text)
    k = iter(range(len(literals)))
    framed = _LOAD_SLOT.sub(r"\1.k\2", _STRING_LITERAL.sub(lambda _: f'"{next(k)}"', text), count=1)
    r = parse_one("wrapper", STARTS, _TRANSFORMER, framed, "load_kernel", remember=remember)
    if cov is not None:
        cov.skip(line, text) if r is None else cov.ok()
    if r is None:
        return None
    back = {str(i): x.strip('"') for i, x in enumerate(literals)}  # (a value no placeholder stands for: as it is)
    return LoadKernel(None if r.member is None else back.get(r.member, r.member), back.get(r.mangled, r.mangled),
                      r.start)


def parse_statement(text: str, start: str, cov: Coverage | None = None, line: int = 0, remember: bool = True):
    """Parse one wrapper statement with the given start rule; None when the grammar does not know it
    (counted in ``cov`` when given).  ``remember=False``: not kept in the memo by text (its shape still is)."""
    if start == "assignment":
        r = indexed_assignment(text, cov, line)
        if r is not _NOT_INDEXED:
            return r
    if start == "load_kernel":
        return load_kernel(text, cov, line, remember)
    return parse_one("wrapper", STARTS, _TRANSFORMER, text, start, cov, line, remember)
