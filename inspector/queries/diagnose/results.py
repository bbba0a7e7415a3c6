"""What `diagnose` answers, typed: ``Diagnosis`` and its parts.  ``to_dict()`` gives the JSON of
inspector/schemas/diagnose.schema.json; the sentences inside come from inspector.explain.diagnose."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ...explain import ENV_WHEN
from ..candidates import Candidate, JsonKeys  # noqa: F401  (part of a Diagnosis)


@dataclass(frozen=True)
class Step(JsonKeys):
    """One thing to do next, with the environment variables it sets and when they act ("run" / "compile")."""

    do: str
    env: dict = field(default_factory=dict)
    when: str | None = None

    def to_dict(self) -> dict:
        return {"do": self.do, "env": dict(self.env), "when": self.when}


def step(do: str, env: dict | None = None, when: str | None = None) -> Step:
    """A ``Step``; ``when`` defaults to the time every variable of ``env`` acts at (ENV_WHEN), when they agree."""
    env = env or {}
    if when is None and env:
        whens = {ENV_WHEN.get(k) for k in env}
        when = whens.pop() if len(whens) == 1 else None
    return Step(do, env, when)


@dataclass(frozen=True)
class Evidence:
    """A line of the log, as printed (stripped), that the verdict rests on; ``pattern``: what recognised it."""

    quote: str
    pattern: str | None = None

    def to_dict(self) -> str:
        return self.quote

    def __str__(self) -> str:
        return self.quote


@dataclass
class InputCheck(JsonKeys):
    """The input a runtime check (or the wrapper's size assert) rejected, and why."""

    input: int
    wrapper_name: str | None = None
    user_name: str | None = None
    kind: str | None = None  # "range" | "dtype" | "device" | "size" | "stride" | "equal" | "other"
    dim: int | None = None
    symbol: str | None = None
    min: int | None = None
    max: int | None = None
    expected: int | str | None = None
    got: int | str | None = None
    message: str = ""
    fix: str = ""
    # a bool mask given as float (issue 35 §5): what the package's kernel keeps where the mask is True ("true": the
    # value, "false": the fill, masked out), the kernel and its line that say so; None when not read
    mask_keeps: str | None = None
    mask_kernel: str | None = None
    mask_line: int | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        if self.mask_keeps is None and self.mask_kernel is None:  # not a float mask: no keys, as before
            del d["mask_keeps"], d["mask_kernel"], d["mask_line"]
        return d


@dataclass(frozen=True)
class IsaFinding:
    """The host's CPU features against a model's AOTI_CPU_ISA.  ``kind``: "cpuinfo_lacks" / "cpuinfo_covers"
    (from a /proc/cpuinfo flags line), "host_lacks" / "host_covers" (from torch's mismatch warning)."""

    kind: str
    model: str
    need: tuple[str, ...]
    missing: tuple[str, ...] = ()
    host: tuple[str, ...] = ()
    warning: str = ""  # torch's warning, as printed
    harmless: bool = False  # every missing feature is AMX and no kernel has AMX tile code: the package runs


@dataclass
class Diagnosis:
    package: str
    category: str
    verdict: str  # in full
    evidence: list[Evidence] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    trace: object | None = None  # the TraceResult of an index_assert / extern_op (inspector.queries.trace)
    candidates: list[Candidate] = field(default_factory=list)
    input_check: InputCheck | None = None
    suspects: list[dict] = field(default_factory=list)  # IMA: unchecked indirect accesses (inspector.queries.suspects)
    notes: list[str] = field(default_factory=list)
    printer: object | None = None  # the printer's PrinterFinding (inspector.queries.printer), level 2
    fault_sites: list[dict] = field(default_factory=list)  # arithmetic_fault: FaultSite dicts, most likely first
    # illegal_memory_access on CUDA: what could have made the asynchronous error (inspector.queries.async_error)
    async_error: object | None = None

    @property
    def exit_code(self) -> int:
        """The CLI's exit code for this answer, the same for `diagnose` and `report` (issue 22 §3): 0 when a
        category claimed a failure in the log, 1 ("nothing found", README's table) when none did or the log shows
        no failure (``no_failure``: nothing to explain, as trace-assert finds no assertion in it)."""
        return 1 if self.category in ("unknown", "no_failure") else 0
    headline: str = ""  # the first line: the verdict in plain words, ≤ 120 with its label (explain.headline)
    certainty: str = "possible"  # of the verdict: "certain" | "likely" | "possible" (the level of its basis)
    certainty_basis: str = "no_evidence"  # what it rests on (inspector.queries.causes.BASES; rules._basis)
    # the log quotes the package's own check message, matched to exactly one check (a CPU NaN/Inf check's call)
    own_check: bool = False
    nan_input: int | None = None  # nan_inf: the model input (its position) the compiled-in NaN/Inf check refused

    @property
    def trace_result(self):
        """The old name of ``trace``."""
        return self.trace

    def to_dict(self) -> dict:
        out = {
            "package": self.package,
            "category": self.category,
            "verdict": self.verdict,
            "headline": self.headline,
            "evidence": [e.to_dict() for e in self.evidence],
            "steps": [s.to_dict() for s in self.steps],
            "trace": self.trace.to_dict() if self.trace is not None else None,
            "candidates": [c.to_dict() for c in self.candidates],
            "input_check": self.input_check.to_dict() if self.input_check is not None else None,
            "suspects": [dict(s) for s in self.suspects],
            "notes": list(self.notes),
            "printer": self.printer.to_dict() if self.printer is not None else None,
            "certainty": self.certainty,
            "certainty_basis": self.certainty_basis,
            "nan_input": self.nan_input,
        }
        if self.fault_sites:  # only the categories that rank places of the package (every other answer unchanged)
            out["fault_sites"] = [dict(h) for h in self.fault_sites]
        if self.async_error is not None:
            out["async_error"] = async_error_dict(self.async_error)
        return out


def async_error_dict(a) -> dict:
    """An ``AsyncError`` as diagnose's JSON holds it: each hypothesis with its words."""
    from ...explain.diagnose import async_hypothesis

    return {"kind": a.kind, "reported_by": a.reported_by, "reported_line": a.reported_line, "blocking": a.blocking,
            "custom_ops": a.custom_ops, "launches_before": a.launches_before,
            "hypotheses": [{"kind": h.kind, "certainty": h.certainty, "model": h.model, "target": h.target,
                            "line": h.line, "args": [{"name": x.name, "input": x.input} for x in h.args],
                            "function": h.function, "evidence": list(h.evidence), "text": async_hypothesis(h)}
                           for h in a.hypotheses]}
