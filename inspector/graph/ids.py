"""Graph node ids, spelled here only (`inspector.graph.build` builds the nodes; queries and exports name them,
and ask an id's kind with `kind_of`, never by its text).

    >>> kernel("k"), assertion("k", 38), call(1011), extern(1032)
    ('kernel:k', 'assert:k:38', 'call:1011', 'extern:1032')
    >>> kind_of(tmp("k", 12)) == TMP, kind_of("buf3")
    (True, '')
"""

from __future__ import annotations

from ..parse.tokens import identifiers

# The kind of a node: the word before the first ":" of its id
INPUT = "input"
DIM = "dim"
SYM = "sym"
LOCAL = "local"
CONST = "const"
BUF = "buf"
KERNEL = "kernel"
CALL = "call"
EXTERN = "extern"
PARAM = "param"
TMP = "tmp"
ASSERT = "assert"
STORE = "store"
FX = "fx"


def input_(index: int) -> str:
    return f"{INPUT}:{index}"


def dim(index: int, d: int) -> str:
    return f"{DIM}:{index}:{d}"


def sym(name: str) -> str:
    return f"{SYM}:{name}"


def local(name: str) -> str:
    return f"{LOCAL}:{name}"


def const(name: str) -> str:
    return f"{CONST}:{name}"


def buf(name: str) -> str:
    return f"{BUF}:{name}"


def kernel(name: str) -> str:
    return f"{KERNEL}:{name}"


def call(line: int) -> str:
    return f"{CALL}:{line}"


def extern(line: int) -> str:
    return f"{EXTERN}:{line}"


def site(kind: str, line: int) -> str:
    """The node of a run_impl call: ``call:LINE`` for a kernel launch, ``extern:LINE`` for an extern op."""
    return call(line) if kind == "kernel" else extern(line)


def param(kernel_name: str, name: str) -> str:
    return f"{PARAM}:{kernel_name}:{name}"


def tmp(kernel_name: str, line) -> str:
    return f"{TMP}:{kernel_name}:{line}"


def store(kernel_name: str, line) -> str:
    return f"{STORE}:{kernel_name}:{line}"


def assertion(kernel_name: str, line) -> str:
    return f"{ASSERT}:{kernel_name}:{line}"


def fx(name: str) -> str:
    return f"{FX}:{name}"


# The words before the first ":" of every node id (what `--around` strips from a thing to find its names).
PREFIXES = frozenset({INPUT, DIM, SYM, LOCAL, CONST, BUF, KERNEL, CALL, EXTERN, PARAM, TMP, ASSERT, STORE, FX})


def kind_of(node_id: str) -> str:
    """The kind of a node id (`TMP` for ``tmp:k:12``); "" for a string that is no node id (no ":")."""
    kind, colon, _rest = node_id.partition(":")
    return kind if colon else ""


def assertion_at(kernel_line: str) -> str:
    """The node of an assertion as a user types it, ``KERNEL:LINE`` (`assertion` of the two parts)."""
    return f"{ASSERT}:{kernel_line}"


def names_in(thing: str) -> set[str]:
    """The names a node id or a typed thing holds, its kind words dropped (``param:k:ks0`` -> k, ks0)."""
    return set(identifiers(thing)) - PREFIXES


def numbers_in(thing: str) -> set[int]:
    """The numbers between the ":"s of a node id or a typed thing (``call:1011`` -> 1011; a line, an index)."""
    return {int(p) for p in thing.split(":") if p.isdigit()}
