"""The issue-7 benchmark table: whole-process runs of pt2-inspect, median and min-max, peak RSS, and the
ratio to `grep -n` finding the assert in the same extracted wrapper, measured in the same run.

    python bench/run.py                               # the sample rows + a 20,010-kernel package
    python bench/run.py --variants 500 --runs 5 --json-out bench.json
    python bench/run.py --skip-large --skip-dense     # only --version, the largest shipped sample, the multi-model one
    python bench/run.py --skip-large --dense /work/large/dense.pt2 --only dense   # the assertion-dense rows
    python bench/run.py --large /work/large/large.pt2 --multi /work/multi_build/multi_model.deflated.pt2
    python bench/run.py --large /work/large/large.pt2 --only 'large (no cache)'   # only the rows named so

The large package is grown from the real cuda/jagged sample by bench/make_large.py (cached in
--work), and traced with that sample's real error log.  The dense one (issue 21 §5) is grown the same way from
the real cuda/hf_t5_encoder sample, 2,000 copies of its 10 kernels (20,000 kernels, 10,000 of them asserting,
177 MB), and traced with that sample's real error log.  "cold" runs pass --no-cache; "cached" runs
use a cache folder the warm-up filled.  Times are wall seconds of a whole process (start-up
included); RSS is the process's own peak (getrusage of that child).  Not a test: a slow machine
gives slow numbers, so targets are printed next to them, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TARGETS = {  # seconds, from issue 7, issue 13 and issue 21
    "version": 0.1, "show largest sample (cold)": 0.35, "trace-assert largest sample (cold)": 0.35,
    "show largest sample (cached)": 0.15, "trace-assert largest sample (cached)": 0.15,
    "show multi-model (cold)": 0.5, "show multi-model (cached)": 0.15, "trace-assert multi-model, one model (cold)": 0.4,
    "trace-assert large (no cache)": 2.0, "trace-assert large (cached)": 0.15, "show --json large (no cache)": 15.0,
    "show --full large (no cache)": 15.0, "report --log large (no cache)": 10.0, "graph --around large (no cache)": 10.0,
    "check, a 0 dim, large (no cache)": 10.0, "diagnose IMA large (no cache)": 10.0,
    # issue 21 §5: the assertion-dense package and the multi-model package's JSON
    "show --json multi-model (cold)": 0.5, "trace-assert dense (no cache)": 2.0, "trace-assert dense (cached)": 0.15,
    "show --json dense (no cache)": 10.0, "show --full dense (no cache)": 15.0, "report --log dense (no cache)": 10.0,
    "graph --around dense (no cache)": 10.0, "check, a 0 dim, dense (no cache)": 10.0, "diagnose IMA dense (no cache)": 10.0,
}
# issue 33 §6: with the typed tier built once and cached, these are tighter (the later value wins)
TARGETS.update({"trace-assert large (no cache)": 1.0, "trace-assert large (cached)": 0.15, "show multi-model (cold)": 0.5,
                "trace-assert dense (cached)": 0.15, "show --full dense (no cache)": 10.0})
DENSE_SAMPLE = ROOT / "sample_packages" / "cuda" / "hf_t5_encoder" / "hf_t5_encoder.pt2"
MULTI = ROOT / "bench" / "multi_model.pt2"  # bench/make_multi.py's package (built on a GPU), deflated
# swin_t's relative-position-index assert: a trace into one model of ten, with no real log
MULTI_TRACE = ["--model", "swin_t", "--kernel",
               "triton_per_fused__softmax_add_clone_exp_index_permute_prepare_softmax_online_sub_unsqueeze_view_3",
               "--line", "41"]
RSS_TARGET_MB = 800  # issue 13: the 20k package's whole-model commands


def timed(cmd: list[str], env: dict, stdin_path: Path | None = None) -> tuple[float, float, int, float]:
    """(wall s, peak RSS MB, exit code, CPU s) of one whole process."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if stdin_path:
        stdin.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss / 1024, p.returncode, ru.ru_utime + ru.ru_stime


def series(cmd, env, runs, warmup=1):
    for _ in range(warmup):
        timed(cmd, env)
    out = [timed(cmd, env) for _ in range(runs)]
    walls = [w for w, _, _, _ in out]
    # CPU seconds beside wall seconds: on a shared machine the wall time also counts the others' load
    return {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
            "median_cpu_s": statistics.median(c for _, _, _, c in out),
            "peak_rss_mb": max(r for _, r, _, _ in out), "exit_codes": sorted({c for _, _, c, _ in out}), "runs": runs}


def grep_series(pattern: str, wrapper: Path, runs: int):
    return series(["grep", "-n", "-F", pattern, str(wrapper)], dict(os.environ), runs)


def extract_wrapper(pkg: Path, into: Path, model: str = "") -> Path:
    with zipfile.ZipFile(pkg) as z:
        name = next(n for n in z.namelist() if n.endswith(".wrapper.cpp") and f"/{model}/" in n or not model and n.endswith(".wrapper.cpp"))
        out = into / (pkg.stem + "." + Path(name).name)
        if not out.exists():
            # streamed, not read whole: a child process (vfork) started by a parent that once held the 177 MB
            # wrapper reports the parent's peak as its own (the cached rows read 123 and 184 MB, not ~30 MB)
            with z.open(name) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--variants", type=int, default=6670, help="copies of each of cuda/jagged's 3 kernels")
    ap.add_argument("--large-runs", type=int, default=None, help="runs for the uncached large rows (default --runs)")
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--skip-dense", action="store_true", help="leave out the assertion-dense 20k package's rows")
    ap.add_argument("--dense", type=Path, help="a prebuilt assertion-dense package (else built with bench/make_large.py)")
    ap.add_argument("--dense-variants", type=int, default=2000, help="copies of each of hf_t5_encoder's 10 kernels")
    ap.add_argument("--weights-mb", type=int, default=0, help="also time show on a package with a weights member this big")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pt2-inspect-bench")
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--multi", type=Path, default=MULTI, help="the multi-model package (rows skipped when missing)")
    ap.add_argument("--large", type=Path, help="a prebuilt large package (else built with bench/make_large.py)")
    ap.add_argument("--only", action="append", metavar="SUBSTR",
                    help="only the rows whose name holds SUBSTR (repeatable), e.g. --only 'large (no cache)'")
    a = ap.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    cache = a.work / "cache"
    env = dict(os.environ, PT2_INSPECT_CACHE_DIR=str(cache), PYTHONPATH=os.pathsep.join(
        [str(ROOT), *([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])]))
    # An installed package has its bytecode compiled (pip does it); a session that turns that off would
    # time Python compiling the tool's sources on every run instead.  The warm-up run writes it.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    tool = [a.python, "-m", "inspector.cli"]
    rows = []

    def row(name, cmd, runs, grep=None, warmup=1):
        if a.only and not any(o in name for o in a.only):
            return
        r = series(cmd, env, runs, warmup)
        r["name"] = name
        r["command"] = " ".join(cmd[2:])
        if grep:
            g = grep_series(*grep, runs)
            r["grep_median_s"] = g["median_s"]
            r["ratio_to_grep"] = r["median_s"] / g["median_s"] if g["median_s"] else None
        r["target"] = TARGETS.get(name)
        r["met"] = None if r["target"] is None else r["median_s"] <= r["target"]
        rows.append(r)
        print(_fmt(r), flush=True)

    print(f"{'what':44s} {'median s':>9s} {'min-max s':>15s} {'CPU s':>6s} {'RSS MB':>7s} {'x grep':>8s}  target")
    row("version", [*tool, "--version"], a.runs)
    largest = max(ROOT.glob("sample_packages/*/*/*.pt2"), key=lambda p: p.stat().st_size)
    log = largest.parent / "error.log"
    msg = json.loads((largest.parent / "manifest.json").read_text())["error"]["stderr"]
    pattern = next((l.split("Assertion `")[1].split("`")[0] for l in msg.splitlines() if "Assertion `" in l),
                   "index out of bounds")
    wrapper = extract_wrapper(largest, a.work)
    for cached in (False, True):
        tag = "cached" if cached else "cold"
        extra = [] if cached else ["--no-cache"]
        row(f"show largest sample ({tag})", [*tool, "show", str(largest), "--json", *extra], a.runs, (pattern, wrapper))
        row(f"trace-assert largest sample ({tag})", [*tool, "trace-assert", str(largest), "--log", str(log), "--json",
                                                     *extra], a.runs, (pattern, wrapper))
    if a.multi and a.multi.exists():
        mw = extract_wrapper(a.multi, a.work, "swin_t")
        mpat = "index out of bounds: 0 <= tmp5 < 169"
        row("show multi-model (cold)", [*tool, "show", str(a.multi), "--no-cache"], a.runs, (mpat, mw))
        row("show multi-model (cached)", [*tool, "show", str(a.multi)], a.runs, (mpat, mw))
        row("show --json multi-model (cold)", [*tool, "show", str(a.multi), "--json", "--no-cache"], a.runs, (mpat, mw))
        row("trace-assert multi-model, one model (cold)", [*tool, "trace-assert", str(a.multi), *MULTI_TRACE,
                                                           "--no-cache"], a.runs, (mpat, mw))
    def big_rows(tag, big, blog, bpat, kernel, check_inputs):
        bw = extract_wrapper(big, a.work)
        lr = a.large_runs or a.runs
        row(f"trace-assert {tag} (no cache)", [*tool, "trace-assert", str(big), "--log", str(blog), "--json", "--no-cache"],
            lr, (bpat, bw), warmup=0)
        row(f"show --json {tag} (no cache)", [*tool, "show", str(big), "--json", "--no-cache"], lr, (bpat, bw), warmup=0)
        row(f"show --full {tag} (no cache)", [*tool, "show", str(big), "--full", "--json", "--no-cache"], lr, (bpat, bw),
            warmup=0)
        row(f"report --log {tag} (no cache)", [*tool, "report", str(big), "--log", str(blog), "-o",
                                               str(a.work / f"{tag}-report.html"), "--no-cache"], lr, (bpat, bw), warmup=0)
        row(f"graph --around {tag} (no cache)", [*tool, "graph", str(big), "--around", kernel, "--json", "--no-cache"], lr,
            (bpat, bw), warmup=0)
        row(f"check, a 0 dim, {tag} (no cache)", [*tool, "check", str(big), *check_inputs, "--json", "--no-cache"], lr,
            (bpat, bw), warmup=0)
        row(f"diagnose IMA {tag} (no cache)", [*tool, "diagnose", str(big), "--log",
                                               str(ROOT / "sample_packages/cuda/jagged/logs/cpu_inputs.log"), "--json",
                                               "--no-cache"], lr, (bpat, bw), warmup=0)
        row(f"trace-assert {tag} (cached)", [*tool, "trace-assert", str(big), "--log", str(blog), "--json"], a.runs,
            (bpat, bw))

    if not a.skip_large:
        big = a.large or a.work / f"jagged-x{a.variants}.pt2"
        if not big.exists():
            _make(["--variants", str(a.variants), "-o", str(big)])
        big_rows("large", big, ROOT / "sample_packages/cuda/jagged/error.log", "index out of bounds: 0 <= tmp9 < ks0",
                 "triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2",
                 ["--input", "0=float32[0,8]@cuda", "--input", "1=int64[3]@cuda"])
    if not a.skip_dense:
        # Assertion-dense (issue 21 §5): the real T5 encoder sample, half of whose 10 kernels assert, x2000
        dense = a.dense or a.work / f"t5-x{a.dense_variants}.pt2"
        if not dense.exists():
            _make(["--sample", str(DENSE_SAMPLE), "--variants", str(a.dense_variants), "-o", str(dense)])
        big_rows("dense", dense, DENSE_SAMPLE.parent / "error.log", "index out of bounds: 0 <= tmp4 < 120",
                 "triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0", ["--input", "0=int64[0,16]@cuda"])
    if a.weights_mb:
        wp = a.work / f"jagged-weights{a.weights_mb}.pt2"
        if not wp.exists():
            _make(["--variants", "1", "--weights-mb", str(a.weights_mb), "-o", str(wp)])
        row(f"show, {a.weights_mb} MB weights member (cold)", [*tool, "show", str(wp), "--no-cache"], a.runs)
    peak = max((r["peak_rss_mb"] for r in rows), default=0)
    print(f"peak RSS of any run: {peak:.0f} MB (target < {RSS_TARGET_MB} MB: {'met' if peak < RSS_TARGET_MB else 'NOT met'})")
    if a.json_out:
        a.json_out.write_text(json.dumps({"rows": rows, "peak_rss_mb": peak, "variants": a.variants,
                                          "python": sys.version.split()[0]}, indent=2))
    return 0


def _make(args: list[str]) -> None:
    """bench/make_large.py in its own process: a child forked from a big parent would report the
    parent's pages as its peak RSS."""
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_large.py"), *args], check=True)


def _fmt(r) -> str:
    ratio = f"{r['ratio_to_grep']:.0f}x" if r.get("ratio_to_grep") else "-"
    tgt = "-" if r["target"] is None else f"<= {r['target']} s {'met' if r['met'] else 'NOT met'}"
    return (f"{r['name']:44s} {r['median_s']:9.3f} {r['min_s']:7.3f}-{r['max_s']:<7.3f} {r['median_cpu_s']:6.2f} "
            f"{r['peak_rss_mb']:7.0f} {ratio:>8s}  {tgt}")


if __name__ == "__main__":
    sys.exit(main())
