"""What the index-cache tests compare, fresh against cached (one home: tests/unit/test_cache.py and
tests/samples/test_cache_samples.py both use it)."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.queries.show import summarize
from inspector import trace_assert


def answers(pkg_path: Path, use_cache: bool):
    """show (whole parse), show (lazy: from the scan and the small facts), and the trace of the real log, with
    the words that say where an answer came from (the index cache) and the lazy show's coverage left out."""
    log = (pkg_path.parent / "error.log").read_text()
    with inspector.open_package(pkg_path, cache=use_cache) as pkg:
        s = summarize(pkg, full=True).to_dict()
    with inspector.open_package(pkg_path, cache=use_cache) as pkg:
        lazy = summarize(pkg).to_dict()
        r = trace_assert(pkg, log=log).to_dict()
    for m in s["models"] + lazy["models"]:
        m["warnings"] = [w for w in m["warnings"] if "index cache" not in w]
    for m in lazy["models"]:
        m.pop("coverage")  # counts the statements parsed in this process: none, on a cache hit
    r["hints"] = [h for h in r["hints"] if "index cache" not in h]
    return s, lazy, r
