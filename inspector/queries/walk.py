"""What the graph walks return (`bound_walk`: a bound to the input dims it is made of; `index_walk`: an index to
the tensors its values come from): typed records, the steps of a path, and the graph's edges of one kind."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class InputRef:
    index: int
    name: str
    dim: int | None = None
    user_name: str | None = None  # the name in the user's forward(), when an exported program is known


@dataclass
class BoundTerm:
    """One size parameter of a bound expression (``ks0`` in ``ks0 + ks1``) traced to its input dim."""

    kernel_param: str
    call_arg: str
    symbol: str | None
    input: InputRef | None
    min: int | None
    max: int | None
    aliases: list[str] = field(default_factory=list)  # s23 -> s2 …
    definition: str | None = None  # "arg3_1_size[0]"
    definition_line: int | None = None


@dataclass
class BoundChain(BoundTerm):
    """The bound of an assertion: its first size parameter's chain (fields), every term (``terms``) and the
    limit in words (``limit``: "input 0 dim 0 + input 1 dim 0")."""

    terms: list[BoundTerm] = field(default_factory=list)
    limit: str | None = None


@dataclass(frozen=True)
class Step:
    """One hop of an index origin's path, typed where the walk takes it (never re-derived from its name).

    ``kind``: "tmp" (a tmp definition in a kernel), "loop_index" (the kernel's own loop index: no node),
    "kernel_param" (a pointer parameter a load reads), "store" (an out/in_out parameter whose store in the same
    kernel the walk follows back), "call_arg" (the argument a launch passes for a parameter: ``name`` is its
    text, ``node_id`` the value it binds), "input", "constant", "buffer" (a run_impl tensor), "handle" (a buffer
    that is a new handle to another tensor: ``aoti_torch_assign_tensors_out``, a torch.cond subgraph's input),
    "kernel" (the launch that wrote a buffer: ``name`` is the kernel, ``node_id`` its call), "extern_op" (the
    extern call that wrote a buffer), "value" (a name the graph has no node for, where a walk stopped).
    ``node_id``: the graph's node (`inspector.graph.ids`), as ``graph --json`` names it; None when there is
    none.  ``role``: a kernel parameter's role ("in", "out", "inout")."""

    kind: str
    name: str
    node_id: str | None = None
    role: str | None = None

    def __str__(self) -> str:
        return self.name


# The kind of step a graph node's ``type`` is, for the values a walk reaches in run_impl.
_VALUE_KIND = {"input": "input", "constant": "constant", "buffer": "buffer"}


def value_step(g, v: str, name: str | None = None) -> Step:
    """The step to run_impl value node ``v`` (named ``name``, else as the graph names it)."""
    node = g.nodes[v] if v in g.nodes else {}
    return Step(_VALUE_KIND.get(node.get("type"), "value"), name if name is not None else node.get("name", v),
                v if v in g.nodes else None)


def node_step(g, n: str) -> Step:
    """The step to a node inside a kernel (a tmp or a parameter) as the walk reaches it."""
    node = g.nodes[n]
    t = node.get("type")
    if t == "tmp":
        return Step("tmp", node.get("name", n), n)
    if t == "kernel_param":
        return Step("kernel_param", node.get("name", n), n, node.get("role"))
    return value_step(g, n)


def path_names(path: list[Step]) -> list[str]:
    """The path as the JSON answers write it: a list of names."""
    return [s.name for s in path]


@dataclass
class IndexOrigin:
    input: InputRef | None
    constant: str | None
    path: list[Step]
    unresolved: str | None = None  # why the walk stopped, when it did not reach an input or constant
    computed: str | None = None  # the index reads no tensor: it is made from loop indices and sizes

    @property
    def through_buffer(self) -> bool:
        """The values pass through an intermediate buffer or a store of the same kernel (argmax, cumsum, an
        extern op's output): computed from the input, not read from it."""
        return any(s.kind in ("buffer", "store") or (s.kind == "kernel_param" and s.role == "inout")
                   for s in self.path)


def edges(g, node, kind, call=None):
    out = g.out_edges_of_kind(node, kind) if hasattr(g, "out_edges_of_kind") else [
        e for e in g.out_edges(node, data=True) if e[2].get("kind") == kind]
    for _, v, d in out:
        if call is None or d.get("call") in (None, call):
            yield v, d


@dataclass
class TableRef:
    """The tensor an index reads (what a pointer argument binds): a constant (``fqn``, ``rows``: its dim 0,
    ``shape``), an input (``index``, ``rows``; ``user_name`` once an exported program names it) or a buffer
    (``from_inputs``: the inputs it is made from, when an extern op's trace asked).  ``param``/``arg``: the
    kernel parameter and call argument it was read through.  `to_dict` writes the JSON answers' keys."""

    kind: str  # "constant" | "input" | "buffer"
    name: str
    param: str | None = None
    arg: str | None = None
    fqn: str | None = None
    rows: int | None = None
    shape: list[int] | None = None
    index: int | None = None
    user_name: str | None = None
    named: bool = False  # an exported program was asked for ``user_name`` (the JSON then has the key)
    from_inputs: list[int] | None = None

    def to_dict(self) -> dict:
        if self.kind == "constant":
            return {"kind": self.kind, "name": self.name, "fqn": self.fqn, "rows": self.rows, "param": self.param,
                    "arg": self.arg, "shape": self.shape}
        if self.kind == "input":
            d = {"kind": self.kind, "name": self.name, "index": self.index, "rows": self.rows, "param": self.param,
                 "arg": self.arg}
            if self.named:
                d["user_name"] = self.user_name
            return d
        d = {"kind": self.kind, "name": self.name, "param": self.param, "arg": self.arg}
        if self.from_inputs is not None:
            d["from_inputs"] = self.from_inputs
        return d
