"""Checks whose index is one of its kernel's own loop positions (an arange: GPT-2's position ids): the loop visits
every position, so such a check fails on every run whose size passes its bound (`loop_checks`, `loop_limits`), and
which of them given sizes push past it."""

from __future__ import annotations

from ..explain import check as say
from ..model import Model
from ..package import Package
from ..parse.message import static_bound


def loop_checks(pkg: Package, name: str) -> list[tuple]:
    """(kernel, assertion, `PositionBound`, static bound) of every check of model ``name`` whose index is one of
    its kernel's own loop positions (an arange: GPT-2's position ids; a CPU loop variable or a Triton grid index,
    ``queries.bound_walk.loop_position``), in launch order, one per kernel and message.  The loop visits every position 0 … L-1, so the check fails for
    every L past its bound, whatever the values."""
    from ..parse.message import parse_check_message
    from .bound_walk import loop_position

    ix = pkg.index(name)
    # Only a one-sided check against a number can be one: Inductor drops the lower side where it proved the index
    # never negative, as it does for a loop position (``tmp6 < 32L``, ``y0 < 128``).  Read from the scan's texts,
    # so that only those kernels are parsed (10,000 asserting kernels of `0 <= tmp4 < 120` need none).
    messages: dict[str, object] = {}
    asserting: dict[str, None] = {}  # in scan order, each once
    for site in ix.assert_sites():
        text = site.message
        if text not in messages:
            messages[text] = parse_check_message(text) if text else None
        msg = messages[text]
        if msg is not None and msg.lower is None and msg.static_bound is not None:
            asserting[site.kernel] = None
    if not asserting:
        return []
    m = ix.slice(kernels=list(asserting))
    g = None
    first = _first_launches(m)
    out, seen = [], set()
    for k in sorted(m.kernels.values(), key=lambda k: first[k.name].line if k.name in first else 1 << 60):
        for a in k.assertions:
            bound = static_bound(a.bound_expr) if a.checks == "index" and a.bound_expr else None
            if bound is None or (k.name, a.message) in seen:
                continue
            if g is None:
                g = pkg.graph_of(m)
            pos = loop_position(m, g, k, a, first.get(k.name))
            if pos is not None:
                seen.add((k.name, a.message))
                out.append((k, a, pos, bound))
    return out


def loop_limits(pkg: Package, name: str) -> dict[tuple[int, int], int]:
    """(input, dim) -> the largest size its loop-position checks allow (the smallest bound among them)."""
    out: dict[tuple[int, int], int] = {}
    for _, _, pos, bound in loop_checks(pkg, name):
        if pos.input is not None:
            out[(pos.input, pos.dim)] = min(bound, out.get((pos.input, pos.dim), bound))
    return out


def _loop_overruns(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[dict]:
    """The `loop_checks` these sizes push to or past their bound: each fails on every run."""
    out = []
    for k, a, pos, bound in (loop_checks(pkg, name) if dims else []):
        length = dims.get((pos.input, pos.dim)) if pos.input is not None else pos.static
        if length is not None and length - 1 >= bound:
            out.append({"kernel": k.name, "message": a.message, "line": a.line,
                        "why": say.loop_overrun_why(pos, length, bound, a.index_var)})
    return out


def _first_launches(m: Model) -> dict:
    """kernel -> its first launch in run_impl (a `CallSite`)."""
    first = {}
    for c in m.calls:
        if c.kind == "kernel":
            first.setdefault(c.target, c)
    return first
