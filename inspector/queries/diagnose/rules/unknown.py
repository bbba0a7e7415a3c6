"""A log that shows no failure (``no_failure``), and none of the above (``unknown``): the general first steps."""

from __future__ import annotations

from ....explain import diagnose as say
from ....model import Model
from ....naming import ALLOC_OR_COPY_SHIMS
from ..results import Diagnosis, Evidence, Step, step
from .base import Observations, Rule, _ev


# What a clean run prints besides its outputs: warnings no rule claimed (a harmless ISA difference, a deprecated API
# warned about, an older package, the host's CPU flags) and the lines that say it ended well.
_NOT_FAILURES = ("isa_mismatch", "deprecated_api", "old_package", "cpuinfo_flags", "run_finished")


def shows_no_failure(obs: Observations) -> bool:
    """The log shows no failure: no check, no failed call, no line that says something failed or raised, no
    traceback or abort, and every recognised line is a warning a clean run prints or says the run ended well."""
    rep = obs.rep
    return not (rep.asserts or rep.noticed or rep.failure_lines or rep.exception_lines
                or rep.mentions("python_traceback") or rep.mentions("aborted")
                or any(e.pattern not in _NOT_FAILURES for e in rep.events))


class NoFailure(Rule):
    """A clean run: nothing in the log failed (the run may still compute garbage: the contracts the runtime checks
    do not enforce are ``check``'s)."""

    category = "no_failure"

    def claims(self, obs: Observations) -> bool:
        return shows_no_failure(obs)

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        finished = [e for e in obs.rep.events if e.pattern == "run_finished"]
        d.evidence = _ev(finished, 2)
        d.verdict = say.NO_FAILURE_VERDICT
        d.notes.append(say.NO_FAILURE_NOTE)
        d.notes += _bare_extern_notes(obs)  # the calls whose failure prints nothing and returns garbage
        d.steps = [step(say.NO_FAILURE_CHECK), step(say.NO_FAILURE_COMPARE)]


class Unknown(Rule):
    """None of the above: the general first steps, and the extern calls that would fail silently."""

    category = "unknown"
    by_package = True

    def claims(self, obs: Observations) -> bool:
        return True

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        if obs.not_torch:
            d.verdict = say.NOT_TORCH_VERDICT
            d.evidence = _ev(obs.rep.events, 3) + [Evidence(ln.printed, ln.pattern) for ln in obs.rep.failure_lines[:3]]
            d.notes.append(say.not_torch_note(say.TORCH_SAID_WORDS))
            d.steps = [step(say.NOT_TORCH_STEP)] + general_steps(obs.models)
            return
        d.verdict = say.UNKNOWN_VERDICT
        d.notes += _bare_extern_notes(obs)
        d.evidence = [Evidence(ln.printed, ln.pattern) for ln in obs.rep.failure_lines[:5]]
        d.steps = general_steps(obs.models)


def _bare_extern_notes(obs: Observations) -> list[str]:
    """Per model, the extern calls made without an error check (a failure inside them prints at most a line)."""
    out = []
    for m in obs.models:
        bare = [(c.target, c.line) for c in obs.pkg.index(m.name).calls()
                if c.kind == "extern" and not c.checked and not c.target.startswith(ALLOC_OR_COPY_SHIMS)]
        if bare:
            out.append(say.bare_extern_note(m.name, bare))
    return out


def general_steps(models: list[Model]) -> list[Step]:
    dev = next((m.device for m in models if m.device), "cpu")
    out = [step(say.GENERAL_COMPARE), step(say.GENERAL_CHECKS, {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]
    if dev == "cuda":
        out.append(step(say.GENERAL_SYNC, {"CUDA_LAUNCH_BLOCKING": "1"}))
    else:
        out.append(step(say.GENERAL_ONE_THREAD, {"OMP_NUM_THREADS": "1"}))
    out.append(step(say.GENERAL_CPP_STACK, {"TORCH_SHOW_CPP_STACKTRACES": "1"}))
    return out
