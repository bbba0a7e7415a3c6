"""locate: the reverse of a trace — which kernels and extern calls came from this line of the user's code, this
FX node or this module, with their wrapper lines and the printer filter that prints just them.

Read from what the build wrote: ``kernel_information.json`` (per launch, ``"<kernel>:<handle>"``: the user's
stack traces, the post-grad and pre-grad FX nodes), the wrapper's calls (the scan: no statement parsed), its
``// Topologically Sorted Source Nodes`` comments, and, for ``--module``, the packaged exported program's
``nn_module_stack`` (``models/<name>.json``, read as JSON).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import UsageError
from ..logs.patterns import PYTHON_FRAME

_FRAME = PYTHON_FRAME.regex


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
        if not self.found:
            return "nothing in the package came from " + _describe(self.query)
        k = sum(1 for x in self.found if x.kind == "kernel")
        e = len(self.found) - k
        parts = ([f"{k} kernel(s)"] if k else []) + ([f"{e} extern call(s)"] if e else [])
        return f"{' and '.join(parts)} came from {_describe(self.query)}"

    def to_dict(self) -> dict:
        return {"package": self.package, "model": self.model, "query": self.query, "verdict": self.verdict(),
                "source": self.source, "found": [x.to_dict() for x in self.found],
                "printer_filter": self.printer_filter if self.found else None, "notes": self.notes}


def _describe(q: dict) -> str:
    if q.get("source"):
        return f"line {q['source']}"
    if q.get("node"):
        return f"FX node {q['node']}"
    if q.get("module"):
        return f"module {q['module']}"
    return f"kernel {q.get('kernel')}"


def parse_source(spec: str) -> tuple[str, int]:
    """``model.py:84`` -> ("model.py", 84); a usage error otherwise."""
    m = re.fullmatch(r"(.+):(\d+)", spec.strip())
    if not m:
        raise UsageError(f"--source {spec!r}: give FILE:LINE, e.g. model.py:84 (the file's name or a path suffix)")
    return m.group(1), int(m.group(2))


def _frames(stack: str) -> list[tuple[str, int, str]]:
    return [(m.group("file"), int(m.group("line")), (m.group("code") or "").strip()) for m in _FRAME.finditer(stack)]


def _file_matches(path: str, want: str) -> bool:
    p, w = path.replace("\\", "/"), want.replace("\\", "/")
    return p == w or p.endswith("/" + w.lstrip("/"))


def locate(pkg, source: str | None = None, node: str | None = None, module: str | None = None,
           kernel: str | None = None, model: str | None = None, ep=None) -> LocateResult:
    """What came from one user line (``source="model.py:84"``), FX node, module path (needs the exported
    program: packaged, or ``ep``) or kernel."""
    given = [x for x in (source, node, module, kernel) if x]
    if len(given) != 1:
        raise UsageError("locate takes exactly one of --source FILE:LINE, --node FX_NODE, --module PATH, --kernel K")
    name = pkg._name(model)
    f = pkg.files(name)
    ix = pkg.index(name)
    lines: dict[str, list[int]] = {}
    kinds: dict[str, str] = {}
    for st, target, kind in ix.calls():
        lines.setdefault(target, []).append(st.line)
        kinds[target] = kind
    info = {}
    if f.kernel_information:
        try:
            info = pkg.archive.read_json(f.kernel_information) or {}
        except Exception:  # noqa: BLE001 - a broken member: located from the comments instead, and said
            info = {}
    query = {"source": source, "node": node, "module": module, "kernel": kernel}
    res = LocateResult(str(pkg.path), name, {k: v for k, v in query.items() if v}, [],
                       "kernel_information.json" if info else "source nodes comments")
    if not info:
        res.notes.append("the package has no kernel_information.json (built without provenance tracking): "
                         "matched on the wrapper's Source Nodes comments, which name FX nodes but no user lines")
    want_file, want_line = parse_source(source) if source else (None, None)
    module_nodes = _module_nodes(pkg, name, module, ep) if module else None
    if module and module_nodes is None:
        raise UsageError("--module needs the package's exported program (models/<name>.json) or --ep; "
                         "this package carries none")
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
            why = [f"{fl.rsplit('/', 1)[-1]}:{ln}" + (f" {code}" if code else "") for fl, ln, code in frames
                   if ln == want_line and _file_matches(fl, want_file)]
        elif node:
            why = [f"FX node {node}"] if node in nodes or node in pre else []
        elif module:
            hit = sorted(set(nodes + pre) & module_nodes)
            why = [f"FX node {n} of module {module}" for n in hit[:6]]
        elif kernel:
            why = ["the kernel asked for"] if target == kernel else []
        if not why:
            continue
        at = [handles[key]] if key in handles else lines.get(target, [])
        loc = found.get((target, tuple(at)))
        if loc is None:
            loc = found[(target, tuple(at))] = Located(
                target, kinds.get(target) or ("extern" if target.startswith("aoti_") else "kernel"), at, [], [], [])
        loc.why += [w for w in why if w not in loc.why]
        loc.nodes += [n for n in nodes if n not in loc.nodes]
        loc.frames += [f"{fl.rsplit('/', 1)[-1]}:{ln}: {code}" for fl, ln, code in frames
                       if f"{fl.rsplit('/', 1)[-1]}:{ln}: {code}" not in loc.frames]
    if not info:
        line_nodes: set[str] = set()
        if source:  # the exported program's stack traces name the FX nodes of that line
            from ..parse.exported_program import packaged_ep

            e = ep or packaged_ep(pkg, name)
            if e is not None:
                res.source = "exported program + source nodes comments"
                line_nodes = {n.name for n in e.nodes.values() for loc in n.locations()
                              if loc.line == want_line and _file_matches(loc.file, want_file)}
            else:
                res.notes.append("no exported program either: a user line cannot be matched (rebuild with "
                                 "provenance tracking, or pass --ep)")
        commented = set()
        for target, call_line, fx in _source_nodes(ix):
            commented.add((target, call_line))
            why = []
            if source:
                why = [f"FX node {n} of line {source}" for n in sorted(set(fx) & line_nodes)[:6]]
            elif kernel:
                why = ["the kernel asked for"] if target == kernel else []
            elif node:
                why = [f"FX node {node}"] if node in fx else []
            elif module:
                why = [f"FX node {n} of module {module}" for n in sorted(set(fx) & module_nodes)[:6]]
            if why:
                loc = found.setdefault((target, call_line), Located(target, kinds.get(target, "kernel"), [call_line], []))
                loc.why += [w for w in why if w not in loc.why]
                loc.nodes += [n for n in fx if n not in loc.nodes]
        if source and line_nodes and e is not None:  # kernels with no comment (CPU): the ops their name fuses
            ops = {m.group(1) for n in line_nodes if n in e.nodes
                   for m in [re.search(r"aten\.(\w+)", e.nodes[n].target)] if m}
            for st, target, kind in ix.calls():
                words = _fused_words(target) if kind == "kernel" and (target, st.line) not in commented else set()
                hit = sorted(words & ops)
                if hit:
                    loc = found.setdefault((target, st.line), Located(target, kind, [st.line], []))
                    loc.why.append(f"its name fuses {', '.join(hit)}, ops of line {source} (no Source Nodes comment: "
                                   "matched by name)")
        if kernel and kernel in lines and not found:
            found[(kernel,)] = Located(kernel, kinds[kernel], lines[kernel], ["the kernel asked for"])
    if kernel and not found:
        names = sorted(lines)
        raise UsageError(f"no kernel or extern call {kernel!r} in model {name!r}; it has: "
                         + ", ".join(names[:30]) + (f" … ({len(names)} in all)" if len(names) > 30 else ""))
    res.found = sorted(found.values(), key=lambda x: (x.wrapper_lines[:1] or [1 << 30], x.target))
    return res


_FUSED = re.compile(r"^(?:cpp|triton_[a-z]+)_fused_(?P<ops>\w+?)_\d+$")


def _fused_words(kernel: str) -> set[str]:
    """The op names a fused kernel's name is made of (``cpp_fused_add_gather_mul_0`` -> add, gather, mul)."""
    m = _FUSED.match(kernel)
    return set(m.group("ops").split("_")) if m else set()


def calls_naming(ix, name: str) -> list[tuple[object, str]]:
    """(statement, target) of every run_impl call whose arguments name ``name`` (a buffer, an input), in order."""
    rx = re.compile(rf"\b{re.escape(name)}\b")
    lines = ix.wmap.lines  # a call read back from the index cache keeps its line, not its text
    return [(st, target) for st, target, _kind in sorted(ix.calls(), key=lambda c: c[0].line)
            if rx.search(st.text or lines[st.line - 1])]


def _comments_above_calls(ix, rx) -> list[tuple[str, int, "re.Match"]]:
    """(target, call line, match) for the last comment matching ``rx`` between the previous run_impl call and
    each call (declarations of sizes and arrays may sit between a comment and its call)."""
    wm = ix.wmap
    out, prev = [], 0
    for st, target, _kind in sorted(ix.calls(), key=lambda c: c[0].line):
        for i in range(st.line - 2, max(prev - 1, -1), -1):  # 0-based lines above the call, back to the last call
            m = rx.search(wm.lines[i]) if wm.lines[i].lstrip().startswith("//") else None
            if m:
                out.append((target, st.line, m))
                break
        prev = st.line
    return out


def _source_nodes(ix) -> list[tuple[str, int, list[str]]]:
    """(target, call line, FX nodes) from each call's ``// Topologically Sorted Source Nodes: [...]`` comment (the
    dialect's pattern; on CPU builds only extern ops get one)."""
    return [(t, line, [n.strip() for n in m.group(1).split(",") if n.strip()])
            for t, line, m in _comments_above_calls(ix, ix.wmap.dialect.source_nodes_re)]


def _provenance_lines(ix) -> dict[str, int]:
    """``"<target>:<handle>"`` (kernel_information.json's key) -> the wrapper line of the call it annotates."""
    return {m.group(1): line for _t, line, m in _comments_above_calls(ix, ix.wmap.dialect.provenance_re)}


def _module_nodes(pkg, name: str, module: str, ep=None) -> set[str] | None:
    """FX node names whose nn_module_stack path is ``module`` or inside it (``blocks.0`` holds ``blocks.0.attn``)."""
    from ..parse.exported_program import packaged_ep

    ep = ep or packaged_ep(pkg, name)
    if ep is None:
        return None
    return {n.name for n in ep.nodes.values() if n.module and (n.module == module or n.module.startswith(module + "."))}
