"""What the HTML report (`pt2-inspect report`) computes, as typed records: the matched assertions, each one's
chain from the assertion through its bound and index origin to the inputs, the slices of the model those chains
read, the kernel list, and diagnose's answer when no assertion matches.  Drawn by `inspector.render.html`.

It reads ``summarize`` and ``trace_assert`` results, the kernel list of the lazy index's scan
(``inspector.queries.kernels``) and, for each traced failure, the slice of the model its trace read
(``ModelIndex.slice``): nothing is parsed whole, so a package of 20,000 kernels is reported in seconds.

A chain is typed (issue 21 §1: every sentence is in inspector/explain/): each node a ``code`` and the ``facts``
its words use, each edge a code, each source panel a `Panel`; `inspector.explain.report` words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..explain import report as say
from ..graph import ids
from ..model import Kernel, Model
from ..package import Package
from .kernels import KernelRow, kernel_rows
from .show import ShowResult
from .trace import TraceMatch, TraceResult

if TYPE_CHECKING:
    from .diagnose.results import Diagnosis

CONTEXT = 6  # lines either side of a marked line in the source panel
MAX_TRACES = 20  # matches drawn; a bare message can match every assertion of a big package


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
# A trace as a small graph: typed nodes (a code and its facts, a kind drawn, the source to show on click)
# ---------------------------------------------------------------------------


@dataclass
class Panel:
    """Source lines to show: ``lines`` (``[[n, text], …]``) of member ``file``, line ``mark`` marked (None: none).
    ``view``: what they are — "wrapper" (wrapper.cpp's lines), "kernel" (kernel ``kernel``'s, numbered as its
    ``backend`` numbers them), "signature" (its first lines, where its params are named), "around" (the lines
    around its assert that the trace quotes).  Titled by `inspector.explain.report.panel_title`."""

    file: str
    view: str
    lines: list[list]
    mark: int | None
    kernel: str | None = None
    backend: str | None = None


@dataclass
class Node:
    """One box of a chain.  ``code``: what it is, ``facts``: the names and numbers its words use (both listed in
    `inspector.explain.report`, which says them: ``label``, ``detail``); ``kind``: how it is drawn."""

    key: str
    kind: str  # assertion | param | call | symbol | input | tmp | buffer | kernel | constant | value | end
    code: str
    facts: dict = field(default_factory=dict)
    source: Panel | None = None

    @property
    def label(self) -> str:
        return say.node_label(self)

    @property
    def detail(self) -> str:
        return say.node_detail(self)


@dataclass
class Chain:
    """Nodes by key, edges ``(from, to, code)`` (`inspector.explain.report.EDGES` names each code), the root."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    root: str = ""

    def add(self, node: Node) -> str:
        self.nodes.setdefault(node.key, node)
        return node.key

    def link(self, a: str, b: str, code: str = "") -> None:
        if a != b and (a, b, code) not in self.edges:
            self.edges.append((a, b, code))


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

    def wrapper_at(self, line: int | None, before: int = CONTEXT, after: int = CONTEXT) -> Panel | None:
        if not line or not self.wrapper:
            return None
        return Panel(self.m.wrapper_member, "wrapper", _lines(self.wrapper, 1, line, before, after), line)

    def kernel_at(self, k: Kernel | None, line: int | None) -> Panel | None:
        if k is None or not k.lines():
            return None
        return Panel(k.source_file, "kernel", _lines(k.source, k.line_base, line), line, k.name, k.backend)

    def kernel_head(self, k: Kernel | None) -> Panel | None:
        """The kernel's signature and first lines (where its params are named)."""
        if k is None or not k.lines():
            return None
        # A CPU kernel's lines are its whole kernel.cpp (line_base + i is file line i): its own signature is at
        # first_line (from the file's top, every CPU kernel showed the first kernel's signature)
        start = max(k.first_line - k.line_base, 0) if k.backend == "cpp" else 0
        first = next((i for i in range(start, len(k.source))
                      if "def " in k.source[i] or "extern \"C\"" in k.source[i] or "void " in k.source[i]), start)
        return Panel(k.source_file, "signature",
                     _dedent([[k.line_base + i, k.source[i]] for i in range(first, min(len(k.source), first + 12))]),
                     None, k.name, k.backend)


def _tmp_def(k: Kernel, name: str, before: float):
    best = None
    for t in k.tmps:
        if t.name == name and t.line < before and (best is None or t.line > best.line):
            best = t
    return best


def _bound_term(c: Chain, m: Model, src: "_Sources", mt: TraceMatch, k: Kernel | None, bc, call_line: int | None) -> None:
    """One size parameter of the bound: param -> call argument -> symbol (and aliases) -> input dim."""
    def call_arg() -> str:
        return c.add(Node(f"call:{call_line}:{bc.call_arg}", "call", "call_arg", {"arg": bc.call_arg, "line": call_line},
                          src.wrapper_at(call_line, 3, 2)))

    if k is not None:
        p = c.add(Node(f"param:{mt.kernel}:{bc.kernel_param}", "param", "bound_param",
                       {"param": bc.kernel_param, "kernel": mt.kernel}, src.kernel_head(k)))
        c.link(c.root, p, "bound")
        ca = call_arg()
        c.link(p, ca, "bound_at_call")
    else:  # an extern op: no kernel params, the bound is an argument of the call itself
        ca = call_arg()
        c.link(c.root, ca, "bound")
    prev = ca
    for al in ([bc.symbol] if bc.symbol and bc.symbol != bc.call_arg else []) + list(bc.aliases):
        sy = m.symbols.get(al)
        n = c.add(Node(f"sym:{al}", "symbol", "symbol", {"name": al, "expr": sy.expr if sy else ""},
                       src.wrapper_at(sy.line if sy else None, 2, 2)))
        c.link(prev, n, "alias")
        prev = n
    if bc.definition:
        d = c.add(Node(f"def:{bc.symbol or bc.call_arg}", "symbol", "definition",
                       {"name": bc.symbol or bc.call_arg, "definition": bc.definition, "line": bc.definition_line},
                       src.wrapper_at(bc.definition_line, 2, 2)))
        c.link(prev, d, "defined_as")
        prev = d
    if bc.input:
        inp = m.inputs[bc.input.index] if bc.input.index < len(m.inputs) else None
        guards = [g.line for g in (inp.guards if inp else []) if g.dim == bc.input.dim]
        n = c.add(Node(f"input:{bc.input.index}:dim{bc.input.dim}", "input", "input_dim",
                       {"index": bc.input.index, "name": bc.input.name, "dim": bc.input.dim, "min": bc.min, "max": bc.max},
                       src.wrapper_at(guards[0], 2, 6) if guards else None))
        c.link(prev, n, "size_of")
    else:
        n = c.add(Node(f"bound:unresolved:{bc.kernel_param}", "end", "bound_unresolved", {"param": bc.kernel_param}))
        c.link(prev, n)


def trace_model(pkg: Package, matches: list[TraceMatch], model: str) -> Model:
    """What the chains of ``matches`` in ``model`` read: the slice of the model around their kernels' launches
    (and, for an extern op, around its call), as `trace_assert` reads it; the whole parse only when it is
    there already."""
    mine = [mt for mt in matches if mt.model == model]
    return pkg.index(model).slice(kernels=[mt.kernel for mt in mine if mt.kernel_kind != "extern"],
                                  call_lines=[mt.file_line for mt in mine if mt.kernel_kind == "extern"])


def _step_node(m: Model, src: "_Sources", st, cur: Kernel | None, before: dict[str, float]) -> tuple[Node, Kernel | None]:
    """The node of one step of an index origin's path (a `walk.Step`, drawn by its kind), and the kernel the
    steps after it are in."""
    step = st.name
    if st.kind == "kernel" and step in m.kernels:
        cur = m.kernels[step]
        before[step] = float("inf")
        site = next((s for s in m.calls if s.target == step), None)
        return Node(f"kernel:{step}", "kernel", "writer", {"kernel": step, "line": site.line if site else None},
                    src.wrapper_at(site.line, 3, 2) if site else src.kernel_head(cur)), cur
    if st.kind in ("kernel_param", "store") and cur is not None and cur.param(step):
        return Node(f"param:{cur.name}:{step}", "param", "param", {"param": step, "kernel": cur.name},
                    src.kernel_head(cur)), cur
    if st.kind in ("tmp", "loop_index") and cur is not None and (
            t := _tmp_def(cur, step, before.get(cur.name, float("inf")))) is not None:
        before[cur.name] = t.line
        text = (cur.source_line(t.line) or "").strip().removeprefix("auto ").rstrip(";")
        code = text if text.startswith(step) else f"{step} = {t.expr}"
        return Node(f"tmp:{cur.name}:{t.line}", "tmp", "tmp", {"code": code, "kernel": cur.name, "line": t.line},
                    src.kernel_at(cur, t.line)), cur
    if st.kind in ("buffer", "handle") and step in m.buffers:
        bd = m.buffers[step]
        return Node(f"buf:{step}", "buffer", "buffer", {"name": step, "kind": bd.kind, "line": bd.line},
                    src.wrapper_at(bd.line, 2, 2)), cur
    if st.kind == "input":
        inp = next((i for i in m.inputs if ids.input_(i.index) == st.node_id), None)
        if inp is None:
            return Node(f"v:{step}", "input", "value", {"name": step}), cur
        guards = [g.line for g in inp.guards]
        return Node(f"input:{inp.index}", "input", "input",
                    {"index": inp.index, "name": inp.name, "dtype": inp.dtype, "shape": list(inp.shape)},
                    src.wrapper_at(guards[0], 2, 6) if guards else None), cur
    if st.kind == "constant" and step in m.constant_bindings:
        const = next((x for x in m.constants if x.index == m.constant_bindings[step]), None)
        return Node(f"const:{step}", "constant", "constant", {"name": step, "fqn": const.fqn if const else None}), cur
    return Node(f"v:{step}", "value", "value", {"name": step}), cur


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
    extern = mt.kernel_kind == "extern"
    # An extern ATen op checks inside ATen: its "line" is the wrapper.cpp line of the failing call.
    at = src.kernel_at(k, mt.file_line) if k is not None else src.wrapper_at(mt.file_line, 3, 2)
    c.root = c.add(Node(f"assert:{mt.kernel}:{mt.file_line}", "assertion", "assertion",
                        {"kernel": mt.kernel, "line": mt.file_line, "message": a.message, "extern": extern}, at))

    # The bound.
    if mt.static_bound is not None:
        b = c.add(Node("bound:static", "constant", "static_bound",
                       {"expr": a.bound_expr, "value": mt.static_bound, "in_kernel": k is not None}, at))
        c.link(c.root, b, "bound")
    elif mt.bound:
        # Every size parameter of the bound (one, or several in a compound bound such as `ks0 + ks1`).
        for t in (mt.bound.terms or [mt.bound]):
            _bound_term(c, m, src, mt, k, t, call_line)

    # Where the index comes from.
    for o in mt.index_origin:
        prev = c.root
        cur = k
        before: dict[str, float] = {mt.kernel: mt.file_line}
        code = "index"
        for st in o.path:  # each step is typed where the walk took it (`walk.Step`): drawn by its kind
            node, cur = _step_node(m, src, st, cur, before)
            key = c.add(node)
            c.link(prev, key, code)
            code = ""
            prev = key
        end = None
        if o.constant and f"const:{o.constant}" not in c.nodes:
            end = Node(f"const:{o.constant}", "constant", "constant", {"name": o.constant, "fqn": None})
        elif o.computed:
            end = Node(f"end:computed:{o.computed}", "end", "computed", {"text": o.computed})
        elif o.unresolved:
            end = Node(f"end:unresolved:{o.unresolved}", "end", "stopped", {"text": o.unresolved})
        if end is not None:
            c.link(prev, c.add(end))
    return c




# ---------------------------------------------------------------------------
# The report: every traced failure with its chain, the summary and the kernels
# ---------------------------------------------------------------------------


@dataclass
class TracedFailure:
    """One drawn match: its chain, the kernel lines around the assert and the wrapper.cpp lines of (up to
    three of) its call sites, each a source `Panel`."""

    match: TraceMatch
    chain: Chain
    snippet: Panel
    calls: list[Panel | None]


@dataclass
class ReportResult:
    summary: ShowResult
    trace: TraceResult | None  # None: no log given
    traced: list[TracedFailure]  # the first MAX_TRACES matches
    kernels: list[KernelRow]
    diagnosis: Diagnosis | None = None  # diagnose's Diagnosis, when a log was given and no assertion matches it

    @property
    def exit_code(self) -> int:
        """diagnose's exit code when diagnose answered, else 1 when a log matched nothing (never: diagnose
        answers then), else 0."""
        if self.diagnosis is not None:
            return self.diagnosis.exit_code
        return 0 if self.trace is None or self.trace.matches else 1


def report(pkg: Package, log: str | None = None, *, model: str | None = None, ep=None) -> ReportResult:
    """What `pt2-inspect report` draws.  ``ep``: an exported program (``--ep``) whose user names and lines the
    traces use; by default the one the package carries, if any."""
    from .show import summarize
    from .trace import trace_assert

    from ..logs import parse_log

    summary = summarize(pkg, model)
    read = parse_log(log) if log is not None else None  # the log read once: the trace and diagnose share it
    r = trace_assert(pkg, report=read, model=model, ep=ep) if read is not None else None
    drawn = (r.matches if r else [])[:MAX_TRACES]
    models = {n: trace_model(pkg, drawn, n) for n in dict.fromkeys(mt.model for mt in drawn)}
    sources = {n: _Sources(pkg, m) for n, m in models.items()}
    traced = []
    for mt in drawn:
        src = sources[mt.model]
        chain = trace_chain(pkg, mt, models[mt.model], src)
        traced.append(TracedFailure(
            mt, chain,
            snippet=Panel(mt.source_file, "around", _dedent([[n, t] for n, t in mt.snippet]), mt.file_line, mt.kernel),
            calls=[src.wrapper_at(ln, 4, 2) for ln in mt.call_sites[:3]]))
    kernels = [k for name in ([model] if model else pkg.model_names) for k in kernel_rows(pkg, name)]
    diagnosis = None
    if r is not None and not r.matches:  # no single trace: the report says what diagnose says
        from .diagnose import diagnose

        diagnosis = diagnose(pkg, read, model=model, ep=ep)
    return ReportResult(summary, r, traced, kernels, diagnosis)
