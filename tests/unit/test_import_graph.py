"""The import graph of inspector/ has no circles: every import counts (also those inside functions, which
only delay one), and the package root `inspector/__init__` is a node like any other.

An edge A -> B is an `import` statement in A naming B (``from . import x`` names the submodule x when there
is one, else the package).  The implicit import of a package's ``__init__`` when one of its submodules is
imported is not an edge: a package that assembles its own submodules (inspector.cli) is no circle.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from _paths import ROOT  # noqa: E402
PKG = ROOT / "inspector"


def _modules() -> dict[str, Path]:
    mods = {}
    for f in PKG.rglob("*.py"):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


@functools.cache
def _imports(f: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """The import statements of one module, anywhere in it (read once per run: several tests walk them)."""
    return tuple(n for n in ast.walk(ast.parse(f.read_text(), str(f))) if isinstance(n, (ast.Import, ast.ImportFrom)))


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, f in mods.items():
        is_pkg = f.name == "__init__.py"
        here = name if is_pkg else name.rsplit(".", 1)[0]  # the package a relative import starts from
        for node in _imports(f):
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
        for node in _imports(f):
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


# The layers of inspector/, lowest first: a stage (a package of inspector/, or a module at its top) imports only the
# stages of the layers below its own.  One table; `MAY_IMPORT` is what it allows each stage.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_version", "errors", "options", "host", "elf", "cpu_isa", "schemas"),  # leaves: import nothing of ours
    ("dialects", "naming"),  # every torch-format fact (the archive asks which member is what); Inductor's names
    ("archive", "model"),  # reading members; the vocabulary every stage shares
    ("remote",),  # an archive at a URL
    ("logs",),  # users' logs, read once (parse reads the user frames of an exported program's stack traces with it)
    ("parse", "weights"),  # generated text and weights files' headers -> model's records
    ("index",),  # what a question needs, parsed on demand, cached
    ("graph",),
    ("package",),  # the one object a user opens: its models' indexes and graphs
    ("queries",),  # the answers
    ("explain",),  # the sentences
    ("render",),  # drawing an answer
    ("cli", "(root)"),  # the commands; the package root's lazy library entry points
)
MAY_IMPORT: dict[str, frozenset[str]] = {
    stage: frozenset(s for below in LAYERS[:i] for s in below) for i, layer in enumerate(LAYERS) for stage in layer}
# Arrows today's tree has against the layers, each to be removed (then its line here goes: a test fails while an
# exception is no longer needed).  Importer (a stage or a module) -> the stage it imports, and why it is still here.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("queries", "explain"): "issue 33 §4: queries still word their answers (29 modules call explain/); explain is to "
                            "word the typed results that cli/render hand it",
}


def stage_of(module: str) -> str:
    """``inspector.queries.walk`` -> ``queries``; ``inspector.archive`` -> ``archive``; ``inspector`` -> ``(root)``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(root)"


def _excepted(module: str, target_stage: str) -> tuple[str, str] | None:
    return next((key for key in KNOWN_EXCEPTIONS if key[1] == target_stage
                 and (key[0] == stage_of(module) or module == key[0] or module.startswith(key[0] + "."))), None)


def upward(graph: dict[str, set[str]]) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """The imports against the layers (importer, imported) and the known exceptions they used."""
    bad, used = [], set()
    for m, targets in sorted(graph.items()):
        for t in sorted(targets):
            a, b = stage_of(m), stage_of(t)
            if a == b or b in MAY_IMPORT[a]:
                continue
            key = _excepted(m, b)
            if key is None:
                bad.append((m, t))
            else:
                used.add(key)
    return bad, used


def test_every_stage_has_its_layer():
    stages = {stage_of(m) for m in import_graph()}
    placed = [s for layer in LAYERS for s in layer]
    assert len(placed) == len(set(placed))  # each stage in one layer
    assert stages == set(placed), "a new package or top-level module of inspector/ needs its layer in LAYERS"


def test_no_stage_imports_a_later_one():
    bad, used = upward(import_graph())
    assert bad == []
    assert used == set(KNOWN_EXCEPTIONS), "an exception no import needs any more: remove its line"


def test_an_upward_import_is_caught():
    fake = {"inspector.parse.x": {"inspector.queries.y", "inspector.model"}, "inspector.model": {"inspector.parse"},
            "inspector.queries.y": {"inspector.explain"}, "inspector.logs.parse": {"inspector.explain"},
            "inspector.explain": set(), "inspector.parse": set()}
    bad, used = upward(fake)
    assert bad == [("inspector.logs.parse", "inspector.explain"), ("inspector.model", "inspector.parse"),
                   ("inspector.parse.x", "inspector.queries.y")]
    assert used == set(KNOWN_EXCEPTIONS)
