"""trace-assert: from a failing check to its kernel, size parameter, symbol, model input and FX nodes.

The debugging guide's six greps, as graph walks (inspector.queries.bound_walk, index_walk):

1. the assertion (kernel, line, index var, bound) — inspector.queries.match;
2. each size parameter ``ksM`` of the bound -> the call-site argument ``sN`` -> its
   definition ``argK_1_size[d]`` -> model input K, dim d -> the range its guards allow;
3. where the index values come from: ``tmpN`` definitions -> loads from
   ``in_ptrK`` (or this kernel's own earlier stores) -> call argument -> (buffer ->
   the kernel or extern op that wrote it -> …) until a model input or constant;
4. the source FX nodes (the comment above the call, provenance, or derived from
   the kernel name), ATen ops and, with an exported program, the user's lines;
5. a verdict and ranked hypotheses (inspector.explain).

A failure inside an extern ATen op (a CPU exception named at the call, an ATen CUDA kernel
assert) becomes a match whose ``kernel`` is the extern op (``kernel_kind`` "extern").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import inspector.explain as words
import inspector.explain.headline as headline
import inspector.explain.trace as say
from ..errors import UsageError
from ..logs import LogReport, OpError, parse_log, stated_failure
from ..parse.names import numbering_shape
from ..dialects.metadata import DEVICE_KEY
from ..model import Assertion, CallSite, Kernel, Model
from ..naming import ALLOC_OR_COPY_SHIMS, PROXY_CALL
from ..package import Package
# The per-assertion explanation lives in its own module, so `candidates` can use it without importing this one.
from .explanation import (ExternCheck, Hypothesis, TraceMatch, assertion_dict, explain, explain_extern,  # noqa: F401
                          reason)  # (the API's types)
from .positions import PositionBound, reduction_position
from .match import (CANDIDATES, assertions_where, extern_calls, extern_sites_for_aten, find_for_report, index_args, message_in,
                    norm_msg, site_for_noticed)
from .index_walk import value_table
from .element import name_elements
from .walk import path_names

GUARD_NOTE = words.GUARD_NOTE
_value_table = value_table  # its old name (it moved to `walk`, which `suspects` imports without a circle)


@dataclass
class TraceResult:
    package: str
    matches: list[TraceMatch]
    looked_for: str
    ambiguous: bool = False
    context: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    verdict: str = ""  # in full
    headline: str = ""  # the first line: the verdict in plain words (explain.headline), ≤ 120 with its label
    candidates: list[dict] = field(default_factory=list)  # a device assert without its line: ranked suspects
    exported_program: str | None = None
    certainty: str = "possible"  # of the verdict (matches[0]'s, or "possible" when it is ambiguous)
    certainty_basis: str = "no_evidence"  # what that certainty rests on (inspector.queries.causes.BASES)
    evidence: list[str] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)  # commands that tell the alternatives apart
    # A log given: whether it shows a check that fired (an Assertion line, a CPU check, an ATen kernel's assert, an
    # extern op's error, or `device-side assert triggered`); None when no log was given.
    assert_fired: bool | None = None
    # A log with no check in it: what diagnose, on the same reading, says it is (its category and verdict).
    log_category: str | None = None
    log_verdict: str = ""

    def to_dict(self) -> dict:
        d = asdict(self)
        for md in d["matches"]:
            md.pop("decided", None)  # the typed decision: the JSON has its words
        if self.log_category is None:  # a log with a check in it (or none given): the trace says what it is
            del d["assert_fired"], d["log_category"], d["log_verdict"]
        for m, md in zip(self.matches, d["matches"], strict=True):
            md["complete"] = m.complete
            md["assertion"] = assertion_dict(m.assertion)
            md["table"] = m.table.to_dict() if m.table is not None else None
            if m.branch is None:  # a kernel at the top level (most): no key, as before issue 35 §3
                del md["branch"]
            for o, od in zip(m.index_origin, md["index_origin"], strict=True):
                od["path"] = path_names(o.path)
            md["snippet"] = [{"line": ln, "text": t} for ln, t in m.snippet]
            md["hypotheses"] = [{"text": h.sentence, "certainty": h.certainty, "evidence": list(h.evidence),
                                 "kind": h.kind, "basis": h.basis} for h in m.hypotheses]
            if md.get("position") and md["position"]["op"] != "loop":  # a loop position's own fields
                del md["position"]["loop_index"], md["position"]["grid"]
        return d


def trace_assert(pkg: Package, *, line: int | None = None, message: str | None = None,
                 report: LogReport | None = None, kernel: str | None = None, model: str | None = None, ep=None,
                 log_name: str | None = None, sizes: dict | None = None) -> TraceResult:
    """Trace one failing check.  Give the log as read (``report``: ``inspector.logs.parse_log``), or ``line`` and/or
    ``message``/``kernel`` (a ``message`` without a report is read here, once, as the paste it is).

    ``ep``: an ``ExportedProgramInfo`` (``--ep``); by default the one the package carries, if any.  ``log_name``:
    the file the log was read from, named in the repro command an answer gives.  ``sizes``: input index -> the sizes
    the failing run used, to place an element where a size is a symbol.  A log that holds no check is
    classified by diagnose on the same report by ``inspector.queries.trace_log.trace_log`` (the command's and the
    library's entry: this query does not know diagnose, which asks it for traces)."""
    if model is not None:
        pkg.files(model)  # raises a UsageError naming the models when it is not there
    if report is None and line is None and message is None and kernel is None:
        raise UsageError(say.SAY_WHAT_FAILED)
    cands: list[tuple[Model, Kernel, Assertion, bool, str]] = []
    looked: list[str] = []
    from_log = report is not None  # a log was given, not only a message
    if report is None:
        report = parse_log(message) if message else LogReport()
    located = [r for r in report.asserts if r.kind not in ("message", "aten")]  # with a file and line
    extern = _extern_matches(pkg, report, model)
    if not located and not extern and from_log and not (line or message or kernel):
        bare = [r.message for r in report.asserts if r.kind == "message"]
        if not bare:
            res = TraceResult(package=str(pkg.path), matches=[], hints=words.log_hints(report.hint_codes),
                              looked_for=say.NO_CHECK_IN_LOG,
                              context=_context(pkg, report, model))
            res = _with_candidates(pkg, res, report, model)
            res.assert_fired = bool(res.candidates)
            return res
        message = bare[0]
    for r in located:
        looked.append(say.looked_for_report(r.kind, r.message, f"{r.file_name}:{r.line}" if r.file else None))
        for c in find_for_report(pkg, r, model):
            if kernel and c[1].name != kernel:
                continue
            cands.append(c)
    if not located and not extern:
        if message is not None and not from_log:
            bare = [r.message for r in report.asserts if r.kind == "message"]
            message = bare[0] if bare else message
        looked.append(say.looked_for_filter(line, _quote(message) if message else None, kernel))
        has_msg = message_in(message)
        for name, k, a in assertions_where(
                pkg, model,
                lambda s: (line is None or s.line == line) and (not kernel or s.kernel == kernel) and has_msg(s),
                lambda k, a: not message or norm_msg(a.message) == norm_msg(message), limit=CANDIDATES):
            cands.append((name, k, a, False, "line" if line else "filter"))
    seen = set()
    uniq = []
    for c in sorted(cands, key=lambda c: (not c[3], c[1].backend != "triton", c[0], c[1].name, c[2].line)):
        key = (c[0], c[1].name, c[2].line)
        if key not in seen:
            seen.add(key)
            uniq.append(c)
    if len(uniq) > CANDIDATES and not uniq[CANDIDATES - 1][3]:
        looked.append(say.too_many_candidates(CANDIDATES))
        uniq = uniq[:CANDIDATES]
    eps = _eps(pkg, ep, model)
    # Each model is read only as far as its matched kernels need: their launches, the names those use, the
    # writers of the buffers they read (a slice; `inspector.index.model_index`).
    slices = {n: pkg.index(n).slice(kernels=[c[1].name for c in uniq if c[0] == n]) for n in dict.fromkeys(c[0] for c in uniq)}
    matches = [explain(pkg, slices[n], k, a, exact, how, ep=eps.get(n)) for n, k, a, exact, how in uniq]
    for m, site, how, said in extern:
        looked.append(say.looked_for_extern(site.target, site.line))
        matches.append(explain_extern(pkg, m, site, how, said.message, ep=eps.get(m.name), said=said))
    n_reports = max(1, len(located))
    ambiguous = len(matches) > n_reports or (bool(matches) and not any(x.exact for x in matches) and len(matches) > 1)
    warnings = [f"model {n!r}: {w}" for n in ([model] if model else pkg.model_names) for w in pkg.index(n).warnings]
    res = TraceResult(package=str(pkg.path), matches=matches, looked_for="; ".join(looked), ambiguous=ambiguous,
                      context=_context(pkg, report, model, skip={(x[1].line) for x in extern}),
                      hints=words.log_hints(report.hint_codes) + warnings + _ep_notes(pkg, eps))
    res.exported_program = next((e.source for e in eps.values() if e), None)
    res.assert_fired = bool(located or extern or report.asserts) if from_log else None
    for n, mt in zip([c[0] for c in uniq], matches):  # an index that is an argmax's position: the size bounds it
        if mt.position is None:
            mt.position = _reduction_position(slices[n], mt)
    from .branches import branch_context

    for n, mt in zip([c[0] for c in uniq], matches):  # a kernel of a torch.cond branch or while_loop body: which
        mt.branch = branch_context(pkg, n, mt)
    cut = report.mentions("elided")  # a cut log: a thread it does not list may have failed all the same
    for mt in matches:  # the log's thread evidence, and the positions, rank the hypotheses (and word an argmax's)
        first, line = _first_thread_failed(located, mt)
        if cut and first is False:
            first, line = None, None
        if first is not None or mt.position is not None:
            reason(pkg, mt, len(mt.call_sites), first_thread_failed=first, thread_line=line)
    for n, mt in zip([c[0] for c in uniq], matches):  # the element each printed thread held (issue 35 §1)
        r = _report_for(located, mt)
        if r is not None and mt.kernel_kind != "extern":
            k = slices[n].kernels.get(mt.kernel)
            if k is not None:
                mt.element = name_elements(slices[n], pkg.index(n), k, mt.assertion, r,
                                           mt.index_origin[0] if mt.index_origin else None, mt.bound, sizes)
    for mt in matches:  # the element and the branch known: the first line says them (`ids[2, 1]`, false branch)
        if mt.decided is not None and (mt.element is not None or mt.branch is not None):
            mt.headline = headline.trace_headline(mt.decided, mt, headline.MATCH_BUDGET)
    if log_name:
        for mt in matches:
            mt.confirm = words.confirm_commands(str(pkg.path), log_name) if mt.confirm else []
    if matches:
        res.verdict, res.headline = matches[0].verdict, matches[0].headline
        res.certainty, res.evidence, res.confirm = matches[0].certainty, list(matches[0].evidence), list(matches[0].confirm)
        res.certainty_basis = matches[0].certainty_basis
        if res.ambiguous:  # several assertions match: which one fired is itself unknown
            res.certainty, res.certainty_basis = "possible", "rival"
        # An ATen kernel's own assert names no call: with several calls of the op that launches it, leading with one
        # would be a guess.  Every call is listed; CUDA_LAUNCH_BLOCKING=1 makes the failing one report itself.
        aten = next((r for r in report.asserts if r.kind == "aten"), None)
        calls = [mt for mt in matches if mt.kernel_kind == "extern"]
        if aten is not None and len(calls) > 1:
            res.ambiguous = True
            res.verdict = words.ambiguous_aten_verdict(aten.kernel, calls)
            res.headline = headline.ambiguous_aten(aten.kernel, len(calls), calls[0].kernel)
            res.certainty, res.certainty_basis = "possible", "rival"
        return res
    if located:  # the log names its check's file and line, and nothing here is it: never guess among ours
        res.verdict, note, res.headline = _foreign(pkg, located, model)
        res.hints.append(note)
        return res
    return _with_candidates(pkg, res, report, model, message=message)


def _report_for(located, mt):
    """The log's located check this match was found for: a CUDA assert at the kernel's line, else the first."""
    same = [r for r in located if r.line == mt.file_line] or located
    return same[0] if same else None


def _reduction_position(m: Model, mt) -> PositionBound | None:
    """The position an argmax-like reduction found, when an index origin passes through one (positions)."""
    return reduction_position(m, mt.index_origin)


def _first_thread_failed(located, mt) -> tuple[bool | None, str | None]:
    """Whether the CUDA assert this match was found for printed thread [0,0,0] of block [0,0,0] (None: no
    thread lines for it, or not exact), and the log's line that says so (or one it lists)."""
    for r in located:
        if r.kind == "cuda" and r.threads and mt.exact and r.line == mt.file_line:
            failed = ("0,0,0", "0,0,0") in r.threads
            b, th = r.threads[0]
            return failed, say.thread_evidence(failed, b, th, len(r.threads))
    return None, None


def _foreign(pkg, located, model) -> tuple[str, str, str]:
    """The log's located checks match no assertion of this package: it comes from another package or build.
    When an assertion here differs from the log's only in its numbering (tmp9 / tmp12, ks0 / ks1: another torch
    or config compiled the same model), say which."""
    shape = numbering_shape
    want = {shape(r.message) for r in located if r.message}
    same = []
    for n in [model] if model else pkg.model_names:
        for site in pkg.index(n).assert_sites():
            msg = site.message
            if msg and shape(msg) in want:
                same.append((n, site.kernel, site.line, msg))
    r = located[0]
    said = say.log_check(r.message, f"{r.file_name}:{r.line}" if r.file else None)
    if same:
        n, k, line, msg = same[0]
        return (*say.foreign_numbering(said, k, line, msg), headline.FOREIGN_NUMBERING)
    return (*say.foreign(said), headline.FOREIGN)


def _quote(text: str, limit: int = 160) -> str:
    """A pasted message as one short line for "nothing found …": the line that states the failure (not a
    Python traceback's or C++ stack's framing: ``inspector.logs.stated_failure``), cut at ``limit``.  The whole
    paste (a log, with frames and the user's own Python traceback) is never echoed back."""
    first, lines = stated_failure(text)
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    return say.quoted_paste(first, lines)


def _with_candidates(pkg, res: TraceResult, report: LogReport, model, message: str | None = None) -> TraceResult:
    """No assertion line: when the log's recognised lines (or the message given) say a device-side assert fired
    (`device-side assert triggered`), list the suspects.  A cuBLAS error, an illegal access or a failed call alone
    is no sign of an assert: the log is then classified instead (``inspector.queries.trace_log``)."""
    said = report.events_say("device_assert_said") or "device-side assert" in (message or "")
    if all(pkg.index(n).metadata.get(DEVICE_KEY) == "cpu" for n in ([model] if model else pkg.model_names)):
        return res  # no device-side asserts on CPU: a failed call there is the failure itself
    if said or report.has("device_side_assert"):
        from .candidates import assert_candidates

        res.candidates = assert_candidates(pkg, report, model)
        if res.candidates:
            res.verdict = say.candidates_verdict(len(res.candidates), res.candidates[0]['kernel'])
            res.headline = headline.candidates(len(res.candidates))
    return res


def _eps(pkg, ep, model) -> dict:
    out = {}
    from ..parse.exported_program import packaged_ep

    for name in [model] if model else pkg.model_names:
        e = ep if ep is not None else packaged_ep(pkg, name)
        out[name] = e
    return out


def _ep_notes(pkg, eps) -> list[str]:
    from ..parse.exported_program import disagreements

    out = []
    for name, e in eps.items():
        if e is not None:
            ix = pkg.index(name)
            out += [f"model {name!r}: {d}" for d in disagreements(e, ix.eager(), ix.constants())]
    return out


def _context(pkg: Package, report: LogReport, model=None, skip=()) -> list[str]:
    out = []
    for n in report.noticed:
        hit = site_for_noticed(pkg, n, model)
        if hit and hit[1].line in skip:
            continue
        where = say.noticed_where(hit[0].name, n.line, hit[1].target) if hit else ""
        cpu = hit is not None and hit[0].device == "cpu"
        if cpu:
            out.append(say.noticed_on_cpu(n.call, n.file_name, n.line, where, n.error))
        else:
            out.append(say.noticed_on_gpu(n.call, n.file_name, n.line, where))
    return out


# ---------------------------------------------------------------------------
# The chain for one assertion
# ---------------------------------------------------------------------------


def _extern_matches(pkg: Package, report: LogReport, model) -> list[tuple[Model, CallSite, str, OpError]]:
    """The extern calls a log's failure names, each with how it was found and the op's error (read by the log's
    reading: ``OpError``)."""
    out = []
    for n in report.noticed:
        hit = site_for_noticed(pkg, n, model)
        if hit and hit[1].kind == "extern" and hit[0].device == "cpu" and n.error:
            out.append((hit[0], hit[1], say.how_cpu_exception(n.line), n.op_error))
    for r in report.asserts:
        if r.kind == "aten":
            for m, site in extern_sites_for_aten(pkg, r, model):
                out.append((m, site, say.how_aten_assert(r.kernel, r.file_name, r.line, site.target), r.op_error))
    ev = report.first("exception_in_aoti_torch")
    # A CUDA error is reported by whichever call comes next: when the log holds the device assert that fired, an
    # extern call that printed "device-side assert triggered" only noticed it and is no failing op.
    noticed_only = ev is not None and any(r.kind == "cuda" for r in report.asserts) and \
        report.events_say("device_assert_said")
    # A CUDA error in it (`Exception in aoti_torch: CUDA error: an illegal memory access …`) is no op's own error
    # about an index: an asynchronous one, which diagnose's illegal_memory_access places.
    cuda_error = report.has("illegal_memory_access")
    if ev is not None and not out and not report.noticed and not noticed_only and not cuda_error:
        said = ev.op_error
        how = say.how_swallowed(report.mentions("aborted"))
        for name in [model] if model else pkg.model_names:
            # (a proxy-executor call runs a custom op, not an ATen op whose index arguments are known)
            m, sites = extern_calls(pkg, name, lambda c: not c.checked and not c.target.startswith(
                ALLOC_OR_COPY_SHIMS) and c.target != PROXY_CALL)
            for site in sites:
                if getattr(site, "checked", None) is not True and index_args(site)[1]:
                    out.append((m, site, how, said))
    uniq, seen = [], set()
    for x in out:
        if (x[0].name, x[1].line) not in seen:
            seen.add((x[0].name, x[1].line))
            uniq.append(x)
    return uniq

