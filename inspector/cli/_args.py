"""What every command's parser shares: the exit-code text, the global flags, and how a command's parser is made.

A command module (inspector/cli/<command>.py) calls ``command_parser`` in its ``add_parser(sub)``; the CLI
(inspector/cli/__init__.py) adds the global flags and ``run`` to every parser it gets back.
"""

from __future__ import annotations

import argparse

EXIT_CODES = """exit codes:
  0  ok
  1  nothing found (no assertion matched); for check: an input does not fit; with
     --strict also: a statement no grammar rule understood was skipped
  2  usage error (bad arguments, unknown --model, an empty or binary log,
     an -o that cannot be written)
  3  unreadable input or not an AOTI package (not a file, not a zip, truncated zip,
     no data/aotinductor/<model>/ inside, wrapper that is not UTF-8)
  4  internal error: a bug in pt2-inspect, not in the package (rerun with --debug
     for the traceback and report it)"""

GLOBAL_FLAGS = (
    ("--debug", "on an internal error, print the traceback instead of one line"),
    ("--strict", "exit 1 when a statement of the package was skipped (no grammar rule understood it)"),
    ("--no-cache", "neither read nor write the index cache ($PT2_INSPECT_CACHE_DIR, default ~/.cache/pt2-inspect)"),
)

FORMATTER = argparse.RawDescriptionHelpFormatter


def add_global_flags(p: argparse.ArgumentParser, sub: bool) -> None:
    """The flags every command takes, before or after the command name."""
    for flag, text in GLOBAL_FLAGS:
        kw = {"default": argparse.SUPPRESS} if sub else {"default": False}
        p.add_argument(flag, action="store_true", help=text, **kw)


def command_parser(sub, name: str, help: str, description: str, epilog: str | None = EXIT_CODES):
    """A command's parser: its one-line ``help`` (in `pt2-inspect --help`) and its ``description`` (its own
    --help, printed as written); ``epilog`` the exit codes unless the description says them itself."""
    return sub.add_parser(name, help=help, description=description, formatter_class=FORMATTER, epilog=epilog)
