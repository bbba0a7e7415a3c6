"""Loading the Lark grammars: their text and their LALR parsers (from the shipped tables when current).

The grammars live in the top-level ``grammars/`` folder of the source tree; an installed copy carries them
inside the package as ``inspector/grammars`` (pyproject maps the folder there), so either location is accepted.
Kept apart from `inspector.parse.grammar` (the transformers' shared machinery, which builds `model.Expr`) so that
the expression trees (`inspector.parse.expr_tree`, which `model.Expr.tree` uses) load their parser without an
import circle.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import lark
from lark import Lark

_SOURCE_TREE = Path(__file__).resolve().parents[2] / "grammars"


def grammar_text(name: str) -> str:
    """The text of ``grammars/<name>.lark`` from the installed package or the source tree."""
    try:
        ref = resources.files("inspector.grammars").joinpath(f"{name}.lark")
        if ref.is_file():
            return ref.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    path = _SOURCE_TREE / f"{name}.lark"
    if path.is_file():
        return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"grammar {name}.lark not found (installed package or {_SOURCE_TREE})")


@functools.lru_cache(maxsize=None)
def parser(name: str, starts: tuple[str, ...]) -> Lark:
    """An LALR parser for ``<name>.lark`` (with the shared expression rules in front).

    Building the LALR tables costs ~0.15 s a process; with the index cache on they are kept as
    JSON beside it (`inspector.parse.tables.read_tables`; when the current `inspector.options.Options` say
    cache), keyed by the grammar text, the start
    rules and the Lark version, and rebuilt when missing or unusable."""
    from ..options import current
    import inspector.parse.tables as tables

    text = _full_text(name)
    key = tables.tables_key(["lark-tables", lark.__version__, text, *starts]) if current().cache else None
    if key is not None:
        p = tables.read_tables(key)
        if p is not None:
            return p
    p = _shipped(name, starts, text)
    if p is not None:
        return p
    p = Lark(text, parser="lalr", start=list(starts), maybe_placeholders=False)
    if key is not None:
        tables.write_tables(key, p)
    return p


def _full_text(name: str) -> str:
    text = grammar_text(name)
    return text if name in _STANDALONE else grammar_text("common") + "\n" + text


_STANDALONE = ("assert_message", "expr")  # grammars that do not start with common.lark's balanced tokens


# Every parser the tool builds: (grammar, start rules).  Their LALR tables ship in grammars/tables.json
# (`python -m inspector.parse.grammar` writes it; tests/unit/test_grammar.py fails when it is stale), so even a
# --no-cache run does not build them (~0.1 s a process).
# The start rules of each grammar (a statement's leading word picks one); the parsers take theirs from here, so
# this module imports none of them.
STARTS: dict[str, tuple[str, ...]] = {
    "wrapper": ("declaration", "handle_decl", "assignment", "call", "checked_call", "guard", "launcher_param",
                "load_kernel"),
    "triton": ("def_stmt", "assign_stmt", "call_stmt", "control_stmt"),
    "cpp_kernel": ("signature", "helper_signature", "tmp_def", "check", "vec_store", "scalar_store", "acc_update"),
    "assert_message": ("message",),
    "expr": ("start",),  # one expression as a typed tree (`inspector.parse.expr_tree.parse_expr`)
    "cmake": ("start",),  # a CMake project's CMakeLists.txt (`inspector.parse.binaries`)
}


def _all_parsers() -> list[tuple[str, tuple[str, ...]]]:
    return list(STARTS.items())


def _tables_key(name: str, starts: tuple[str, ...], text: str) -> str:
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for part in ("lark-tables", lark.__version__, text, *starts):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _shipped_doc() -> dict:
    import json

    try:
        ref = resources.files("inspector.grammars").joinpath("tables.json")
        data = ref.read_bytes() if ref.is_file() else None
    except (ModuleNotFoundError, FileNotFoundError):
        data = None
    if data is None:
        path = _SOURCE_TREE / "tables.json"
        data = path.read_bytes() if path.is_file() else b"{}"
    try:
        doc = json.loads(data)
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _shipped(name: str, starts: tuple[str, ...], text: str):
    """The parser from the shipped tables when they were built from this very grammar text, start rules
    and Lark version; None otherwise (the caller builds it)."""
    from .tables import untag

    tables = _shipped_doc().get(_tables_key(name, starts, text))
    if tables is None:
        return None
    try:
        return Lark.__new__(Lark)._load(untag(tables))
    except Exception:  # damaged tables are only a lost speed-up
        return None


def shipped_tables() -> dict:
    """What grammars/tables.json must hold for the grammars as they are now."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    from .tables import tag

    out = {}
    for name, starts in _all_parsers():
        text = _full_text(name)
        p = Lark(text, parser="lalr", start=list(starts), maybe_placeholders=False)
        data, memo = p.memo_serialize([TerminalDef, Rule])
        out[_tables_key(name, starts, text)] = tag({"data": data, "memo": memo})
    return out
