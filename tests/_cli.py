"""The one in-process CLI runner the tests share (issue 21 §6: it was copied into five files).

``run(capsys, argv)`` calls ``inspector.cli.main`` on ``argv`` (any path-like items made strings) and
returns ``(exit code, stdout, stderr)``; a traceback on either stream fails the test, since no input may
produce one (a bug in our code is exit 4 with a one-line message)."""

from __future__ import annotations

from inspector.cli import main


def run(capsys, argv, *, traceback_ok: bool = False) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    if not traceback_ok:
        assert "Traceback" not in out + err, err[-2000:]
    return rc, out, err
