"""locate: the reverse of a trace — which kernels and extern calls came from this line of the user's code, this
FX node or this module, with their wrapper lines and the printer filter that prints just them.

Read from what the build wrote: ``kernel_information.json`` (per launch, ``"<kernel>:<handle>"``: the user's
stack traces, the post-grad and pre-grad FX nodes), the wrapper's calls (the scan: no statement parsed), its
``// Topologically Sorted Source Nodes`` comments, and, for ``--module``, the packaged exported program's
``nn_module_stack`` (``models/<name>.json``, read as JSON).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import UsageError
from ..explain import locate as say
from ..logs.parse import stack_frames
from ..naming import aten_op, fused_words
from ..parse.specs import parse_source_line


@dataclass
class Located:
    target: str  # kernel name or extern op (aoti_torch_cpu_cumsum)
    kind: str  # "kernel" | "extern"
    wrapper_lines: list[int]  # where run_impl launches or calls it
    why: list[str]  # what matched: "build.py:84 picked = values[idx]", "node index", "module emb"
    nodes: list[str] = field(default_factory=list)  # post-grad FX nodes
    frames: list[str] = field(default_factory=list)  # the user's lines ("build.py:84: picked = values[idx]")

    def to_dict(self) -> dict:
        return {"target": self.target, "kind": self.kind, "wrapper_lines": self.wrapper_lines, "why": self.why,
                "nodes": self.nodes, "frames": self.frames}


@dataclass
class LocateResult:
    package: str
    model: str
    query: dict
    found: list[Located]
    source: str  # where the facts came from: "kernel_information.json" | "source nodes comments"
    notes: list[str] = field(default_factory=list)

    @property
    def printer_filter(self) -> str:
        """The AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT value that prints just these (the printer matches names)."""
        return ",".join(dict.fromkeys(x.target for x in self.found))

    def verdict(self) -> str:
        k = sum(1 for x in self.found if x.kind == "kernel")
        return say.verdict(self.query, k, len(self.found) - k)

    def to_dict(self) -> dict:
        return {"package": self.package, "model": self.model, "query": self.query, "verdict": self.verdict(),
                "source": self.source, "found": [x.to_dict() for x in self.found],
                "printer_filter": self.printer_filter if self.found else None, "notes": self.notes}


def parse_source(spec: str) -> tuple[str, int]:
    """``model.py:84`` -> ("model.py", 84); a usage error otherwise."""
    s = parse_source_line(spec)
    return s.file, s.line


def _frames(stack: str) -> list[tuple[str, int, str]]:
    return [(f.file, f.line, f.code or "") for f in stack_frames(stack)]


def _file_matches(path: str, want: str) -> bool:
    p, w = path.replace("\\", "/"), want.replace("\\", "/")
    return p == w or p.endswith("/" + w.lstrip("/"))


def locate(pkg, source: str | None = None, node: str | None = None, module: str | None = None,
           kernel: str | None = None, model: str | None = None, ep=None) -> LocateResult:
    """What came from one user line (``source="model.py:84"``), FX node, module path (needs the exported
    program: packaged, or ``ep``) or kernel."""
    given = [x for x in (source, node, module, kernel) if x]
    if len(given) != 1:
        raise UsageError(say.ONE_QUERY)
    name = pkg._name(model)
    f = pkg.files(name)
    ix = pkg.index(name)
    lines: dict[str, list[int]] = {}
    kinds: dict[str, str] = {}
    for c in ix.calls():
        lines.setdefault(c.target, []).append(c.line)
        kinds[c.target] = c.kind
    info = {}
    if f.kernel_information:
        try:
            info = pkg.archive.read_json(f.kernel_information) or {}
        except Exception:  # noqa: BLE001 - a broken member: located from the comments instead, and said
            info = {}
    query = {"source": source, "node": node, "module": module, "kernel": kernel}
    res = LocateResult(str(pkg.path), name, {k: v for k, v in query.items() if v}, [],
                       say.FROM_PROVENANCE if info else say.FROM_COMMENTS)
    if not info:
        res.notes.append(say.NO_PROVENANCE)
    want_file, want_line = parse_source(source) if source else (None, None)
    module_nodes = _module_nodes(pkg, name, module, ep) if module else None
    if module and module_nodes is None:
        raise UsageError(say.MODULE_NEEDS_EP)
    found: dict[tuple, Located] = {}
    handles = _provenance_lines(ix) if info else {}
    for key, entry in info.items():
        target = key.rsplit(":", 1)[0]
        if not isinstance(entry, dict):
            continue
        stacks = [s for s in entry.get("stack_traces") or [] if isinstance(s, str)]
        nodes = [n for n in entry.get("post_grad_nodes") or [] if isinstance(n, str)]
        pre = [n for n in entry.get("pre_grad_nodes") or [] if isinstance(n, str)]
        frames = [fr for s in stacks for fr in _frames(s)]
        why = []
        if source:
            why = [say.line_match(fl, ln, code) for fl, ln, code in frames
                   if ln == want_line and _file_matches(fl, want_file)]
        elif node:
            why = [say.node_match(node)] if node in nodes or node in pre else []
        elif module:
            hit = sorted(set(nodes + pre) & module_nodes)
            why = [say.module_node(n, module) for n in hit[:6]]
        elif kernel:
            why = [say.KERNEL_ASKED] if target == kernel else []
        if not why:
            continue
        at = [handles[key]] if key in handles else lines.get(target, [])
        loc = found.get((target, tuple(at)))
        if loc is None:
            loc = found[(target, tuple(at))] = Located(
                target, kinds.get(target) or ("extern" if target.startswith("aoti_") else "kernel"), at, [], [], [])
        loc.why += [w for w in why if w not in loc.why]
        loc.nodes += [n for n in nodes if n not in loc.nodes]
        loc.frames += [say.frame(fl, ln, code) for fl, ln, code in frames if say.frame(fl, ln, code) not in loc.frames]
    if not info:
        line_nodes: set[str] = set()
        if source:  # the exported program's stack traces name the FX nodes of that line
            from ..parse.exported_program import packaged_ep

            e = ep or packaged_ep(pkg, name)
            if e is not None:
                res.source = say.FROM_EP_AND_COMMENTS
                line_nodes = {n.name for n in e.nodes.values() for loc in n.locations()
                              if loc.line == want_line and _file_matches(loc.file, want_file)}
            else:
                res.notes.append(say.NO_EP_FOR_LINE)
        commented = set()
        for target, call_line, fx in _source_nodes(ix):
            commented.add((target, call_line))
            why = []
            if source:
                why = [say.line_node(n, source) for n in sorted(set(fx) & line_nodes)[:6]]
            elif kernel:
                why = [say.KERNEL_ASKED] if target == kernel else []
            elif node:
                why = [say.node_match(node)] if node in fx else []
            elif module:
                why = [say.module_node(n, module) for n in sorted(set(fx) & module_nodes)[:6]]
            if why:
                loc = found.setdefault((target, call_line), Located(target, kinds.get(target, "kernel"), [call_line], []))
                loc.why += [w for w in why if w not in loc.why]
                loc.nodes += [n for n in fx if n not in loc.nodes]
        if source and line_nodes and e is not None:  # kernels with no comment (CPU): the ops their name fuses
            ops = {op for n in line_nodes if n in e.nodes for op in [aten_op(e.nodes[n].target)] if op}
            for c in ix.calls():
                words = fused_words(c.target) if c.kind == "kernel" and (c.target, c.line) not in commented else set()
                hit = sorted(words & ops)
                if hit:
                    loc = found.setdefault((c.target, c.line), Located(c.target, c.kind, [c.line], []))
                    loc.why.append(say.fused_match(hit, source))
        if kernel and kernel in lines and not found:
            found[(kernel,)] = Located(kernel, kinds[kernel], lines[kernel], [say.KERNEL_ASKED])
    if kernel and not found:
        names = sorted(lines)
        raise UsageError(say.no_such_kernel(kernel, name, names))
    res.found = sorted(found.values(), key=lambda x: (x.wrapper_lines[:1] or [1 << 30], x.target))
    return res


def calls_naming(ix, name: str) -> list:
    """Every run_impl call (`records.Call`) whose statement names ``name`` (a buffer, an input), in order."""
    return [c for c in sorted(ix.calls(), key=lambda c: c.line) if c.mentions(name)]


def _source_nodes(ix) -> list[tuple[str, int, list[str]]]:
    """(target, call line, FX nodes) from each call's ``// Topologically Sorted Source Nodes: [...]`` comment (the
    last between the call before it and it; on CPU builds only extern ops get one)."""
    said = ix.call_comments()
    return [(c.target, c.line, list(said[c.line].nodes)) for c in sorted(ix.calls(), key=lambda c: c.line)
            if c.line in said and said[c.line].nodes is not None]


def _provenance_lines(ix) -> dict[str, int]:
    """``"<target>:<handle>"`` (kernel_information.json's key) -> the wrapper line of the call it annotates."""
    said = ix.call_comments()
    return {said[c.line].provenance: c.line for c in sorted(ix.calls(), key=lambda c: c.line)
            if c.line in said and said[c.line].provenance is not None}


def _module_nodes(pkg, name: str, module: str, ep=None) -> set[str] | None:
    """FX node names whose nn_module_stack path is ``module`` or inside it (``blocks.0`` holds ``blocks.0.attn``)."""
    from ..parse.exported_program import packaged_ep

    ep = ep or packaged_ep(pkg, name)
    if ep is None:
        return None
    return {n.name for n in ep.nodes.values() if n.module and (n.module == module or n.module.startswith(module + "."))}
