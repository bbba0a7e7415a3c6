"""The long mutation fuzz run (issue 36 §1): N damaged copies of real packages and logs through show, doctor,
trace-assert and diagnose (one command per case, chosen by the seed), in this process, each under a time cap.  The
oracle: exit 0, 1 or 3 (2 for a log refused as binary), no traceback.  Prints the count per variant and exit code and
writes them to bench/fuzz_results.json.  The fast lane's few hundred cases: tests/unit/test_fuzz_archives.py.

    python bench/fuzz.py --cases 5000 --seed 36
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _fuzz import mutate, mutate_log, run_case  # noqa: E402

S = ROOT / "sample_packages"
PACKAGES = ["cuda/topk_gather", "cpu/take", "cpu/embedding", "cuda/jagged", "cpu/two_models", "cuda/hf_t5_encoder"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--seed", default="36")
    ap.add_argument("--cap", type=float, default=30.0, help="seconds per command")
    ap.add_argument("-o", "--output", default=str(ROOT / "bench" / "fuzz_results.json"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    pkgs = [(next((S / p).glob("*.pt2")), S / p / "error.log") for p in PACKAGES]
    data = {p: p.read_bytes() for p, _ in pkgs}
    logs = {lg: lg.read_bytes() for _, lg in pkgs}
    by_variant: dict = defaultdict(Counter)
    bad, t0 = [], time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pt2-fuzz-") as tmp:
        for n in range(a.cases):
            pkg, log = rng.choice(pkgs)
            if rng.random() < 0.2:  # a damaged log against the real package
                variant, damaged = mutate_log(logs[log], rng)
                f = Path(tmp) / "case.log"
                f.write_bytes(damaged)
                argv = [rng.choice(["diagnose", "trace-assert"]), str(pkg), "--log", str(f)]
                variant = f"log:{variant}"
            else:
                variant, damaged = mutate(data[pkg], rng)
                f = Path(tmp) / "case.pt2"
                f.write_bytes(damaged)
                argv = rng.choice([["--no-cache", "show", str(f)], ["--no-cache", "doctor", str(f)],
                                   ["trace-assert", str(f), "--log", str(log)],
                                   ["--no-cache", "diagnose", str(f), "--log", str(log)]])
            rc, out = run_case(argv, a.cap)
            binary = rc == 2 and "is a binary file, not a text log" in out
            by_variant[variant.split(":")[0] + (":" + variant.split(":")[1] if ":" in variant else "")][str(rc)] += 1
            if (rc not in (0, 1, 3) and not binary) or "Traceback" in out:
                bad.append({"case": n, "package": str(pkg.relative_to(ROOT)), "variant": variant, "argv": argv[:2],
                            "rc": rc, "said": out.strip()[-400:]})
            if n % 500 == 499:
                print(f"{n + 1} cases, {len(bad)} bad, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    total = Counter()
    for c in by_variant.values():
        total.update(c)
    result = {"cases": a.cases, "seed": a.seed, "seconds": round(time.monotonic() - t0, 1), "exit_codes": dict(total),
              "bad": bad, "by_variant": {k: dict(v) for k, v in sorted(by_variant.items())}}
    Path(a.output).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("cases", "seconds", "exit_codes")}), f"bad: {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
