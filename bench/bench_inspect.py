"""Speed and memory of the inspect path on the largest sample package.

    python bench/bench_inspect.py            # prints medians; exits 1 when a target is missed

Targets (a whole CLI process, start-up included, on the 2-core CI machine):
  show          median < 1.5 s
  trace-assert  median < 1.5 s
  peak RSS      < 150 MB
Timed here, not in the tests, so a slow machine does not fail CI.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"show": 1.5, "trace-assert": 1.5, "rss_mb": 150}


def largest() -> Path:
    return max(ROOT.glob("sample_packages/*/*/*.pt2"), key=lambda p: p.stat().st_size)


def run(args, n=7):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "inspector.cli", *args], check=True, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - t)
    return statistics.median(times), times


def main() -> int:
    pkg = largest()
    log = pkg.parent / "error.log"
    print(f"largest sample: {pkg.relative_to(ROOT)} ({pkg.stat().st_size / 1e6:.1f} MB)")
    ok = True
    for name, args in (("show", ["show", str(pkg), "--json"]),
                       ("trace-assert", ["trace-assert", str(pkg), "--log", str(log), "--json"])):
        med, times = run(args)
        print(f"{name:13s} median {med:.3f} s over {len(times)} runs (min {min(times):.3f}, max {max(times):.3f})")
        ok &= med < TARGETS[name]
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of a run: {rss:.0f} MB")
    ok &= rss < TARGETS["rss_mb"]
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
