"""The report at production size: it never parses a model whole.  Its kernel list comes from the lazy
index's scan (inspector.queries.kernels) and each chain from the slice its trace read; both must say what
the whole parse says, on every sample."""

from __future__ import annotations

import json

import pytest

import inspector
from inspector.package import Package
from inspector.queries.kernels import kernel_rows
from inspector.cli.report import build_report
from inspector.queries.report_chain import trace_chain

from _paths import S
from _samples import PACKAGES  # noqa: E402  (every AOTI package, the harvest's included)
TRACED = sorted(p.parent for p in S.glob("*/*/error.log") if list(p.parent.glob("*.pt2")))
assert TRACED
IDS = [p.relative_to(S).as_posix() for p in PACKAGES]


def _parsed_rows(m) -> list[tuple]:
    """The kernel list as the whole parse says it: launches, inputs and FX nodes from the parsed call sites."""
    launches, inputs, fx = {}, {}, {}
    in_names = {i.name for i in m.inputs}
    for s in m.calls:
        if s.kind != "kernel":
            continue
        launches[s.target] = launches.get(s.target, 0) + 1
        for arg in s.args:
            if arg.base in in_names:
                inputs.setdefault(s.target, {})[arg.base] = None
        for n in s.source_nodes:
            fx.setdefault(s.target, {})[n] = None
    return [(k.name, k.backend if k.backend != "triton" else f"triton {k.heuristic}", launches.get(k.name, 0),
             [(a.line, a.message) for a in k.assertions], list(inputs.get(k.name, {})), list(fx.get(k.name, {})))
            for k in m.kernels.values()]


@pytest.mark.parametrize("path", PACKAGES, ids=IDS)
def test_scanned_kernel_rows_equal_the_parsed_ones(path):
    with inspector.open_package(path, cache=False) as pkg:
        assert pkg.model_names  # a loop over none would compare nothing
        for name in pkg.model_names:
            scanned = [(r.name, r.kind, r.launches, r.assertions, r.inputs, r.fx_nodes) for r in kernel_rows(pkg, name)]
            assert scanned == _parsed_rows(pkg.model(name))


@pytest.fixture
def no_whole_parse(monkeypatch):
    def refuse(self, *a, **kw):
        raise AssertionError("the report parsed a whole model (Package.model)")

    monkeypatch.setattr(Package, "model", refuse)


@pytest.mark.parametrize("case", TRACED, ids=lambda d: f"{d.parent.name}/{d.name}")
def test_report_never_parses_a_model_whole(case, no_whole_parse):
    with inspector.open_package(next(case.glob("*.pt2")), cache=False) as pkg:
        page, info = build_report(pkg, (case / "error.log").read_text(), with_info=True)
    assert page.startswith("<!DOCTYPE html>") and info["kernels"] > 0


@pytest.mark.parametrize("case", TRACED, ids=lambda d: f"{d.parent.name}/{d.name}")
def test_chains_on_the_slice_equal_chains_on_the_whole_parse(case):
    from inspector import trace_assert

    with inspector.open_package(next(case.glob("*.pt2")), cache=False) as pkg:
        r = trace_assert(pkg, log=(case / "error.log").read_text())
        sliced = [trace_chain(pkg, mt) for mt in r.matches[:3]]
        whole = [trace_chain(pkg, mt, pkg.model(mt.model)) for mt in r.matches[:3]]
    if not r.matches:
        # a log that traces to nothing (cpu/scatter_reduce: the run printed no failure) has no chain to compare;
        # it must say so, and must be a sample whose manifest says the run did not fail
        manifest = json.loads((case / "manifest.json").read_text())
        assert manifest["expect"].get("fired") is False, f"{case}: no match, but the run failed"
        pytest.skip(f"{case.name}: the run printed no failure, nothing to trace")
    for a, b in zip(sliced, whole, strict=True):
        assert a.nodes == b.nodes and a.edges == b.edges and a.root == b.root
