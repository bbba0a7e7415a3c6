"""The per-sample tests of test_cache.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector
from inspector.index import cache
from inspector.queries.show import summarize
from inspector.queries.trace import trace_assert

from _samples import SAMPLES as ALL_SAMPLES

# Samples whose real error log the tool traces today (tests/known_gaps.py), not an extern-op failure.
SAMPLES = [s.pkg for s in ALL_SAMPLES if s.traces and not s.extern]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("PT2_INSPECT_CACHE_DIR", str(d))
    return d


def _answers(pkg_path: Path, use_cache: bool):
    """show (whole parse), show (lazy: from the scan and the small facts), and the trace of the real log."""
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


@pytest.mark.parametrize("pkg", SAMPLES, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in SAMPLES])
def test_cached_answers_equal_fresh_ones(pkg, cache_dir):
    fresh = _answers(pkg, use_cache=False)
    assert not list(cache_dir.glob("[0-9a-f]*.json"))
    first = _answers(pkg, use_cache=True)  # indexes and writes
    files = list(cache_dir.glob("[0-9a-f]*.json"))
    assert files
    second = _answers(pkg, use_cache=True)  # reads
    assert fresh == first == second
    assert fresh[2]["matches"]  # the real log traces, so the comparison covers a whole trace
