"""The import graph of inspector/ has no circles: every import counts (also those inside functions, which
only delay one), and the package root `inspector/__init__` is a node like any other.

An edge A -> B is an `import` statement in A naming B (``from . import x`` names the submodule x when there
is one, else the package).  The implicit import of a package's ``__init__`` when one of its submodules is
imported is not an edge: a package that assembles its own submodules (inspector.cli) is no circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "inspector"


def _modules() -> dict[str, Path]:
    mods = {}
    for f in PKG.rglob("*.py"):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, f in mods.items():
        is_pkg = f.name == "__init__.py"
        here = name if is_pkg else name.rsplit(".", 1)[0]  # the package a relative import starts from
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in mods]
                targets = subs if len(subs) == len(node.names) else subs + [mod]
            for t in targets:
                while t and t not in mods and "." in t:  # `import inspector.x.y` names module inspector.x.y
                    t = t.rsplit(".", 1)[0]
                if t in mods and t != name:
                    graph[name].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_real_imports():
    g = import_graph()
    assert "inspector.cli._io" in g["inspector.cli.report"]
    assert "inspector.cli.show" in g["inspector.cli"]
    assert "inspector._version" in g["inspector.cli"]
    assert "inspector.queries.diagnose" in g["inspector"]  # imports inside functions count
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle_through_the_root_the_cli_or_the_report():
    """The root `inspector/__init__` imports the library (lazily); nothing imports the root back (the version
    lives in inspector._version).  The CLI and the report are on no circle either."""
    ours = ("inspector.cli", "inspector.queries.report", "inspector.render.html")
    bad = [c for c in cycles(import_graph()) if "inspector" in c or any(m.startswith(ours) for m in c)]
    assert bad == []


def test_no_import_circles_anywhere():
    assert cycles(import_graph()) == []


def test_no_circle_when_a_relative_import_names_its_package():
    """Read more strictly, ``from . import ids`` imports the package ``inspector`` (whose root lazily imports the
    library): the modules spell such imports ``import inspector.graph.ids as ids``, so even then there is no circle."""
    import ast

    mods = _modules()
    strict: dict[str, set[str]] = {m: set() for m in mods}
    for name, f in mods.items():
        here = name if f.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)] if node.level else []
                targets = [".".join(base + ([node.module] if node.module else []))] if node.level else [node.module]
            else:
                continue
            for t in targets:
                while t and t not in mods and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in mods and t != name:
                    strict[name].add(t)
    assert cycles(strict) == []


def test_commands_never_import_the_cli_package():
    """A command module takes what it shares from inspector.cli._args / _io, never from inspector.cli itself."""
    g = import_graph()
    assert len([n for n in g if n.startswith("inspector.cli.")]) >= 10  # the command modules are in the graph
    for name in g:
        if name.startswith("inspector.") and name not in ("inspector.cli", "inspector.cli.__main__"):
            assert "inspector.cli" not in g[name], name


# The pipeline's early stages import nothing of its later ones (issue 21 §4: parse/ imported the cache's
# tag codec from index/).  Stage -> the stages it must not import.
_LATER = {
    "inspector.parse": ("inspector.index", "inspector.queries", "inspector.explain", "inspector.cli",
                        "inspector.render"),
    "inspector.dialects": ("inspector.index", "inspector.queries", "inspector.explain", "inspector.cli"),
    "inspector.archive": ("inspector.index", "inspector.queries", "inspector.parse", "inspector.cli"),
}


def test_no_stage_imports_a_later_one():
    g = import_graph()
    bad = [(m, t) for m, targets in g.items() for stage, later in _LATER.items()
           if m == stage or m.startswith(stage + ".") for t in targets if t.startswith(later)]
    assert any(m.startswith("inspector.parse") for m in g), "no parse modules seen"
    assert bad == []
