"""What a plain `pip install .` ships: pyproject.toml lists every inspector/ package (the install itself, into a fresh
folder: tests/cli/test_install.py)."""

from __future__ import annotations

from _paths import ROOT


def test_every_subpackage_is_installed():
    """A plain `pip install .` ships only the packages pyproject lists: every inspector/ subpackage must be there."""
    text = (ROOT / "pyproject.toml").read_text()
    # every depth: queries/doctor and queries/diagnose/rules were left out of a plain install once (stop 27)
    subs = sorted(p.parent.relative_to(ROOT).as_posix().replace("/", ".") for p in (ROOT / "inspector").rglob("*/__init__.py"))
    assert {"inspector.queries", "inspector.cli", "inspector.queries.diagnose.rules", "inspector.render.html"} <= set(subs)
    for s in subs:
        assert f'"{s}"' in text, s
