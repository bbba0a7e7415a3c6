"""Loading the Lark grammars and turning balanced-token expressions into `Expr`.

The grammars live in the top-level ``grammars/`` folder of the source tree; an
installed copy carries them inside the package as ``inspector/grammars``
(pyproject maps the folder there), so either location is accepted.
"""

from __future__ import annotations

import dataclasses
import re
from sys import intern

import lark
from lark import Transformer
from lark.exceptions import UnexpectedInput

from ..model import Coverage, Expr
from . import INLINE_PARSERS, STATEMENTS
from .expr_tree import join_tokens
from .lark_loader import (  # noqa: F401 - re-exported: the loader's names as this module has always offered them
    _SOURCE_TREE, _STANDALONE, STARTS, _all_parsers, _full_text, _shipped, _shipped_doc, _tables_key, grammar_text,
    parser, shipped_tables,
)
from .tokens import IDENTIFIER

if __name__ == "__main__":  # python -m inspector.parse.grammar: rewrite grammars/tables.json
    import json

    (_SOURCE_TREE / "tables.json").write_text(json.dumps(shipped_tables(), sort_keys=True) + "\n")
    print(f"wrote {_SOURCE_TREE / 'tables.json'}")


# Statements that differ only in the digits of their names (`tmp12 = tl.load(in_ptr0 + x0, xmask)` and
# `tmp3 = tl.load(in_ptr2 + x1, xmask)`; buf7_handle / buf9_handle; kernel _0 / _1) share one parse: the text is
# parsed with those names renumbered in order of appearance, and the names put back into the result.  No rule
# reads a name's digits (tests/unit/test_grammar.py checks the result equals the plain parse on every statement of
# every sample and harvested package).
RECORD: list | None = None  # tests: every (grammar, starts, transformer, text, start, result) parse_one returned


def parse_plain(grammar: str, starts: tuple[str, ...], transformer: Transformer, text: str, start: str):
    """``text`` parsed as it is (no shape sharing, no memo): what `parse_one` must equal."""
    try:
        return transformer.transform(parser(grammar, starts).parse(text, start=start))
    except UnexpectedInput:
        return None


_NUMBERED = re.compile(rf"\b{IDENTIFIER}\d\w*")  # a name with a digit anywhere (buf12_handle, int_array_3, x0)
_DIGITS = re.compile(r"\d+")
_HAS_DIGIT = re.compile(r"\d").search
# Names with digits that are words of the languages, not generated names: C types and dtypes.
_VOCABULARY = re.compile(r"^(?:u?int\d+_t|u?int\d+|b?float\d+\w*|complex\d+|half\d*)$")


def _each_name(text: str, digits) -> str:
    """``text`` with ``digits`` (a regex replacement) applied to the digit runs of every generated name in it: not
    to the languages' words (`int64_t`, dtypes) nor to an attribute or a qualified name (`tl.float32`, `at::…`)."""
    def name(m):
        t = m.group(0)
        if _VOCABULARY.match(t) or (m.start() and text[m.start() - 1] in ".:"):
            return t
        return _DIGITS.sub(digits, t)

    return _NUMBERED.sub(name, text)


def canonical(text: str) -> tuple[str, dict[str, str]]:
    """``text`` with the digit runs inside its names renumbered in order of appearance (``tmp12 + buf3_handle`` ->
    ``tmp0 + buf1_handle``; letters kept, so a rule that reads a prefix or a suffix reads the same; numbers that
    are no part of a name kept), and the map back of those digit runs ({"0": "12", "1": "3"}; empty when nothing
    changed).  A name a rule derives from another (`arg0_1` from `arg0_1_size`) comes back by the same map."""
    if not _HAS_DIGIT(text):
        return text, {}
    # `_each_name` with splits instead of two nested substitutions (a Python callback per name and per digit
    # run), the statement put back together in one join.
    parts = _NAME_SPLIT(text)  # [literal, name, literal, name, …, literal]: the names with a digit
    if len(parts) == 1:
        return text, {}
    digits: dict[str, str] = {}
    out = [parts[0]]
    names = _NAME_PARTS
    for i in range(1, len(parts), 2):
        t, before = parts[i], parts[i - 1]
        split = names.get(t, _MISSING)
        if split is _MISSING:  # a name's reading is one for every statement that names it
            if len(names) >= _NAME_PARTS_MAX:
                names.clear()
            split = names[t] = None if _VOCABULARY.match(t) else _DIGIT_SPLIT(t)
        if split is None or (before and before[-1] in ".:"):  # a C type, an attribute, a qualified name
            out.append(t)
        else:
            for j, x in enumerate(split):
                if j % 2:
                    c = digits.get(x)
                    if c is None:
                        c = digits[x] = str(len(digits))
                    x = c
                out.append(x)
        out.append(parts[i + 1])
    shape = "".join(out)
    return shape, ({c: d for d, c in digits.items()} if shape != text else {})


_NAME_SPLIT = re.compile(rf"\b({IDENTIFIER}\d\w*)").split  # `_NUMBERED`, kept by the split
_DIGIT_SPLIT = re.compile(r"(\d+)").split
# A generated name's digit split (None: a word of the language, `int64_t`): read once per name, not per statement
# that names it (a whole parse of the dense 20k package met ~1.3 million names in 480,000 statements)
_NAME_PARTS: dict[str, list[str] | None] = {}
_NAME_PARTS_MAX = 100_000


# A shape's result strings recur in every statement of that shape: each is split once into its text and the digit
# runs of its generated names (the same reading as `_each_name`), and putting a statement's digits back is a join.
_SEGMENTS: dict[str, tuple[str, ...] | None] = {}
_SEGMENTS_MAX = 200_000


def _segments(text: str) -> tuple[str, ...] | None:
    """``text`` as (literal, digits, literal, digits, …, literal), the digits those `_each_name` renames; None
    when it has none."""
    seg = _SEGMENTS.get(text, _MISSING)
    if seg is _MISSING:
        parts, last = [], 0
        for m in _NUMBERED.finditer(text):
            t = m.group(0)
            if _VOCABULARY.match(t) or (m.start() and text[m.start() - 1] in ".:"):
                continue
            for d in _DIGITS.finditer(t):
                a = m.start() + d.start()
                parts += [text[last:a], d.group(0)]
                last = a + len(d.group(0))
        seg = (*parts, text[last:]) if parts else None
        if len(_SEGMENTS) >= _SEGMENTS_MAX:
            _SEGMENTS.clear()
        _SEGMENTS[text] = seg
    return seg


_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


def _init_fields(cls) -> tuple[str, ...]:
    names = _INIT_FIELDS.get(cls)
    if names is None:
        names = _INIT_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return names


def _renamed(r, back: dict[str, str], done: dict | None = None):
    """A parse result with the original digits put back in every name of every string it holds."""
    if done is None:
        done = {}
    if isinstance(r, str):
        if not r:
            return r
        new = done.get(r)
        if new is None:
            seg = _segments(str(r))
            # interned: a generated name (buf12_v3) recurs in every statement that mentions it, one string for all
            new = done[r] = r if seg is None else intern("".join(
                [x if i % 2 == 0 else back.get(x, x) for i, x in enumerate(seg)]))
        if new is r:
            return r
        return r.update(value=new) if isinstance(r, lark.Token) else new
    if isinstance(r, tuple):
        return tuple([_renamed(x, back, done) for x in r])
    if isinstance(r, list):
        return [_renamed(x, back, done) for x in r]
    if r is None or isinstance(r, (int, float, bool)):
        return r
    if type(r) is Expr:
        return Expr(_renamed(r.text, back, done), tuple([_renamed(x, back, done) for x in r.names]))
    if isinstance(r, lark.Tree):
        return lark.Tree(r.data, [_renamed(c, back, done) for c in r.children])
    if dataclasses.is_dataclass(r):  # every field an init field (the statements' dataclasses): built positionally
        cls = type(r)
        return cls(*[_renamed(getattr(r, n), back, done) for n in _init_fields(cls)])
    raise TypeError(f"a parse result of type {type(r).__name__} cannot be renamed")


def _plan(r):
    """How to put a statement's digits back into the parse ``r`` of its shape, worked out once per shape: None
    when ``r`` holds no string `_segments` renames (the statement's result is ``r`` itself), else a function of
    the digit map that builds what `_renamed` builds, rebuilding only the parts that hold such a string (`_renamed`
    walked and rebuilt the whole result for every statement: on run_impl's 480,000 statements of the
    assertion-dense 20k package that was the largest part of the whole parse)."""
    if isinstance(r, str):
        if not r:
            return None
        if isinstance(r, lark.Token):
            return lambda back: _renamed(r, back)
        seg = _segments(str(r))
        if seg is None:
            return None
        if len(seg) == 3:  # one digit run: most names (buf12_handle)
            a, d, b = seg
            return lambda back: intern(a + back.get(d, d) + b)
        lits, digs = seg[0::2], seg[1::2]
        first, pairs = lits[0], tuple(zip(digs, lits[1:]))

        def joined(back):
            out = [first]
            for d, lit in pairs:
                out += (back.get(d, d), lit)
            return intern("".join(out))
        return joined
    if r is None or isinstance(r, (int, float, bool)):
        return None
    if isinstance(r, (tuple, list)):
        plans = [(_plan(x), x) for x in r]
        if all(p is None for p, _ in plans):
            return None
        make = tuple if isinstance(r, tuple) else list
        return lambda back: make([x if p is None else p(back) for p, x in plans])
    if type(r) is Expr:
        text, names = r.text, r.names
        pt, pn = _plan(text), _plan(names)
        if pt is None and pn is None:
            return None
        return lambda back: Expr(text if pt is None else pt(back), names if pn is None else pn(back))
    if isinstance(r, lark.Tree):
        return lambda back: _renamed(r, back)
    if dataclasses.is_dataclass(r):  # every field an init field (the statements' dataclasses): built positionally
        cls = type(r)
        plans = [(_plan(v), v) for v in (getattr(r, n) for n in _init_fields(cls))]
        if all(p is None for p, _ in plans):
            return None
        return lambda back: cls(*[v if p is None else p(back) for p, v in plans])
    raise TypeError(f"a parse result of type {type(r).__name__} cannot be renamed")


def parse_one(grammar: str, starts: tuple[str, ...], transformer: Transformer, text: str, start: str,
              cov: Coverage | None = None, line: int = 0, remember: bool = True):
    """Parse one statement with ``start`` and transform it; None when no rule accepts it.

    The result is kept by its text (a statement seen again is not parsed again) unless ``remember`` is False (a
    caller that reads each statement once: the whole parse of run_impl); its shape's parse is kept either way.

    Only Lark's `UnexpectedInput` (text no rule accepts) is a skip, counted in ``cov`` with its
    line; a Transformer may also decline a parsed shape by returning None (counted the same).
    Anything else (a `VisitError` wrapping a KeyError…) is a bug in pt2-inspect and propagates:
    the CLI reports it as an internal error (exit 4), never as a bad package.
    """
    key = (grammar, start, type(transformer), text)
    r = _MEMO.get(key, _MISSING)
    if r is _MISSING:  # a statement not seen before: its shape may have been
        shape, back = canonical(text)
        skey = (grammar, start, type(transformer), shape, None)
        hit = _MEMO.get(skey)
        if hit is None:
            inline = _inline_parser(grammar, starts, transformer)
            try:
                if inline is not None:
                    r = inline.parse(shape, start=start)
                else:
                    r = transformer.transform(parser(grammar, starts).parse(shape, start=start))
            except UnexpectedInput:
                r = None
            if len(_MEMO) >= _MEMO_MAX:
                _MEMO.clear()
            hit = _MEMO[skey] = [r, _MISSING]  # the shape's parse, and its `_plan` once a statement needs it
        r, plan = hit
        if r is not None and back:
            if plan is _MISSING:
                plan = hit[1] = _plan(r)
            if plan is not None:
                r = plan(back)
        if remember:
            _MEMO[key] = r
    if RECORD is not None:
        RECORD.append((grammar, starts, transformer, text, start, r))
    if cov is not None:
        if r is None:
            cov.skip(line, text)
        else:
            cov.ok()
    return r


def _inline_parser(grammar: str, starts: tuple[str, ...], transformer: Transformer):
    """``parser(grammar, starts)`` with ``transformer``'s methods as its reduce callbacks (Lark's LALR
    ``transformer=`` option): each rule is transformed as it is reduced, no parse tree is built and walked
    again.  The same callbacks run on the same children, in the same order (Lark wraps them exactly as
    for a tree), so the result is the one `Transformer.transform` gives, and an exception in a callback is
    the same `VisitError`.  The LALR tables and the lexer are the loaded parser's own, shared; only the
    callbacks differ.  Built once per package opened (`inspector.parse.forget_statements` empties
    ``INLINE_PARSERS``: a transformer patched in between is seen).  None (parse, then transform) when
    this Lark's internals are not the ones this was written against (lark 1.x)."""
    key = (grammar, starts, id(transformer))
    hit = INLINE_PARSERS.get(key, _MISSING)
    if hit is _MISSING:
        hit = INLINE_PARSERS[key] = _build_inline(parser(grammar, starts), transformer)
    return hit


def _build_inline(p: Lark, transformer: Transformer):
    import copy

    from lark import Tree
    from lark.exceptions import GrammarError, VisitError

    def visit_errors(callback, name):
        def call(children):  # what `Transformer._call_userfunc` does with an exception
            try:
                return callback(children)
            except GrammarError:
                raise
            except Exception as e:
                raise VisitError(name, Tree(name, children), e)
        return call

    try:
        if getattr(transformer, "__visit_tokens__", False):  # token callbacks are the lexer's business: not here
            return None
        callbacks = p._parse_tree_builder.create_callback(transformer)
        callbacks = {rule: visit_errors(cb, rule.alias or rule.options.template_source or rule.origin.name)
                     for rule, cb in callbacks.items()}
        front = copy.copy(p.parser)
        lalr = copy.copy(front.parser)
        inner = copy.copy(lalr.parser)
        if not isinstance(getattr(inner, "callbacks", None), dict):
            return None
        inner.callbacks = callbacks
        lalr.parser = inner
        front.parser = lalr
        return front
    except AttributeError:
        return None


# The transformers are pure functions of the text whose results nobody mutates: a statement seen before in
# this package is not parsed again (`inspector.parse.STATEMENTS`), only counted.
_MEMO = STATEMENTS
_MEMO_MAX = 500_000
_MISSING = object()


class ExprTransformer(Transformer):
    """Turns the shared balanced-token rules into `Expr` values (text + identifiers named)."""

    def __init__(self, visit_tokens: bool = False):
        # No transformer here has a method per terminal: skipping the lookup for every token is ~10% of a parse.
        super().__init__(visit_tokens=visit_tokens)

    def name(self, c):
        return Expr(str(c[0]), (str(c[0]),))

    def number(self, c):
        return Expr(str(c[0]))

    string = op = number

    def args(self, c):
        return [x for x in c if isinstance(x, Expr)]

    def _group(self, c, left, right):
        inner = c[0] if c else []
        return Expr(left + ", ".join(e.text for e in inner) + right, tuple(n for e in inner for n in e.names))

    def paren(self, c):
        return self._group(c, "(", ")")

    def bracket(self, c):
        return self._group(c, "[", "]")

    def brace(self, c):
        return self._group(c, "{", "}")

    def expr(self, items):
        if len(items) == 1:
            return items[0]
        return Expr(_join_text([it.text for it in items]), tuple(n for it in items for n in it.names))


_join_text = join_tokens  # the one spacing rule, shared with `expr_tree.unparse`
