"""The user's own code: an exported program's ``models/<name>.json``, read as JSON (never unpickled).

``torch.export.save`` archives and `.pt2` packages that carry their exported program hold
``<root>/models/<name>.json``: the FX graph (each node's ``metadata.stack_trace`` and
``nn_module_stack``), the graph signature (user inputs, parameters, buffers with their FQNs)
and ``range_constraints``.  Weights (``data/weights/*``) are never read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..archive import Archive
from ..errors import UnreadablePackage
from ..logs.parse import stack_frames
from ..naming import EXPORT_SCALAR_TYPES


@dataclass
class SourceLocation:
    node: str
    file: str
    line: int
    code: str
    module: str | None = None  # nn_module_stack path, e.g. "blocks.0.attn"


@dataclass
class EPNode:
    name: str
    target: str
    stack_trace: str | None
    module: str | None
    inputs: list[str] = field(default_factory=list)  # tensor names it reads

    def locations(self) -> list[SourceLocation]:
        # a frame with no code line under it names no line of the user's
        return [SourceLocation(node=self.name, file=f.file, line=f.line, code=f.code, module=self.module)
                for f in stack_frames(self.stack_trace) if f.code is not None]


@dataclass
class EPInput:
    position: int  # among user inputs: the AOTI wrapper's input K
    name: str
    dtype: str | None = None
    shape: list[int | str] = field(default_factory=list)
    device: str | None = None
    stride: list[int | str] = field(default_factory=list)


@dataclass
class ExportedProgramInfo:
    source: str  # "package member …" or the --ep file
    name: str
    user_inputs: list[EPInput] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)  # graph input name -> FQN
    nodes: dict[str, EPNode] = field(default_factory=dict)
    ranges: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    torch_version: str | None = None

    def user_name(self, index: int) -> str | None:
        return self.user_inputs[index].name if 0 <= index < len(self.user_inputs) else None

    def locations(self, node_names) -> list[SourceLocation]:
        out, seen = [], set()
        for n in node_names:
            node = self.nodes.get(n)
            if node is None:
                continue
            locs = node.locations()
            user = [x for x in locs if not _in_torch(x.file)]
            for loc in (user or locs)[-1:]:  # the innermost frame outside torch: the user's line
                key = (loc.file, loc.line)
                if key not in seen:
                    seen.add(key)
                    out.append(loc)
        return out

    def input_users(self, index: int) -> list[str]:
        """FX nodes that read user input ``index`` directly."""
        name = self.user_name(index)
        return [n.name for n in self.nodes.values() if name in n.inputs]


def _in_torch(path: str) -> bool:
    return bool(re.search(r"/site-packages/torch/|/torch/(nn|_dynamo|export|fx|_tensor)\b", path))


def _module_path(stack) -> str | None:
    """``nn_module_stack`` as serialized ("L__self__,,__main__.M;L__self___blocks_0,blocks.0,…") -> "blocks.0"."""
    if not stack or not isinstance(stack, str) or stack.startswith("_empty_nn_module_stack"):
        return None
    paths = []
    for entry in stack.split(";"):
        parts = entry.split(",")
        if len(parts) >= 2 and parts[1]:
            paths.append(parts[1])
    return paths[-1] if paths else ""


def _size(x):
    if isinstance(x, dict):
        if "as_int" in x:
            return x["as_int"]
        e = x.get("as_expr", {}).get("expr_str", "")
        m = re.match(r"Symbol\('(\w+)'", e)
        return m.group(1) if m else e
    return x


def _tensor_names(arg) -> list[str]:
    if isinstance(arg, dict):
        if "as_tensor" in arg and isinstance(arg["as_tensor"], dict):
            return [arg["as_tensor"].get("name")]
        out = []
        for v in arg.values():
            out += _tensor_names(v)
        return out
    if isinstance(arg, list):
        return [n for v in arg for n in _tensor_names(v)]
    return []


def parse_model_json(doc: dict, source: str, name: str) -> ExportedProgramInfo:
    if not isinstance(doc, dict) or "graph_module" not in doc:
        raise UnreadablePackage(f"{source}: not an exported program (no graph_module)")
    gm = doc["graph_module"] or {}
    graph = gm.get("graph") or {}
    tv = graph.get("tensor_values") or {}
    info = ExportedProgramInfo(source=source, name=name, torch_version=doc.get("torch_version"))
    for spec in (gm.get("signature") or {}).get("input_specs") or []:
        if "user_input" in spec:
            names = _tensor_names(spec["user_input"].get("arg"))
            n = names[0] if names else None
            if n is None:
                continue
            meta = tv.get(n) or {}
            dev = meta.get("device") or {}
            info.user_inputs.append(EPInput(
                position=len(info.user_inputs), name=n, dtype=EXPORT_SCALAR_TYPES.get(meta.get("dtype")),
                shape=[_size(s) for s in meta.get("sizes") or []], stride=[_size(s) for s in meta.get("strides") or []],
                device=(dev.get("type") + (f":{dev['index']}" if dev.get("index") is not None else "")) if dev.get("type") else None))
        for kind in ("parameter", "buffer", "tensor_constant", "constant_input"):
            if kind in spec:
                s = spec[kind]
                arg = s.get("arg")
                names = _tensor_names(arg) or ([arg["name"]] if isinstance(arg, dict) and isinstance(arg.get("name"), str) else [])
                fqn = s.get("parameter_name") or s.get("buffer_name") or s.get("tensor_constant_name") or s.get("name")
                if names and fqn:
                    info.parameters[names[0]] = fqn
    for n in graph.get("nodes") or []:
        meta = n.get("metadata") or {}
        outs = [x for o in n.get("outputs") or [] for x in _tensor_names(o)]
        node_name = n.get("name") or (outs[0] if outs else None)
        if not node_name:
            continue
        info.nodes[node_name] = EPNode(
            name=node_name, target=str(n.get("target", "")), stack_trace=meta.get("stack_trace"),
            module=_module_path(meta.get("nn_module_stack")),
            inputs=[x for i in n.get("inputs") or [] for x in _tensor_names(i.get("arg") if isinstance(i, dict) else i)])
        for o in outs:
            if o != node_name:
                info.nodes.setdefault(o, info.nodes[node_name])
    for sym, r in (doc.get("range_constraints") or {}).items():
        if isinstance(r, dict):
            info.ranges[sym] = (r.get("min_val"), r.get("max_val"))
    return info


def from_archive(a: Archive, label: str) -> list[ExportedProgramInfo]:
    out = []
    for member in a.exported_programs():
        name = member.rsplit("/", 1)[-1][: -len(".json")]
        out.append(parse_model_json(a.read_json(member), f"{label}:{member}", name))
    return out


def load_ep_option(path: str | None) -> ExportedProgramInfo | None:
    """What a command's ``--ep FILE`` gives: the exported program, or None when the option is absent."""
    return load_ep(path) if path else None


def load_ep(path: str) -> ExportedProgramInfo:
    """The exported program of a ``torch.export.save`` archive (or any zip carrying ``models/*.json``)."""
    from ..remote import open_archive

    with open_archive(path) as a:  # a file, a folder, or a URL (inspector.remote)
        eps = from_archive(a, str(path))
    if not eps:
        raise UnreadablePackage(f"{path}: no exported program inside (no models/*.json)")
    return eps[0]


def packaged_ep(pkg, model: str | None = None) -> ExportedProgramInfo | None:
    """The exported program a package carries for ``model`` (models/<model>.json), if any."""
    eps = from_archive(pkg.archive, str(pkg.path))
    if not eps:
        return None
    want = model or "model"
    return next((e for e in eps if e.name == want), eps[0] if len(eps) == 1 else None)


@dataclass(frozen=True)
class Disagreement:
    """One way the exported program and the package's model differ."""

    kind: str  # "input_count" | "missing_constants" | "dtype" | "rank"
    source: str  # the exported program's source (`ExportedProgramInfo.source`)
    model: str
    index: int | None = None  # the input (dtype, rank)
    name: str | None = None  # its name in the exported program (dtype, rank)
    ep_value: object = None  # the exported program's count, dtype or rank
    pkg_value: object = None  # the package's
    fqns: tuple[str, ...] = ()  # missing_constants: the parameters/buffers the program lacks (the first 5)

    @property
    def names_unusable(self) -> bool:
        """The input counts differ: the program's input names cannot be given to the package's inputs."""
        return self.kind == "input_count"


def differences(ep: ExportedProgramInfo, m, constants=None) -> list[Disagreement]:
    """Where the exported program and the package's model differ (input count, dtypes, ranks, constants), typed.
    ``constants``: the model's constants when ``m`` holds only some (`ModelIndex.eager` holds the bound ones)."""
    if len(ep.user_inputs) != len(m.inputs):
        return [Disagreement("input_count", ep.source, m.name, ep_value=len(ep.user_inputs), pkg_value=len(m.inputs))]
    out = []
    fqns = {c.fqn for c in (m.constants if constants is None else constants) if c.fqn}
    missing = sorted(fqns - set(ep.parameters.values())) if ep.parameters else []
    if missing:
        out.append(Disagreement("missing_constants", ep.source, m.name, fqns=tuple(missing[:5])))
    for e, i in zip(ep.user_inputs, m.inputs):
        if e.dtype and i.dtype and e.dtype != i.dtype:
            out.append(Disagreement("dtype", ep.source, m.name, i.index, e.name, e.dtype, i.dtype))
        if e.shape and i.shape and len(e.shape) != len(i.shape):
            out.append(Disagreement("rank", ep.source, m.name, i.index, e.name, len(e.shape), len(i.shape)))
    return out


def disagreement_text(d: Disagreement) -> str:
    """The sentence for one `Disagreement` (here, not in explain/, while parse/ holds `disagreements` for
    callers that want strings: parse/ may not import explain/)."""
    if d.kind == "input_count":
        return (f"the exported program ({d.source}) has {d.ep_value} user inputs, the package model "
                f"{d.model!r} {d.pkg_value}: input names are not used")
    if d.kind == "missing_constants":
        return f"the exported program has no parameter/buffer {', '.join(d.fqns)} that the package holds"
    if d.kind == "dtype":
        return f"input {d.index}: the exported program says {d.name} is {d.ep_value}, the package {d.pkg_value}"
    return f"input {d.index}: the exported program says {d.name} has rank {d.ep_value}, the package {d.pkg_value}"


def disagreements(ep: ExportedProgramInfo, m, constants=None) -> list[str]:
    """`differences` as sentences (`disagreement_text`)."""
    return [disagreement_text(d) for d in differences(ep, m, constants)]


def annotate_summary(pkg, s, ep_path: str | None = None) -> None:
    """`show`: each input of a ``ShowResult`` gains ``user_name`` from the exported program (--ep, or the
    packaged one); each model the program's source and where it disagrees with the package."""
    ep_given = load_ep(ep_path) if ep_path else None
    for md in s.models:
        ep = ep_given or packaged_ep(pkg, md.name)
        ix = pkg.index(md.name) if ep else None
        dis = differences(ep, ix.eager(), ix.constants()) if ep else []
        usable = ep is not None and not any(d.names_unusable for d in dis)
        for i in md.inputs:
            i.user_name = ep.user_name(i.index) if usable else None
            if usable and 0 <= i.index < len(ep.user_inputs) and ("?" in (i.stride or []) or i.layout_from
                                                                   or any(isinstance(x, str) and ".." in x for x in i.shape or [])):
                e = ep.user_inputs[i.index]
                known = from_exported_program(i.shape, i.stride, e.shape, e.stride, i.stride_unchecked)
                if known is not None and known != (i.shape, i.stride):
                    i.shape, i.stride = known
                    i.layout_from = "exported program"
        md.exported_program = ep.source if ep else None
        md.exported_program_disagreements = [disagreement_text(d) for d in dis]


def from_exported_program(shape: list | None, stride: list | None, ep_shape: list, ep_stride: list,
                          unchecked=()) -> tuple | None:
    """(shape, stride) with each dim the wrapper leaves unsaid (``?``, or a range ``2..8``) and each unchecked or
    inferred stride (``unchecked``: their dims) taken from the exported program's, where the two agree on every
    dim and stride the wrapper states; None when they disagree (the program is not this package's)."""
    if shape is None or len(ep_shape) != len(shape):
        return None

    def same(a, b):
        return a == b or str(a).replace("L", "") == str(b).replace("L", "")

    new_shape = []
    for a, b in zip(shape, ep_shape):
        if a == "?" or (isinstance(a, str) and ".." in a):
            new_shape.append(b)
        elif not same(a, b):
            return None
        else:
            new_shape.append(a)
    new_stride = stride
    if ep_stride and stride is not None and len(ep_stride) == len(stride):
        if any(d not in unchecked and not same(a, b) for d, (a, b) in enumerate(zip(stride, ep_stride))):
            return None
        new_stride = [b if d in unchecked else a for d, (a, b) in enumerate(zip(stride, ep_stride))]
    return new_shape, new_stride
