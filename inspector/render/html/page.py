"""The report's page: the verdict, the summary, each traced failure (its SVG and the data the page's script
draws its code panels from) and the kernel list, filled into the templates with JSON islands.  Nothing is
fetched when the page is viewed.

The kernel list is embedded as JSON and drawn by the page 100 rows at a time, so a package of 20,000
kernels costs a few MB of data but only 100 table rows in the DOM.  Every code table (the node panel, the
lines around the assert, the call sites) is drawn by the page's script from the trace data, once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...explain import report as say
from ...queries.report import MAX_TRACES, ReportResult, TracedFailure
from ...queries.report_panels import Panel
from ...queries.show import ShowResult
from ...queries.trace import TraceResult
from . import esc as _e, fill, json_island, load
from .svg import chain_svg

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


def _panel(p: Panel | None) -> dict | None:
    """A source panel as the page's script reads it: ``{"file", "what", "lines", "mark"}`` (its title in ``what``;
    a signature's keys in the order the pages have always had them)."""
    if p is None:
        return None
    if p.view == "signature":
        return {"file": p.file, "what": say.panel_title(p), "mark": p.mark, "lines": p.lines}
    return {"file": p.file, "what": say.panel_title(p), "lines": p.lines, "mark": p.mark}


def _trace_html(i: int, tf: TracedFailure) -> tuple[str, dict]:
    """One traced failure's section, and its data for the page's script: the chain's nodes, the kernel lines
    around the assert, the wrapper.cpp lines of its call sites."""
    mt, chain = tf.match, tf.chain
    data = {"nodes": [{"label": n.label, "kind": n.kind, "detail": n.detail, "source": _panel(n.source)}
                      for n in chain.nodes.values()],
            "snippet": _panel(tf.snippet),
            "calls": [_panel(p) for p in tf.calls]}
    stacks = "".join(f"<pre>{_e(s)}</pre>" for s in mt.stack_traces)
    body = fill(
        "trace.html", i=str(i), message=_e(mt.assertion.message), model=_e(mt.model), kernel=_e(mt.kernel),
        line=str(mt.file_line), how="exact" if mt.exact else "candidate", matched_by=_e(mt.matched_by),
        verdict=_e(mt.verdict), certainty=_e(mt.certainty),
        explanation="".join(f"<li><b>[{_e(h.certainty)}]</b> {_e(h.sentence)}"
                            + "".join(f"<br><small>evidence: {_e(e)}</small>" for e in h.evidence) + "</li>"
                            for h in mt.hypotheses)
        + "".join(f"<li class=\"note\">note: {_e(x)}</li>" for x in mt.notes)
        + "".join(f"<li class=\"note\">tell them apart: <code>{_e(c)}</code></li>" for c in mt.confirm), svg=chain_svg(chain, i),
        plural="s" if len(mt.call_sites) > 1 else "", source_nodes=_e(", ".join(mt.source_nodes)),
        derived=" (derived from the kernel name)" if mt.source_nodes_derived else "",
        aten=("<br><b>ATen</b> " + _e(", ".join(mt.aten_ops))) if mt.aten_ops else "",
        stacks=f"<details><summary>user stack traces</summary>{stacks}</details>" if stacks else "")
    return body, data


@dataclass
class ReportPage:
    """The page, and what `pt2-inspect report --json` says of it (with the output's name and size)."""

    html: str
    verdict: str
    traces: int
    kernels: int
    looked_for: str | None

    def info(self) -> dict:
        return {"verdict": self.verdict, "traces": self.traces, "kernels": self.kernels, "looked_for": self.looked_for}


def render_report(res: ReportResult) -> ReportPage:
    """The whole report of ``res`` (`inspector.queries.report.report`) as one self-contained HTML page."""
    summary, r = res.summary, res.trace
    traces, trace_data = [], []
    for i, tf in enumerate(res.traced):
        body, data = _trace_html(i, tf)
        traces.append(body)
        trace_data.append(data)
    kernels = [[k.model, k.name, k.kind, k.launches, [list(a) for a in k.assertions], k.inputs, k.fx_nodes]
               for k in res.kernels]
    notes = ""
    if r is not None:
        notes = "".join(f'<p class="note"><b>context:</b> {_e(x)}</p>' for x in r.context)
        notes += "".join(f'<p class="warn"><b>hint:</b> {_e(x)}</p>' for x in r.hints)
        if r.ambiguous:
            notes += (f'<p class="warn">ambiguous: {len(r.matches)} assertions match {_e(r.looked_for)}; ranked below'
                      + (f" (the first {MAX_TRACES} drawn)" if len(r.matches) > MAX_TRACES else "") + "</p>")
    verdict = _verdict(summary, r)
    d = res.diagnosis
    if d is not None:  # no single trace: say what diagnose says, with its candidates / suspects
        verdict = f"{'○' if d.category == 'no_failure' else '✗'} {d.category}: {d.verdict}"  # nothing failed: no cross
        notes += "".join(f'<p class="note"><b>evidence:</b> <code>{_e(e.quote)}</code></p>' for e in d.evidence[:6])
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
    return ReportPage(page, verdict, len(traces), len(kernels), r.looked_for if r else None)


def _step_env(st) -> str:
    """A step's environment variables and when they act, as diagnose prints them (the command to run)."""
    if not st.env:
        return ""
    env = " ".join(f"{k}={v}" for k, v in st.env.items())
    when = {"compile": " (at compile time: recompile)", "run": " (at run time)"}.get(st.when or "", "")
    return f'<br><code class="env">{_e(env)}</code>{_e(when)}'

