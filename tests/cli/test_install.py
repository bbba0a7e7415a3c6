"""A plain (non-editable) install finds the grammars from any working directory, and the
inspect path never imports torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from _paths import ROOT, S

pytestmark = pytest.mark.slow  # a pip install

SAMPLE = S / "cpu/jagged/jagged.pt2"


def test_non_editable_install_ships_grammars(tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(ROOT)], check=True, capture_output=True, timeout=600)
    assert sorted(p.name for p in (target / "inspector/grammars").glob("*.lark")) == sorted(
        p.name for p in (ROOT / "grammars").glob("*.lark"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("import inspector, inspector.parse.grammar as g; "
            "print(inspector.__file__); print(g.grammar_text('wrapper')[:2]); "
            f"print(inspector.open_package({str(SAMPLE)!r}).model().name)")
    out = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True,
                         env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(str(target))  # the installed copy, not the source tree
    assert lines[1] == "//" and lines[2] == "model"

    # The report's page, CSS and script are package data: the installed copy writes a whole report.
    report = elsewhere / "r.html"
    out = subprocess.run([sys.executable, "-m", "inspector.cli", "--no-cache", "report", str(SAMPLE), "-o", str(report)],
                         cwd=elsewhere, capture_output=True, text=True, env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
                         timeout=120)
    assert out.returncode == 0, out.stderr
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>") and "{{" not in page
    assert "function code(src)" in page and "svg.chain .node" in page  # the script and the CSS


def test_inspect_path_imports_no_torch():
    # Imports are lazy (lark on first parse, networkx only for GraphML): run a whole inspect path, not just the imports.
    code = ("import inspector.cli, inspector.queries.trace, inspector.queries.show, inspector.render, inspector.graph.export, inspector; "
            f"pkg = inspector.open_package({str(SAMPLE)!r}, cache=False); inspector.queries.show.summarize(pkg); "
            "inspector.trace_assert(pkg, line=1); pkg.graph()")
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    mods = [l.split("|")[-1].strip() for l in out.stderr.splitlines() if "|" in l]
    assert "lark" in mods and "inspector.graph.minigraph" in mods  # the check sees real imports
    assert "networkx" not in mods  # only a GraphML export pays for it
    assert not [m for m in mods if m == "torch" or m.startswith("torch.")]
