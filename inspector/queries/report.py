"""What the HTML report (`pt2-inspect report`) computes, as typed records: the matched assertions, each one's
chain from the assertion through its bound and index origin to the inputs (`report_chain`), the source lines those
chains show (`report_panels`), the kernel list, and diagnose's answer when no assertion matches.  Drawn by
`inspector.render.html`.

It reads ``summarize`` and ``trace_assert`` results, the kernel list of the lazy index's scan
(``inspector.queries.kernels``) and, for each traced failure, the slice of the model its trace read
(``ModelIndex.slice``): nothing is parsed whole, so a package of 20,000 kernels is reported in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..package import Package
from .kernels import KernelRow, kernel_rows
from .report_chain import Chain, trace_chain, trace_model
from .report_panels import Panel, _dedent, _Sources
from .show import ShowResult
from .trace import TraceMatch, TraceResult

if TYPE_CHECKING:
    from .diagnose.results import Diagnosis


MAX_TRACES = 20  # matches drawn; a bare message can match every assertion of a big package


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
