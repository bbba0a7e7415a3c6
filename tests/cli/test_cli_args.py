"""Flags several commands take are declared once, in inspector/cli/_args.py (issue 21 §4: `--json` was declared
in 11 files).  A command declares only its own flags.  Fast: no package is opened."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from inspector.cli import COMMANDS
from inspector.cli._args import add_global_flags

from _paths import ROOT

CLI = ROOT / "inspector/cli"

# Declared in _args.py.  `check --device` (where the package is loaded) and `doctor --weights` (weights to check
# against the constants) are other flags under the same names: they stay in their commands.
SHARED = {"package", "--json", "--model", "--log", "--ep", "--wide", "--output", "--input", "--gpu",
          "--host-cpuinfo", "--torch", "--device", "--weights", "--run"}
OWN = {("check.py", "--device"), ("doctor.py", "--weights")}


def _declared(path: Path) -> list[str]:
    """The first name of every ``add_argument("…", …)`` call in ``path``."""
    out = []
    for n in ast.walk(ast.parse(path.read_text(), str(path))):
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument"
                and n.args and isinstance(n.args[0], ast.Constant)):
            names = [a.value for a in n.args if isinstance(a, ast.Constant)]
            out.append(next((x for x in names if x.startswith("--")), names[0]))
    return out


def test_shared_flags_are_declared_only_in_args():
    files = sorted(p for p in CLI.glob("*.py") if p.name != "_args.py")
    assert len(files) >= 14  # the command modules are seen
    seen = {p.name: _declared(p) for p in files}
    assert "--around" in seen["graph.py"]  # the scan sees the commands' own flags
    bad = [(f, x) for f, flags in seen.items() for x in flags if x in SHARED and (f, x) not in OWN]
    assert bad == []
    assert set(_declared(CLI / "_args.py")) >= SHARED


def _parsers() -> dict[str, argparse.ArgumentParser]:
    top = argparse.ArgumentParser(prog="pt2-inspect")
    sub = top.add_subparsers(dest="command")
    out = {}
    for mod in COMMANDS:
        p = mod.add_parser(sub)
        add_global_flags(p, sub=True)
        out[p.prog.split()[-1]] = p
    return out


def test_a_shared_flag_means_one_thing_everywhere():
    """Every command's `--json` is a plain switch, every `--model` takes NAME, every `--ep` a FILE."""
    parsers = _parsers()
    assert len(parsers) == len(COMMANDS) >= 14
    found = {"--json": 0, "--model": 0, "--ep": 0}
    for name, p in parsers.items():
        for act in p._actions:
            for flag in set(act.option_strings) & set(found):
                found[flag] += 1
                if flag == "--json":
                    assert isinstance(act, argparse._StoreTrueAction), name
                else:
                    assert act.metavar == ("NAME" if flag == "--model" else "FILE"), (name, flag)
    assert found["--json"] >= 11 and found["--model"] >= 10 and found["--ep"] >= 5, found
