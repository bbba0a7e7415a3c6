"""Every package of the samples parsed whole, once a process, with the statement recorder on (``grammar.RECORD``):
the grammar and typed-parse tests check the same records (one home: each file parsed every package again).

``typed(r)``: what a transformer's method may return (the typed-parse tests hold every method to it).

``full_parse()`` returns ``(records, kinds)``.  ``records``: each ``(grammar, starts, transformer, text, start,
result)`` that ``parse_one`` returned while every package of ``_samples.PACKAGES`` was parsed whole
(``ModelIndex.full()``).  ``kinds``: the expression texts of those parses by kind (conditions, bounds, launch
arguments, store values, tmps, locals, load/store addresses) and ``normalized``, the text of every non-empty
``Expr`` any transformer returned (the records of the address parses included).  Tests read them, never change
them."""

from __future__ import annotations

import dataclasses
from functools import cache

from inspector.model import Expr


def walk(r):
    """Every ``Expr`` and every other record inside a parse result (dataclasses, lists and tuples of them), a record
    before its fields; an ``Expr`` is not walked into."""
    if isinstance(r, Expr):
        yield r
    elif isinstance(r, (list, tuple)):
        for x in r:
            yield from walk(x)
    elif dataclasses.is_dataclass(r) and not isinstance(r, type):
        yield r
        for f in dataclasses.fields(r):
            yield from walk(getattr(r, f.name))


def typed(r) -> bool:
    """What every grammar transformer's method may return: a dataclass record, a list of them (an argument list), or
    None (a shape the method declines, counted as skipped); never a tuple or a bare string."""
    if r is None:
        return True
    if isinstance(r, list):
        return all(dataclasses.is_dataclass(x) and not isinstance(x, type) for x in r)
    return dataclasses.is_dataclass(r) and not isinstance(r, type)


def exprs_in(r):
    """Every ``Expr`` inside a parse result, in order."""
    return (n for n in walk(r) if isinstance(n, Expr))


@cache
def full_parse() -> tuple[list, dict[str, set[str]]]:
    import inspector
    from inspector.parse import grammar
    from inspector.parse.access import kernel_accesses

    from _samples import PACKAGES

    kinds: dict[str, set[str]] = {k: set() for k in (
        "condition", "bound", "launch_arg", "store_value", "tmp", "local", "normalized", "address")}
    records: list = []
    more: list = []  # what the address parses record (not a whole parse's)
    try:
        for p in PACKAGES:
            grammar.RECORD = records  # as a whole parse records: opening the package, its models, their parse
            with inspector.open_package(p) as pkg:
                for n in pkg.model_names:
                    grammar.RECORD = records
                    m = pkg.index(n).full()
                    grammar.RECORD = more
                    for k in m.kernels.values():
                        for a in k.assertions:
                            kinds["condition"].add(a.condition)
                            kinds["bound"].update(x for x in (a.bound_expr, a.lower_bound) if x)
                        kinds["tmp"].update(t.expr.text for t in k.tmps)
                        kinds["store_value"].update(s.value.text for s in k.stores)
                        kinds["address"].update(a.address.text for a in kernel_accesses(k))
                    kinds["launch_arg"].update(a.text for c in m.calls for a in c.args)
                    kinds["local"].update(e.text for e in m.locals.values() if e.text)
    finally:
        grammar.RECORD = None
    for *_, r in records + more:
        kinds["normalized"].update(e.text for e in exprs_in(r) if e.text)
    return records, kinds
