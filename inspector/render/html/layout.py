"""A trace chain laid out in layers, in Python: each node's column and row in the report's SVG."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...queries.report_chain import Chain

NODE_H = 30
ROW_GAP = 22
COL_W = 300


def layout(c: Chain) -> dict[str, tuple[int, int]]:
    """Layered, top-down: a node's row is its distance from the assertion; columns keep the order the
    chains were added in (the bound first, then each index origin)."""
    rows: dict[str, int] = {c.root: 0}
    order = [c.root]
    changed = True
    while changed:  # shortest distance; the chains are short, so plain relaxation is enough
        changed = False
        for a, b, _ in c.edges:
            if a in rows and (b not in rows or rows[b] > rows[a] + 1):
                if b not in rows:
                    order.append(b)
                rows[b] = rows[a] + 1
                changed = True
    for k in c.nodes:
        if k not in rows:
            rows[k] = 0
            order.append(k)
    # Column: inherit the parent's column when free, else the next free column of that row.
    col: dict[str, int] = {c.root: 0}
    used: dict[int, set[int]] = {0: {0}}
    parents = {}
    for a, b, _ in c.edges:
        parents.setdefault(b, a)
    branch = 0
    for k in order[1:]:
        r = rows[k]
        want = col.get(parents.get(k), 0)
        if parents.get(k) == c.root:
            want = branch
            branch += 1
        taken = used.setdefault(r, set())
        while want in taken:
            want += 1
        taken.add(want)
        col[k] = want
    return {k: (col[k], rows[k]) for k in c.nodes}
