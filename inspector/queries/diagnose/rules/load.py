"""The package did not load (``load``): the host lacks its device or ISA, a symbol, a member; or it crashed loading."""

from __future__ import annotations

from ....explain import diagnose as say
from ...kernel_binaries import cpp_build
from ..results import Diagnosis, Evidence, step
from .base import Observations, Rule, _ev


class Load(Rule):
    """The package did not load: the host lacks its device or ISA, a symbol, a member; or it crashed loading."""

    category = "load"

    def claims(self, obs: Observations) -> bool:
        rep = obs.rep
        lacking = [x for x in obs.isa if x.kind in ("cpuinfo_lacks", "host_lacks") and not x.harmless]
        return (obs.crashed_at_load or rep.has("load_failure", "no_kernel_image", "sigill")
                or (rep.has("isa_mismatch") and not rep.mentions("python_traceback") and bool(lacking))
                or any(x.kind == "cpuinfo_lacks" and not x.harmless for x in obs.isa))

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        rep = obs.rep
        ev = [e for e in rep.events if e.category in ("load", "crash")]
        d.evidence = _ev(ev, 4)
        m = obs.models[0]
        dev = m.device or "?"
        wmeta = m.wrapper_metadata  # the one record of the metadata member (inspector.dialects.metadata)
        cc, isa = wmeta.compute_capability, " ".join(wmeta.cpu_isa) or None
        lacking = [x for x in obs.isa if x.kind in ("cpuinfo_lacks", "host_lacks") and not x.harmless]
        if rep.has("sigill"):  # SIGILL: the ISA the package needs and the host lacks comes first (issue 22 §2)
            x = lacking[0] if lacking else None
            from ...doctor import built_native

            native = built_native(obs.pkg, m.name)
            d.verdict = say.sigill_verdict(isa, " ".join(x.missing) if x else None,
                                           " ".join(x.host) if x and x.host else None, native)
            d.evidence = _ev([e for e in rep.events if e.pattern in ("isa_mismatch", "cpuinfo_flags")], 2) + _ev(
                [e for e in rep.events if e.pattern == "sigill"], 2)
            d.steps = [step(say.SIGILL_REBUILD_PORTABLE, {"TORCHINDUCTOR_CPP_MARCH": "x86-64-v3",
                                                          "ATEN_CPU_CAPABILITY": "avx2"}, "compile"),
                       step(say.SIGILL_REBUILD_ON_HOST), step(say.SIGILL_DOCTOR)]
            return
        if any(e.pattern == "no_kernel_image" for e in ev):
            d.verdict = say.no_device_verdict(dev, cc, next(e.printed for e in ev if e.pattern == "no_kernel_image"))
            d.steps = [step(say.no_device_step(dev, cc))]
        elif (any(e.pattern == "isa_mismatch" for e in ev) or any(x.kind == "cpuinfo_lacks" for x in obs.isa)) \
                and not any(e.pattern in ("load_failure", "segfault") for e in ev) \
                and any(x.kind in ("cpuinfo_lacks", "host_lacks") and not x.harmless for x in obs.isa):
            d.verdict = say.isa_verdict(isa)
            d.evidence += [Evidence(e.printed[:200], e.pattern) for e in rep.events
                           if e.pattern in ("isa_mismatch", "cpuinfo_flags")][:2]
            d.steps = [step(say.RECOMPILE_ON_HOST)]
        elif (img := next((e for e in rep.events if e.pattern == "undefined_kernel_image"), None)) is not None \
                and (build := cpp_build(obs.pkg, obs.pkg.files(m.name))) is not None:
            d.verdict = say.cmake_package_verdict(img.symbol or img.printed)
            d.evidence = _ev([img], 1)
            d.steps = [step(say.cmake_build_step(build.needs(), (build.library or "").split(" ")[0] or None))]
        else:
            err = [e for e in rep.events if e.pattern == "load_failure"]
            raised = rep.exception_lines[-1] if rep.exception_lines else None
            last = raised.printed if raised else None
            d.verdict = say.not_loaded_verdict(last or (err[0].printed if err else None))
            if last and last not in [e.quote for e in d.evidence]:
                d.evidence.append(Evidence(last, raised.pattern))
            if last and raised.missing_member:
                d.notes.append(say.MISSING_MEMBER)
            d.steps = [step(say.same_torch_step(dev)),
                       step(say.CPP_STACK_LOAD, {"TORCH_SHOW_CPP_STACKTRACES": "1"})]
