"""What `doctor` answers, typed: one ``Finding`` per thing found (a code and its facts, no sentence) and the
``DoctorResult``.  ``to_dict()`` gives the JSON of inspector/schemas/doctor.schema.json; the sentences in it are
made by inspector.explain.doctor from each finding's code and facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...explain import doctor as say

SEVERITY_ORDER = {"error": 0, "warn": 1, "info": 2}
# The warnings the headline leads with (by their title, explain.doctor.TITLES): the first run fails unless the caller
# acts first
LEADS = ("weights_left_out",)


@dataclass(frozen=True)
class Finding:
    """One finding: ``kind`` (the family a person reads: gpu_arch, cpu_isa, torch_abi, glibc, weights, completeness,
    checks, custom_op, device_index, memory), ``severity`` ("error": it will fail · "warn": it may fail or mislead ·
    "info"), ``code`` (which finding of the family: its words in inspector.explain.doctor.WORDS) and ``facts``
    (plain values the words are made of), for model ``model``."""

    kind: str
    severity: str
    code: str
    facts: dict
    model: str | None = None

    @property
    def words(self) -> say.FindingWords:
        return say.words(self.code, self.facts)

    @property
    def message(self) -> str:
        return self.words.message

    @property
    def evidence(self) -> list[str]:
        return self.words.evidence

    @property
    def fix(self) -> str | None:
        return self.words.fix

    def to_dict(self) -> dict:
        w = self.words
        return {"severity": self.severity, "kind": self.kind, "model": self.model, "message": w.message,
                "evidence": list(w.evidence), "fix": w.fix}


@dataclass
class DoctorResult:
    package: str
    models: list[str]
    findings: list[Finding]
    # per model, what doctor read of it (sm, isa, shim symbols, oldest torch, weights bytes …): the JSON's "facts"
    readings: dict = field(default_factory=dict)
    # what "here" could not be checked against (no GPU found, cpuinfo not read, not asked): said in the verdict,
    # so "nothing stands against running it here" is never said without having looked (issue 22 §2)
    unchecked: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def lead(self) -> Finding | None:
        """The warning the answer leads with (`LEADS`): the package will not survive its first run unless the caller
        acts first.  A warning all the same: the exit code stays 0, as for every warning (only an error makes 1)."""
        return next((f for f in self.findings if f.code in LEADS), None) if self.ok else None

    def verdict(self) -> str:
        return say.verdict([x.message for x in self.errors],
                           [x.message for x in self.findings if x.severity == "warn"], self.unchecked)

    def headline(self) -> str:
        lead = self.lead
        return say.headline([x.code for x in self.errors], [x.code for x in self.findings if x.severity == "warn"],
                            bool(self.unchecked), lead=lead.code if lead is not None else None)

    def to_dict(self) -> dict:
        return {"package": self.package, "models": list(self.models), "ok": self.ok, "verdict": self.verdict(),
                "headline": self.headline(),
                "lead": self.lead.code if self.lead is not None else None,
                "findings": [f.to_dict() for f in self.findings], "facts": self.readings,
                "unchecked": list(self.unchecked)}
