"""The typed parse on every sample (issue 21 §1): tests/unit/test_typed_parse.py's checks over the whole parse of every
sample package (tests/_parses.py: made once a process), split out of it so that tests/unit/ holds no sample loop.
Every expression reads to a tree and back to its text; every transformer method returns a dataclass on the corpus."""

from __future__ import annotations

import pytest

from inspector.model import Expr
from inspector.parse import expr_tree as E
from inspector.parse.expr_tree import parse_expr, unparse

from _parses import full_parse, typed, walk


@pytest.fixture(scope="module")
def corpus() -> dict[str, set[str]]:
    """Expression texts by kind, from the full index of every sample package (and, through the statement
    recorder, every `Expr` any transformer returned: ``normalized``): tests/_parses.py."""
    return full_parse()[1]


@pytest.mark.samples
@pytest.mark.slow
def test_tree_coverage_on_every_sample(corpus):
    """How many real expressions read to a tree with no `Opaque` node (the figure in the round's report).
    Measured (distinct texts): conditions 98/98, bounds 34/34, load/store addresses 460/460, store values 58/58,
    tmps 2,118/2,118, launch args 3,009/3,010, every non-empty Expr a transformer returned 6,961/6,962 (the miss: a
    template cut at its comma by the statement grammar, `std::array<const AtenTensorHandle*, …>`)."""
    figures = {}
    for kind, texts in corpus.items():
        assert texts, kind
        trees = sum(not E.has_opaque(parse_expr(t)) for t in texts)
        figures[kind] = (trees, len(texts))
    print(figures)
    for kind in ("condition", "bound", "launch_arg", "store_value", "tmp", "normalized", "address"):
        trees, total = figures[kind]
        assert trees >= 0.99 * total, (kind, trees, total)
    assert figures["condition"][1] > 50 and figures["launch_arg"][1] > 1000 and figures["address"][1] > 300, figures


@pytest.mark.samples
@pytest.mark.slow
def test_unparse_gives_every_normalized_text_back(corpus):
    """``unparse(tree)`` is the parsers' own text for every Expr they made, so rendering from the tree changes
    no answer; for raw texts (a message's bound `ks0*ks1`, a lambda's return) it is a fixed point."""
    checked = 0
    for text in sorted(corpus["normalized"] | corpus["launch_arg"] | corpus["condition"]):
        t = parse_expr(text)
        if not E.has_opaque(t):
            assert unparse(t) == text
            checked += 1
    assert checked > 5000, checked
    for text in sorted(corpus["bound"] | corpus["tmp"]):
        once = unparse(parse_expr(text))
        assert unparse(parse_expr(once)) == once, text


def _rules(cls) -> dict:
    """The rule methods ``cls`` (and its project bases) define."""
    import lark

    out = {}
    for c in reversed(cls.__mro__):
        if c is lark.Transformer or not issubclass(c, lark.Transformer) or not c.__module__.startswith("inspector"):
            continue
        out.update({n: f for n, f in vars(c).items() if callable(f) and not n.startswith("_")})
    return out


@pytest.mark.samples
@pytest.mark.slow
def test_every_transformer_method_returns_dataclasses_on_the_corpus(corpus_records):
    """Each statement every sample's parse handed a grammar is parsed again with each rule method recording what it
    returns: a dataclass (or a list of them, an argument list), never a tuple or a bare string."""
    from inspector.parse import grammar

    seen: dict[tuple[str, str], int] = {}
    bad: list = []

    def recording(cls):
        def wrap(name, f):
            def method(self, c):
                r = f(self, c)
                seen[(cls.__name__, name)] = seen.get((cls.__name__, name), 0) + 1
                if not typed(r):
                    bad.append((cls.__name__, name, r))
                return r
            return method
        return type(cls.__name__, (cls,), {n: wrap(n, f) for n, f in _rules(cls).items()})

    subs: dict[type, object] = {}
    done = set()
    for g, starts, tr, text, start, r in corpus_records:
        if (g, start, text) in done:
            continue
        done.add((g, start, text))
        assert typed(r), (g, start, text, r)
        cls = type(tr)
        if cls not in subs:
            subs[cls] = recording(cls)()
        grammar.parse_plain(g, starts, subs[cls], text, start)
    # the tree and message transformers, on the expressions and messages of the same corpus
    from inspector.parse import expr_tree, message
    from inspector.parse.grammar import parser

    tree_tr = recording(type(expr_tree._transformer()))()
    msg_tr = recording(type(message._transformer()))()
    exprs = {e for *_, r in corpus_records for e in _texts(r)}
    for text in sorted(exprs):
        try:
            tree_tr.transform(parser("expr", ("start",)).parse(text, start="start"))
        except Exception as e:  # noqa: BLE001 - only the grammar's own rejection is allowed
            from lark.exceptions import UnexpectedInput
            assert isinstance(e, UnexpectedInput), (text, e)
        if text.strip('"').startswith("index out of bounds:"):
            try:
                msg_tr.transform(parser("assert_message", ("message",)).parse(
                    message.unwrap_index(text.strip().strip('"')), start="message"))
            except Exception as e:  # noqa: BLE001
                from lark.exceptions import UnexpectedInput
                assert isinstance(e, UnexpectedInput), (text, e)
    assert not bad, bad[:5]
    methods = {m for m in seen}
    # every rule of the statement grammars ran on real text (acc_update: CPU reductions; the embedded loadKernel …)
    for cls_name, rule in [("_WrapperTransformer", "declaration"), ("_WrapperTransformer", "call"),
                           ("_WrapperTransformer", "guard_dim_const"), ("_WrapperTransformer", "launcher_param"),
                           ("_WrapperTransformer", "load_kernel"), ("_WrapperTransformer", "raii_decl"),
                           ("_TritonTransformer", "def_stmt"), ("_TritonTransformer", "assign_stmt"),
                           ("_TritonTransformer", "call_stmt"), ("_TritonTransformer", "control_stmt"),
                           ("_CppTransformer", "signature"), ("_CppTransformer", "tmp_def"),
                           ("_CppTransformer", "check"), ("_CppTransformer", "vec_store"),
                           ("_CppTransformer", "scalar_store"), ("_CppTransformer", "acc_update"),
                           ("ExprTreeTransformer", "binop"), ("ExprTreeTransformer", "call"),
                           ("ExprTreeTransformer", "scast"), ("MessageTransformer", "message")]:
        assert (cls_name, rule) in methods, (cls_name, rule)
    assert sum(seen.values()) > 50_000, sum(seen.values())


def _texts(r):
    """The text of every non-empty ``Expr`` in a parse result, and every record's ``message`` string."""
    for n in walk(r):
        if isinstance(n, Expr):
            if n.text:
                yield n.text
        elif isinstance(getattr(n, "message", None), str):
            yield n.message


@pytest.fixture(scope="module")
def corpus_records():
    """Every statement parse of every sample's whole parse (tests/_parses.py)."""
    seen = full_parse()[0]
    assert len(seen) > 10_000
    return seen
