"""trace-assert on a log: the trace, and where the log holds no check, what it is.

``trace_log`` is the command's and the library's entry for a log (``inspector.trace_assert(pkg, log)``): the trace
(`inspector.queries.trace.trace_assert`) on the log's one reading, then, when it found no check and no device-side
assert to list candidates for, diagnose on that same reading with that same trace (so the two cannot disagree about
what the log is).  The answer then says, first, what the log is (diagnose's category) and that no assert fired.
It sits above both: diagnose asks trace-assert for traces, and trace-assert does not know diagnose.
"""

from __future__ import annotations

import inspector.explain.headline as headline
import inspector.explain.trace as say
from ..logs import LogReport
from ..package import Package
from .trace import TraceResult, trace_assert

# The categories whose error a later call reports (the calls that noticed it are context, not the failure).
ASYNC_CATEGORIES = ("illegal_memory_access", "device_assert")


def trace_log(pkg: Package, report: LogReport, **kw) -> TraceResult:
    """``trace_assert(pkg, report=report, **kw)``, and, when the log holds no check, diagnose's word on it."""
    res = trace_assert(pkg, report=report, **kw)
    # a check in the log (matched, foreign or a bare message) is trace-assert's to answer, as is a search
    if res.matches or res.candidates or report.asserts or any(kw.get(k) for k in ("line", "message", "kernel")):
        return res
    classify(pkg, res, report, kw.get("model"), kw.get("ep"))
    return res


def classify(pkg: Package, res: TraceResult, report: LogReport, model: str | None, ep) -> None:
    """Fill ``res`` with diagnose's category and verdict on the same report (the trace made already is the one
    diagnose reads), and a first line that says what the log is and that no assert fired.  The calls that noticed
    an error stay as context only for an error that surfaces later (CUDA's asynchronous errors); an allocation that
    failed, a missing op or a load is the failure itself, which diagnose's verdict names."""
    from .diagnose import diagnose  # on first use: a trace of a log with a check never loads diagnose's rules

    d = diagnose(pkg, report, model=model, ep=ep, traced=res)
    res.assert_fired = False
    res.log_category, res.log_verdict = d.category, d.verdict
    res.verdict = say.not_an_assert(d.category)
    res.headline = headline.not_an_assert(res.verdict, d.category)
    res.certainty, res.certainty_basis = d.certainty, d.certainty_basis
    res.evidence = [e.quote for e in d.evidence]
    if d.category not in ASYNC_CATEGORIES:
        res.context = []
