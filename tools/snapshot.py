"""Every answer of the CLI on every sample and real log, written to a folder: diff two folders to prove a
refactor changed no answer (issue 13: "byte-identical before and after the move").

    python tools/snapshot.py /tmp/before            # on the old code, from the repo root
    python tools/snapshot.py /tmp/after && diff -r /tmp/before /tmp/after

Runs `inspector.cli.main` in-process with no index cache, from the repo root (paths in answers are
relative), for each sample package: show (text, --json, --full --json), graph --json, doctor (text and
--json; it probes this host, so compare snapshots taken on one machine), sweep's plan --json, report with its
error.log, check with the manifest's inputs and with each dynamic dim at 0, and for each real log
(error.log, logs/*.log): trace-assert and diagnose, text and --json.  One file per answer, its exit code
on the first line.  A sample folder without a .pt2 is read through its extracted `package/`
folder; without a manifest it gets no check.  `--only SUBSTR` keeps the packages whose path holds SUBSTR.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _inputs(manifest: dict, zero: bool) -> list[list[str]]:
    """`check --input` specs per model from the manifest (its example inputs; with ``zero`` each dynamic
    dim set to 0)."""
    models = manifest.get("models") or {None: manifest}
    out = []
    dev = manifest.get("device", "cpu")
    for name, m in models.items():
        dyn = m.get("dynamic_shapes") or []
        specs = []
        for i, inp in enumerate(m.get("inputs") or []):
            shape = list(inp["shape"])
            if zero and i < len(dyn) and dyn[i]:
                for d in dyn[i]:
                    shape[int(d)] = 0
            specs.append(f"{i}={inp['dtype']}[{','.join(map(str, shape))}]@{dev}")
        out.append((name, specs))
    return out


def run(argv: list[str]) -> str:
    from inspector.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(["--no-cache", *argv])
        except SystemExit as e:
            rc = e.code
    text = f"rc {rc}\n{out.getvalue()}\n--- stderr\n{err.getvalue()}"
    return re.sub(r"/tmp/[\w./-]*?(report\.html)", r"TMP/\1", text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    a.out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp())
    for d in sorted(p for p in Path("sample_packages").glob("*/*") if p.is_dir()):
        if a.only not in str(d):
            continue
        pkgs = sorted(d.glob("*.pt2")) or ([d / "package"] if (d / "package").is_dir() else [])
        if not pkgs:
            continue
        pkg = str(pkgs[0])
        key = f"{d.parent.name}__{d.name}"
        man = next((p for p in (d / "manifest.json", d / "package.json") if p.exists()), None)
        m = json.loads(man.read_text()) if man else {}
        jobs = {
            "show.txt": ["show", pkg],
            "show.json": ["show", pkg, "--json"],
            "show_full.json": ["show", pkg, "--full", "--json"],
            "graph.json": ["graph", pkg, "--json"],
            "doctor.txt": ["doctor", pkg],
            "doctor.json": ["doctor", pkg, "--json"],
            "sweep_plan.json": ["sweep", pkg, "--json"],
        }
        logs = ([d / "error.log"] if (d / "error.log").exists() else []) + sorted((d / "logs").glob("*.log"))
        for log in logs:
            lk = log.stem if log.parent == d else f"logs_{log.stem}"
            jobs[f"trace_{lk}.txt"] = ["trace-assert", pkg, "--log", str(log)]
            jobs[f"trace_{lk}.json"] = ["trace-assert", pkg, "--log", str(log), "--json"]
            jobs[f"diagnose_{lk}.txt"] = ["diagnose", pkg, "--log", str(log)]
            jobs[f"diagnose_{lk}.json"] = ["diagnose", pkg, "--log", str(log), "--json"]
        if (d / "error.log").exists():
            jobs["report.html"] = ["report", pkg, "--log", str(d / "error.log"), "-o", str(tmp / "report.html")]
        for zero in (False, True):
            for name, specs in _inputs(m, zero):
                if not specs:
                    continue
                argv = ["check", pkg, *(["--model", name] if name else [])]
                for s in specs:
                    argv += ["--input", s]
                jobs[f"check_{name or 'model'}_{'zero' if zero else 'fit'}.json"] = argv + ["--json"]
                jobs[f"check_{name or 'model'}_{'zero' if zero else 'fit'}.txt"] = argv
        for fname, argv in jobs.items():
            text = run(argv)
            if fname == "report.html" and (tmp / "report.html").exists():
                text += "\n--- file\n" + (tmp / "report.html").read_text()
                (tmp / "report.html").unlink()
            (a.out / f"{key}__{fname}").write_text(text)
        print(f"{key}: {len(jobs)} answers", flush=True)


if __name__ == "__main__":
    main()
