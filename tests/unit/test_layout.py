"""The layout of tests/ (issue 21 §6): unit/, samples/ and cli/, with the helpers (conftest.py, _cli.py,
_samples.py, known_gaps.py) at tests/.  tests/conftest.py's ``layout_errors`` fails collection on a file in
the wrong place; these tests hold that rule to real files, so the next test file is placed, not dropped in."""

from __future__ import annotations

from pathlib import Path

import conftest
from conftest import FOLDERS, TESTS, deselects_every_test, layout_errors, marks_of_every_test


def test_no_test_file_sits_directly_in_tests():
    assert TESTS.name == "tests" and (TESTS / "conftest.py").exists()
    stray = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not stray, f"move {stray} into tests/unit/, tests/samples/ or tests/cli/"


def test_each_folder_holds_tests_and_names_are_unique():
    names: dict[str, Path] = {}
    for folder in FOLDERS:
        files = sorted((TESTS / folder).glob("test_*.py"))
        assert len(files) >= 5, folder
        assert not (TESTS / folder / "__init__.py").exists()  # rootdir-relative imports: basenames must differ
        for f in files:
            assert f.name not in names, f"{f} and {names[f.name]}: pytest imports both as one module"
            names[f.name] = f


def test_the_helpers_are_reachable_from_every_folder():
    for helper in ("_cli.py", "_paths.py", "_samples.py", "known_gaps.py", "conftest.py"):
        assert (TESTS / helper).exists(), helper
    import _cli
    import _samples

    assert Path(_samples.__file__).resolve().parent == TESTS == Path(_cli.__file__).resolve().parent
    assert (_samples.S / "cpu").is_dir() and _samples.SAMPLES  # sample_packages/ found from tests/


def test_a_sample_loop_belongs_in_samples_and_slow_tests_out_of_unit():
    here = TESTS / "unit" / "test_x.py"
    assert layout_errors(here, per_sample=False, slow=False) == []
    assert "belongs in tests/samples/" in layout_errors(here, per_sample=True, slow=False)[0]
    assert "fast lane" in layout_errors(here, per_sample=False, slow=True)[0]
    assert len(layout_errors(here, per_sample=True, slow=True)) == 2
    cli = TESTS / "cli" / "test_x.py"
    assert layout_errors(cli, per_sample=False, slow=True) == []
    assert "belongs in tests/samples/" in layout_errors(cli, per_sample=True, slow=False)[0]
    samples = TESTS / "samples" / "test_x.py"
    assert layout_errors(samples, per_sample=True, slow=True) == []
    assert layout_errors(samples, per_sample=False, slow=False) == []  # marked samples by its folder
    top = TESTS / "test_x.py"
    assert "sits directly in tests/" in layout_errors(top, per_sample=False, slow=False)[0]


def test_this_session_was_checked(request):
    """The rule runs at collection: this item itself went through it, in unit/, without the samples mark."""
    assert conftest.layout_errors is layout_errors
    assert request.node.get_closest_marker("samples") is None
    assert Path(str(request.node.fspath)).parent == TESTS / "unit"


def test_what_m_deselects_whole_is_not_collected():
    """conftest.py's ``pytest_ignore_collect``: the fast lane imports neither tests/samples/ nor a module marked slow
    whole, and nothing that some test of it could be selected by."""
    fast = "not samples and not slow"
    assert deselects_every_test(fast, {"samples"}) and deselects_every_test(fast, {"slow"})
    assert not deselects_every_test(fast, set())  # a unit file: its tests are chosen one by one
    assert not deselects_every_test("not slow", {"samples"}) and not deselects_every_test("samples or slow", {"samples"})
    assert not deselects_every_test("not (samples and needs)", {"samples"})  # true for a sample test without needs
    assert not deselects_every_test(None, {"samples"}) and not deselects_every_test("", {"slow"})
    assert marks_of_every_test(TESTS / "samples") == {"samples"}
    assert marks_of_every_test(TESTS / "samples" / "test_fuzz.py") == {"samples", "slow"}
    assert marks_of_every_test(TESTS / "cli" / "test_remote.py") == {"slow"}
    assert marks_of_every_test(TESTS / "unit" / "test_layout.py") == set()
