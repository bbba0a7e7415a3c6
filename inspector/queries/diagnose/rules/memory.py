"""Out of memory (``out_of_memory``): the allocation the wrapper made, its size formula, the constants' bytes."""

from __future__ import annotations

from ....explain import diagnose as say
from ....explain import headline
from ..results import Diagnosis, Evidence, step
from .base import Observations, Rule


class OutOfMemory(Rule):
    """``CUDA out of memory. Tried to allocate 596.05 GiB``: the allocation the wrapper made (its line in the
    failed call), the buffer's size formula, and the package's constant bytes."""

    category = "out_of_memory"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("out_of_memory")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        from ...memory import human_bytes, memory_plan

        ev = obs.rep.first("out_of_memory")
        d.evidence = [Evidence(ev.printed, ev.pattern)] + [Evidence(n.printed, n.pattern) for n in obs.rep.noticed[:1]]
        size = ev.size or (human_bytes(ev.bytes) if ev.bytes is not None else "?")
        alloc = None
        consts = 0
        lines = {n.line for n in obs.rep.noticed}  # the failed allocation's wrapper line
        for m in obs.models:
            consts += obs.pkg.index(m.name).constant_totals().get("nbytes") or 0
            if lines:
                try:
                    plan = memory_plan(obs.pkg, m.name)
                except Exception:  # noqa: BLE001 - the verdict stands without the buffer's formula
                    continue
                alloc = next((a for a in plan.allocations if a.line in lines), alloc)
        # who refused (as read): the caching allocator (names the size), the CPU allocator (bytes), or the CUDA
        # runtime (cache off) / driver (a kernel's module load or launch) with no size at all
        source = ev.source
        if source in ("driver", "runtime", "cublas"):
            size = None
        if source == "cublas":  # cuBLAS's own handle / workspace: no buffer of the wrapper's
            lines = set()
            alloc = None
        d.verdict = say.oom_verdict(size, ev.free, ev.total,
                                    (alloc.buffer, alloc.line, alloc.formula()) if alloc else None,
                                    human_bytes(consts) if consts else None, source)
        d.headline = headline.oom(headline.OOM_WHO.get(source, "the device"), alloc.buffer if alloc else None,
                                  alloc.formula() if alloc else None)
        d.steps = [step(say.OOM_SIZES), step(say.OOM_DOCTOR)]
        if source in ("driver", "cublas", "runtime"):  # no size named: the GPU may have been full before
            d.steps.insert(0 if source != "runtime" else 1, step(say.OOM_DRIVER))
        if ev.free and ev.size:
            d.steps.append(step(say.OOM_FRAGMENTATION, {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}))
