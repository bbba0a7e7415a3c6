"""A located failing check the trace found in the package (``index_assert``, ``extern_op``), or did not find in it
(``foreign_log``)."""

from __future__ import annotations

from ....explain import diagnose as say
from ....logs import says_nan_inf
from ..results import Diagnosis, Evidence, step
from .base import Observations, Rule


def _checked(assertion) -> bool | None:
    return assertion.get("checked") if isinstance(assertion, dict) else getattr(assertion, "checked", None)


class _Traced(Rule):
    """A located failing check the trace found in the package: the full trace-assert answer."""

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        t, rep = obs.trace, obs.rep
        d.trace = t
        d.verdict, d.headline = t.verdict, t.headline
        for r in obs.located[:3]:
            if r.kind == "cpu" and r.message:
                d.evidence.append(Evidence(r.message, r.message_pattern))
            d.evidence.append(Evidence(r.first_text, r.pattern))
        d.evidence += [Evidence(n.printed, n.pattern) for n in rep.noticed][:2]
        d.evidence += [Evidence(f"{n.error}", n.error_pattern) for n in rep.noticed[:1] if n.error]
        self.more(obs, d)
        pos = t.matches[0].position if t.matches else None
        # an index that is a loop position (an arange) fails on a size, not on a value
        d.steps = [step(say.TRACE_LOOP_POSITION if pos is not None and pos.op == "loop" else say.TRACE_CHECK_INDEX)]
        # A device assert's own line (file, line, block, thread) already names the failing kernel: rerunning with
        # CUDA_LAUNCH_BLOCKING=1 would tell nothing new.
        if obs.device == "cuda" and not any(r.kind == "cuda" for r in obs.located):
            blocking = step(say.TRACE_LAUNCH_BLOCKING, {"CUDA_LAUNCH_BLOCKING": "1"})
            # several calls could have failed: the rerun that names the one comes first
            d.steps = [blocking] + d.steps if t.ambiguous else d.steps + [blocking]
        d.notes += t.hints + t.context

    def more(self, obs: Observations, d: Diagnosis) -> None:
        pass


def _nan_check(obs: Observations) -> bool:
    """The located, traced check is a Triton kernel's NaN/Inf assert (TORCHINDUCTOR_RUNTIME_TRITON_NAN_ASSERTS)."""
    return obs.trace is not None and says_nan_inf(obs.trace.matches[0].assertion.message)


class ExternOp(_Traced):
    category = "extern_op"

    def claims(self, obs: Observations) -> bool:
        # the proxy executor's call failing because the runtime has none, or a custom op missing, is custom_op's
        return (obs.trace is not None and obs.trace.matches[0].kernel_kind == "extern"
                and not obs.rep.has("custom_op_missing", "no_proxy_executor"))

    def more(self, obs: Observations, d: Diagnosis) -> None:
        ev = obs.rep.first("exception_in_aoti_torch")
        if ev:
            d.evidence.append(Evidence(ev.printed, ev.pattern))
        if any(m.kernel_kind == "extern" and _checked(m.assertion) is False for m in obs.trace.matches):
            d.notes.append(say.UNCHECKED_EXTERN)


class IndexAssert(_Traced):
    category = "index_assert"

    def claims(self, obs: Observations) -> bool:
        # a Triton kernel's NaN/Inf assert (TORCHINDUCTOR_RUNTIME_TRITON_NAN_ASSERTS) is located like an index
        # check, but it is nan_inf's
        return obs.trace is not None and obs.trace.matches[0].kernel_kind != "extern" and not _nan_check(obs)


class ForeignLog(Rule):
    """The log names its failing check's file and line, and no assertion of this package is it: the log comes
    from another package or another build of the same model.  Never answered with this package's candidates."""

    category = "foreign_log"
    by_package = True

    def claims(self, obs: Observations) -> bool:
        return bool([r for r in obs.located if r.kind in ("cuda", "cpu")]) and obs.trace is None

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        t = obs.traced  # the trace made when claims() asked for it: it matched nothing
        d.verdict = t.verdict or say.FOREIGN_LOG
        d.evidence = [Evidence(r.first_text, r.pattern) for r in obs.located[:3]]
        d.notes += t.hints[-1:]
        d.steps = [step(say.FOREIGN_STEP)]
