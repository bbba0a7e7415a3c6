"""Statements parsed with the transformer inlined in Lark's LALR reductions (`grammar._inline_parser`) give what
parsing to a tree and transforming it gives, for every statement of real packages (wrapper, Triton, CPU kernel)."""


import pytest
from lark.exceptions import UnexpectedInput

import inspector.parse.cpp_kernel
import inspector.parse.grammar as grammar
import inspector.parse.triton
import inspector.parse.wrapper_statements
from inspector.package import open_package

from _paths import ROOT

PACKAGES = ["sample_packages/cuda/jagged/jagged.pt2", "sample_packages/cuda/transformer/transformer.pt2",
            "sample_packages/cpu/two_models/two_models.pt2", "sample_packages/cpu-2.6/jagged/jagged.pt2"]


@pytest.mark.parametrize("rel", PACKAGES)
def test_inline_transform_equals_tree_then_transform(rel, monkeypatch):
    path = ROOT / rel
    if not path.exists():
        pytest.skip(f"{rel} not in this checkout")
    seen = []
    real = grammar.parse_one

    def both(name, starts, transformer, text, start, cov=None, line=0, remember=True):
        inline = grammar._inline_parser(name, starts, transformer)
        assert inline is not None
        try:
            want = transformer.transform(grammar.parser(name, starts).parse(text, start=start))
        except UnexpectedInput:
            want = "no rule"
        try:
            got = inline.parse(text, start=start)
        except UnexpectedInput:
            got = "no rule"
        assert got == want and repr(got) == repr(want), (name, start, text)
        seen.append(name)
        return real(name, starts, transformer, text, start, cov, line, remember)

    for mod in (inspector.parse.wrapper_statements, inspector.parse.triton, inspector.parse.cpp_kernel):
        monkeypatch.setattr(mod, "parse_one", both)
    grammar.STATEMENTS.clear()
    with open_package(path, cache=False) as pkg:
        for name in pkg.model_names:
            pkg.model(name)
    assert len(seen) > 50
