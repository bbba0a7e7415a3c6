"""``memory``: constant bytes and the run's peak activation memory, from the wrapper's allocations and releases
(inspector.queries.memory): a formula of the dynamic sizes, evaluated at ``--input`` shapes (else every size at
64), as a range from the activations alone up to a fresh process's first run."""

from __future__ import annotations

from ...errors import InspectorError
from ...naming import EFFICIENT_ATTENTION, FLASH_ATTENTION_CPU
from .base import Check, Here, Subject

CONTRACT_OPS = (EFFICIENT_ATTENTION, FLASH_ATTENTION_CPU)  # the extern ops whose outputs the memory plan sizes by contract

UNGIVEN_SIZE = 64  # what a dynamic size is taken as when --input does not give it


class Memory(Check):
    name = "memory"

    def run(self, m: Subject, here: Here):
        from ..memory import human_bytes, memory_plan, symbol_values

        pkg, name, device = m.pkg, m.name, m.device
        try:
            plan = memory_plan(pkg, name)
        except InspectorError:  # a member unreadable: no estimate is a missing fact, not a failed doctor
            return []
        consts = pkg.index(name).constant_totals()
        by_dev: dict[str, int] = {}
        for _dtype, dev, _count, nbytes in consts.get("by") or []:
            by_dev[dev or device] = by_dev.get(dev or device, 0) + nbytes
        cbytes = by_dev.get(device, 0) if by_dev else (consts.get("nbytes") or 0)
        elsewhere = {d: b for d, b in sorted(by_dev.items()) if d != device and b}
        eager = pkg.index(name).eager()
        given = symbol_values(eager, inputs) if (inputs := here.inputs) else {}
        if not plan.allocations:
            return []
        values = {s: given.get(s, UNGIVEN_SIZE) for s in plan.symbols}
        est = plan.estimate(values)
        peak = est.steady
        alloc = next((a for a in plan.allocations if a.line == peak.line), None)
        m.readings["memory"] = {
            "constants_bytes": cbytes, "peak_activation_bytes": peak.bytes if est.estimable else None,
            "at": values, "peak_line": peak.line, "live_at_peak": peak.live, "outputs_bytes": peak.outputs,
            "extern_outputs_estimated": sum(1 for a in plan.allocations if a.estimated_from and a.kind == "extern_out"),
            "extern_outputs_checked": sum(1 for a in plan.allocations if a.kind == "checked"),
            "extern_outputs_unsized": plan.unsized, "given": bool(given),
            "first_run_bytes": est.first.bytes if est.estimable else None,
            "upper_bytes": est.upper if est.estimable else None,
            "unknown_sizes": peak.unknown, "cublas_workspace": est.cublas, "convolutions": est.conv,
            "not_counted": [list(x) for x in est.not_counted]}
        if device == "cpu":  # no cuBLAS on the CPU, no fresh process's workspace: only what applies (issue 35 §5)
            del m.readings["memory"]["first_run_bytes"], m.readings["memory"]["cublas_workspace"]
        if elsewhere:  # a mixed graph: constants kept on the CPU are host memory, not the model device's
            m.readings["memory"]["constants_bytes_elsewhere"] = elsewhere
        about = dict(at=[(k, v) for k, v in sorted(values.items()) if eager.symbols[k].alias_of is None],
                     given=bool(given), device=device, constants=human_bytes(cbytes),
                     elsewhere=[(d, human_bytes(b)) for d, b in elsewhere.items()],
                     allocations=len(plan.allocations), unknown=list(peak.unknown))
        if not est.estimable:
            return [m.finding("memory", "info", "memory_unknown", **about)]
        lo, first = peak.bytes, est.first.bytes
        about.update(low=human_bytes(lo), upper=human_bytes(est.upper) if est.upper is not None else None,
                     first=human_bytes(first) if est.cublas and first > lo else None, floor=not est.upper,
                     line=peak.line, live=len(peak.live), conv=bool(est.conv), unsized=list(plan.unsized),
                     peak_alloc=(alloc.buffer, alloc.formula()) if alloc is not None else None,
                     estimated=sum(1 for a in plan.allocations if a.estimated_from and a.kind == "extern_out"
                                   and a.estimated_from not in CONTRACT_OPS),
                     contract=sum(1 for a in plan.allocations if a.kind == "extern_out"
                                  and a.estimated_from in CONTRACT_OPS),
                     checked=sum(1 for a in plan.allocations if a.kind == "checked"),
                     viewed=sum(1 for a in plan.allocations if a.kind == "viewed"), custom_ops=list(plan.custom_ops))
        return [m.finding("memory", "info", "memory", **about)]
