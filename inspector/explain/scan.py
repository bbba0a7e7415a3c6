"""The words of `scan` (inspector.queries.scan): a row's verdict when the package was not doctored."""

from __future__ import annotations

EXPORTED_PROGRAM = "not an AOTI package (an exported program: torch.export.save; doctor has nothing to check)"


def not_read(error: str) -> str:
    return f"not read: {error}"


def timed_out(limit: float) -> str:
    return f"not checked: doctor took longer than the {limit:g} s limit (--time-limit)"


def worker_died(detail: str) -> str:
    return f"not checked: the worker process reading it died ({detail})"


def cancelled(detail: str) -> str:
    return f"not checked: the cluster dropped its task ({detail})"


INTERNAL = "internal error: a bug in pt2-inspect"
