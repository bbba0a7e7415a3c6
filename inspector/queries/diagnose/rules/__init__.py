"""The rules of `diagnose`, one per category, tried in the order of ``RULES``: the first that claims the log
answers it.  ``CATEGORIES`` (the same order) is the one list of categories: the JSON schema's enum, the module
docstring and the words (inspector.explain.diagnose.CATEGORY_DOC) are checked against it
(tests/unit/test_diagnose_registry.py).

A rule reads ``Observations`` (the parsed log, the package's interface) and fills a ``Diagnosis`` with typed parts.
It matches no text itself (it reads the typed facts of the log's one reading, ``inspector.logs``) and writes no sentence
(they are in inspector.explain.diagnose).

The rules live one family per module: ``base`` (``Observations``, ``Rule``), ``cpu_isa`` (the host's CPU against the
package's), ``traced``, ``artifact``, ``inputs``, ``device``, ``arith``, ``load``, ``values``, ``weights``, ``memory``,
``unknown``; the order they are tried in is ``RULES``, here, alone.

Adding a category: one ``Rule`` subclass in its family's module, placed in ``RULES``; its line patterns in
inspector/logs/patterns.py (``PATTERNS``, with the category's name); its words in inspector/explain/diagnose.py
(``CATEGORY_DOC`` and its verdict/steps); its name in the schema's enum (inspector/schemas/diagnose.schema.json).
"""

from __future__ import annotations

from ....explain import diagnose as say
from ....explain import headline
from ....logs import LogReport
from ....package import Package
from ...causes import BASES
from ..results import Diagnosis, Step
from .arith import ArithmeticFault
from .artifact import CustomOp, DeprecatedApi, TorchVersion, WrongArtifact, _deprecated_apis
from .base import Observations, Rule
from .device import DeviceAssert, DeviceMismatch, IllegalMemoryAccess
from .inputs import InputCheckRule, SymbolicAssert
from .load import Load
from .memory import OutOfMemory
from .traced import ExternOp, ForeignLog, IndexAssert
from .unknown import NoFailure, Unknown
from .values import NanInf, Printer
from .weights import Constants, WeightsNotLoaded

# The order rules are tried in: a located, traced check first (index_assert and extern_op exclude each other);
# "no_failure" when nothing in the log failed, after every rule that claims a warning; "unknown" last (it claims
# every log).
RULES: list[Rule] = [IndexAssert(), ExternOp(), ForeignLog(), DeprecatedApi(), SymbolicAssert(), NanInf(), Printer(), Constants(),
                     OutOfMemory(), CustomOp(),
                     TorchVersion(), WrongArtifact(), InputCheckRule(), DeviceMismatch(), ArithmeticFault(),
                     WeightsNotLoaded(),
                     IllegalMemoryAccess(), DeviceAssert(), Load(), NoFailure(), Unknown()]
CATEGORIES: tuple[str, ...] = tuple(r.category for r in RULES)


def _basis(d: Diagnosis) -> str:
    """What the verdict's certainty rests on (inspector.queries.causes.BASES, the one place the levels are defined):
    a trace's own (its hypotheses' evidence); the package's own check message matched to exactly one check about one
    input, or the runtime's own input check; a category read from a log line, likely; none, possible."""
    if d.trace is not None and getattr(d.trace, "matches", None):
        return d.trace.certainty_basis
    if d.category == "arithmetic_fault":  # SIGFPE is read; which division did it is likely only when a backtrace names it
        return "ranked" if any(h["certainty"] == "likely" for h in d.fault_sites) else "no_evidence"
    if d.category == "unknown" or not d.evidence:
        return "no_evidence"
    if d.category == "printer" and getattr(d.printer, "certainty", None):  # inspector.queries.printer's rule
        return {"certain": "printed_writer", "likely": "ranked"}.get(d.printer.certainty, "no_evidence")
    if d.input_check is not None:
        return "input_check"
    if d.own_check:
        return "own_message"
    if d.category == "illegal_memory_access" and d.async_error is not None and d.async_error.hypotheses:
        top = d.async_error.hypotheses[0].certainty  # the likeliest place, by the evidence it rests on
        return "ranked" if top == "likely" else "no_evidence"
    if d.category == "device_assert" and d.candidates:
        return "no_evidence"  # the Assertion line is missing: which check fired is a ranked guess
    return "log_line"


def diagnose(pkg: Package, report: LogReport, model: str | None = None, ep=None, against: LogReport | None = None,
             log_name: str | None = None, traced=None) -> Diagnosis:
    """Classify the log (``report``: as ``inspector.logs.parse_log`` read it) against ``pkg`` and say what to do next:
    the first rule of ``RULES`` that claims it answers.  ``against``: a good run's log, read so too (the printer's
    output is compared kernel by kernel).  A trace the answer needs is made from the same report; ``traced``: the
    trace-assert answer made already on it (trace-assert classifying a log with no check in it)."""
    if model is not None:
        pkg.files(model)
    obs = Observations(pkg, report, model, ep, against, log_name)
    if traced is not None:
        obs.__dict__["traced"] = traced  # (the cached property's value: the trace is not made twice)
    d = Diagnosis(package=str(pkg.path), category="unknown", verdict="")
    d.notes += list(dict.fromkeys(say.isa_note(x) for x in obs.isa))
    if obs.rep.has("old_package"):
        d.notes.append(say.OLD_PACKAGE)
    for rule in (RULES if not obs.not_torch else RULES[-1:]):  # another program's log: only "unknown" answers
        if rule.claims(obs):
            d.category = rule.category
            rule.answer(obs, d)
            break
    if d.category != DeprecatedApi.category and obs.rep.has("deprecated_api"):
        d.notes.append(say.deprecated_note(_deprecated_apis(obs.rep)))
    d.certainty_basis = _basis(d)
    d.certainty = BASES[d.certainty_basis]
    d.headline = d.headline or headline.diagnosis(d.category, d.verdict)
    if not any(i.guards for m in obs.models for i in m.inputs):  # torch 2.6: no check_input_K compiled in
        d.steps = [Step(s.do + say.NO_GUARDS_COMPILED, s.env, "compile") if "AOTI_RUNTIME_CHECK_INPUTS" in s.env else s
                   for s in d.steps]
    return d
