"""Queries on a package path, as the unit/samples twins of a file both call them (one home each): ``diagnose_pkg``
and ``doctor_pkg`` open the package and answer; ``steps_ok`` holds what every diagnose step must be."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.explain import ENV_WHEN
from inspector import diagnose
from inspector.queries.doctor import doctor

from _paths import ROOT

# bench/multi_model.pt2: two models, built with package_constants_in_so=False (doctor's weightless findings)
MULTI = ROOT / "bench" / "multi_model.pt2"


def diagnose_pkg(pkg: Path, log: str, **kw):
    """``diagnose`` of the log text ``log`` against the package at ``pkg``."""
    with inspector.open_package(pkg) as p:
        return diagnose(p, log, **kw)


def doctor_pkg(path: Path, **kw):
    """``doctor`` on the package at ``path``."""
    with inspector.open_package(path) as pkg:
        return doctor(pkg, **kw)


def steps_ok(d) -> None:
    """A diagnosis has steps, each saying what to do and when (compile, run or either), with every environment
    variable it sets one ENV_WHEN knows, and the step's `when` that variable's when all its variables agree."""
    assert d.steps
    for s in d.steps:
        assert s.do and s.when in ("compile", "run", None)
        for k in s.env:
            assert k in ENV_WHEN, k
        if s.env and len({ENV_WHEN[k] for k in s.env}) == 1:
            assert s.when == ENV_WHEN[next(iter(s.env))]
