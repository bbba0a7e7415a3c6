"""One way to add a command: a module of inspector/cli/ with ``add_parser(sub)`` and ``run(a)``, listed once in
``inspector.cli.COMMANDS``; the CLI assembles them."""

from __future__ import annotations

import argparse
import inspect
import re
from pathlib import Path

import inspector.cli as cli

CLI_DIR = Path(cli.__file__).parent


def test_every_command_module_is_listed_once():
    modules = sorted(p.stem for p in CLI_DIR.glob("*.py") if not p.stem.startswith("_"))
    assert sorted(m.__name__.rsplit(".", 1)[-1] for m in cli.COMMANDS) == modules
    assert len(set(cli.COMMANDS)) == len(cli.COMMANDS)


def test_every_command_has_its_arguments_and_its_run():
    sub = argparse.ArgumentParser().add_subparsers()
    for mod in cli.COMMANDS:
        assert list(inspect.signature(mod.add_parser).parameters) == ["sub"], mod.__name__
        assert list(inspect.signature(mod.run).parameters) == ["a"], mod.__name__
        p = mod.add_parser(sub)
        assert isinstance(p, argparse.ArgumentParser) and p.description, mod.__name__


def test_the_parser_dispatches_to_the_modules_run():
    p = cli._parser()
    names = {"show": "show", "trace-assert": "trace_assert", "diagnose": "diagnose", "check": "check", "graph": "graph",
             "report": "report", "source": "source", "extract": "extract"}
    for command, module in names.items():
        extra = {"report": ["-o", "x.html"], "source": ["--wrapper"], "extract": ["-o", "d"]}.get(command, [])
        a = p.parse_args([command, "PKG", *extra, "--debug"])
        assert a.command == command and a.debug is True
        assert a.run.__module__ == f"inspector.cli.{module}"


def test_help_lists_the_commands_in_order():
    text = cli._parser().format_help()
    listed = re.findall(r"^    ([a-z-]+)", text.split("\n  COMMAND\n", 1)[1], re.M)
    assert listed == [m.__name__.rsplit(".", 1)[-1].replace("_", "-") for m in cli.COMMANDS]
