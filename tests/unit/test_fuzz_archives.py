"""Issue 36 §1: a seeded mutation fuzz over real packages and logs, in the fast lane: every damaged copy is answered
with exit 0, 1 or 3 (3: one line naming what is wrong), never exit 4, never a traceback, within a time cap.  The
mutations (tests/_fuzz.py) change bytes anywhere and the zip's own fields: names, methods, flags, sizes, CRCs,
offsets, extra fields, the comment, duplicated and overlapping members, truncation.  The long run (5,000 cases) is
bench/fuzz.py."""

from __future__ import annotations

import random
from collections import Counter

from _fuzz import mutate, mutate_log, run_case
from _paths import S

PACKAGES = [S / "cuda/topk_gather/topk_gather.pt2", S / "cpu/take/take.pt2"]
LOGS = [(S / "cuda/topk_gather/topk_gather.pt2", S / "cuda/topk_gather/error.log"),
        (S / "cpu/take/take.pt2", S / "cpu/take/error.log")]
CASES = 60  # per package: x 4 commands
CAP_S = 20.0
OK = (0, 1, 3)


def _commands(pkg, log):
    return [["--no-cache", "show", pkg], ["--no-cache", "doctor", pkg], ["trace-assert", pkg, "--log", log],
            ["--no-cache", "diagnose", pkg, "--log", log]]


def test_damaged_packages_never_exit_4(tmp_path, cache_dir):
    seen, bad = Counter(), []
    for src in PACKAGES:  # one test over both (a stored CUDA package, a deflated CPU one): the lane's, not a sample's
        _fuzz_package(src, tmp_path, seen, bad)
    assert sum(seen.values()) == len(PACKAGES) * CASES * 4 and seen[3] > 0, seen  # damage was seen, not all 0
    assert not bad, "\n".join(map(str, bad[:10]))


def _fuzz_package(src, tmp_path, seen, bad):
    rng = random.Random(f"issue36:{src.name}")
    data, log = src.read_bytes(), src.parent / "error.log"
    for n in range(CASES):
        variant, damaged = mutate(data, rng)
        pkg = tmp_path / f"{n}.pt2"
        pkg.write_bytes(damaged)
        for argv in _commands(str(pkg), str(log)):
            rc, out = run_case(argv, CAP_S)
            seen[rc] += 1
            if rc not in OK or "Traceback" in out:
                bad.append((src.parent.name, n, variant, argv[1 if argv[0].startswith("--") else 0], rc,
                            out.strip()[-300:]))
        pkg.unlink()


def test_damaged_logs_never_exit_4(tmp_path):
    bad, seen = [], Counter()
    for pkg, log in LOGS:
        _fuzz_log(pkg, log, tmp_path, seen, bad)
    assert sum(seen.values()) == len(LOGS) * 80
    assert not bad, "\n".join(map(str, bad[:10]))


def _fuzz_log(pkg, log, tmp_path, seen, bad):
    rng = random.Random(f"issue36:{log.parent.name}:log")
    text = log.read_bytes()
    for n in range(40):
        variant, damaged = mutate_log(text, rng)
        f = tmp_path / f"{n}.log"
        f.write_bytes(damaged)
        for cmd in ("diagnose", "trace-assert"):
            rc, out = run_case([cmd, str(pkg), "--log", str(f)], CAP_S)
            seen[rc] += 1
            refused = rc == 2 and out.strip().count("\n") == 0 and "is a binary file, not a text log" in out
            if (rc not in OK and not refused) or "Traceback" in out:
                bad.append((log.parent.name, n, variant, cmd, rc, out.strip()[-300:]))
