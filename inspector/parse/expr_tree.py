"""Expressions of generated code as typed trees, and pure functions over them.

`parse_expr` reads one expression (C++ from wrapper.cpp / kernel.cpp, Python from a Triton kernel) with the
Lark grammar ``grammars/expr.lark`` into the node dataclasses below; a text no rule accepts is one `Opaque`
node (`has_opaque` says so), never an error.  ``inspector.model.Expr.tree`` is this, built on first use.

The helpers never read text again: `evaluate` (integer arithmetic; ``/`` and ``%`` as C does them, ``//`` as
Python floors), `names`, `substitute`, `walk`, `dotted`, `strip_parens`, `match` (a small structural matcher
with `Hole`s), and `unparse`, which writes the text back exactly as `inspector.parse.grammar` normalizes it
(``unparse(parse_expr(e.text)) == e.text`` for every `Expr` a parser made;
tests/samples/test_typed_parse_samples.py holds that on every sample).  Parentheses are kept (`Paren`) so that the
text comes back as the generator wrote it;
`strip_parens` and ``match(..., parens=False)`` look through them.

No lark at import: the parser is loaded on the first `parse_expr` of a text whose tree no index cache part
brought (`remember`): a cached answer loads none.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator

from .tokens import IDENTIFIER


class Node:
    """Any node of an expression tree."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Name(Node):
    """An identifier: ``tmp3``, ``ks0``, ``tl`` (qualified and template names too: ``c10::div_floor_integer``,
    ``at::vec::Vectorized<float>::loadu``, written without spaces)."""

    id: str


@dataclass(frozen=True, slots=True)
class Int(Node):
    """An integer literal; ``value`` without the C++ suffix (``64L`` -> 64), ``text`` as written."""

    value: int
    text: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Float(Node):
    value: float
    text: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Str(Node):
    """A string literal: ``value`` without its quotes, ``text`` as written."""

    value: str
    text: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class BinOp(Node):
    """``left op right``; op one of ``+ - * / // % ** << >> & | ^ && || and or``."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class UnaryOp(Node):
    """``op operand``; op one of ``- + ~ ! not`` and C++'s ``&`` (address of) and ``*`` (dereference)."""

    op: str
    operand: Node


@dataclass(frozen=True, slots=True)
class Compare(Node):
    """``a < b`` (one op), or a Python chain ``0 <= x < n`` (ops ``("<=", "<")``, operands ``(0, x, n)``)."""

    ops: tuple[str, ...]
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Ternary(Node):
    """C++ ``cond ? a : b`` (style "c") or Python ``a if cond else b`` (style "py")."""

    cond: Node
    a: Node
    b: Node
    style: str = field(default="c", compare=False)


@dataclass(frozen=True, slots=True)
class Call(Node):
    """``func(args)``: ``tl.load(...)`` (func an `Attr`), ``c10::div_floor_integer(...)`` (a `Name`)."""

    func: Node
    args: tuple[Node, ...] = ()


@dataclass(frozen=True, slots=True)
class Keyword(Node):
    """A Python keyword argument: ``eviction_policy='evict_last'``."""

    name: str
    value: Node


@dataclass(frozen=True, slots=True)
class Cast(Node):
    """``static_cast<int64_t>(x0)`` (style the cast's keyword) or a C cast ``(const float*)(p)`` (style "c");
    ``type`` written without spaces but between words (``const float*``)."""

    type: str
    operand: Node
    style: str = "static_cast"


@dataclass(frozen=True, slots=True)
class Index(Node):
    """``base[index]``: ``in_ptr0[static_cast<int64_t>(x0)]``; several subscripts are a `Tuple`."""

    base: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Slice(Node):
    """A Python slice in a subscript: ``:`` in ``x[:, None]``; a missing part is None."""

    lower: Node | None = None
    upper: Node | None = None
    step: Node | None = None


@dataclass(frozen=True, slots=True)
class Attr(Node):
    """``base.name`` (``tl.load``, ``x.to``) or ``base->name``."""

    base: Node
    name: str
    op: str = "."


@dataclass(frozen=True, slots=True)
class Paren(Node):
    """``(inner)`` as written (a tuple in parentheses is ``Paren(Tuple(...))``)."""

    inner: Node


@dataclass(frozen=True, slots=True)
class Tuple(Node):
    """Items separated by commas: a tuple, several subscripts, or a C++ value cut at template commas."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class List(Node):
    """``[a, b]``: ``tl.full([XBLOCK], 0, tl.int32)``."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Braced(Node):
    """A C++ braced list: ``{s23, 8L}``."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Opaque(Node):
    """A text the grammar does not accept (a lambda's body, a statement): kept whole, never guessed at."""

    text: str


@dataclass(frozen=True, slots=True)
class Hole(Node):
    """In a `match` pattern: binds any subtree (of ``kind``, a node class, when given) to ``name``."""

    name: str
    kind: type | None = None


# -- parsing --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 16)
def parse_expr(text: str) -> Node:
    """The tree of one expression; `Opaque` when the grammar does not accept it (an empty text too).
    Trees are immutable and shared: the same text gives the same object."""
    if not text or not text.strip():
        return Opaque(text)
    if text.isidentifier() and text.isascii():  # a bare name (`s0`, `buf3`, `false`): no grammar needed
        return Name(text)
    if text.isascii() and (text.isdigit() or (text[:-1].isdigit() and text[-1] in "Ll")):  # an integer literal (`64L`)
        return _number(text)
    stored = _STORED.get(text)
    if stored is not None:
        try:
            return decode(stored)
        except ValueError:
            del _STORED[text]  # not a tree after all: the parser reads the text as it always has
    from lark.exceptions import UnexpectedInput

    from .lark_loader import parser

    try:
        tree = parser("expr", ("start",)).parse(text, start="start")
    except UnexpectedInput:
        return Opaque(text)
    return _transformer().transform(tree)


# -- stored trees (the index cache) ---------------------------------------------------------------
# A kernel read back from the index cache brings the trees of its expressions, as an earlier run's parser built
# them (`encode`); `parse_expr` decodes those instead of loading Lark, so a cached answer parses nothing.

_NODES = {c.__name__: c for c in (Name, Int, Float, Str, BinOp, UnaryOp, Compare, Ternary, Call, Keyword, Cast,
                                  Index, Slice, Attr, Paren, Tuple, List, Braced, Opaque)}
_STORED: dict[str, list] = {}  # text -> encode(tree), from `remember`


def encode(node: Node) -> list:
    """``node`` as plain JSON data: ``[class name, field…]``; a tuple of fields is ``[0, item…]``."""
    return [type(node).__name__, *(_enc_field(getattr(node, f)) for f in node.__dataclass_fields__)]


def _enc_field(v):
    if isinstance(v, Node):
        return encode(v)
    if isinstance(v, tuple):
        return [0, *(_enc_field(x) for x in v)]
    return v


def decode(data) -> Node:
    """The tree `encode` wrote; ValueError for anything else (a node name not in this module, a wrong arity)."""
    if not isinstance(data, list) or not data or not isinstance(data[0], str) or data[0] not in _NODES:
        raise ValueError(f"not an encoded expression tree: {str(data)[:60]}")
    try:
        return _NODES[data[0]](*(_dec_field(x) for x in data[1:]))
    except TypeError as e:
        raise ValueError(f"not an encoded expression tree: {e}") from None


def _dec_field(v):
    if isinstance(v, list):
        if v and v[0] == 0 and type(v[0]) is int:
            return tuple(_dec_field(x) for x in v[1:])
        return decode(v)
    return v


def remember(trees: dict[str, list]) -> None:
    """Trees an earlier run's parser built (``text -> encode(tree)``), for `parse_expr` to decode instead of
    parsing (the index cache's kernel parts carry them; the cache key names this module and the grammar, so a
    stored tree is the one the parser would build)."""
    _STORED.update(trees)


def has_opaque(node: Node) -> bool:
    return any(isinstance(n, Opaque) for n in walk(node))


_TOKEN = re.compile(IDENTIFIER + r"|\d+|<<=|>>=|<=|>=|==|!=|&&|\|\||<<|>>|->|::|\*\*|//|\S")
_WORD = re.compile(r"[A-Za-z_0-9]")


def _compact(text: str) -> str:
    """A name or type without spaces, except one between two words: ``at::vec::Vectorized < float >`` ->
    ``at::vec::Vectorized<float>``, ``const float *`` -> ``const float*``."""
    out = ""
    for t in _TOKEN.findall(text):
        if out and _WORD.match(out[-1]) and _WORD.match(t[0]):
            out += " "
        out += t
    return out


def _number(text: str) -> Node:
    t = text.rstrip("LlUuFf") if not text.lower().startswith("0x") else text.rstrip("LlUu")
    if t.lower().startswith("0x"):
        return Int(int(t, 16), text)
    if any(ch in t for ch in ".eE") or text[-1:] in "fF":
        return Float(float(t), text)
    return Int(int(t), text)


def _unquote(text: str) -> str:
    if text.startswith('R"('):
        return text[3:-2]
    body = text[1:-1]
    return re.sub(r"\\(.)", r"\1", body) if "\\" in body else body


@functools.cache
def _transformer():
    from lark import Transformer

    class ExprTreeTransformer(Transformer):
        """The rules of grammars/expr.lark -> the node dataclasses (one method a rule alias)."""

        def name(self, c):
            return Name(_compact(str(c[0])) if len(c[0]) > 1 and not str(c[0]).isidentifier() else str(c[0]))

        def number(self, c):
            return _number(str(c[0]))

        def string(self, c):
            return Str(_unquote(str(c[0])), str(c[0]))

        def paren(self, c):
            return Paren(c[0])

        def empty_tuple(self, c):
            return Paren(Tuple(()))

        def tuple(self, c):
            return Tuple(tuple(c))

        def arglist(self, c):
            return list(c)

        def list(self, c):
            return List(tuple(c[0]) if c else ())

        def braced(self, c):
            return Braced(tuple(c[0]) if c else ())

        def keyword(self, c):
            return Keyword(str(c[0]), c[1])

        def subscripts(self, c):
            return c[0] if len(c) == 1 else Tuple(tuple(c))

        def slice(self, c):
            parts: list[Node | None] = [None]
            for x in c:
                if isinstance(x, Node):
                    parts[-1] = x
                else:  # a ":" token
                    parts.append(None)
            parts += [None] * (3 - len(parts))
            return Slice(parts[0], parts[1], parts[2])

        def ternary(self, c):
            return Ternary(c[0], c[1], c[2])

        def pyternary(self, c):  # `a if cond else b`
            return Ternary(c[1], c[0], c[2], style="py")

        def binop(self, c):
            return BinOp(str(c[1]), c[0], c[2])

        def unary(self, c):
            return UnaryOp(str(c[0]), c[1])

        def compare(self, c):
            return Compare(tuple(str(x) for x in c[1::2]), tuple(c[0::2]))

        def ccast(self, c):
            return Cast(_compact(str(c[0])[1:-1]), c[1], style="c")

        def scast(self, c):
            tok = str(c[0])
            style, _, rest = tok.partition("<")
            return Cast(_compact(rest.rsplit(">", 1)[0]), c[1], style=style.strip())

        def call(self, c):
            return Call(c[0], tuple(c[1]) if len(c) > 1 else ())

        def index(self, c):
            return Index(c[0], c[1])

        def attr(self, c):
            name = str(c[2])
            return Attr(c[0], name if name.isidentifier() else _compact(name), op=str(c[1]))

    return ExprTreeTransformer()


# -- writing back ---------------------------------------------------------------------------------

_TIGHT = (".", "::", "->")


def join_tokens(parts: list[str]) -> str:
    """Re-space tokens the way the generator wrote them closely enough to read and to match (the one rule
    `inspector.parse.grammar` writes every `Expr.text` with, and `unparse` writes trees with)."""
    out = ""
    prev = ""
    for t in parts:
        if out and not (t in _TIGHT or prev in _TIGHT or t[:1] in "([,)]" or prev[-1:] in "(["
                        or prev in ("&", "*", "~", "!") and len(out) == len(prev)):
            out += " "
        out += t
        prev = t
    return out


def unparse(node: Node) -> str:
    """The text of a tree, spaced as the parsers normalize generated code (`join_tokens`)."""
    if isinstance(node, Tuple):
        return ", ".join(unparse(x) for x in node.items)
    if isinstance(node, Opaque):
        return node.text
    return join_tokens(_items(node))


def _group(open_: str, items, close: str) -> str:
    return open_ + ", ".join(unparse(x) for x in items) + close


def _items(n: Node) -> list[str]:
    """The tokens (and bracketed groups, each one string) the balanced-token rules would have seen."""
    if isinstance(n, Name):
        return [n.id] if n.id.isidentifier() else _TOKEN.findall(n.id)
    if isinstance(n, (Int, Float)):
        return [n.text or str(n.value)]
    if isinstance(n, Str):
        return [n.text or repr(n.value)]
    if isinstance(n, BinOp):
        return [*_items(n.left), n.op, *_items(n.right)]
    if isinstance(n, UnaryOp):
        return [n.op, *_items(n.operand)]
    if isinstance(n, Compare):
        out = _items(n.operands[0])
        for op, x in zip(n.ops, n.operands[1:], strict=True):
            out += [op, *_items(x)]
        return out
    if isinstance(n, Ternary):
        if n.style == "py":
            return [*_items(n.a), "if", *_items(n.cond), "else", *_items(n.b)]
        return [*_items(n.cond), "?", *_items(n.a), ":", *_items(n.b)]
    if isinstance(n, Call):
        return [*_items(n.func), _group("(", n.args, ")")]
    if isinstance(n, Keyword):
        return [n.name, "=", *_items(n.value)]
    if isinstance(n, Cast):
        if n.style == "c":
            return ["(" + join_tokens(_TOKEN.findall(n.type)) + ")", *_items(n.operand)]
        return [*_TOKEN.findall(f"{n.style}<{n.type}>"), "(" + unparse(n.operand) + ")"]
    if isinstance(n, Index):
        sub = n.index.items if isinstance(n.index, Tuple) else (n.index,)
        return [*_items(n.base), _group("[", sub, "]")]
    if isinstance(n, Slice):
        out = _items(n.lower) if n.lower is not None else []
        out.append(":")
        if n.upper is not None:
            out += _items(n.upper)
        if n.step is not None:
            out += [":", *_items(n.step)]
        return out
    if isinstance(n, Attr):
        return [*_items(n.base), n.op, *([n.name] if n.name.isidentifier() else _TOKEN.findall(n.name))]
    if isinstance(n, Paren):
        return [_group("(", n.inner.items if isinstance(n.inner, Tuple) else (n.inner,), ")")]
    if isinstance(n, Tuple):
        return [unparse(n)]
    if isinstance(n, List):
        return [_group("[", n.items, "]")]
    if isinstance(n, Braced):
        return [_group("{", n.items, "}")]
    if isinstance(n, Opaque):
        return [n.text]
    raise TypeError(f"not an expression node: {type(n).__name__}")


# -- walking --------------------------------------------------------------------------------------


def children(n: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of ``n``, left to right."""
    if isinstance(n, BinOp):
        return (n.left, n.right)
    if isinstance(n, (UnaryOp, Keyword, Cast)):
        return (n.operand,) if not isinstance(n, Keyword) else (n.value,)
    if isinstance(n, Compare):
        return n.operands
    if isinstance(n, Ternary):
        return (n.cond, n.a, n.b)
    if isinstance(n, Call):
        return (n.func, *n.args)
    if isinstance(n, Index):
        return (n.base, n.index)
    if isinstance(n, Slice):
        return tuple(x for x in (n.lower, n.upper, n.step) if x is not None)
    if isinstance(n, Attr):
        return (n.base,)
    if isinstance(n, Paren):
        return (n.inner,)
    if isinstance(n, (Tuple, List, Braced)):
        return n.items
    return ()


def walk(n: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children, left to right."""
    stack = [n]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(children(x)))


def names(n: Node) -> tuple[str, ...]:
    """The identifiers the tree names (`Name` ids, called functions and the roots of attributes included:
    ``tl.load(in_ptr0 + x0)`` -> ``("tl", "in_ptr0", "x0")``), in order, each once."""
    return tuple(dict.fromkeys(x.id for x in walk(n) if isinstance(x, Name)))


def dotted(n: Node) -> str | None:
    """``tl.load`` for ``Attr(Name("tl"), "load")``, ``ks0`` for a `Name`; None for anything else."""
    if isinstance(n, Name):
        return n.id
    if isinstance(n, Attr) and n.op == ".":
        base = dotted(n.base)
        return None if base is None else f"{base}.{n.name}"
    return None


def strip_parens(n: Node) -> Node:
    while isinstance(n, Paren) and not isinstance(n.inner, Tuple):
        n = n.inner
    return n


def constant(n: Node) -> int | None:
    """The integer ``n`` is when it is an integer literal (``64L``, ``(8)``, ``-1``, ``(-1)``), else None."""
    n = strip_parens(n)
    if isinstance(n, UnaryOp) and n.op == "-":
        inner = strip_parens(n.operand)
        return -inner.value if isinstance(inner, Int) else None
    return n.value if isinstance(n, Int) else None


def _rebuild(n: Node, f: Callable[[Node], Node]) -> Node:
    """``n`` with ``f`` applied to each direct child."""
    if isinstance(n, BinOp):
        return BinOp(n.op, f(n.left), f(n.right))
    if isinstance(n, UnaryOp):
        return UnaryOp(n.op, f(n.operand))
    if isinstance(n, Compare):
        return Compare(n.ops, tuple(f(x) for x in n.operands))
    if isinstance(n, Ternary):
        return Ternary(f(n.cond), f(n.a), f(n.b), n.style)
    if isinstance(n, Call):
        return Call(f(n.func), tuple(f(x) for x in n.args))
    if isinstance(n, Keyword):
        return Keyword(n.name, f(n.value))
    if isinstance(n, Cast):
        return Cast(n.type, f(n.operand), n.style)
    if isinstance(n, Index):
        return Index(f(n.base), f(n.index))
    if isinstance(n, Slice):
        return Slice(*(None if x is None else f(x) for x in (n.lower, n.upper, n.step)))
    if isinstance(n, Attr):
        return Attr(f(n.base), n.name, n.op)
    if isinstance(n, Paren):
        return Paren(f(n.inner))
    if isinstance(n, (Tuple, List, Braced)):
        return type(n)(tuple(f(x) for x in n.items))
    return n


def substitute(n: Node, mapping: dict[str, Node | int]) -> Node:
    """``n`` with each `Name` whose id is in ``mapping`` replaced (an int becomes an `Int`)."""
    def sub(x: Node) -> Node:
        if isinstance(x, Name) and x.id in mapping:
            v = mapping[x.id]
            return Int(v, str(v)) if isinstance(v, int) else v
        return _rebuild(x, sub)

    return sub(n)


def match(pattern: Node, n: Node, parens: bool = False) -> dict[str, Node] | None:
    """The `Hole` bindings when ``n`` has ``pattern``'s shape, else None.  ``parens=False``: parentheses in ``n``
    (and in the pattern) are looked through.  A `Hole` named twice must bind equal subtrees."""
    out: dict[str, Node] = {}

    def m(p: Node, x: Node) -> bool:
        if not parens:
            p, x = strip_parens(p), strip_parens(x)
        if isinstance(p, Hole):
            if p.kind is not None and not isinstance(x, p.kind):
                return False
            if p.name in out:
                return out[p.name] == x
            out[p.name] = x
            return True
        if type(p) is not type(x):
            return False
        if isinstance(p, (Name, Int, Float, Str, Opaque)):
            return p == x
        for a in ("op", "ops", "name", "type", "style"):
            if a in getattr(type(p), "__dataclass_fields__", {}) and type(p).__dataclass_fields__[a].compare \
                    and getattr(p, a) != getattr(x, a):
                return False
        pc, xc = children(p), children(x)
        return len(pc) == len(xc) and all(m(a, b) for a, b in zip(pc, xc))

    return out if m(pattern, n) else None


# -- evaluating -----------------------------------------------------------------------------------


class EvalError(ValueError):
    """An expression `evaluate` cannot give an integer for."""


class UnknownName(EvalError):
    def __init__(self, name: str):
        super().__init__(f"unknown name {name!r}")
        self.name = name


class NotEvaluable(EvalError):
    def __init__(self, node: Node, why: str = "not integer arithmetic"):
        super().__init__(f"{why}: {unparse(node)}")
        self.node = node


def _c_div(a: int, b: int) -> int:
    if b == 0:
        raise EvalError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_mod(a: int, b: int) -> int:
    return a - b * _c_div(a, b)


def _floor_div(a: int, b: int) -> int:
    if b == 0:
        raise EvalError("division by zero")
    return a // b


_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _c_div, "%": _c_mod, "//": _floor_div,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "**": lambda a, b: a ** b if b >= 0 else _raise(EvalError("negative power")),
}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}
# Functions Inductor's printers write for integer index arithmetic (C++ and Triton).
_CALLS: dict[str, Callable[..., int]] = {
    "c10::div_floor_integer": _floor_div, "triton_helpers.div_floor_integer": _floor_div,
    "c10::mod_floor_integer": lambda a, b: a - b * _floor_div(a, b),
    "triton_helpers.remainder_integer": lambda a, b: a - b * _floor_div(a, b),
    "min": min, "max": max, "std::min": min, "std::max": max,
    "triton_helpers.minimum": min, "triton_helpers.maximum": max,
    "abs": abs, "std::abs": abs,
}
_INT_TYPES = ("int64_t", "int32_t", "int", "long", "uint64_t", "uint32_t", "int16_t", "int8_t", "uint8_t",
              "size_t", "long long")


def _raise(e: Exception):
    raise e


def evaluate(n: Node, env: dict[str, int]) -> int:
    """The integer value of ``n`` with ``env`` giving the names.  ``/`` and ``%`` truncate toward zero as C
    does (Inductor writes them in C++, and Triton's integer ops are C's); ``//`` floors as Python does;
    comparisons and logic give 0 or 1.  Raises `UnknownName` for a name ``env`` lacks, `EvalError` (or its
    `NotEvaluable`) for anything that is not integer arithmetic (a float, a string, a load, `Opaque`)."""
    if isinstance(n, Int):
        return n.value
    if isinstance(n, Name):
        if n.id in env:
            return env[n.id]
        if n.id in ("True", "true"):
            return 1
        if n.id in ("False", "false"):
            return 0
        raise UnknownName(n.id)
    if isinstance(n, Paren):
        if isinstance(n.inner, Tuple):
            raise NotEvaluable(n, "a tuple")
        return evaluate(n.inner, env)
    if isinstance(n, BinOp):
        if n.op in ("&&", "and"):
            return int(bool(evaluate(n.left, env)) and bool(evaluate(n.right, env)))
        if n.op in ("||", "or"):
            return int(bool(evaluate(n.left, env)) or bool(evaluate(n.right, env)))
        f = _BINARY.get(n.op)
        if f is None:
            raise NotEvaluable(n)
        return f(evaluate(n.left, env), evaluate(n.right, env))
    if isinstance(n, UnaryOp):
        v = evaluate(n.operand, env) if n.op not in ("&", "*") else _raise(NotEvaluable(n, "a pointer"))
        return {"-": -v, "+": v, "~": ~v, "!": int(not v), "not": int(not v)}[n.op]
    if isinstance(n, Compare):
        vals = [evaluate(x, env) for x in n.operands]
        return int(all(_COMPARE[op](a, b) for op, a, b in zip(n.ops, vals, vals[1:])))
    if isinstance(n, Ternary):
        return evaluate(n.a, env) if evaluate(n.cond, env) else evaluate(n.b, env)
    if isinstance(n, Cast):
        if n.type.replace("const ", "") in _INT_TYPES:
            return evaluate(n.operand, env)
        raise NotEvaluable(n, f"a cast to {n.type}")
    if isinstance(n, Call):
        f = _CALLS.get(dotted(n.func) or "")
        if f is None or any(isinstance(a, Keyword) for a in n.args):
            raise NotEvaluable(n, "a call")
        return f(*(evaluate(a, env) for a in n.args))
    raise NotEvaluable(n)
