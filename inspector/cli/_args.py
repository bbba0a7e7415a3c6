"""What every command's parser shares: the exit-code text, the global flags, how a command's parser is made, and
the flags several commands take (``add_json``, ``add_model``, ``add_log``, ``add_ep``, ``add_output``, ``add_host``…),
each declared here once.

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


# ---------------------------------------------------------------------------
# Flags several commands take, each declared once (as pip's cli/cmdoptions.py does).  A command passes its own
# ``help`` only where the flag means something particular to it.
# ---------------------------------------------------------------------------

MODEL_ONLY = "only this model of the package"  # the answer covers every model unless one is named
MODEL_WHICH = "which model (default: the only one, or 'model')"  # the command reads one model


def add_package(p: argparse.ArgumentParser) -> None:
    p.add_argument("package", metavar="PKG")


def add_json(p: argparse.ArgumentParser, help: str = "print one JSON object") -> None:
    p.add_argument("--json", action="store_true", help=help)


def add_model(p: argparse.ArgumentParser, help: str = MODEL_ONLY) -> None:
    p.add_argument("--model", metavar="NAME", help=help)


def add_ep(p: argparse.ArgumentParser, used_for: str = "user names and lines") -> None:
    p.add_argument("--ep", metavar="FILE", help=f"an exported program (torch.export.save) for {used_for}")


def add_log(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--log", metavar="FILE", help=help)


def add_wide(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wide", action="store_true", help="never wrap or cut: lines as long as they need (default when piped)")


def add_output(p: argparse.ArgumentParser, help: str, metavar: str = "FILE", **kw) -> None:
    p.add_argument("-o", "--output", metavar=metavar, help=help, **kw)


def add_inputs(p: argparse.ArgumentParser, help: str, one_per_flag: bool = False) -> None:
    """``--input SPEC`` as `check` takes it: several after one flag (`--input A B`) unless ``one_per_flag``."""
    if one_per_flag:
        p.add_argument("--input", action="append", default=[], metavar="SPEC", help=help)
    else:
        p.add_argument("--input", action="extend", nargs="+", default=[], metavar="SPEC", help=help)


def add_host(p: argparse.ArgumentParser, many: bool = False) -> None:
    """The serving host doctor (one package) and scan (``many``) check against."""
    they, them = ("they", "them") if many else ("it", "it")
    p.add_argument("--gpu", metavar="sm_XX|auto", help=f"the GPU {they} will run on (sm_80, 8.0) or auto (nvidia-smi)")
    p.add_argument("--host-cpuinfo", metavar="FILE|auto", help="a saved /proc/cpuinfo of the serving host, or auto")
    p.add_argument("--torch", metavar="X.Y", help=f"the torch release that will load {them} (2.6 ... 2.15)")


def add_run_device(p: argparse.ArgumentParser) -> None:
    """Where repro and sweep run the package (a child process)."""
    p.add_argument("--device", metavar="cpu|cuda|cuda:N", help="where to run (default: the package's device)")


def add_weights(p: argparse.ArgumentParser) -> None:
    """The constants repro and sweep load a package built without them with."""
    p.add_argument("--weights", metavar="FILE", help="constants for a package built without them (torch.save of a dict)")


def add_run(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--run", dest="run_it", action="store_true", help=help)
