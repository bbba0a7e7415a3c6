"""Issue 24's benchmark rows: `show` of a package at a URL against the local file (time, bytes fetched,
requests), and `scan` throughput (packages per second) on the local process pool and on a local Dask
cluster, for N packages (the shipped samples repeated, as hard links).

    python bench/remote_scan.py                         # N=1000, both rows, results in bench/remote_results.json
    python bench/remote_scan.py --packages 200 --skip-remote

The servers are started here on 127.0.0.1 as the tests start them: Debian's nginx over a folder, moto's
S3 server (`moto_server`), `dask scheduler` + 2 `dask worker` (1 thread each, like --jobs 2).  The remote
package is the real cpu/jagged sample with a 128 MiB stored weights member added (tests/cli/test_remote.py's).
Times are whole processes (start-up included), median of --runs.  Not a test: numbers, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
PY = sys.executable


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(port: int):
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def _run(argv: list[str], env: dict | None = None) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    p = subprocess.run([PY, "-m", "inspector.cli", *argv], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, **(env or {})})
    return time.perf_counter() - t, p


def remote_rows(tmp: Path, runs: int) -> list[dict]:
    from test_remote import _big_package

    www = tmp / "www"
    www.mkdir()
    big = _big_package(www)
    shutil.copy(ROOT / "sample_packages/cuda/jagged/jagged.pt2", www / "jagged.pt2")
    port, s3port = _port(), _port()
    conf = tmp / "nginx.conf"
    conf.write_text(("user root;\n" if os.geteuid() == 0 else "") + f"""worker_processes 1; daemon off;
pid {tmp}/nginx.pid; error_log {tmp}/error.log; events {{ worker_connections 64; }}
http {{ access_log off; client_body_temp_path {tmp}/b; proxy_temp_path {tmp}/p; fastcgi_temp_path {tmp}/f;
  uwsgi_temp_path {tmp}/u; scgi_temp_path {tmp}/s;
  server {{ listen 127.0.0.1:{port}; location / {{ root {www}; }} }} }}
""")
    procs = [subprocess.Popen(["/usr/sbin/nginx", "-c", str(conf), "-p", str(tmp)]),
             subprocess.Popen([str(Path(PY).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(s3port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": f"http://127.0.0.1:{s3port}"}
    rows = []
    try:
        _wait(port)
        _wait(s3port)
        import boto3

        s3 = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], aws_access_key_id="testing",
                          aws_secret_access_key="testing", region_name="us-east-1")
        s3.create_bucket(Bucket="models")
        for f in (big, www / "jagged.pt2"):
            s3.upload_file(str(f), "models", f.name)
        for name, size in ((big.name, big.stat().st_size), ("jagged.pt2", (www / "jagged.pt2").stat().st_size)):
            for command in ("show", "doctor"):
                for where, pkg in (("local", str(www / name)), ("https (nginx)", f"http://127.0.0.1:{port}/{name}"),
                                   ("s3 (moto)", f"s3://models/{name}")):
                    times, fetched = [], None
                    for _ in range(runs):
                        t, p = _run([command, pkg, "--no-cache", "--json", "--debug"], env)
                        assert p.returncode in (0, 1), p.stderr
                        times.append(t)
                        line = [x for x in p.stderr.splitlines() if x.startswith("pt2-inspect: remote: ")]
                        if line:
                            fetched = line[0].split(": ")[-1]
                    rows.append({"row": f"{command} {name} ({size / 2**20:.1f} MiB) from {where}",
                                 "median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3),
                                 "max_s": round(max(times), 3), "fetched": fetched or "(local file)"})
                    print(json.dumps(rows[-1]), flush=True)
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)
    return rows


def scan_rows(tmp: Path, n: int, skip_cluster: bool) -> list[dict]:
    samples = sorted(p for p in (ROOT / "sample_packages").glob("cpu*/*/*.pt2")) + \
        sorted((ROOT / "sample_packages").glob("cuda/*/*.pt2"))
    reg = tmp / "registry"
    reg.mkdir()
    for i in range(n):
        d = reg / f"d{i // 100:02d}"
        d.mkdir(exist_ok=True)
        os.link(samples[i % len(samples)], d / f"{i:04d}_{samples[i % len(samples)].name}")
    rows = []
    t, pool = _run(["scan", str(reg), "--jobs", "2", "--json"])
    rows.append({"row": f"scan {n} packages, local pool (--jobs 2)", "seconds": round(t, 1),
                 "packages_per_s": round(n / t, 1), "exit": pool.returncode})
    print(json.dumps(rows[-1]), flush=True)
    if skip_cluster:
        return rows
    port = _port()
    dask = str(Path(PY).with_name("dask"))
    addr = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp)]
    procs += [subprocess.Popen([dask, "worker", addr, "--nthreads", "1", "--no-dashboard"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, cwd=tmp) for _ in range(2)]
    try:
        from distributed import Client

        with Client(addr, timeout=60) as c:
            c.wait_for_workers(2, timeout=120)
        t, cl = _run(["scan", str(reg), "--scheduler", addr, "--json"])
        rows.append({"row": f"scan {n} packages, local Dask cluster (2 workers x 1 thread)", "seconds": round(t, 1),
                     "packages_per_s": round(n / t, 1), "exit": cl.returncode,
                     "same_rows_as_pool": cl.stdout == pool.stdout})
        print(json.dumps(rows[-1]), flush=True)
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(20)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packages", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-remote", action="store_true")
    ap.add_argument("--skip-scan", action="store_true")
    ap.add_argument("--skip-cluster", action="store_true")
    ap.add_argument("--json-out", default=str(ROOT / "bench" / "remote_results.json"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pt2-bench-remote-") as tmp:
        tmp = Path(tmp)
        (tmp / "r").mkdir()
        (tmp / "s").mkdir()
        os.environ["PT2_INSPECT_CACHE_DIR"] = str(tmp / "cache")
        out = {"remote": [] if a.skip_remote else remote_rows(tmp / "r", a.runs),
               "scan": [] if a.skip_scan else scan_rows(tmp / "s", a.packages, a.skip_cluster),
               "cpus": os.cpu_count(), "python": sys.version.split()[0]}
    Path(a.json_out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {a.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
