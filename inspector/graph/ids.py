"""Graph node ids, spelled here only (`inspector.graph.build` builds the nodes; queries and exports name them).

    >>> kernel("k"), assertion("k", 38), call(1011), extern(1032)
    ('kernel:k', 'assert:k:38', 'call:1011', 'extern:1032')
"""

from __future__ import annotations


def input_(index: int) -> str:
    return f"input:{index}"


def dim(index: int, d: int) -> str:
    return f"dim:{index}:{d}"


def sym(name: str) -> str:
    return f"sym:{name}"


def local(name: str) -> str:
    return f"local:{name}"


def const(name: str) -> str:
    return f"const:{name}"


def buf(name: str) -> str:
    return f"buf:{name}"


def kernel(name: str) -> str:
    return f"kernel:{name}"


def call(line: int) -> str:
    return f"call:{line}"


def extern(line: int) -> str:
    return f"extern:{line}"


def site(kind: str, line: int) -> str:
    """The node of a run_impl call: ``call:LINE`` for a kernel launch, ``extern:LINE`` for an extern op."""
    return call(line) if kind == "kernel" else extern(line)


def param(kernel_name: str, name: str) -> str:
    return f"param:{kernel_name}:{name}"


def tmp(kernel_name: str, line) -> str:
    return f"tmp:{kernel_name}:{line}"


def store(kernel_name: str, line) -> str:
    return f"store:{kernel_name}:{line}"


def assertion(kernel_name: str, line) -> str:
    return f"assert:{kernel_name}:{line}"


def fx(name: str) -> str:
    return f"fx:{name}"


# The words before the first ":" of every node id (what `--around` strips from a thing to find its names).
PREFIXES = frozenset({"input", "dim", "sym", "local", "const", "buf", "kernel", "call", "extern", "param", "tmp",
                      "assert", "store", "fx"})
