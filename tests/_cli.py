"""The CLI runners the tests share (issue 21 §6 and issue 33 §7: each was copied into several files).

``run(capsys, argv)`` calls ``inspector.cli.main`` in this process on ``argv`` (any path-like items made strings)
and returns ``(exit code, stdout, stderr)``; a traceback on either stream fails the test, since no input may
produce one (a bug in our code is exit 4 with a one-line message).

``run_child(*argv)`` runs ``python -m inspector.cli *argv`` as a child process from the repository's root, for
what only a process of its own shows (stdin, closed pipes, the servers, a fresh interpreter): a
``subprocess.CompletedProcess`` with text output unless ``text=False``; ``env`` is added to this process's
environment.  ``CHILD`` is its command line, for the tests that drive a ``Popen`` (a terminal, a stream).

``one_error_line(err, *fragments)``: what every refusal prints, one ``pt2-inspect: error: …`` line holding each
fragment; returns the line."""

from __future__ import annotations

import os
import subprocess
import sys

from inspector.cli import main

from _paths import ROOT

CHILD = [sys.executable, "-m", "inspector.cli"]


def run(capsys, argv, *, traceback_ok: bool = False) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    if not traceback_ok:
        assert "Traceback" not in out + err, err[-2000:]
    return rc, out, err


def run_child(*argv, env: dict | None = None, timeout: float | None = 120, text: bool = True,
              **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CHILD, *map(str, argv)], capture_output=True, text=text, cwd=ROOT, timeout=timeout,
                          env={**os.environ, **(env or {})}, **kw)


def one_error_line(err: str, *fragments: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("pt2-inspect: error: "), err
    for f in fragments:
        assert f in lines[0], f"{f!r} not in {lines[0]!r}"
    return lines[0]
