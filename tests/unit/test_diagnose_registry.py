"""diagnose's category list exists once (queries/diagnose/rules.py: RULES, CATEGORIES): the JSON schema's enum,
the words (explain/diagnose.py), the docstring and the log patterns' categories are checked against it; log
text is matched only in inspector/logs/patterns.py; the rules hold no sentence; the import arrows point one way.
Fast: no package is opened."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import inspector.queries.diagnose as diagnose_pkg
from inspector import explain
from inspector.explain import diagnose as say
from inspector.logs import patterns as P
from inspector.queries.diagnose import CATEGORIES, RULES

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "inspector"


def test_schema_enum_is_the_rules_categories():
    schema = json.loads((PKG / "schemas/diagnose.schema.json").read_text())
    assert schema["properties"]["category"]["enum"] == list(CATEGORIES), \
        "the schema enum is inspector.queries.diagnose.CATEGORIES, in order: write that list there"


def test_one_rule_per_category_and_unknown_last():
    assert len(set(CATEGORIES)) == len(CATEGORIES) == len(RULES)
    assert CATEGORIES[-1] == "unknown"


def test_every_category_has_its_words_and_is_in_the_docstring():
    assert list(say.CATEGORY_DOC) == list(CATEGORIES)
    doc = diagnose_pkg.__doc__
    assert [c for c in CATEGORIES if f"``{c}``" in doc] == list(CATEGORIES)
    assert sorted(CATEGORIES, key=lambda c: doc.index(f"``{c}``")) == list(CATEGORIES)


def test_every_pattern_points_to_a_category_or_a_role():
    names = [p.name for p in [*P.LOCATED, P.BARE_MSG, *P.PATTERNS, *P.MENTIONS, *P.DETAILS]]
    assert len(names) == len(set(names)) == len(P.REGISTRY)
    for p in P.REGISTRY.values():
        assert p.category in CATEGORIES or p.category in P.ROLES, (p.name, p.category)
        assert p.doc, p.name


def test_every_category_is_recognised_by_a_pattern():
    """A category is claimed from what the log says: some line pattern points to it, except the rules that say
    they are claimed from the package ("unknown"; "weights_not_loaded": a segfault on a weightless package)."""
    from inspector.queries.diagnose.rules import RULES

    pointed = {p.category for p in [*P.LOCATED, *P.PATTERNS]}
    assert set(CATEGORIES) - pointed == {r.category for r in RULES if r.by_package} == {"unknown", "weights_not_loaded", "foreign_log"}


def test_log_hints_are_keyed_by_pattern_names():
    assert set(explain.LOG_HINTS) <= set(P.REGISTRY)


def _tree(rel: str) -> ast.Module:
    return ast.parse((PKG / rel).read_text())


def _imports(rel: str) -> set[str]:
    """Every module ``rel`` imports, at the top or inside a function (absolute, dotted)."""
    here = ("inspector/" + rel[:-3]).replace("/__init__", "").split("/")
    if rel.endswith("__init__.py"):
        here.append("__init__")
    out = set()
    for node in ast.walk(_tree(rel)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


# and every rendering module but show's (its plain tables strip rich's emoji codes with one regex)
MATCHES_NO_TEXT = ["queries/diagnose/rules.py", "queries/diagnose/results.py", "queries/diagnose/__init__.py",
                   "logs/parse.py", "explain/diagnose.py",
                   *[f"render/{n}.py" for n in ("trace", "diagnose", "check", "sweep", "doctor", "scan", "locate")]]


def test_log_text_is_matched_only_in_the_pattern_registry():
    for rel in MATCHES_NO_TEXT:
        assert "re" not in _imports(rel), f"{rel} imports re: name the pattern in inspector/logs/patterns.py"


def test_rules_hold_no_sentence():
    """Every sentence a person reads is in inspector/explain/diagnose.py: the rules' strings are names and data."""
    tree = _tree("queries/diagnose/rules.py")
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            assert len(n.value.split()) < 3, n.value


def test_import_arrows_point_one_way():
    assert not any(m.startswith("inspector.queries.diagnose") for m in _imports("queries/trace.py"))
    assert not any(m.startswith("inspector.queries.diagnose") for m in _imports("queries/candidates.py"))
    # the commands' drawings import only the drawing they share (common; diagnose draws trace's tree too)
    for rel in ("render/show.py", "render/trace.py", "render/check.py", "render/sweep.py", "render/doctor.py",
                "render/scan.py", "render/locate.py"):
        assert not {m for m in _imports(rel) if m.startswith("inspector.render.")} - {
            "inspector.render.common", *(f"inspector.render.common.{n}" for n in ("_Table", "_bytes", "_fmt_shape",
                                                                                   "render_candidates"))}, rel
    assert not any(m.startswith(("inspector.render.", "inspector.queries")) for m in _imports("render/common.py"))
    for rel in ("logs/parse.py", "logs/patterns.py", "logs/__init__.py", "explain/__init__.py", "explain/diagnose.py"):
        assert not any(m.startswith(("inspector.queries", "inspector.package", "inspector.render")) for m in _imports(rel)), rel
    assert not any(m.startswith("inspector.logs") for m in _imports("explain/__init__.py") | _imports("explain/diagnose.py"))
