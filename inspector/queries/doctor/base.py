"""The two things every check reads: the model under check (``Subject``: its member list, wrapper text, dialect,
metadata record, and the record of what doctor read of it) and where it will run (``Here``: the GPU, the host's CPU
flags and glibc, the torch release, a weights file, input shapes).  ``Check`` is one family of findings."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...dialects.metadata import WrapperMetadata
from .results import Finding


@dataclass
class Here:
    """Where the package will run, as far as it was told or probed (``inspector.host``)."""

    gpu: str | None = None  # the --gpu argument: "auto" or an architecture
    gpu_sm: int | None = None  # its compute capability (90), None when "auto" found no GPU
    host: str | None = None  # the --host-cpuinfo argument: "auto", a cpuinfo text, or None
    host_flags: set[str] | None = None
    host_glibc: str | None = None
    cpu_gap: str | None = None  # why this host's cpuinfo could not be read (OSError's words)
    release: str | None = None  # the shim table's release for --torch
    weights: object | None = None  # the --weights file, read (inspector.weights.WeightsFile)
    inputs: tuple = ()  # check's InputSpec, for the memory estimate


@dataclass
class Subject:
    """One model of the package, as the checks read it."""

    pkg: object
    name: str
    files: object  # its ModelFiles: the members that make it up
    members: set[str]  # every member of the archive
    wrapper: str  # the wrapper's text ("" without one)
    dialect: object | None  # the wrapper's dialect, sniffed once (each sniff reads the whole text)
    metadata: WrapperMetadata
    metadata_unreadable: bool = False
    # what doctor read of the model: DoctorResult.readings[name], filled by the checks in CHECKS order
    readings: dict = field(default_factory=dict)

    @property
    def device(self) -> str:
        return self.metadata.device

    def finding(self, kind: str, severity: str, code: str, **facts) -> Finding:
        return Finding(kind, severity, code, facts, self.name)


class Check:
    """One family of findings: ``run`` returns them for one model (and fills ``m.readings``)."""

    name: str = ""

    def run(self, m: Subject, here: Here) -> list[Finding]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Check {self.name}>"
