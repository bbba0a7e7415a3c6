"""Lark's LALR parse tables as plain JSON: the codec, and the tables kept in the cache folder.

Lark can serialize a built LALR parser to plain data (dicts with int keys, tuples); tagged here so that JSON
keeps both, and loaded with Lark's own loader from a dict (no pickle involved).  The grammars' tables ship in
``grammars/tables.json`` (``grammar.shipped_tables``); a grammar changed since is built once and kept in
:func:`inspector.options.cache_dir` under a key of the Lark version, the grammar text and its start rules.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile

from .._version import __version__
from ..options import cache_dir

TOOL = "pt2-inspect lark tables"


def tables_key(parts: list[str]) -> str:
    h = hashlib.blake2b(digest_size=20)
    for p in [TOOL, __version__, *parts]:
        h.update(p.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()



def tag(o):
    if isinstance(o, dict):
        if all(isinstance(k, str) for k in o) and "__d__" not in o and "__t__" not in o:
            return {k: tag(v) for k, v in o.items()}
        return {"__d__": [[tag(k), tag(v)] for k, v in o.items()]}
    if isinstance(o, tuple):
        return {"__t__": [tag(x) for x in o]}
    if isinstance(o, list):
        return [tag(x) for x in o]
    if o is None or isinstance(o, (str, int, float, bool)):
        return o
    raise TypeError(f"not plain data: {type(o).__name__}")


def untag(o):
    if isinstance(o, dict):
        if "__d__" in o:
            return {untag(k): untag(v) for k, v in o["__d__"]}
        if "__t__" in o:
            return tuple(untag(x) for x in o["__t__"])
        return {k: untag(v) for k, v in o.items()}
    if isinstance(o, list):
        return [untag(x) for x in o]
    return o


def read_tables(key: str):
    """A Lark parser from cached tables, or None (missing, foreign, corrupt: the caller rebuilds)."""
    from lark import Lark

    path = cache_dir() / f"lark-{key}.json"
    try:
        doc = json.loads(path.read_bytes())
        if doc.get("tool") != TOOL or doc.get("key") != key:
            return None
        return Lark.__new__(Lark)._load(untag(doc["tables"]))
    except FileNotFoundError:
        return None
    except Exception:  # a damaged tables file is only a lost speed-up: build the parser again
        return None


def write_tables(key: str, parser) -> None:
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    data, memo = parser.memo_serialize([TerminalDef, Rule])
    d = cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".lark-{key}.", suffix=".tmp", dir=d)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"tool": TOOL, "key": key, "tables": tag({"data": data, "memo": memo})}, f)
        os.replace(tmp, d / f"lark-{key}.json")
    except OSError:
        pass  # a read-only cache folder: the index cache itself reports that
