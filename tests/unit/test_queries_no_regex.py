"""inspector/queries/ holds no regular expression (issue 21 §1): a query matches typed trees and facts parse/
recorded, never generated code's text.  A regex over a user's log lives in inspector/logs/patterns.py (a query
uses it by name, through that module); one over a torch format lives in parse/ or dialects/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from _paths import ROOT

QUERIES = ROOT / "inspector" / "queries"
# explain/ only words facts: it reads no text back either (its limit's parentheses come from the bound's tree)
EXPLAIN = QUERIES.parent / "explain"



def regex_uses(source: str) -> list[str]:
    """Where ``source`` imports ``re`` (or ``regex``) or calls it: ``["line 3: import re", …]``."""
    out = []
    mods = {"re", "regex"}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] in mods]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in mods:
            out.append(f"line {node.lineno}: from {node.module} import …")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in mods:
            out.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return out


def _modules() -> list[Path]:
    mods = sorted(p for p in QUERIES.rglob("*.py"))
    assert len(mods) > 10, mods  # the package is there: the test compares something
    return mods


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(QUERIES)))
def test_query_module_uses_no_regex(path: Path):
    rel = str(path.relative_to(QUERIES))
    uses = regex_uses(path.read_text())
    assert not uses, (f"inspector/queries/{rel} uses a regular expression ({'; '.join(uses)}): match the typed "
                      "tree or a fact parse/ records; a log pattern goes to inspector/logs/patterns.py")


def _explain_modules() -> list[Path]:
    mods = sorted(EXPLAIN.glob("*.py"))
    assert len(mods) >= 8 and EXPLAIN / "__init__.py" in mods, mods
    return mods


@pytest.mark.parametrize("path", _explain_modules(), ids=lambda p: f"explain/{p.name}")
def test_explain_module_uses_no_regex(path: Path):
    uses = regex_uses(path.read_text())
    assert not uses, (f"inspector/explain/{path.name} uses a regular expression ({'; '.join(uses)}): rendering never "
                      "parses; the query hands explain a typed fact (a tree, a field) and explain only words it")


def test_the_check_flags_a_module_with_a_regex(tmp_path):
    """The check can fail: each way a module can reach ``re`` is caught, and a plain module passes."""
    cases = {
        "import re\n\ndef f(s):\n    return re.sub(r'\\d+L', '', s)\n": ["line 1: import re", "line 4: re.sub"],
        "def f(s):\n    import re as r\n    return r.match('x', s)\n": ["line 2: import re"],
        "from re import fullmatch\n": ["line 1: from re import …"],
        "import regex\n": ["line 1: import regex"],
    }
    for i, (src, want) in enumerate(cases.items()):
        p = tmp_path / f"m{i}.py"
        p.write_text(src)
        assert regex_uses(p.read_text()) == want, src
    plain = tmp_path / "plain.py"
    plain.write_text("from ..logs.patterns import FRAMING\n\ndef f(s):\n    return FRAMING.regex.match(s)\n")
    assert regex_uses(plain.read_text()) == []
