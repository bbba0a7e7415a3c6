"""An arithmetic fault (``arithmetic_fault``): the process died of SIGFPE, an integer division by zero (or
INT_MIN / -1) in native code.  The hypotheses come from this package: (a) generated kernels whose integer
division or modulo has a dynamic size for divisor (read from the typed expression trees of their statements),
(b) extern ATen ops whose inputs' shapes hold a dynamic symbol (the wrapper's calls, the views' and buffers'
sizes: inspector.queries.divisions); (c) a native backtrace in the log (gdb's, torch's ``frame #N``) naming a wrapper.cpp line or a shim
decides between them.  Real logs: sample_packages/cpu/transformer/logs/sigfpe_*.log."""

from __future__ import annotations

from dataclasses import dataclass, field

from ....explain import diagnose as say
from ....explain import headline
from ....logs import NativeFrame
from ...divisions import FaultSite, extern_sites, kernel_sites
from ..results import Diagnosis, step
from .base import Observations, Rule, _ev


@dataclass
class Backtrace:
    """What a native backtrace in the log names: the innermost function, the shim op, the wrapper.cpp line."""

    function: str | None = None
    shim: str | None = None
    wrapper_line: int | None = None
    frames: list[str] = field(default_factory=list)


def _backtrace(frames: list[NativeFrame]) -> Backtrace:
    """What the log's native frames (as read: ``LogReport.native_frames``) name, innermost first."""
    bt = Backtrace()
    for f in frames:
        bt.frames.append(f.printed)
        if bt.function is None and f.function:
            bt.function = f.function
        if bt.shim is None and f.shim:
            bt.shim = f.shim
        if bt.wrapper_line is None and f.file and f.file.endswith("wrapper.cpp") and f.function == "run_impl":
            bt.wrapper_line = f.line
    return bt


class ArithmeticFault(Rule):
    category = "arithmetic_fault"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("arithmetic_fault")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        d.evidence = _ev([e for e in obs.rep.events if e.pattern == "arithmetic_fault"], 2)
        bt = _backtrace(obs.rep.native_frames)
        sites: list[FaultSite] = []
        for em in obs.models:
            m = obs.pkg.index(em.name).full()
            sites += kernel_sites(m) + extern_sites(obs.pkg, m)
        sites.sort(key=lambda s: s.line)  # the first to run with a size at 0 is the first to divide by it
        named = [s for s in sites if (bt.wrapper_line is not None and s.line == bt.wrapper_line)
                 or (bt.wrapper_line is None and bt.shim is not None
                     and s.target.replace("_", "").startswith(bt.shim.replace("_", "")))]
        if named:
            for s in named:
                s.certainty = "likely"
                at_line = [fr for fr in bt.frames if bt.wrapper_line and f"wrapper.cpp:{bt.wrapper_line}" in fr]
                at_shim = [fr for fr in bt.frames if bt.shim and bt.shim.split("_", 3)[-1] in fr]
                s.evidence = (at_line or at_shim or [None])[0]
            sites = named
        d.fault_sites = [s.to_dict() for s in sites]
        if bt.frames:
            d.notes.append(say.fpe_backtrace_note(bt.function, bt.shim, bt.wrapper_line))
        first = sites[0] if sites else None
        d.verdict = say.fpe_verdict(len(sites), first.to_dict() if first else None, bool(named), bt.function)
        d.headline = headline.fpe(len(sites), first.target if first else None, bool(named))
        dims = list(dict.fromkeys((r.input, r.dim) for s in sites for r in s.symbols if r.input is not None))
        d.steps = [step(say.fpe_check_step(dims)),
                   step(say.FPE_SWEEP)]
        if not bt.frames:
            d.steps.append(step(say.FPE_GDB, {"OMP_NUM_THREADS": "1"}, "run"))
        if not named and len(sites) > 1:
            d.notes.append(say.FPE_TELL_APART)
