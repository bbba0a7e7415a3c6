"""How the package reads a bool input (issue 35 §5): the kernels that load it and what each keeps where it is True
(`inspector.parse.mask_use`), for the fix of a float mask passed where a bool one was compiled."""

from __future__ import annotations

from ..graph import ids
from ..package import Package
from ..parse.mask_use import MaskUse, mask_use


def mask_reading(pkg: Package, model: str, index: int) -> MaskUse | None:
    """The first kernel select on model input ``index`` (a bool mask): keep where True, or True = masked out.  None
    when no kernel reads it by a select this knows, or when kernels disagree (then neither reading is said)."""
    m = pkg.index(model).full()
    g = pkg.graph_of(m)
    node = ids.input_(index)
    if node not in g.nodes:
        return None
    uses = []
    for u, _, d in g.in_edges(node, data=True):
        if d.get("kind") != "binds":
            continue
        p = g.nodes[u]
        k = m.kernels.get(p.get("kernel"))
        if k is None:
            continue
        use = mask_use(k, p.get("name"))
        if use is not None:
            uses.append(use)
    if not uses or len({u.keeps for u in uses}) > 1:
        return None
    return uses[0]
