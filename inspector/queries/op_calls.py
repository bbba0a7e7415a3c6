"""The ops a package calls whose code is not in it, with what their arguments are: a custom op run through the proxy
executor (``torchvision::roi_align``: its schema's arguments from ``<hash>.wrapper.json``, bound to the call's tensor
and int lists) and the indexing ATen ops an extern call runs (``aoti_torch_cpu__embedding_bag``), each argument with
the model inputs whose values reach it, and the value contracts the op has (`inspector.dialects.op_contracts`),
which the package cannot show: `check` and `show` say them where the package calls such an op."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..dialects import proxy_executor as PX
from ..dialects.op_contracts import contract_of
from ..errors import InspectorError
from ..naming import strip_overload
from ..package import Package
from ..parse.proxy_call import ExternNode, extern_nodes, proxy_args
from .fused import extern_op_name
from .walk import InputRef


class _Trees:
    """`inspector.parse.expr_tree`, imported on first use: a cached `show` that has nothing here to read builds no
    tree and loads no parser (tests/samples/test_cached_no_parser.py)."""

    def __getattr__(self, name):
        from ..parse import expr_tree

        return getattr(expr_tree, name)


E = _Trees()


@dataclass
class OpArg:
    """One argument: ``name`` the schema's (``rois``; ``arg2`` where no schema names it), ``kind`` "tensor" |
    "tensors" | "int" | "ints" | "float" | "bool" | "other", ``value`` as the call passes it (``arg5_1``, ``buf4``,
    ``4``) or the JSON holds it (``0.5``); ``inputs``: the model inputs whose values reach it (``direct``: it is
    that input itself)."""

    name: str
    kind: str
    value: str | None
    inputs: list[InputRef] = field(default_factory=list)
    direct: bool = False

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "value": self.value, "direct": self.direct,
                "inputs": [{"index": i.index, "name": i.name, "user_name": i.user_name} for i in self.inputs]}


@dataclass
class ContractUse:
    """One value contract of the op at this call: the requirement (``condition``, over the schema's names), who
    stops a run that breaks it (``checked_by``: "op" | "nothing" | "device_assert") and what such a run does
    (``effect``), for the package's device."""

    arg: str
    kind: str  # "shape" | "value"
    condition: str
    checked_by: str
    effect: str
    against: str | None = None

    def to_dict(self) -> dict:
        return {"arg": self.arg, "kind": self.kind, "condition": self.condition, "checked_by": self.checked_by,
                "effect": self.effect, "against": self.against}


@dataclass
class OpCall:
    op: str  # "torchvision::roi_align", "_embedding_bag"
    line: int  # wrapper.cpp line of the call
    via: str  # "proxy_executor" | "extern"
    args: list[OpArg] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    contracts: list[ContractUse] = field(default_factory=list)
    python_custom_op: bool = False
    source: str | None = None  # where the contracts were read (the op's kernel file)

    @property
    def unchecked(self) -> list[ContractUse]:
        """The contracts nothing checks at run time: a run that breaks one is silently wrong or crashes."""
        return [c for c in self.contracts if c.checked_by == "nothing"]

    def arg(self, name: str) -> OpArg | None:
        return next((a for a in self.args if a.name == name), None)

    def to_dict(self) -> dict:
        return {"op": self.op, "line": self.line, "via": self.via, "args": [a.to_dict() for a in self.args],
                "outputs": self.outputs, "contracts": [c.to_dict() for c in self.contracts],
                "python_custom_op": self.python_custom_op}


def _nodes(pkg: Package, name: str) -> list[ExternNode]:
    f = pkg.files(name)
    for member in (x for x in f.other if x.endswith(PX.NODES_SUFFIX)):
        try:
            return extern_nodes(pkg.archive.read_json(member))
        except InspectorError:  # not JSON: the loader will say so; no node is known
            return []
    return []


def _kind(node_kind: str) -> str:
    return {"as_tensor": "tensor", "as_optional_tensor": "tensor", "as_tensors": "tensors",
            "as_optional_tensors": "tensors", "as_int": "int", "as_sym_int": "int", "as_ints": "ints",
            "as_sym_ints": "ints", "as_float": "float", "as_bool": "bool"}.get(node_kind, "other")


def _bind_proxy(call, node: ExternNode | None) -> tuple[list[OpArg], list[str]]:
    """The schema's arguments, each bound to what the call passes for it (the executor takes the tensors and ints
    of the dynamic kinds in order; the rest comes from the JSON), and the tensors it fills (its outputs)."""
    pa = proxy_args(call.args)
    if pa is None:
        return [], []
    tensors, ints = list(pa.tensors), list(pa.ints)
    if node is None:  # no wrapper.json: the lists alone, unnamed
        return [OpArg(f"tensor{i}", "tensor", t) for i, t in enumerate(tensors)], []
    out = []
    for a in node.inputs:
        kind = _kind(a.kind)
        if a.passed == "tensor":
            out.append(OpArg(a.name, kind, tensors.pop(0) if tensors else a.value))
        elif a.passed == "tensors":
            n = len(a.value or [])
            out.append(OpArg(a.name, kind, ", ".join(tensors[:n])))
            del tensors[:n]
        elif a.passed == "int":
            out.append(OpArg(a.name, kind, ints.pop(0) if ints else str(a.value)))
        elif a.passed == "ints":
            n = len(a.value or [])
            out.append(OpArg(a.name, kind, ", ".join(ints[:n])))
            del ints[:n]
        else:
            out.append(OpArg(a.name, kind, None if a.value is None else str(a.value)))
    return out, tensors  # what is left of the tensor list: the outputs


def _bind_extern(call, op: str) -> list[OpArg]:
    c = contract_of(op)
    schema = list(c.arguments) if c else []
    if call.target.endswith("_out") and not call.target.startswith("aoti_torch_cpu__embedding_bag"):
        schema = [("Tensor", "out")] + schema  # the out tensor comes first (as `match.index_args` reads it)
    out = []
    for i, a in enumerate(call.args):
        tree = a.tree
        if isinstance(tree, E.UnaryOp) and tree.op == "&":  # an output handle (`&buf3_handle`)
            continue
        text = str(a).strip()
        typ, name = schema[i] if i < len(schema) else ("", f"arg{i}")
        kind = ("tensors" if typ.startswith("Tensor") and typ.endswith("[]") else "tensor" if typ.startswith("Tensor")
                else "int" if typ in ("int", "SymInt") else "float" if typ == "float" else "bool" if typ == "bool"
                else "other")
        out.append(OpArg(name, kind, text))
    return out


def _reach(pkg: Package, m, g, arg: OpArg, line: int, ep) -> None:
    """Fill ``arg.inputs``: the model inputs whose values reach the run_impl tensor it names."""
    from ..graph.build import value_node
    from .index_walk import value_origins

    if arg.kind not in ("tensor", "tensors") or not arg.value:
        return
    seen: dict[int, InputRef] = {}
    for name in (x.strip() for x in arg.value.split(",")):
        inp = m.input_by_name(name)
        if inp is not None:
            arg.direct = True
            seen.setdefault(inp.index, InputRef(inp.index, inp.name, user_name=ep.user_name(inp.index) if ep else None))
            continue
        if value_node(m, name) is None:
            continue
        for o in value_origins(m, g, name, line):
            if o.input is not None:
                seen.setdefault(o.input.index, InputRef(o.input.index, o.input.name,
                                                        user_name=ep.user_name(o.input.index) if ep else None))
    arg.inputs = sorted(seen.values(), key=lambda i: i.index)


def op_calls(pkg: Package, name: str, ep=None) -> list[OpCall]:
    """Every proxy-executor call of model ``name`` and every extern call of an op in the contracts table, in wrapper
    order, with their arguments and the inputs that reach each.  Nothing is parsed when there is none (the scan's
    calls say so); otherwise a slice around those calls (their writers, transitively)."""
    ix = pkg.index(name)
    picked = []
    for c in ix.calls():
        if c.kind != "extern":
            continue
        if c.target == PX.PROXY_CALL:
            picked.append((c, None))
            continue
        op = strip_overload(extern_op_name(c.target))
        if contract_of(op) is not None and c.target != PX.NEW_HANDLE:
            picked.append((c, op))
    if not picked:
        return []
    nodes = _nodes(pkg, name) if any(op is None for _, op in picked) else []
    m = ix.slice(call_lines=[c.line for c, _ in picked])
    g = pkg.graph_of(m)
    device = (m.device or "").split(":")[0]
    out = []
    for c, op in picked:
        if op is None:
            pa = proxy_args(c.args)
            node = nodes[pa.node_index] if pa and pa.node_index is not None and pa.node_index < len(nodes) else None
            args, outputs = _bind_proxy(c, node)
            call = OpCall(node.target if node else "?", c.line, "proxy_executor", args, outputs,
                          python_custom_op=bool(node and node.python_custom_op))
        else:
            call = OpCall(op, c.line, "extern", _bind_extern(c, op), list(c.outputs))
        k = contract_of(call.op)
        if k is not None:
            call.source = k.source
            cuda = device == "cuda"
            call.contracts = [ContractUse(x.arg, x.kind, x.condition, x.checked_by_cuda if cuda else x.checked_by_cpu,
                                          x.effect_cuda if cuda else x.effect_cpu, x.against) for x in k.contracts]
        for a in call.args:
            _reach(pkg, m, g, a, c.line, ep)
        out.append(call)
    return out
