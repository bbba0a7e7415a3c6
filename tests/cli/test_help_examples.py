"""Every example a person is shown works (issue 22 §3): each `pt2-inspect …` line of every command's --help and
of the README's code blocks names files that are there, and runs to an answer (exit 0 or 1, never a usage error,
an unreadable input or an internal error).  A pipeline's other programs are not run: an example fed on stdin
(`cat LOG | pt2-inspect … --log -`) gets that file on stdin; an `-o FILE` writes under tmp_path."""

from __future__ import annotations

import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from inspector.cli import COMMANDS, main

from _paths import ROOT


def _help_examples() -> list[tuple[str, str]]:
    """(where, line) of each example under `examples:` in each command's --help."""
    import contextlib

    out = []
    for mod in COMMANDS:
        name = mod.__name__.rsplit(".", 1)[-1].replace("_", "-")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.suppress(SystemExit):
            main([name, "--help"])
        text = buf.getvalue()
        assert "examples:" in text, f"{name} --help has no examples"
        for line in text.split("examples:", 1)[1].split("\npositional arguments:")[0].splitlines():
            s = line.strip()
            if s.startswith(("pt2-inspect ", "cat ")) and "pt2-inspect " in s:
                out.append((f"{name} --help", s))
    return out


def _readme_examples() -> list[tuple[str, str]]:
    """(where, line) of each line of a README or docs/*.md code block that calls pt2-inspect (a `$ ` prompt
    dropped)."""
    out = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        inside = False
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            if line.startswith("```"):
                inside = not inside
                continue
            s = line.strip().removeprefix("$ ")
            if inside and s.startswith(("pt2-inspect ", "cat ")) and "pt2-inspect " in s:
                out.append((f"{doc.relative_to(ROOT)}:{n}", s))
    return out


EXAMPLES = _help_examples() + _readme_examples()


def _argv(line: str) -> tuple[list[str], str | None]:
    """The pt2-inspect arguments of an example line, and the file fed on its stdin (``cat FILE | pt2-inspect``)."""
    stdin = None
    line = re.sub(r"\s+(#.*|\(.*\))$", "", line.split(" && ")[0])  # a trailing comment; what runs after `&&`
    parts = [p.strip() for p in line.split("|")]
    mine = next(i for i, p in enumerate(parts) if p.startswith("pt2-inspect "))
    if mine > 0:
        m = re.fullmatch(r"cat (\S+)", parts[mine - 1])
        assert m, f"an example fed by {parts[mine - 1]!r}: feed it a file (`cat LOG | pt2-inspect …`)"
        stdin = m.group(1)
    cmd = re.sub(r"\s+[12]?>.*$", "", parts[mine])  # `… > trace.svg`: the redirect is the shell's
    return shlex.split(cmd)[1:], stdin


def test_there_are_examples_everywhere():
    where = {w.split(" ")[0] for w, _ in EXAMPLES}
    assert len(EXAMPLES) >= 20 and {"diagnose", "doctor", "show", "check", "report"} <= where
    assert any(w.startswith("README.md") for w, _ in EXAMPLES)


def _param(i: int, where: str, line: str):
    """An example that runs a model (`--run`: torch in child processes, seconds each; cuda/jagged's sweep starts
    one process per case) is slow, out of the fast lane.  The same command line shown in several places (the
    README, docs/ and --help) runs once per session (``_RAN``; under xdist, --dist loadfile keeps this file on one
    worker)."""
    marks = [pytest.mark.slow] if {"--run", "--confirm"} & set(_argv(line)[0]) else []
    return pytest.param(where, line, marks=marks, id=f"{where}:{i}")


# argv (with -o made relative) -> (exit code, printed something, wrote something): one run per command line
_RAN: dict[tuple[str, ...], tuple[int, str, bool]] = {}


@pytest.mark.parametrize("where,line", [_param(i, w, l) for i, (w, l) in enumerate(EXAMPLES)])
def test_every_example_runs(where, line, tmp_path, monkeypatch, capsys):
    argv, stdin = _argv(line)
    out_flags = {"-o", "--output"}
    for i, a in enumerate(argv):
        if i and argv[i - 1] in out_flags:
            argv[i] = str(tmp_path / Path(a).name)
            continue
        if re.search(r"\.(pt2|log|cpp|txt|pt|safetensors|json)$", a) or a.startswith("sample_packages/"):
            assert (ROOT / a).exists(), f"{where}: `{line}` names {a}, which is not there"
    if argv and argv[0] == "repro" and not out_flags & set(argv):
        argv += ["-o", str(tmp_path / "repro.py")]  # its default, ./repro.py, would land in the checkout
    if stdin:
        assert (ROOT / stdin).exists(), f"{where}: `{line}` feeds {stdin}, which is not there"
        data = (ROOT / stdin).read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    key = tuple(a.replace(str(tmp_path), "<tmp>") for a in argv) + (f"<stdin {stdin}>",)
    if key not in _RAN:
        monkeypatch.chdir(ROOT)
        rc = main(argv)
        cap = capsys.readouterr()
        wrote = [p for p in tmp_path.iterdir() if p.stat().st_size]
        _RAN[key] = (rc, cap.err.strip()[:300], bool(cap.out.strip() or cap.err.strip() or wrote))
    rc, err, answered = _RAN[key]
    if rc == 2 and "--run" in argv and "needs a GPU, and torch in this Python" in err:
        # a CUDA run on a host whose torch sees no GPU: the one usage error an example may give here, said at once
        # (one probe, not one process per case); the example itself runs on a GPU machine
        assert any(a.startswith("cuda") for a in argv) or "cuda/" in line, err
        return
    assert rc in (0, 1), f"{where}: `{line}` exited {rc}: {err}"
    assert answered, f"{where}: `{line}` printed and wrote nothing"
