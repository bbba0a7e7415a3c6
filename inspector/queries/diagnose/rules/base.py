"""What every rule reads and is: ``Observations`` (the log as read, once, by inspector.logs; the models'
interfaces; the trace when first asked, made from the same reading) and ``Rule`` (``claims`` / ``answer``)."""

from __future__ import annotations

from functools import cached_property

from ....logs import LogReport, facts as logged
from ....model import Model
from ....package import Package
from ..results import Diagnosis, Evidence, IsaFinding
from .cpu_isa import _with_tile_code, isa_findings



class Observations:
    """What the rules decide on: the log's report (read once, by the caller: ``inspector.logs.parse_log``), a good
    run's (``against``), the models' interfaces (inputs, guards, symbols, metadata: ``ModelIndex.eager``; no kernel
    parsed), and the trace of a located check, made from the same report when first asked."""

    def __init__(self, pkg: Package, rep: LogReport, model: str | None, ep, against: LogReport | None = None,
                 log_name: str | None = None):
        self.pkg, self.rep, self.model, self.ep, self.against = pkg, rep, model, ep, against
        self.log_name = log_name
        names = [model] if model else pkg.model_names
        # A failed assert is traced through slices; only an illegal memory access or a device assert without its
        # line needs every kernel (the IMA rule and assert_candidates parse the whole model).
        self.models: list[Model] = [pkg.index(n).eager() for n in names]
        self.device = next((m.device for m in self.models if m.device), None)
        self.isa: list[IsaFinding] = [_with_tile_code(pkg, x) for x in isa_findings(self.rep, self.models)]
        # No line of torch's and no pattern but a crash line: another program's log (an npm run that segfaulted).
        # No rule may read a symptom in it as this package's: a bare "Segmentation fault" names no program.
        # A log with no failure in it at all is no_failure's, whoever printed it.
        self.not_torch = (not self.rep.mentions("torch_said")
                          and all(e.pattern == "segfault" for e in self.rep.events)
                          and bool(self.rep.events or self.rep.failure_lines or self.rep.exception_lines))

    @cached_property
    def located(self):
        """The failing checks with their file and line (a Triton / CPU / ATen CUDA assert)."""
        return [r for r in self.rep.asserts if r.kind in ("cuda", "cpu", "aten")]

    @cached_property
    def traced(self):
        """The trace-assert answer on this log's report, matched or not, when the log holds a located check or an
        extern op's failure (else None): made once, from the same report, so the two cannot disagree about the log."""
        from ...trace import trace_assert

        rep = self.rep
        # an op's own exception, swallowed (the call unchecked); a CUDA error in it (an illegal access) is no op's
        # error but an asynchronous one: illegal_memory_access's
        extern_text = (rep.has("exception_in_aoti_torch") and not rep.has("cublas_error", "illegal_memory_access")
                       and not rep.noticed)
        cpu_extern = self.device == "cpu" and any(n.error for n in rep.noticed)
        if not (self.located or extern_text or cpu_extern):
            return None
        return trace_assert(self.pkg, report=rep, model=self.model, ep=self.ep, log_name=self.log_name)

    @property
    def trace(self):
        """The trace-assert answer, when the log holds a located check or an extern op's failure and it matched."""
        t = self.traced
        return t if t is not None and t.matches else None

    @cached_property
    def weightless(self) -> list[tuple[str, int, int]]:
        """(model, constants, bytes) of each model built without its weights (a constants blob of at most 64 bytes
        in its .so): read once, by ranges of the .so, when a crash makes it matter."""
        from ...doctor import weights_blob_bytes

        out = []
        for m in self.models:
            blob = weights_blob_bytes(self.pkg, m.name)
            if blob is not None and blob <= 64:
                consts = self.pkg.index(m.name).constants()
                if consts:
                    out.append((m.name, len(consts), sum(c.nbytes or 0 for c in consts)))
        return out

    @cached_property
    def standalone(self) -> bool:
        """A model of the package is a compile_standalone CMake project (libtorch-free: no loader in Python runs it)."""
        from ...doctor import cmake_project

        return any(cmake_project(self.pkg, m.name) == "standalone" for m in self.models)

    @cached_property
    def crashed_at_load(self) -> bool:
        """A segfault whose stack shows the loader and not the model's run."""
        return self.rep.has("segfault") and self.rep.mentions("at_load") and not self.rep.mentions("at_run")

    def input_check(self) -> logged.InputCheck | None:
        """The first runtime input check in the log (its ``kind``: what it rejected)."""
        return self.rep.first("input_check")


def _ev(events, limit: int | None = None) -> list[Evidence]:
    return [Evidence(e.printed, e.pattern) for e in events][:limit]


class Rule:
    """One category: ``claims`` says whether the log is this rule's, ``answer`` fills the diagnosis.
    ``by_package``: claimed from what the package is (with a symptom such as a segfault), not from a line
    pattern of its own."""

    category: str = ""
    by_package: bool = False

    def claims(self, obs: Observations) -> bool:
        raise NotImplementedError

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        raise NotImplementedError
