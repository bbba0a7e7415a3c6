"""Shared fixtures and markers.

- Every test runs with its own index cache folder: nothing is written to the user's cache dir.
- ``sample`` (a tests/_samples.Sample): a test that takes it runs once per manifest sample, id
  ``<build>-<name>``.  ``samples``, ``packages``, ``logs``: the whole lists, for tests that loop.
- ``@pytest.mark.needs("capability", ...)``: on a sample that lacks one (tests/known_gaps.py), the test is
  a strict xfail with the table's reason.  The sample is the test's ``sample`` parameter, or the sample
  folder of its first parameter that is a path under sample_packages/.
- Marker ``samples``: put on every test that runs once per sample (a parameter that is a Sample or a path
  under sample_packages/), so that ``pytest -m "not samples"`` is the fast lane.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _samples import LOGS, PACKAGES, SAMPLES, Sample, sample_of


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("PT2_INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("pt2-inspect-cache")))
    yield
    mp.undo()


def _parametrized(metafunc, name: str) -> bool:
    for m in metafunc.definition.iter_markers("parametrize"):
        names = m.args[0]
        if name in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return True
    return False


def pytest_generate_tests(metafunc):
    """A test taking ``sample`` runs on every manifest sample (unless it parametrizes ``sample`` itself)."""
    if "sample" in metafunc.fixturenames and not _parametrized(metafunc, "sample"):
        metafunc.parametrize("sample", SAMPLES, ids=[s.id for s in SAMPLES])


@pytest.fixture(scope="session")
def samples() -> list[Sample]:
    return SAMPLES


@pytest.fixture(scope="session")
def packages() -> list[Path]:
    return PACKAGES


@pytest.fixture(scope="session")
def logs() -> list[Path]:
    return LOGS


def _sample_param(item) -> Sample | None:
    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        if isinstance(value, Sample):
            return value
        if isinstance(value, (str, Path)):
            s = sample_of(Path(value)) if "sample_packages" in str(value) else None
            if s is not None:
                return s
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        s = _sample_param(item)
        if s is not None:
            item.add_marker(pytest.mark.samples)
        for mark in item.iter_markers("needs"):
            if s is None:
                raise pytest.UsageError(f"{item.nodeid}: @needs{mark.args} on a test with no sample parameter")
            why = s.gap(*mark.args)
            if why:
                item.add_marker(pytest.mark.xfail(strict=True, reason=why))
