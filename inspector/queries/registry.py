"""scan: `doctor` over many packages (a model registry), one process per package at a time.

`find_packages` walks the given files and folders for ``*.pt2`` files without following symbolic links;
`scan` runs `inspector.queries.doctor.doctor` on each in a process pool (a hostile or broken package costs
its own worker, never the run) and yields one `ScanRow` per package as it finishes; `summarize_rows` counts
packages, models, findings by kind and errors.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

MAX_PACKAGES = 100_000


@dataclass
class ScanRow:
    package: str
    ok: bool | None  # None: the package could not be read
    verdict: str
    models: list[str] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    error: str | None = None  # unreadable: why (exit 3's message); internal: a bug in pt2-inspect
    internal: bool = False

    def to_dict(self) -> dict:
        return {"package": self.package, "ok": self.ok, "verdict": self.verdict, "models": self.models,
                "findings": self.findings, "error": self.error, "internal": self.internal}


def find_packages(paths: list[str]) -> tuple[list[str], list[str]]:
    """(``.pt2`` files found, paths that are neither a file nor a folder); folders are walked without
    following symbolic links, and a linked ``.pt2`` is skipped."""
    found, missing = [], []
    for p in paths:
        path = Path(p)
        if path.is_symlink():
            missing.append(f"{p}: a symbolic link, not followed")
        elif path.is_file():
            found.append(str(path))
        elif path.is_dir():
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs.sort()
                for f in sorted(files):
                    q = Path(root) / f
                    if f.endswith(".pt2") and not q.is_symlink():
                        found.append(str(q))
                        if len(found) >= MAX_PACKAGES:
                            return found, missing
        else:
            missing.append(f"{p}: no such file or folder")
    return list(dict.fromkeys(found)), missing


def _one(path: str, options: dict) -> ScanRow:
    from ..errors import InspectorError
    from ..package import open_package
    from .doctor import doctor

    try:
        with open_package(path, cache=False) as pkg:
            r = doctor(pkg, **options)
        return ScanRow(path, r.ok, r.verdict(), r.models, [f.to_dict() for f in r.findings])
    except InspectorError as e:
        return ScanRow(path, None, f"not read: {e}", error=str(e))
    except Exception as e:  # noqa: BLE001 - a bug in pt2-inspect: recorded for this package, the run goes on
        return ScanRow(path, None, "internal error: a bug in pt2-inspect", error=f"{type(e).__name__}: {e}"[:300],
                       internal=True)


def scan(paths: list[str], options: dict, jobs: int | None = None):
    """Yield a `ScanRow` per package as its doctor finishes (in completion order)."""
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(paths) or 1))
    if jobs == 1:
        for p in paths:
            yield _one(p, options)
        return
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        futures = [ex.submit(_one, p, options) for p in paths]
        for fut in as_completed(futures):
            yield fut.result()


def summarize_rows(rows: list[ScanRow]) -> dict:
    by_kind: dict[str, dict[str, int]] = {}
    for r in rows:
        for f in r.findings:
            k = by_kind.setdefault(f["kind"], {"error": 0, "warn": 0, "info": 0})
            k[f["severity"]] += 1
    return {
        "packages": len(rows),
        "models": sum(len(r.models) for r in rows),
        "will_not_run": sum(1 for r in rows if r.ok is False),
        "unreadable": sum(1 for r in rows if r.ok is None and not r.internal),
        "internal_errors": sum(1 for r in rows if r.internal),
        "findings": {k: by_kind[k] for k in sorted(by_kind)},
    }
