"""The real sample packages, their manifests and their real logs, found once for every test file.

``SAMPLES`` holds one ``Sample`` per ``sample_packages/<build>/<name>/manifest.json`` (the ground truth
sample_packages/build.py wrote); ``PACKAGES`` every AOTI package on disk (the manifest-less ones too:
``cpu/ima_embedding/package``, ``cuda/embedding_noassert``); ``LOGS`` every real log (``error.log`` and
``logs/*.log``).  Lists, not fixtures, because ``parametrize`` needs them at collection; conftest.py
wraps the common ones as fixtures.  Known gaps: tests/known_gaps.py, asked through ``Sample.has``.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from _paths import S
from known_gaps import GAPS, TRACE


@dataclass(frozen=True)
class Sample:
    """One sample folder: ``sample_packages/<build>/<name>/`` (build: cpu, cuda, cpu-2.6, ...)."""

    dir: Path

    @property
    def build(self) -> str:
        return self.dir.parent.name

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def key(self) -> str:
        """``<build>/<name>``: how known_gaps.py names it."""
        return f"{self.build}/{self.name}"

    @property
    def id(self) -> str:
        """``<build>-<name>``: the test id every per-sample test uses."""
        return f"{self.build}-{self.name}"

    def __str__(self) -> str:  # pytest's id for a bare Sample parameter
        return self.id

    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.json"

    @cached_property
    def manifest(self) -> dict | None:
        p = self.manifest_path
        return json.loads(p.read_text()) if p.exists() else None

    @property
    def expect(self) -> dict:
        return (self.manifest or {}).get("expect", {})

    @property
    def pkg(self) -> Path:
        """The package: ``<name>.pt2`` beside the manifest, else the one .pt2 here or in ``package/``."""
        if self.manifest:
            return self.dir / f"{self.manifest['name']}.pt2"
        return next(iter(sorted(self.dir.glob("*.pt2")) + sorted((self.dir / "package").glob("*.pt2"))))

    @property
    def error_log(self) -> Path:
        return self.dir / "error.log"

    @property
    def logs(self) -> list[Path]:
        return sorted((self.dir / "logs").glob("*.log"))

    @property
    def device(self) -> str:
        return (self.manifest or {}).get("device") or self.build.split("-")[0]

    @property
    def fired(self) -> bool:
        """The trigger made the package fail (a swallowed extern exception exits 0 and prints nothing)."""
        return self.expect.get("fired", True)

    @property
    def extern(self) -> bool:
        """The real error came from an ATen op the wrapper calls, not from a generated kernel."""
        return self.expect.get("kernel_kind") == "extern"

    # -- known gaps ---------------------------------------------------------------------------------

    def gap(self, *capabilities: str) -> str | None:
        """Why the tool lacks any of ``capabilities`` on this sample (reasons joined), or None."""
        reasons = []
        for cap in capabilities:
            if cap not in GAPS:
                raise KeyError(f"unknown capability {cap!r}: add it to tests/known_gaps.py")
            for pattern, why in GAPS[cap].items():
                if fnmatch.fnmatchcase(self.key, pattern) and why not in reasons:
                    reasons.append(why)
        return "; ".join(reasons) or None

    def has(self, *capabilities: str) -> bool:
        return self.gap(*capabilities) is None

    @property
    def traces(self) -> bool:
        """Its real error fired and the tool traces it to the manifest's truth today."""
        return self.fired and self.has(*TRACE)


def sample_of(path: Path) -> Sample | None:
    """The sample a package, manifest, log or folder under sample_packages/<build>/<name>/ belongs to."""
    try:
        rel = Path(path).resolve().relative_to(S)
    except ValueError:
        return None
    if len(rel.parts) < 2:
        return None
    return Sample(S / rel.parts[0] / rel.parts[1])


def error_log_text(folder: Path) -> str:
    """The real ``error.log`` of a sample folder, as text."""
    return (Path(folder) / "error.log").read_text()


def options_index(name: str) -> dict:
    """``sample_packages/options/<name>/index.json``: how a packaging-option case was built and what its runs did."""
    return json.loads((S / "options" / name / "index.json").read_text())


def options_pkg(name: str) -> Path:
    """``sample_packages/options/<name>/``'s package: ``<name>.pt2``; aot_compile wrote no package but the folder
    ``model/``, which the tool reads as one."""
    d = S / "options" / name
    return d / "model" if name == "aot_compile" else d / f"{name}.pt2"


def options_log(name: str, scenario: str) -> str:
    """The text of ``sample_packages/options/<name>/logs/<scenario>.log``: a real run of an options case."""
    return (S / "options" / name / "logs" / f"{scenario}.log").read_text()


def pkg_for(log: Path) -> Path:
    """The package a real log came from: logs/index.json names it; else the sample's own package."""
    log = Path(log)
    if log.parent.name == "logs":
        index = log.parent / "index.json"
        if index.exists():
            entry = json.loads(index.read_text()).get(log.stem)
            if entry and entry.get("package"):
                return S / entry["package"]
    return sample_of(log).pkg


SAMPLES: list[Sample] = [Sample(p.parent) for p in sorted(S.glob("*/*/manifest.json"))]
IDS = [s.id for s in SAMPLES]
MANIFESTS = [s.manifest_path for s in SAMPLES]
TRACED_MANIFESTS = [s.manifest_path for s in SAMPLES if s.traces]  # the samples whose real error the tool traces
# Every AOTI package on disk, the harvest's (issue 16: code nobody here wrote) included; ep/ folders and
# exported_program.pt2 hold torch.export.save files, not AOTI packages.
PACKAGES = sorted(p for p in S.glob("**/*.pt2") if p.parent.name != "ep" and p.name != "exported_program.pt2")
LOGS = sorted({*S.glob("*/*/error.log"), *S.glob("*/*/logs/*.log")})
# The samples built with their exported program packaged (models/model.json); torch 2.6 cannot package one.
WITH_EP = sorted(p for p in S.glob("*/*/*.pt2") if "gather_dynamic" in p.parent.name and p.parent.parent.name != "cpu-2.6")


def by_name(key: str) -> Sample:
    """``by_name("cuda/jagged")``."""
    s = Sample(S / key)
    assert s.dir.is_dir(), key
    return s
