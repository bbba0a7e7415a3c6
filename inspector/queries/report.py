"""What the HTML report (`pt2-inspect report`) computes, as typed records: the matched assertions, each one's
chain from the assertion through its bound and index origin to the inputs, the slices of the model those chains
read, the kernel list, and diagnose's answer when no assertion matches.  Drawn by `inspector.render.html`.

It reads ``summarize`` and ``trace_assert`` results, the kernel list of the lazy index's scan
(``inspector.queries.kernels``) and, for each traced failure, the slice of the model its trace read
(``ModelIndex.slice``): nothing is parsed whole, so a package of 20,000 kernels is reported in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
        what = f"{k.name} ({'its .py numbering' if k.backend == 'triton' else 'kernel.cpp'})"
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
# The report: every traced failure with its chain, the summary and the kernels
# ---------------------------------------------------------------------------


@dataclass
class TracedFailure:
    """One drawn match: its chain, the kernel lines around the assert and the wrapper.cpp lines of (up to
    three of) its call sites, each a source panel ``{"file", "what", "lines", "mark"}``."""

    match: TraceMatch
    chain: Chain
    snippet: dict
    calls: list[dict | None]


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

    summary = summarize(pkg, model)
    r = trace_assert(pkg, log=log, model=model, ep=ep) if log is not None else None
    drawn = (r.matches if r else [])[:MAX_TRACES]
    models = {n: trace_model(pkg, drawn, n) for n in dict.fromkeys(mt.model for mt in drawn)}
    sources = {n: _Sources(pkg, m) for n, m in models.items()}
    traced = []
    for mt in drawn:
        src = sources[mt.model]
        chain = trace_chain(pkg, mt, models[mt.model], src)
        traced.append(TracedFailure(
            mt, chain,
            snippet={"file": mt.source_file, "what": f"{mt.kernel} around line {mt.file_line}",
                     "lines": _dedent([[n, t] for n, t in mt.snippet]), "mark": mt.file_line},
            calls=[src.wrapper_at(ln, 4, 2) for ln in mt.call_sites[:3]]))
    kernels = [k for name in ([model] if model else pkg.model_names) for k in kernel_rows(pkg, name)]
    diagnosis = None
    if r is not None and not r.matches:  # no single trace: the report says what diagnose says
        from .diagnose import diagnose

        diagnosis = diagnose(pkg, log, model=model, ep=ep)
    return ReportResult(summary, r, traced, kernels, diagnosis)
