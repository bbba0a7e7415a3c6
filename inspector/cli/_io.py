"""The CLI's shared I/O: the log a command reads (file or stdin), -o checks and writes, the console it
prints to, the progress bar on stderr.  Commands import these from here, never from inspector.cli."""

from __future__ import annotations

import os
import sys

from ..errors import UsageError


class ProgressBar:
    """A rich bar on stderr for indexing, shown only once it has taken a second (never on stdout)."""

    def __init__(self, label: str, unit: str = "lines of wrapper.cpp"):
        import time

        self.label, self.unit, self.clock, self.t0, self.bar = label, unit, time.monotonic, time.monotonic(), None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if self.clock() - self.t0 < 1.0:
                return
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(f"{self.label} ({self.unit})", total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


WIDE = 100_000  # piped or --wide: no line is ever cut or wrapped, so names can be copied and grepped


def console(wide: bool = False, stderr: bool = False):
    """A terminal gets its width (rich reads COLUMNS); a pipe or --wide gets lines as long as they need.
    ``stderr``: write there (the notes beside an answer that goes to stdout)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich exits 1 here; a closed pipe is no error for us (see main)
            self.quiet = True
            raise BrokenPipeError

    stream = sys.stderr if stderr else sys.stdout
    return _Console(highlight=False, soft_wrap=False, stderr=stderr,
                    width=WIDE if wide or not stream.isatty() else None)


def read_log(arg: str, flag: str = "--log", instead: str | None = None) -> str:
    """The log text; a usage error (exit 2) for a missing, empty or binary file.  ``instead``: the options of the
    calling command that work without a log (trace-assert's ``--line N / --message TEXT``), named in the error;
    a command that has none gets none named (issue 22 §3: diagnose's error named trace-assert's options)."""
    name = "stdin" if arg == "-" else arg
    if arg == "-":
        data = stdin_bytes()
    else:
        if not os.path.exists(arg) or os.path.isdir(arg):
            raise UsageError(f"{flag} {arg}: no such file")
        try:
            with open(arg, "rb") as f:
                data = f.read(64 * 1024 * 1024)
        except OSError as e:
            raise UsageError(f"{flag} {arg}: cannot read it ({e.strerror})") from None
    return log_text(data, f"{flag} {name}", instead)


def read_report(a, text: str, name: str):
    """The log's text read once into its ``LogReport`` (``inspector.logs.parse_log``), which the command's queries
    share; under --debug, how it was read (its lines, its facts, the lines it did not understand) on stderr."""
    from ..logs import parse_log

    report = parse_log(text)
    if getattr(a, "debug", False) or os.environ.get("PT2_INSPECT_DEBUG"):
        from ..explain import log_reading

        print("\n".join(log_reading(name, report.line_count, len(report.facts), report.unread, report.unread_lines)),
              file=sys.stderr)
    return report


def stdin_bytes(limit: int = 64 * 1024 * 1024) -> bytes:
    buf = getattr(sys.stdin, "buffer", None)
    return buf.read(limit) if buf is not None else sys.stdin.read(limit).encode("utf-8", "replace")


def log_text(data: bytes, what: str, instead: str | None = None) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with a BOM (a PowerShell redirect): text, not binary
        data = data.decode("utf-16", "replace").encode("utf-8")
    if not data.strip():
        raise UsageError(f"{what} is empty: give the log that holds the error" + (f" (or {instead})" if instead else ""))
    if b"\0" in data[:65536]:
        kind = " (a zip archive: the package itself?)" if data[:4] == b"PK\x03\x04" else ""
        raise UsageError(f"{what} is a binary file{kind}, not a text log")
    return data.decode("utf-8", "replace")


def check_output_path(path: str, flag: str = "-o") -> None:
    """A usage error (exit 2) now, before any work, for an -o that cannot be written."""
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path} is a directory: give a file name (e.g. {os.path.join(path, 'out')})")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"{flag} {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {path}: not writable")


def write_output(path: str, text: str, flag: str = "-o") -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"{flag} {path}: cannot write it ({e.strerror})") from None


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def host_cpuinfo(arg: str | None) -> str | None:
    """``--host-cpuinfo``: "auto" as is (the query reads this host's), a file's text, or None."""
    if not arg or arg == "auto":
        return arg
    if not os.path.isfile(arg):
        raise UsageError(f"--host-cpuinfo {arg}: no such file (give a saved /proc/cpuinfo, or auto)")
    with open(arg, encoding="utf-8", errors="replace") as f:
        return f.read()
