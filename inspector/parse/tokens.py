"""The words and literals of one statement's text, for a query that holds a statement the scan located but did
not parse (a 20,000-kernel package is answered from its scan): the names it mentions, its string literals, the
top-level arguments of its call.  Lexing only, C++ and Triton alike; what a statement means is the grammars'.

    >>> identifiers("call_triton_x(buf2, arg0_1, 64L)"), last_string("tl.device_assert(c, 'msg')")
    (['call_triton_x', 'buf2', 'arg0_1'], 'msg')
    >>> call_args("f(a, g(b, c), d)")
    ['a', 'g(b, c)', 'd']
"""

from __future__ import annotations

import re

from ..model import Expr

# An identifier of C++, Python and Triton alike: the one spelling every pattern over generated code builds on
# (`rf"(?P<buf>{IDENTIFIER})"`).
IDENTIFIER = r"[A-Za-z_]\w*"
# A name: not the suffix of a number (`64L` holds none)
NAME = re.compile(r"\b" + IDENTIFIER)
# An identifier anywhere, the suffix of a number too (`64L` -> `L`, `1e5` -> `e5`): what the names of a kernel's
# expressions have always been read with (harmless: no param or tmp is called `L`), kept so that they stay the same
NAME_OR_SUFFIX = re.compile(IDENTIFIER)
# A string literal of either quote (C++ "…", Python/Triton '…' or "…"), escapes kept as written
_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


# C++'s `L` suffix of an integer literal as Inductor writes it (`64L`)
_INT_SUFFIX = re.compile(r"(\d+)L\b")


def without_int_suffix(text: str) -> str:
    """``s0*64L`` -> ``s0*64``: the text with its integer literals' C++ ``L`` suffix dropped, spacing kept (the
    typed tree drops it too, `inspector.parse.expr_tree.Int`, but re-spaces what it writes back)."""
    return _INT_SUFFIX.sub(r"\1", text or "")


def identifiers(text: str) -> list[str]:
    """Every name ``text`` mentions, in order, repeats kept (``64L``, ``0.5`` are no names)."""
    return NAME.findall(text or "")


def identifiers_and_suffixes(text: str) -> list[str]:
    """`identifiers`, and the identifier-like suffixes of numbers (``64L`` -> ``L``): `NAME_OR_SUFFIX`'s reading."""
    return NAME_OR_SUFFIX.findall(text or "")


def lexed_expr(text: str) -> Expr:
    """An expression as written, its names read by the lexer (in order, each once): for an expression a statement
    holds that no grammar reads (an array's items, a call's arguments the scan cut out)."""
    return Expr(text, tuple(dict.fromkeys(NAME.findall(text))))


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` mentions the name ``name`` as a whole word (``buf1`` is not in ``buf10``)."""
    return name in text and name in identifiers(text)


def last_string(text: str) -> str:
    """The last string literal's content (the message of an assert statement: `tl.device_assert(cond, "msg")`,
    `AOTI_TORCH_CHECK(cond, "msg");`), or "" when it has none."""
    found = _STRING.findall(text)
    if not found:
        return ""
    double, single = found[-1]
    return double or single


def call_args(call: str) -> list[str]:
    """The top-level arguments of the first call in ``call`` (``f(a, g(b, c), d)`` -> a, g(b, c), d)."""
    _head, _, rest = call.partition("(")
    depth, cur, args = 0, "", []
    for ch in rest:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        cur += ch
    args.append(cur.strip())
    return args
