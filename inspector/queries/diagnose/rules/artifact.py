"""What was loaded, and with what: a deprecated API (``deprecated_api``), a custom op the process lacks
(``custom_op``), a torch that lacks the package's C-shim symbols or layout (``torch_version``), the wrong kind of
artifact (``wrong_artifact``)."""

from __future__ import annotations

from ....explain import diagnose as say
from ....logs import LogReport
from ...doctor.guards import PROXY_CALL
from ..results import Diagnosis, step
from .base import Observations, Rule, _ev


def _deprecated_apis(rep: LogReport) -> list[str]:
    """The deprecated entry points the log names (those a traceback shows called, when it shows any)."""
    ev = [e for e in rep.events if e.pattern == "deprecated_api"]
    called = [e for e in ev if e.in_frame]
    return sorted({e.api for e in (called or ev)} - {None})


class DeprecatedApi(Rule):
    """The deprecated torch._export.aot_compile / aot_load failed to load what it was given.  A run through them that
    fails for another reason (an input check, an index assert; torch prints the deprecation warning on every call) is
    that failure's, with the API in a note."""

    category = "deprecated_api"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("deprecated_api") and obs.rep.has("load_failure")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        rep = obs.rep
        ev = [e for e in rep.events if e.pattern == "deprecated_api"]
        apis = _deprecated_apis(rep)
        d.verdict = say.deprecated_verdict(apis)
        d.evidence = _ev(ev, 3) + _ev([e for e in rep.events if e.pattern == "load_failure"], 2)
        if rep.events_say("not_elf"):
            d.notes.append(say.NOT_ELF)
        d.steps = [step(say.DEPRECATED_COMPILE), step(say.DEPRECATED_LOAD)]


class CustomOp(Rule):
    """``Could not find schema for mylib::op``: a custom op the serving process has not registered."""

    category = "custom_op"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("custom_op_missing", "no_proxy_executor")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        evs = [e for e in obs.rep.events if e.category == "custom_op"]
        d.evidence = _ev(evs, 2)
        op = next((e.name for e in evs if e.pattern == "custom_op_missing"), None)
        calls = [c.line for m in obs.models for c in obs.pkg.index(m.name).calls() if c.target == PROXY_CALL]
        if op:
            d.verdict = say.custom_op_verdict(op, calls)
            d.steps = [step(say.custom_op_step(op))]
        else:
            json_members = [x for m in obs.models for x in obs.pkg.files(m.name).other if x.endswith(".wrapper.json")]
            d.verdict = say.no_proxy_verdict(calls, bool(json_members))
            d.steps = [step(say.custom_op_step(None) if json_members else say.NO_PROXY_REBUILD)]


class TorchVersion(Rule):
    """The loading torch lacks a C-shim symbol the .so calls, or reads an older archive layout."""

    category = "torch_version"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("rootless_loader") or (obs.rep.has("undefined_shim_symbol") and not obs.standalone)

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        evs = [e for e in obs.rep.events if e.category == "torch_version"]
        d.evidence = _ev(evs, 2)
        sym = next((e.symbol for e in evs if e.pattern == "undefined_shim_symbol"), None)
        if sym:
            from ...doctor import shim_table

            first = (shim_table()["symbols"].get(sym) or [None])[0]
            d.verdict = say.torch_symbol_verdict(sym, first)
            d.steps = [step(say.torch_symbol_step(first))]
        else:
            d.verdict = say.ROOTLESS_VERDICT
            d.steps = [step(say.ROOTLESS_STEP)]


class WrongArtifact(Rule):
    """An exported program given to aoti_load_package, or an AOTInductor package to torch.export.load."""

    category = "wrong_artifact"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("no_aoti_model", "export_load_failed") or (obs.rep.has("undefined_shim_symbol") and obs.standalone)

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        if obs.standalone and not obs.rep.has("no_aoti_model", "export_load_failed"):
            # compile_standalone: the loader compiled the libtorch-free library and dlopen could not bind the shim
            evs = [e for e in obs.rep.events if e.pattern == "undefined_shim_symbol"]
            d.evidence = _ev(evs, 2)
            d.verdict = say.standalone_loaded_verdict(next((e.symbol for e in evs), None))
            d.steps = [step(say.STANDALONE_STEP)]
            # torch prints `Loading outdated pt2 file` before it tries the package (seen on this log): not its age
            d.notes = [n for n in d.notes if n != say.OLD_PACKAGE]
            return
        evs = [e for e in obs.rep.events if e.category == "wrong_artifact"]
        d.evidence = _ev(evs, 2)
        d.verdict = say.WRONG_EXPORT_TO_AOTI if evs[0].pattern == "no_aoti_model" else say.WRONG_AOTI_TO_EXPORT
        d.steps = [step(say.WRONG_KIND_STEP)]
