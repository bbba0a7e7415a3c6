"""Every module, folder and name docs/architecture.md names exists (issue 33 §7: it named modules that had moved).

Beside tests/unit/test_doc_paths.py (which holds every ``tests/...py`` path), this reads the architecture's
paragraphs (a bullet or a block of text; each code block alone) and checks, in each:

- a path (``inspector/...``, ``grammars/...``, ``explain/trace.py``, ``rules/``, ``base.py``): the file or folder is
  there (a short one under a folder the paragraph names, or under ``inspector/``);
- a dotted name (``inspector.queries.doctor.doctor``, ``walk.Step``, ``model.Expr``): the module imports and has it;
- a backticked name (``ModelIndex``, ``_run_impl_at``, ``add_json(p)``, ``show``): one of the modules the paragraph
  names defines it, or it is a module in one of the packages the paragraph names;
- a code block whose first line names its file (``# inspector/x.py``, else the file the text above it names): each
  class is there with its bases, each method with its parameters and their annotations, each top-level name too;
  and a comment line's ``# inspector/x.py: NAME, name()`` names are there;
- an assignment quoted inline (``COMMANDS = (show, …)``) lists what the module's assignment lists.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from _paths import ROOT

DOC = ROOT / "docs" / "architecture.md"
TOP = ("inspector/", "grammars/", "tests/", "docs/", "bench/", "tools/", "sample_packages/")
# backticked words that are not Python names: a diagnose category, a dialect's name, an archive member
WORDS = {"custom_op", "unknown", "version"}
NAME = re.compile(r"^[A-Za-z_]\w*$")


def paragraphs(text: str) -> list[tuple[int, str, bool]]:
    """``(first line, text, is code)`` for each bullet, block of prose and fenced code block."""
    out, cur, start, code = [], [], 1, False
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if cur:
                out.append((start, "\n".join(cur), code))
            cur, start, code = [], i + 1, not code
            continue
        if not code and (not line.strip() or line.startswith(("- ", "#", "**"))):
            if cur:
                out.append((start, "\n".join(cur), False))
            cur, start = ([line], i) if line.strip() and not line.startswith("#") else ([], i + 1)
            continue
        cur.append(line)
    if cur:
        out.append((start, "\n".join(cur), code))
    return out


def _module_file(dotted: str) -> Path | None:
    base = ROOT / Path(*dotted.split("."))
    return base / "__init__.py" if (base / "__init__.py").is_file() else base.with_suffix(".py") \
        if base.with_suffix(".py").is_file() else None


def _dotted(path: Path) -> str | None:
    """``inspector/queries/show.py`` -> ``inspector.queries.show``; a package folder -> its package."""
    rel = path.relative_to(ROOT)
    if path.is_dir():
        return ".".join(rel.parts) if (path / "__init__.py").is_file() else None
    if path.suffix != ".py":
        return None
    parts = rel.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve_path(token: str, folders: list[Path]) -> Path | None:
    """The file or folder ``token`` names: from the repository's root, or (a short one) under a folder the
    paragraph names, or under inspector/."""
    token = token.rstrip("/")
    if any(token.startswith(t.rstrip("/")) for t in TOP):
        hits = sorted(ROOT.glob(token)) if "*" in token else [ROOT / token] if (ROOT / token).exists() else []
        return hits[0] if hits else None
    for folder in [*folders, ROOT / "inspector"]:
        hits = sorted(p for p in folder.rglob(Path(token).name) if p.as_posix().endswith("/" + token))
        if hits:
            return hits[0]
    return None


def _attr(module: str, name: str) -> bool:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return False
    if hasattr(mod, name):
        return True
    return _module_file(f"{module}.{name}") is not None  # a submodule not imported yet


def resolve_dotted(token: str) -> bool:
    """``inspector.a.b.name``: the longest module prefix imports and has the rest, attribute by attribute."""
    parts = token.split(".")
    for cut in range(len(parts), 0, -1):
        if _module_file(".".join(parts[:cut])):
            obj = importlib.import_module(".".join(parts[:cut]))
            for p in parts[cut:]:
                if not hasattr(obj, p):
                    return False
                obj = getattr(obj, p)
            return True
    return False


def _short_module(name: str, modules: list[str]) -> list[str]:
    """The modules whose last part is ``name``: the paragraph's first, else any under inspector/."""
    own = [m for m in modules if m.rsplit(".", 1)[-1] == name]
    if own:
        return own
    return sorted({_dotted(p) for p in (ROOT / "inspector").rglob(f"{name}.py")} - {None})


def _short_dotted(token: str, modules: list[str]):
    """What ``a.b`` names when ``a`` is a module's last part (``walk.Step``, ``model.Expr``), else None."""
    head, _, rest = token.partition(".")
    for m in _short_module(head, modules):
        if resolve_dotted(f"{m}.{rest}"):
            obj = importlib.import_module(m)
            for part in rest.split("."):
                obj = getattr(obj, part, None) if not isinstance(obj, type(importlib)) or hasattr(obj, part) \
                    else importlib.import_module(f"{obj.__name__}.{part}")
            return obj if obj is not None else True
    return None


def resolve_name(token: str, modules: list[str], classes: list[type] = ()) -> bool:
    """A backticked name: ``a.b`` (module ``a``'s ``b``, or the attribute ``b`` of a class ``A`` the paragraph
    names: ``expr.tree`` beside ``model.Expr``) or a plain name one of ``modules`` defines (or a module in one of
    them, when it is a package)."""
    if "." in token:
        if _short_dotted(token, modules) is not None:
            return True
        head, _, rest = token.partition(".")
        return any(c.__name__.lower() == head.lower() and hasattr(c, rest) for c in classes)
    return any(_attr(m, token) for m in modules)


def _names_of(token: str) -> str | None:
    """The name a backticked token stands for: ``add_json(p)`` -> ``add_json``, ``options=Options(...)`` ->
    ``Options``, ``CATEGORY_DOC["custom_op"]`` -> ``CATEGORY_DOC``; None for what is no name (a flag, a command
    line, a path, a sentence)."""
    t = token.strip()
    t = re.sub(r"^\w+=", "", t)
    t = re.sub(r"(\(.*\)|\[.*\])$", "", t)
    if re.search(r"\.(cpp|so|json|py|lark|log|md|txt|pt2)$", t):  # a file's name (an archive member: `wrapper.cpp`)
        return None
    return t if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", t) else None


def is_command(token: str) -> bool:
    """``doctor``, ``show --full``, ``graph --around``: a command of the CLI (a module of inspector/cli/)."""
    word = token.split()[0].replace("-", "_")
    return bool(NAME.match(word)) and (ROOT / "inspector" / "cli" / f"{word}.py").is_file()


def _line_of(token: str, text: str, line: int) -> int:
    """The document's line where ``token`` first stands in the paragraph ``text`` that starts at ``line``."""
    at = text.find(token)
    return line + text[:at].count("\n") if at >= 0 else line


def check_paragraph(line: int, text: str) -> list[str]:
    """What in one paragraph of prose names something that is not there."""
    wrong = []
    ticks = [" ".join(t.split()) for t in re.findall(r"`([^`]+)`", text)]  # inline code may wrap a line
    # every path (backticked or not), and the folders and modules the paragraph names
    paths = set(re.findall(r"(?<![\w/.$~-])((?:inspector|grammars)/[\w/*.]*)", text))
    paths |= {t for t in ticks if re.fullmatch(r"[\w/*.-]+", t) and "<" not in t and not t.startswith((".", "-"))
              and (t.endswith((".py", "/")) or t.startswith(TOP))}
    folders, modules = [], []
    for t in sorted(paths):
        p = resolve_path(t.rstrip(".,;:"), [])
        if p is not None and p.is_dir():
            folders.append(p)
    for t in sorted(paths):
        p = resolve_path(t.rstrip(".,;:"), folders)
        if p is None:
            wrong.append(f"line {_line_of(t, text, line)}: {t} is not there")
        elif _dotted(p):
            modules.append(_dotted(p))
    for t in re.findall(r"(?<![\w/])(inspector(?:\.\w+)+)", text):
        if not resolve_dotted(t):
            wrong.append(f"line {_line_of(t, text, line)}: {t} does not import")
        else:
            modules.append(t if _module_file(t) else t.rsplit(".", 1)[0])
    modules = list(dict.fromkeys([*modules, "inspector"]))  # the library's own names (``open_package``) count too
    classes = [c for t in ticks if (n := _names_of(t)) and "." in n for c in [_short_dotted(n, modules)]
               if isinstance(c, type)]
    for t in ticks:
        if t in paths or t in WORDS or re.search(r"\binspector\.", t) or re.fullmatch(r"\w+ = \(.*\)", t):
            continue
        name = _names_of(t)
        if name is None or name in WORDS:
            continue
        if "." not in name and is_command(t) and not resolve_name(name, modules, classes):
            continue  # a command's name, where the paragraph's modules have no such name
        if not resolve_name(name, modules, classes):
            wrong.append(f"line {_line_of(t.split()[0], text, line)}: `{t}` is in none of {', '.join(modules)}")
    return wrong


def _signature(fn: ast.FunctionDef) -> list[tuple[str, str | None]]:
    return [(a.arg, ast.unparse(a.annotation) if a.annotation else None) for a in fn.args.args]


def check_code(line: int, text: str, before: str) -> list[str]:
    """A code block against the file its first line names (``# inspector/x.py``), else the file named last in the
    paragraph before it: its classes, methods and top-level names, and each ``# path: NAME, name()`` comment."""
    wrong = []
    sections, cur, at = [], [], line
    named = re.findall(r"inspector/[\w/]+\.py", before)
    where = named[-1] if named else None
    for i, ln in enumerate(text.splitlines()):
        m = re.match(r"#\s*(inspector/[\w/]+\.py)\b[,:]?\s*(?:in\s+)?(.*)", ln)
        if m:
            if cur:
                sections.append((where, at, "\n".join(cur)))
            cur, where, at = [], m.group(1), line + i + 1
            for name in re.findall(r"([A-Za-z_]\w*)(?:\[[^\]]*\]|\(\))?", m.group(2)):
                if not _attr(_dotted(ROOT / where), name):
                    wrong.append(f"line {line + i}: {where} has no {name}")
            continue
        cur.append(ln)
    sections.append((where, at, "\n".join(cur)))
    for where, at, code in sections:
        if not code.strip() or where is None:
            continue
        path = ROOT / where
        if not path.is_file():
            wrong.append(f"line {line}: {where} is not there")
            continue
        real = {n.name if hasattr(n, "name") else None: n for n in ast.parse(path.read_text()).body}
        assigned = {t.id for n in ast.parse(path.read_text()).body if isinstance(n, (ast.Assign, ast.AnnAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        try:
            shown = ast.parse(code)
        except SyntaxError:  # a fragment (a list's items): only its comments were checked
            continue
        for node in shown.body:
            if isinstance(node, ast.ClassDef):
                have = real.get(node.name)
                if not isinstance(have, ast.ClassDef):
                    wrong.append(f"line {at + node.lineno - 1}: {where} has no class {node.name}")
                    continue
                if [ast.unparse(b) for b in node.bases] != [ast.unparse(b) for b in have.bases]:
                    wrong.append(f"line {at + node.lineno - 1}: {where}'s {node.name} is not a "
                                 f"{', '.join(map(ast.unparse, node.bases))}")
                methods = {f.name: f for f in have.body if isinstance(f, ast.FunctionDef)}
                for f in node.body:
                    if isinstance(f, ast.FunctionDef):
                        if f.name not in methods:
                            wrong.append(f"line {at + f.lineno - 1}: {where}'s {node.name} has no {f.name}")
                        elif _signature(f) != _signature(methods[f.name]):
                            wrong.append(f"line {at + f.lineno - 1}: {where}'s {node.name}.{f.name}{_signature(f)} is "
                                         f"{_signature(methods[f.name])}")
            elif isinstance(node, ast.FunctionDef) and not isinstance(real.get(node.name), ast.FunctionDef):
                wrong.append(f"line {at + node.lineno - 1}: {where} has no def {node.name}")
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id not in assigned:
                        wrong.append(f"line {at + node.lineno - 1}: {where} assigns no {t.id}")
    return wrong


def check_assignments(line: int, text: str) -> list[str]:
    """``NAME = (a, b, c)`` quoted inline lists what the module that assigns NAME lists (the paragraph's)."""
    wrong = []
    for m in re.finditer(r"`(\w+ = \([^`]*\))`", text):
        quoted, at = m.group(1), line + text[:m.start()].count("\n")
        target = ast.parse(quoted).body[0]
        name, shown = target.targets[0].id, [ast.unparse(e) for e in target.value.elts]
        found = None
        for where in re.findall(r"inspector/[\w/]+\.py", text):
            for node in ast.parse((ROOT / where).read_text()).body:
                tgt = node.target if isinstance(node, ast.AnnAssign) else \
                    node.targets[0] if isinstance(node, ast.Assign) else None
                if isinstance(tgt, ast.Name) and tgt.id == name and isinstance(node.value, (ast.Tuple, ast.List)):
                    found = (where, [ast.unparse(e) for e in node.value.elts])
        if found is None:
            wrong.append(f"line {at}: no module the paragraph names assigns {name}")
        elif found[1] != shown:
            wrong.append(f"line {at}: {found[0]}'s {name} is ({', '.join(found[1])}), not ({', '.join(shown)})")
    return wrong


def stale(text: str) -> list[str]:
    """Everything in ``text`` (docs/architecture.md's) that names what is not there."""
    wrong, before = [], ""
    for line, para, code in paragraphs(text):
        if code:
            wrong += check_code(line, para, before)
        else:
            wrong += check_paragraph(line, para) + check_assignments(line, para)
            before = para
    return wrong


def test_every_module_and_name_the_architecture_names_is_there():
    text = DOC.read_text()
    named = len(re.findall(r"inspector/[\w/]+", text))
    assert named > 40, named  # the document names modules: a reading that finds none would check nothing
    wrong = stale(text)
    assert not wrong, "docs/architecture.md:\n" + "\n".join(wrong)


@pytest.mark.parametrize("text, fault", [
    ("- `inspector/no_such.py` reads nothing.", "inspector/no_such.py is not there"),
    ("- `inspector/graph/` is built by `inspector/graph/build.py` (`build_graph_of_nothing`).",
     "build_graph_of_nothing"),
    ("- `inspector/queries/` answers (`show`, `nosuchquery`).", "`nosuchquery`"),
    ("- `inspector.queries.doctor.nodoctor` checks.", "inspector.queries.doctor.nodoctor does not import"),
    ("- `inspector/graph/ids.py` spells `walk.NoStep`.", "`walk.NoStep`"),
    ("- in `inspector/cli/__init__.py`, `COMMANDS = (show, trace_assert)`.", "COMMANDS is ("),
    ("```python\n# inspector/queries/diagnose/rules/artifact.py\nclass CustomOp(Rule):\n"
     "    def claims(self, f: Facts) -> bool:\n        return True\n```", "CustomOp.claims"),
    ("```python\n# inspector/explain/diagnose.py: CATEGORY_DOC[\"x\"], no_such_words()\n```", "has no no_such_words"),
])
def test_the_check_can_fail(text, fault):
    wrong = stale(text)
    assert any(fault in w for w in wrong), wrong


def test_what_is_there_passes():
    assert stale("- `inspector/graph/build.py` links (`inspector/graph/minigraph.py`, `inspector/graph/ids.py`); "
                 "`inspector.queries.doctor.doctor`, `walk.Step`, `model.Expr` (`expr.tree`), `ModelIndex` in "
                 "`inspector/index/model_index.py`, `results.py` and `rules/` of `inspector/queries/`, "
                 "`add_json(p)` in `inspector/cli/_args.py`.") == []
