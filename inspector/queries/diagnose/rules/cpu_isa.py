"""The host's CPU features against each model's ``AOTI_CPU_ISA`` (the one ``WrapperMetadata`` record), through
the one ISA table (inspector.cpu_isa): what ``Observations.isa`` holds, read by ``load`` and the notes."""

from __future__ import annotations

from ....cpu_isa import isa_words_missing, isa_words_with_implied
from ....logs import LogReport
from ....model import Model
from ....package import Package
from ....dialects.metadata import CPU_ISA
from ..results import IsaFinding


def isa_findings(rep: LogReport, models: list[Model]) -> list[IsaFinding]:
    """The host's CPU features, from a /proc/cpuinfo flags line or torch's ISA warning, against each model's."""
    out = []
    ev = rep.first("cpuinfo_flags")
    if ev is not None:
        flags = set(ev.flags)
        for m in models:
            need = m.wrapper_metadata.cpu_isa
            missing = isa_words_missing(need, flags)  # the one table doctor reads too (inspector.cpu_isa)
            if missing:
                out.append(IsaFinding("cpuinfo_lacks", m.name, need, missing))
            elif need:
                out.append(IsaFinding("cpuinfo_covers", m.name, need))
    for e in rep.events:
        if e.pattern != "isa_mismatch":
            continue
        for m in models:
            pkg_isa = list(m.wrapper_metadata.cpu_isa)
            if not pkg_isa or e.key != CPU_ISA:
                continue
            host = e.host if sorted(e.package) == sorted(pkg_isa) else e.package
            have = isa_words_with_implied(host)  # a host torch calls AVX512 runs AVX2 code too
            missing = tuple(x for x in pkg_isa if x not in have)
            out.append(IsaFinding("host_lacks" if missing else "host_covers", m.name, tuple(pkg_isa), missing,
                                  tuple(host), e.printed))
            break
    return out


def _with_tile_code(pkg: Package, x: IsaFinding) -> IsaFinding:
    """A missing ISA that is only AMX, in a package whose kernels have no AMX tile code, does not stop it (AMX is
    reached only through tile intrinsics; seen: cpu/embedding ran correctly on a host without AMX)."""
    from dataclasses import replace

    from ...doctor import uses_amx

    if x.missing and all(m.startswith("AMX") for m in x.missing) and not uses_amx(pkg, x.model):
        return replace(x, harmless=True)
    return x
