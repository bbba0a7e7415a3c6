"""One self-contained HTML report of a package: summary, kernels, and each traced failure drawn as a graph.

Query side only: it reads ``summarize`` and ``trace_assert`` results, the kernel list of the lazy index's
scan (``inspector.queries.kernels``) and, for each traced failure, the slice of the model its trace read
(``ModelIndex.slice``): nothing is parsed whole, so a package of 20,000 kernels is reported in seconds.  It
lays each trace chain out itself (a layered layout, in Python) and writes the SVG; the page, its CSS and its
script are package data (``inspector.report_page``), filled with HTML fragments and JSON islands.  Nothing is
fetched when the page is viewed.

The kernel list is embedded as JSON and drawn by the page 100 rows at a time, so a package of 20,000
kernels costs a few MB of data but only 100 table rows in the DOM.  Every code table (the node panel, the
lines around the assert, the call sites) is drawn by the page's script from the trace data, once.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import inspector.graph.ids as ids
from .model import Kernel, Model
from .package import Package
from .queries.kernels import kernel_rows
from .report_page import fill, json_island, load
from .queries.show import ShowResult
from .queries.trace import TraceMatch, TraceResult

CONTEXT = 6  # lines either side of a marked line in the source panel
MAX_TRACES = 20  # matches drawn; a bare message can match every assertion of a big package


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _lines(text: list[str], first: int, mark: int | None, before: int = CONTEXT, after: int = CONTEXT):
    """[[line, text], …] around ``mark`` (or the head when None) of a text whose first line is ``first``."""
    if mark is None:
        lo, hi = first, first + before + after
    else:
        lo, hi = mark - before, mark + after
    lo, hi = max(lo, first), min(hi, first + len(text) - 1)
    return _dedent([[n, text[n - first]] for n in range(lo, hi + 1)])


def _dedent(lines: list[list]) -> list[list]:
    """Drop the indentation all the lines share (CPU kernels sit 40 columns deep in loop nests)."""
    pad = min((len(t) - len(t.lstrip()) for _, t in lines if t.strip()), default=0)
    return [[n, t[pad:].rstrip()] for n, t in lines]


# ---------------------------------------------------------------------------
# A trace as a small graph: nodes with a label, a kind and the source to show on click
# ---------------------------------------------------------------------------


@dataclass
class Node:
    key: str
    label: str
    kind: str  # assertion | param | call | symbol | input | tmp | buffer | kernel | constant | value | end
    detail: str = ""
    source: dict | None = None  # {"file", "lines": [[n, text]], "mark"}


@dataclass
class Chain:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    root: str = ""

    def add(self, node: Node) -> str:
        self.nodes.setdefault(node.key, node)
        return node.key

    def link(self, a: str, b: str, label: str = "") -> None:
        if a != b and (a, b, label) not in self.edges:
            self.edges.append((a, b, label))


class _Lines:
    """A text's lines split at "\\n" read as `str.splitlines` reads them: without the empty last one a final
    newline leaves (nothing copied)."""

    __slots__ = ("_lines", "_n")

    def __init__(self, lines: list[str]):
        self._lines = lines
        self._n = len(lines) - 1 if lines and lines[-1] == "" else len(lines)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> str:
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._lines[i % self._n]


class _Sources:
    """Numbered lines of the wrapper and of kernels, read once per model."""

    def __init__(self, pkg: Package, m: Model):
        self.m = m
        self._wrapper: list[str] | None = None
        self._pkg = pkg

    @property
    def wrapper(self) -> list[str]:
        if self._wrapper is None:
            # the index's own lines when it scanned this wrapper (the line numbers marked come from them): a
            # second copy of a 177 MB wrapper's lines cost the report ~470 MB of peak memory
            scanned = self._pkg.scanned_lines(self.m.name, self.m.wrapper_member) if self.m.wrapper_member else None
            if scanned is not None:
                self._wrapper = _Lines(scanned)
            else:
                self._wrapper = self._pkg.archive.read_text(self.m.wrapper_member).splitlines() if self.m.wrapper_member else []
        return self._wrapper

    def wrapper_at(self, line: int | None, before: int = CONTEXT, after: int = CONTEXT) -> dict | None:
        if not line or not self.wrapper:
            return None
        return {"file": self.m.wrapper_member, "what": "wrapper.cpp", "lines": _lines(self.wrapper, 1, line, before, after),
                "mark": line}

    def kernel_at(self, k: Kernel | None, line: int | None) -> dict | None:
        if k is None or not k.lines():
            return None
        what = f"{k.name} ({'its .py numbering' if k.kind == 'triton' else 'kernel.cpp'})"
        return {"file": k.source_file, "what": what, "lines": _lines(k.source, k.line_base, line), "mark": line}

    def kernel_head(self, k: Kernel | None) -> dict | None:
        """The kernel's signature and first lines (where its params are named)."""
        if k is None or not k.lines():
            return None
        first = next((i for i, t in enumerate(k.source) if "def " in t or "extern \"C\"" in t or "void " in t), 0)
        return {"file": k.source_file, "what": f"{k.name} (signature)", "mark": None,
                "lines": _dedent([[k.line_base + i, k.source[i]] for i in range(first, min(len(k.source), first + 12))])}


def _tmp_def(k: Kernel, name: str, before: float):
    best = None
    for t in k.tmps:
        if t.name == name and t.line < before and (best is None or t.line > best.line):
            best = t
    return best


def _bound_term(c: Chain, m: Model, src: "_Sources", mt: TraceMatch, k: Kernel | None, bc, call_line: int | None) -> None:
    """One size parameter of the bound: param -> call argument -> symbol (and aliases) -> input dim."""
    if k is not None:
        p = c.add(Node(f"param:{mt.kernel}:{bc.kernel_param}", f"param {bc.kernel_param}", "param",
                       f"kernel parameter of {mt.kernel}", src.kernel_head(k)))
        c.link(c.root, p, "bounded by")
        ca = c.add(Node(f"call:{call_line}:{bc.call_arg}", f"call argument {bc.call_arg}", "call",
                        f"wrapper.cpp line {call_line}", src.wrapper_at(call_line, 3, 2)))
        c.link(p, ca, "bound at call")
    else:  # an extern op: no kernel params, the bound is an argument of the call itself
        ca = c.add(Node(f"call:{call_line}:{bc.call_arg}", f"call argument {bc.call_arg}", "call",
                        f"wrapper.cpp line {call_line}", src.wrapper_at(call_line, 3, 2)))
        c.link(c.root, ca, "bounded by")
    prev = ca
    for al in ([bc.symbol] if bc.symbol and bc.symbol != bc.call_arg else []) + list(bc.aliases):
        sy = m.symbols.get(al)
        n = c.add(Node(f"sym:{al}", f"symbol {al}", "symbol", f"{sy.expr if sy else ''}",
                       src.wrapper_at(sy.line if sy else None, 2, 2)))
        c.link(prev, n, "alias")
        prev = n
    if bc.definition:
        d = c.add(Node(f"def:{bc.symbol or bc.call_arg}", f"{bc.symbol or bc.call_arg} = {bc.definition}", "symbol",
                       f"wrapper.cpp line {bc.definition_line}", src.wrapper_at(bc.definition_line, 2, 2)))
        c.link(prev, d, "defined as")
        prev = d
    if bc.input:
        inp = m.inputs[bc.input.index] if bc.input.index < len(m.inputs) else None
        guards = [g.line for g in (inp.guards if inp else []) if g.dim == bc.input.dim]
        rng = f"{bc.min if bc.min is not None else '?'}..{bc.max if bc.max is not None else '?'}"
        n = c.add(Node(f"input:{bc.input.index}:dim{bc.input.dim}",
                       f"input {bc.input.index} ({bc.input.name}) dim {bc.input.dim}", "input",
                       f"guards allow {rng} (only with AOTI_RUNTIME_CHECK_INPUTS=1)",
                       src.wrapper_at(guards[0], 2, 6) if guards else None))
        c.link(prev, n, "size of")
    else:
        n = c.add(Node(f"bound:unresolved:{bc.kernel_param}", f"bound {bc.kernel_param} not traced to an input", "end"))
        c.link(prev, n)


def trace_model(pkg: Package, matches: list[TraceMatch], model: str) -> Model:
    """What the chains of ``matches`` in ``model`` read: the slice of the model around their kernels' launches
    (and, for an extern op, around its call), as `trace_assert` reads it; the whole parse only when it is
    there already."""
    mine = [mt for mt in matches if mt.model == model]
    return pkg.index(model).slice(kernels=[mt.kernel for mt in mine if mt.kernel_kind != "extern"],
                                  call_lines=[mt.file_line for mt in mine if mt.kernel_kind == "extern"])


def trace_chain(pkg: Package, mt: TraceMatch, m: Model | None = None, src: _Sources | None = None) -> Chain:
    """The chain of one match: assertion -> bound -> call argument -> symbol -> input/dim, and the index
    origin through tmps, params, buffers and writer kernels to an input or constant.  ``m``: the model it
    reads (default: `trace_model` of this match alone); ``src``: its lines, when already read."""
    m = m if m is not None else trace_model(pkg, [mt], mt.model)
    src = src if src is not None else _Sources(pkg, m)
    k = m.kernels.get(mt.kernel)
    a = mt.assertion
    c = Chain()
    call_line = mt.call_sites[0] if mt.call_sites else None
    short = a.message.removeprefix("index out of bounds: ")
    # An extern ATen op checks inside ATen: its "line" is the wrapper.cpp line of the failing call.
    at = src.kernel_at(k, mt.file_line) if k is not None else src.wrapper_at(mt.file_line, 3, 2)
    where = (f"extern call, wrapper.cpp line {mt.file_line}" if mt.kernel_kind == "extern"
             else f"assert line {mt.file_line}")
    c.root = c.add(Node(f"assert:{mt.kernel}:{mt.file_line}", f"{where}: {short}", "assertion",
                        f"{mt.kernel}, {'wrapper.cpp ' if mt.kernel_kind == 'extern' else ''}line {mt.file_line}", at))

    # The bound.
    if mt.static_bound is not None:
        b = c.add(Node("bound:static", f"bound {a.bound_expr} = {mt.static_bound} (a constant)", "constant",
                       "the bound is a number baked into the kernel" if k is not None else "the size of the table the op indexes", at))
        c.link(c.root, b, "bounded by")
    elif mt.bound:
        # Every size parameter of the bound (one, or several in a compound bound such as `ks0 + ks1`).
        for t in (mt.bound.terms or [mt.bound]):
            _bound_term(c, m, src, mt, k, t, call_line)

    # Where the index comes from.
    for o in mt.index_origin:
        prev = c.root
        cur = k
        before: dict[str, float] = {mt.kernel: mt.file_line}
        label = "index"
        for st in o.path:  # each step is typed where the walk took it (`walk.Step`): drawn by its kind
            step = st.name
            node = None
            if st.kind == "kernel" and step in m.kernels:
                cur = m.kernels[step]
                before[step] = float("inf")
                site = next((s for s in m.calls if s.target == step), None)
                node = Node(f"kernel:{step}", f"kernel {step}", "kernel",
                            f"writes the buffer; launched at wrapper.cpp line {site.line}" if site else "writes the buffer",
                            src.wrapper_at(site.line, 3, 2) if site else src.kernel_head(cur))
            elif st.kind in ("kernel_param", "store") and cur is not None and cur.param(step):
                node = Node(f"param:{cur.name}:{step}", f"param {step}", "param", f"of {cur.name}", src.kernel_head(cur))
            elif st.kind in ("tmp", "loop_index") and cur is not None and (
                    t := _tmp_def(cur, step, before.get(cur.name, float("inf")))) is not None:
                before[cur.name] = t.line
                text = (cur.source_line(t.line) or "").strip().removeprefix("auto ").rstrip(";")
                node = Node(f"tmp:{cur.name}:{t.line}", text if text.startswith(step) else f"{step} = {t.expr.text}", "tmp",
                            f"{cur.name}, line {t.line}", src.kernel_at(cur, t.line))
            elif st.kind in ("buffer", "handle") and step in m.buffers:
                bd = m.buffers[step]
                node = Node(f"buf:{step}", f"buffer {step}", "buffer", f"{bd.kind} at wrapper.cpp line {bd.line}",
                            src.wrapper_at(bd.line, 2, 2))
            elif st.kind == "input":
                inp = next((i for i in m.inputs if ids.input_(i.index) == st.node_id), None)
                if inp is None:
                    node = Node(f"v:{step}", step, "input")
                else:
                    guards = [g.line for g in inp.guards]
                    node = Node(f"input:{inp.index}", f"input {inp.index} ({inp.name})", "input",
                                f"{inp.dtype or '?'} [{', '.join(map(str, inp.shape))}]",
                                src.wrapper_at(guards[0], 2, 6) if guards else None)
            elif st.kind == "constant" and step in m.constant_bindings:
                const = next((x for x in m.constants if x.index == m.constant_bindings[step]), None)
                node = Node(f"const:{step}", f"constant {step}", "constant", const.fqn if const and const.fqn else "")
            else:
                node = Node(f"v:{step}", step, "value")
            key = c.add(node)
            c.link(prev, key, label)
            label = ""
            prev = key
        end = None
        if o.constant and f"const:{o.constant}" not in c.nodes:
            end = Node(f"const:{o.constant}", f"constant {o.constant}", "constant")
        elif o.computed:
            end = Node(f"end:computed:{o.computed}", o.computed, "end", "computed from loop indices and sizes")
        elif o.unresolved:
            end = Node(f"end:unresolved:{o.unresolved}", f"? {o.unresolved}", "end", "the walk stopped here")
        if end is not None:
            c.link(prev, c.add(end))
    return c


# ---------------------------------------------------------------------------
# Layout and SVG
# ---------------------------------------------------------------------------

NODE_H = 30
ROW_GAP = 22
COL_W = 300
MAX_LABEL = 40


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


def _short(s: str, n: int = MAX_LABEL) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def chain_svg(c: Chain, trace_id: int) -> str:
    pos = layout(c)
    ncols = max((x for x, _ in pos.values()), default=0) + 1
    nrows = max((y for _, y in pos.values()), default=0) + 1
    w, h = ncols * COL_W + 20, nrows * (NODE_H + ROW_GAP) + 20
    box_w = COL_W - 30

    def xy(k):
        x, y = pos[k]
        return 10 + x * COL_W, 10 + y * (NODE_H + ROW_GAP)

    out = [f'<svg class="chain" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'role="img" aria-label="trace chain">']
    out.append('<defs><marker id="arr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
               'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#888"/></marker></defs>')
    for a, b, label in c.edges:
        (x1, y1), (x2, y2) = xy(a), xy(b)
        sx, sy, ex, ey = x1 + box_w / 2, y1 + NODE_H, x2 + box_w / 2, y2
        if y2 <= y1:  # same or earlier row: go round the side
            sx, sy, ex, ey = x1 + box_w, y1 + NODE_H / 2, x2 + box_w, y2 + NODE_H / 2
        my = (sy + ey) / 2
        out.append(f'<path class="edge" d="M{sx:.0f},{sy:.0f} C{sx:.0f},{my:.0f} {ex:.0f},{my:.0f} {ex:.0f},{ey:.0f}" '
                   f'marker-end="url(#arr)"><title>{_e(label)}</title></path>')
        if label and x1 == x2:  # straight down: the hop's name beside the arrow
            out.append(f'<text class="elabel" x="{sx + 6:.0f}" y="{my + 4:.0f}">{_e(label)}</text>')
    for i, (k, n) in enumerate(c.nodes.items()):
        x, y = xy(k)
        out.append(f'<g class="node k-{n.kind}" data-trace="{trace_id}" data-node="{i}" tabindex="0" '
                   f'data-label="{_e(n.label.lower())}" transform="translate({x},{y})">'
                   f'<title>{_e(n.label)}{(" — " + _e(n.detail)) if n.detail else ""}</title>'
                   f'<rect width="{box_w}" height="{NODE_H}" rx="6"/>'
                   f'<text x="8" y="{NODE_H / 2 + 4:.0f}">{_e(_short(n.label))}</text></g>')
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------


def _input_label(ref) -> str:
    """``input 1 `idx` (arg1_1)`` when an exported program names it, else ``input 1 (arg1_1)``."""
    user = f" `{ref.user_name}`" if getattr(ref, "user_name", None) else ""
    return f"input {ref.index}{user} ({ref.name})"


def _verdict(summary: ShowResult, r: TraceResult | None) -> str:
    n_k = sum(len(m.kernels) for m in summary.models)
    n_a = sum(m.assertions for m in summary.models)
    if r is None:
        return f"{n_k} kernels, {n_a} assertions; no log given, so no failure is traced (pass --log FILE)"
    if not r.matches:
        return f"nothing found: no assertion matches {r.looked_for}"
    mt = r.matches[0]
    to = ""
    terms = [t for t in ((mt.bound.terms or [mt.bound]) if mt.bound else []) if t.input]
    if terms:  # a compound bound (`ks0 + ks1`) names every input dim in it
        to = " → bound from " + " and ".join(f"{_input_label(t.input)} dim {t.input.dim}" for t in terms)
    elif mt.static_bound is not None:
        to = f" (bound {mt.static_bound}, a constant)"
    srcs = [_input_label(o.input) for o in mt.index_origin if o.input]
    idx = f"; index from {', '.join(dict.fromkeys(srcs))}" if srcs else ""
    if r.ambiguous:
        return (f"ambiguous: {len(r.matches)} assertions match {r.looked_for}; the first, {mt.kernel}{to}{idx} "
                "(a whole log, with the .py path or kernel name, tells them apart)")
    more = f" (+{len(r.matches) - 1} more match{'es' if len(r.matches) > 2 else ''})" if len(r.matches) > 1 else ""
    return f"✗ {mt.assertion.message} in {mt.kernel}{to}{idx}{more}"


def _table(cols: list[str], rows: list[list], cap: int = 500) -> str:
    body = "".join("<tr>" + "".join(f"<td>{_e('-' if v is None else v)}</td>" for v in r) + "</tr>" for r in rows[:cap])
    more = f'<p class="note">{len(rows) - cap} more not shown (see <code>show --json</code>)</p>' if len(rows) > cap else ""
    return (f"<table><thead><tr>{''.join(f'<th>{_e(c)}</th>' for c in cols)}</tr></thead><tbody>{body}</tbody></table>"
            + more)


def _shape(s) -> str:
    return "[" + ", ".join(map(str, s)) + "]" if s is not None else "-"


def _summary_html(s: ShowResult) -> str:
    out = [f'<p><b>package</b> {_e(s.package)} · <b>format</b> {_e(s.format)} · '
           f'<b>archive_version</b> {_e(s.archive_version)}</p>']
    for m in s.models:
        dev = ", ".join(m.device_parts())
        out.append(f'<h3>model {_e(m.name)} <span class="dim">{_e(dev)}</span></h3>')
        out.append(f'<p class="dim">wrapper {_e(m.wrapper)}</p>')
        out.append("<h4>inputs</h4>" + _table(["#", "name", "dtype", "shape", "stride", "device"], [
            [i.index, i.name, i.dtype, _shape(i.shape), _shape(i.stride), i.device] for i in m.inputs]))
        if m.symbols:
            out.append("<h4>symbols (range: input guards)</h4>" + _table(["symbol", "input", "dim", "min", "max", "note"], [
                [x.name, x.input, x.dim, x.min, x.max, f"alias of {x.alias_of}" if x.alias_of else ""]
                for x in m.symbols]))
            out.append(f'<p class="note">{_e(s.guard_note)}</p>')
        out.append("<h4>outputs</h4>" + _table(["#", "name", "from"], [[o.index, o.name, o.source]
                                                                      for o in m.outputs]))
        if m.constants:
            out.append(f"<details><summary>constants ({len(m.constants)})</summary>" + _table(
                ["name", "fqn", "dtype", "shape", "bytes"],
                [[c.name, c.fqn, c.dtype, _shape(c.shape), c.nbytes] for c in m.constants]) + "</details>")
        if m.extern_ops:
            ext = ", ".join(f"{e.name} ×{e.calls}" for e in m.extern_ops)
            out.append(f"<p>extern ops: {_e(ext)}</p>")
        for w in m.warnings:
            out.append(f'<p class="warn">warning: {_e(w)}</p>')
    return "".join(out)


def _trace_html(i: int, mt: TraceMatch, chain: Chain, src: "_Sources") -> tuple[str, dict]:
    """One traced failure's section, and its data for the page's script: the chain's nodes, the kernel lines
    around the assert, the wrapper.cpp lines of its call sites."""
    data = {"nodes": [{"label": n.label, "kind": n.kind, "detail": n.detail, "source": n.source}
                      for n in chain.nodes.values()],
            "snippet": {"file": mt.source_file, "what": f"{mt.kernel} around line {mt.file_line}",
                        "lines": _dedent([[n, t] for n, t in mt.snippet]), "mark": mt.file_line},
            "calls": [src.wrapper_at(ln, 4, 2) for ln in mt.call_sites[:3]]}
    stacks = "".join(f"<pre>{_e(s)}</pre>" for s in mt.stack_traces)
    body = fill(
        "trace.html", i=str(i), message=_e(mt.assertion.message), model=_e(mt.model), kernel=_e(mt.kernel),
        line=str(mt.file_line), how="exact" if mt.exact else "candidate", matched_by=_e(mt.matched_by),
        verdict=_e(mt.verdict), certainty=_e(mt.certainty),
        explanation="".join(f"<li><b>[{_e(h.certainty)}]</b> {_e(h.text)}"
                            + "".join(f"<br><small>evidence: {_e(e)}</small>" for e in h.evidence) + "</li>"
                            for h in mt.hypotheses)
        + "".join(f"<li class=\"note\">note: {_e(x)}</li>" for x in mt.notes)
        + "".join(f"<li class=\"note\">tell them apart: <code>{_e(c)}</code></li>" for c in mt.confirm), svg=chain_svg(chain, i),
        plural="s" if len(mt.call_sites) > 1 else "", source_nodes=_e(", ".join(mt.source_nodes)),
        derived=" (derived from the kernel name)" if mt.source_nodes_derived else "",
        aten=("<br><b>ATen</b> " + _e(", ".join(mt.aten_ops))) if mt.aten_ops else "",
        stacks=f"<details><summary>user stack traces</summary>{stacks}</details>" if stacks else "")
    return body, data


def build_report(pkg: Package, log: str | None = None, *, model: str | None = None, with_info: bool = False,
                 ep=None):
    """The whole report as one HTML string (the Python twin of `pt2-inspect report`); with ``with_info``,
    ``(html, {"verdict", "traces", "kernels", "looked_for"})``.  ``ep``: an exported program (``--ep``) whose
    user names and lines the traces use; by default the one the package carries, if any."""
    from .queries.show import summarize
    from .queries.trace import trace_assert

    summary = summarize(pkg, model)
    r = trace_assert(pkg, log=log, model=model, ep=ep) if log is not None else None
    drawn = (r.matches if r else [])[:MAX_TRACES]
    models = {n: trace_model(pkg, drawn, n) for n in dict.fromkeys(mt.model for mt in drawn)}
    sources = {n: _Sources(pkg, m) for n, m in models.items()}
    traces, trace_data = [], []
    for i, mt in enumerate(drawn):
        body, data = _trace_html(i, mt, trace_chain(pkg, mt, models[mt.model], sources[mt.model]), sources[mt.model])
        traces.append(body)
        trace_data.append(data)
    kernels = [[k.model, k.name, k.kind, k.launches, [list(a) for a in k.assertions], k.inputs, k.fx_nodes]
               for name in ([model] if model else pkg.model_names) for k in kernel_rows(pkg, name)]
    notes = ""
    if r is not None:
        notes = "".join(f'<p class="note"><b>context:</b> {_e(x)}</p>' for x in r.context)
        notes += "".join(f'<p class="warn"><b>hint:</b> {_e(x)}</p>' for x in r.hints)
        if r.ambiguous:
            notes += (f'<p class="warn">ambiguous: {len(r.matches)} assertions match {_e(r.looked_for)}; ranked below'
                      + (f" (the first {MAX_TRACES} drawn)" if len(r.matches) > MAX_TRACES else "") + "</p>")
    verdict = _verdict(summary, r)
    diag_exit = 0 if r is None or r.matches else 1
    if r is not None and not r.matches:  # no single trace: say what diagnose says, with its candidates / suspects
        from .queries.diagnose import diagnose

        d = diagnose(pkg, log, model=model, ep=ep)
        diag_exit = d.exit_code
        verdict = f"✗ {d.category}: {d.verdict}"
        notes += "".join(f'<p class="note"><b>evidence:</b> <code>{_e(e.text)}</code></p>' for e in d.evidence[:6])
        notes += "".join(f'<p class="note"><b>candidate:</b> {_e(c.kernel)} line {c.line}: {_e(c.message)}'
                         f'{" — " + _e(c.reason) if getattr(c, "reason", None) else ""}</p>' for c in d.candidates[:25])
        notes += "".join(f'<p class="warn"><b>unchecked indirect access:</b> {_e(x.get("kernel"))} line '
                         f'{_e(x.get("line"))}: {_e(x.get("access", "load"))} {_e(x.get("pointer", ""))}'
                         f'[{_e(x.get("address", ""))}]</p>' for x in d.suspects[:25])
        notes += "".join(f'<p class="note"><b>next:</b> {_e(st.do)}{_step_env(st)}</p>' for st in d.steps)
        notes += "".join(f'<p class="note"><b>note:</b> {_e(x)}</p>' for x in d.notes)
    page = fill(
        "report.html", package=_e(summary.package), css=load("report.css"), js=load("report.js"), verdict=_e(verdict),
        n_traces=str(len(traces)), n_kernels=str(len(kernels)), n_assertions=str(sum(m.assertions for m in summary.models)),
        traces=notes + ("".join(traces) if traces else ('<p class="dim">no failure traced</p>' if r is not None else "")),
        summary=_summary_html(summary), kernel_data=json_island("kernel-data", kernels),
        trace_data=json_island("trace-data", trace_data))
    if not with_info:
        return page
    return page, {"verdict": verdict, "traces": len(traces), "kernels": len(kernels),
                  "looked_for": r.looked_for if r else None, "exit": diag_exit}


def _step_env(st) -> str:
    """A step's environment variables and when they act, as diagnose prints them (the command to run)."""
    if not st.env:
        return ""
    env = " ".join(f"{k}={v}" for k, v in st.env.items())
    when = {"compile": " (at compile time: recompile)", "run": " (at run time)"}.get(st.when or "", "")
    return f'<br><code class="env">{_e(env)}</code>{_e(when)}'

