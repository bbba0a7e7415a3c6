"""Nothing above inspector/index/ reads text or applies a regular expression (issue 33 §1).

Above the index (graph/, queries/, explain/, render/, cli/) a module reads typed records: the index's statement tier
(`inspector.index.records`), the grammars' dataclasses, the typed trees (`expr.tree`), the log's typed facts
(`inspector.logs`).  So no module there reads an attribute named ``text`` (a statement's, a log line's or an
expression's text: what was parsed is read through its fields; an expression is shown with ``str(expr)``), and
none imports or calls ``re``.  Writing ``.text`` (an XML element's, `render/scan.py`'s JUnit report) is no read.
"""

from __future__ import annotations

import ast

import pytest

from _paths import ROOT
from test_queries_no_regex import regex_uses

PKG = ROOT / "inspector"
ABOVE_INDEX = ("graph", "queries", "explain", "render", "cli")


def text_reads(source: str) -> list[str]:
    """Where ``source`` reads an attribute named ``text``: ``["line 3: x.text", …]``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "text" and isinstance(node.ctx, ast.Load):
            out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


def _modules() -> list:
    mods = sorted(p for d in ABOVE_INDEX for p in (PKG / d).rglob("*.py"))
    assert len(mods) > 60 and all((PKG / d).is_dir() for d in ABOVE_INDEX), mods  # the layers are there
    return mods


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_no_module_above_the_index_reads_text_or_applies_a_regex(path):
    src = path.read_text()
    found = text_reads(src) + regex_uses(src)
    assert not found, (f"inspector/{path.relative_to(PKG)} reads text or uses a regular expression "
                       f"({'; '.join(found)}): read the typed record the index or the log's reading hands over "
                       "(inspector/index/records.py, inspector/logs/facts.py); a new fact is read in index/ or logs/")


def test_the_check_sees_a_text_read(tmp_path):
    """The check can fail: a read of ``.text`` (on anything, chained or not) is found; a write is not."""
    assert text_reads("def f(st):\n    return st.text.split('\"')\n") == ["line 2: st.text"]
    assert text_reads("x = a.b.text\n") == ["line 1: a.b.text"]
    assert text_reads("el.text = 'verdict'\n") == []
    assert text_reads("from rich.text import Text\nText('x')\n") == []
