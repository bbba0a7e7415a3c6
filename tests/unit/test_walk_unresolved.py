"""An index walk that loses the trail says so (`unresolved`), and only an index that reads no tensor at all is
`computed`.  The real graph of cuda/jagged, with the cumsum kernel's store and reads taken out (what a
statement no grammar rule understood leaves behind): the index then comes from buf0, whose writer can no
longer be followed, which is not the same as "reads no tensor"."""

from __future__ import annotations

import inspector
from inspector.graph.minigraph import MultiDiGraph
from inspector.queries.index_walk import index_origins

from _paths import S

JAGGED = S / "cuda/jagged/jagged.pt2"
INDEX_KERNEL = "triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2"
WRITER = "triton_per_fused_cumsum_0"


def _origins(cut_writer: bool):
    with inspector.open_package(JAGGED) as pkg:
        m = pkg.model()
        g = pkg.graph_of(m)
        k = m.kernels[INDEX_KERNEL]
        a = k.assertions[0]
        site = next(c for c in m.calls if c.kind == "kernel" and c.target == k.name)
        if cut_writer:
            def cut(u, v, d):
                return ((d.get("kind") == "stored_by" and u.startswith(f"param:{WRITER}:"))
                        or (d.get("kind") == "reads" and g.nodes[v].get("target") == WRITER))

            assert any(cut(*e) for e in g.edges(data=True))
            h = MultiDiGraph()
            for n, attrs in g.nodes(data=True):
                h.add_node(n, **attrs)
            for u, v, d in g.edges(data=True):
                if not cut(u, v, d):
                    h.add_edge(u, v, **d)
            g = h
        return index_origins(m, g, k, a, site)


def test_the_real_walk_reaches_the_input():
    origins = _origins(cut_writer=False)
    assert [o.input.index for o in origins if o.input] == [1]
    assert all(o.unresolved is None and o.computed is None for o in origins)


def test_a_writer_the_walk_cannot_follow_is_unresolved_not_computed():
    origins = _origins(cut_writer=True)
    assert origins and all(o.input is None and o.computed is None for o in origins)
    assert any(o.unresolved and f"no store of buf0 found in {WRITER}" in o.unresolved for o in origins), origins
    # the walk typed the writer's step where it took it: the launch of WRITER, a node of the graph
    steps = [s for o in origins for s in o.path if s.name == WRITER]
    assert steps and all(s.kind == "kernel" and s.node_id.startswith("call:") for s in steps), steps
