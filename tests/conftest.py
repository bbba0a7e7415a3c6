"""Shared fixtures and markers.

- Every test runs with its own index cache folder: nothing is written to the user's cache dir.
- ``sample`` (a tests/_samples.Sample): a test that takes it runs once per manifest sample, id
  ``<build>-<name>``.  ``samples``, ``packages``, ``logs``: the whole lists, for tests that loop.
- ``@pytest.mark.needs("capability", ...)``: on a sample that lacks one (tests/known_gaps.py), the test is
  a strict xfail with the table's reason.  The sample is the test's ``sample`` parameter, or the sample
  folder of its first parameter that is a path under sample_packages/.
- The layout (issue 21 §6): ``tests/unit/`` (fast, no sample loop, no ``slow``), ``tests/samples/`` (every test
  there is marked ``samples``: the per-sample loops, the sweep, fuzzing, the large package) and ``tests/cli/`` (the
  command line, ``--help`` examples, install, servers, the report in a browser).  A test that runs once per sample
  (a parameter that is a Sample or a path under sample_packages/, or an explicit ``samples`` mark) belongs in
  samples/; collection fails on a test file directly in tests/, a sample loop outside samples/ or a ``slow`` test
  in unit/ (``layout_errors``), so the next file is placed.  The fast lane is ``pytest -m "not samples and not
  slow"``: unit/ and the quick half of cli/; what ``-m`` deselects whole (that folder, a module marked slow) is not
  even collected (``pytest_ignore_collect``).
- Under pytest-xdist every worker shares one index cache folder (the cache is safe for concurrent writers:
  tests/unit/test_cache.py), so a package one worker indexed is not indexed again by the other.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import pytest

from _browser import browser  # noqa: F401  (registered here: the report tests' chromium, tests/_browser.py)
from _paths import TESTS
from _samples import LOGS, PACKAGES, SAMPLES, Sample, sample_of


FOLDERS = ("unit", "samples", "cli")


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # not under xdist
        folder = tmp_path_factory.mktemp("pt2-inspect-cache")
    else:  # basetemp is .../popen-gwN; its parent is this run's, shared by the workers
        folder = tmp_path_factory.getbasetemp().parent / "pt2-inspect-cache"
        folder.mkdir(exist_ok=True)
    mp.setenv("PT2_INSPECT_CACHE_DIR", str(folder))
    yield
    mp.undo()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    """An index cache folder of the test's own (not made yet): for a test that tests the cache, or that must not
    meet an entry another test wrote in the shared one.  ``PT2_INSPECT_CACHE_DIR`` points there for the test."""
    d = tmp_path / "cache"
    monkeypatch.setenv("PT2_INSPECT_CACHE_DIR", str(d))
    return d


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


def layout_errors(path: Path, *, per_sample: bool, slow: bool) -> list[str]:
    """What is wrong with a test at ``path`` (a file under tests/) that runs once per sample (``per_sample``) or
    is marked slow: empty when it sits in the right folder."""
    parts = path.resolve().relative_to(TESTS).parts
    folder = parts[0] if len(parts) > 1 else None
    if folder not in FOLDERS:
        return [f"{path.name} sits directly in tests/: move it to tests/unit/ (fast, no sample loop), "
                "tests/samples/ (once per sample, or slow over samples) or tests/cli/ (the command line, servers)"]
    errors = []
    if per_sample and folder != "samples":
        errors.append(f"tests/{folder}/{path.name} runs once per sample: that test belongs in tests/samples/")
    if slow and folder == "unit":
        errors.append(f"tests/unit/{path.name} has a slow test: tests/unit/ is the fast lane (samples/ or cli/)")
    return errors


# a module's marks, as the test files write them: every test in it carries each
_MODULE_MARKS = re.compile(r"^pytestmark = (?:\[[^\]\n]*\]|pytest\.mark\.\w+)", re.M)
_MARK_NAME = re.compile(r"pytest\.mark\.(\w+)")


def marks_of_every_test(path: Path) -> set[str]:
    """The marks every test at ``path`` carries whatever it is: ``samples`` under tests/samples/ (its folder marks it),
    and the marks a test file's ``pytestmark = pytest.mark.X`` (or ``[…]``) line gives its whole module."""
    marks = {"samples"} if path.resolve().is_relative_to(TESTS / "samples") else set()
    if path.suffix == ".py" and path.name.startswith("test_"):
        for line in _MODULE_MARKS.findall(path.read_text(errors="replace")):
            marks.update(_MARK_NAME.findall(line))
    return marks


def deselects_every_test(markexpr: str | None, marks: set[str]) -> bool:
    """Whether ``-m markexpr`` is false for every test that carries ``marks``, whatever other marks it has (the fast
    lane's ``not samples and not slow`` is, for ``{"samples"}`` and for ``{"slow"}``)."""
    if not markexpr or not marks or "=" in markexpr:  # no -m, or a mark's keyword arguments: leave it to pytest
        return False
    try:
        from _pytest.mark.expression import Expression  # how pytest reads -m (no public name for it)

        expr = Expression.compile(markexpr)
        others = sorted(expr.idents() - marks)
    except (ImportError, AttributeError, SyntaxError):  # another pytest, or a bad -m that pytest will report
        return False
    if len(others) > 8:
        return False
    for bits in itertools.product((False, True), repeat=len(others)):
        on = marks | {name for name, bit in zip(others, bits) if bit}
        if expr.evaluate(lambda name, **_: name in on):
            return False
    return True


def pytest_ignore_collect(collection_path, config):
    """What ``-m`` deselects whole is not collected: with ``-m "not samples and not slow"`` tests/samples/ (about
    4,000 tests) and the server files are not imported and parametrized only to be dropped, by every worker."""
    markexpr = config.getoption("markexpr")
    if markexpr and (collection_path.is_dir() or collection_path.suffix == ".py") \
            and collection_path.resolve().is_relative_to(TESTS) \
            and deselects_every_test(markexpr, marks_of_every_test(collection_path)):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    wrong: dict[str, None] = {}
    for item in items:
        s = _sample_param(item)
        path = Path(str(item.fspath))
        per_sample = s is not None or item.get_closest_marker("samples") is not None
        for e in layout_errors(path, per_sample=per_sample, slow=item.get_closest_marker("slow") is not None):
            wrong[e] = None  # one line per file and fault
        if path.resolve().is_relative_to(TESTS / "samples"):
            item.add_marker(pytest.mark.samples)
        for mark in item.iter_markers("needs"):
            if s is None:
                raise pytest.UsageError(f"{item.nodeid}: @needs{mark.args} on a test with no sample parameter")
            why = s.gap(*mark.args)
            if why:
                item.add_marker(pytest.mark.xfail(strict=True, reason=why))
    if wrong:
        raise pytest.UsageError("tests in the wrong folder (tests/conftest.py, the layout):\n  " + "\n  ".join(wrong))
