"""The per-sample tests of test_diagnose.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import json

import pytest

import inspector

from _paths import S
from _queries import diagnose_pkg, steps_ok
from _samples import SAMPLES, pkg_for, sample_of


ERROR_LOGS = [s.error_log for s in SAMPLES if s.traces] + [
    S / "cuda/transformer/logs/assert_warm_exit.log", S / "cuda/transformer/logs/assert_warm_sync.log",
    S / "cuda/embedding/logs/assert_embedding_warm_exit.log", S / "cuda/jagged/logs/assert_jagged_warm_exit.log"]


@pytest.mark.parametrize("log", ERROR_LOGS, ids=lambda p: f"{p.parent.parent.name}-{p.parent.name}")
def test_index_assert_with_line_gives_the_full_trace(log):
    assert ERROR_LOGS
    man = json.loads((pkg_for(log).parent / "manifest.json").read_text())
    d = diagnose_pkg(pkg_for(log), log.read_text())
    assert d.category == ("extern_op" if man["expect"].get("kernel", "").startswith("aoti_torch_") else "index_assert")
    assert d.trace and d.trace.matches[0].kernel == man["expect"]["kernel"]
    assert d.verdict == d.trace.verdict and d.verdict
    assert d.to_dict()["trace"] == d.trace.to_dict()
    steps_ok(d)


@pytest.mark.samples
def test_shipped_samples_have_no_unchecked_indirect_access():
    """Every sample with a manifest was compiled with index asserts on: no suspect may be reported."""
    from inspector.queries.suspects import unchecked_indirect

    pkgs = [p for p in sorted(S.glob("*/*/*.pt2")) if (p.parent / "manifest.json").exists()
            and sample_of(p).has("read")]
    assert len(pkgs) >= 12
    for p in pkgs:
        with inspector.open_package(p) as pkg:
            for m in pkg.models:
                assert unchecked_indirect(m, pkg.graph(m.name)) == [], p
