"""The per-sample tests of test_cache.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import pytest

from _answers import answers
from _samples import SAMPLES as ALL_SAMPLES

# Samples whose real error log the tool traces today (tests/known_gaps.py), not an extern-op failure.
SAMPLES = [s.pkg for s in ALL_SAMPLES if s.traces and not s.extern]


@pytest.mark.parametrize("pkg", SAMPLES, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in SAMPLES])
def test_cached_answers_equal_fresh_ones(pkg, cache_dir):
    fresh = answers(pkg, use_cache=False)
    assert not list(cache_dir.glob("[0-9a-f]*.json"))
    first = answers(pkg, use_cache=True)  # indexes and writes
    files = list(cache_dir.glob("[0-9a-f]*.json"))
    assert files
    second = answers(pkg, use_cache=True)  # reads
    assert fresh == first == second
    assert fresh[2]["matches"]  # the real log traces, so the comparison covers a whole trace
