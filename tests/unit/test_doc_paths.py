"""Every test file the docs, the README, the code and the tests name by path exists (issue 21 §6: after tests/ was
split into unit/, samples/ and cli/, comments and docs still named tests/test_X.py), and a `::name` after it names
a function or class that file defines."""

from __future__ import annotations

import re
from pathlib import Path

from _paths import ROOT

# a path from the repository's root: not torch's own test/inductor/test_aot_inductor.py, nor aoti_tests/...
PATH = re.compile(r"(?<![\w/.-])tests/[\w/]+\.py(?:::(\w+))?")
WHERE = ["README.md", "pyproject.toml", ".ci/run", "docs/**/*.md", "inspector/**/*.py", "bench/**/*.py",
         "tools/**/*.py", "tests/**/*.py", "sample_packages/**/*.md", "sample_packages/*.py",
         "sample_packages/*/*.py", "sample_packages/*/*/*.py"]


def wrong_paths(text: str, root: Path = ROOT) -> list[str]:
    """Each ``tests/...py`` (or ``tests/...py::name``) in ``text`` that names no file under ``root`` (or no
    ``def name``/``class name`` in it)."""
    wrong = []
    for m in PATH.finditer(text):
        path = root / m.group(0).split("::", 1)[0]
        if not path.is_file():
            wrong.append(m.group(0))
        elif m.group(1) and not re.search(rf"^\s*(?:def|class) {m.group(1)}\b", path.read_text(), re.M):
            wrong.append(m.group(0))
    return wrong


def _files() -> list[Path]:
    """The files searched: not this one (its own examples name missing paths on purpose)."""
    here = Path(__file__).resolve()
    return sorted({p for pattern in WHERE for p in ROOT.glob(pattern) if p.is_file() and p.resolve() != here})


def test_every_named_test_path_exists():
    named = 0
    wrong = []
    for f in _files():
        text = f.read_text(errors="replace")
        named += len(PATH.findall(text))
        wrong += [f"{f.relative_to(ROOT)}: {w}" for w in wrong_paths(text)]
    assert named > 50, named  # the docs name tests: a search that finds none would check nothing
    assert not wrong, "\n".join(wrong)


def test_the_path_check_can_fail():
    text = ("see tests/test_cache.py, tests/unit/test_cache.py, tests/unit/test_cache.py::test_no_such_test, "
            "tests/unit/test_cache.py::test_no_cache_flag_writes_nothing and torch's test/inductor/test_aot_inductor.py")
    assert wrong_paths(text) == ["tests/test_cache.py", "tests/unit/test_cache.py::test_no_such_test"]


def test_the_folders_searched_exist():
    for pattern in WHERE:
        assert list(ROOT.glob(pattern)), pattern
