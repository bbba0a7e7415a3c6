"""A directed multigraph with the part of networkx's ``MultiDiGraph`` interface the queries use.

Queries build a graph per question (a slice of a model: a few dozen nodes) and walk it edge by
edge; importing networkx costs more than the whole walk (~0.1-0.15 s a process), so the query path
uses this.  Exports that need networkx proper (GraphML) convert in `inspector.graph.export`.

    >>> g = MultiDiGraph(model="m")
    >>> g.add_edge("a", "b", kind="uses"); g.add_node("a", type="tmp")
    >>> list(g.out_edges("a", data=True)), g.nodes["a"], list(g.predecessors("b"))
    ([('a', 'b', {'kind': 'uses'})], {'type': 'tmp'}, ['a'])
"""

from __future__ import annotations


class _Nodes:
    """``g.nodes[n]`` (attributes), ``g.nodes(data=True)``, ``n in g.nodes``, ``len``, iteration."""

    __slots__ = ("_attrs",)

    def __init__(self, attrs: dict):
        self._attrs = attrs

    def __getitem__(self, n):
        return self._attrs[n]

    def __contains__(self, n) -> bool:
        return n in self._attrs

    def __iter__(self):
        return iter(self._attrs)

    def __len__(self) -> int:
        return len(self._attrs)

    def __call__(self, data: bool = False):
        return iter(self._attrs.items()) if data else iter(self._attrs)


class MultiDiGraph:
    def __init__(self, **attr):
        self.graph: dict = dict(attr)
        self._attrs: dict = {}
        self._succ: dict = {}
        self._pred: dict = {}
        self._by_kind: dict = {}  # (node, edge kind) -> its out-edges of that kind, in order
        self.nodes = _Nodes(self._attrs)

    # -- building ------------------------------------------------------------------------------
    def add_node(self, n, **attr) -> None:
        if n not in self._attrs:
            self._attrs[n] = {}
            self._succ[n] = []
            self._pred[n] = []
        self._attrs[n].update(attr)

    def add_edge(self, u, v, **attr) -> None:
        self.add_node(u)
        self.add_node(v)
        e = (u, v, dict(attr))
        self._succ[u].append(e)
        self._pred[v].append(e)
        self._by_kind.setdefault((u, attr.get("kind")), []).append(e)

    # -- reading -------------------------------------------------------------------------------
    def __contains__(self, n) -> bool:
        return n in self._attrs

    def __iter__(self):
        return iter(self._attrs)

    def __len__(self) -> int:
        return len(self._attrs)

    def out_edges(self, n, data: bool = False):
        return [e if data else e[:2] for e in self._succ.get(n, ())]

    def in_edges(self, n, data: bool = False):
        return [e if data else e[:2] for e in self._pred.get(n, ())]

    def out_edges_of_kind(self, n, kind) -> list:
        """``n``'s out-edges ``(n, v, data)`` whose ``kind`` is ``kind``, in order (a walk's lookup on a node
        20,000 calls read, without reading them all)."""
        return self._by_kind.get((n, kind), [])

    def edges(self, data: bool = False):
        return [e if data else e[:2] for es in self._succ.values() for e in es]

    def successors(self, n):
        return iter(dict.fromkeys(v for _, v, _ in self._succ.get(n, ())))

    def predecessors(self, n):
        return iter(dict.fromkeys(u for u, _, _ in self._pred.get(n, ())))

    def number_of_nodes(self) -> int:
        return len(self._attrs)

    def number_of_edges(self) -> int:
        return sum(len(es) for es in self._succ.values())

    def subgraph(self, nodes) -> "MultiDiGraph":
        """A new graph of ``nodes`` and the edges between them (a copy, like networkx's ``subgraph().copy()``)."""
        keep = [n for n in dict.fromkeys(nodes) if n in self._attrs]
        h = MultiDiGraph(**self.graph)
        for n in keep:
            h.add_node(n, **self._attrs[n])
        inside = set(keep)
        for n in keep:
            for u, v, d in self._succ[n]:
                if v in inside:
                    h.add_edge(u, v, **d)
        return h

    def copy(self) -> "MultiDiGraph":
        return self.subgraph(self._attrs)
