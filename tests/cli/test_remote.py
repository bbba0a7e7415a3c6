"""PKG as a URL (inspector.remote), against real servers this module starts on 127.0.0.1: Debian's nginx
serving sample_packages/ with ranges (and one location with ranges off), and moto's standalone S3 server
(`moto_server`, as s3fs's own tests run it).  For each: the answers equal the local file's; a package with a
128 MiB stored weights member costs a few requests and under a stated cap of bytes; a rewritten object
with the same zip directory is never answered from the index cache (its ETag changed); no range support, a
missing object and a timeout are each one line, exit 3.  Skips without nginx or the [remote] extra,
except under CI=true."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from _cli import run_child
from _net import HangingServer, free_port
from _paths import ROOT, S

pytestmark = pytest.mark.slow  # starts real servers (seconds): out of the fast lane

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MOTO = Path(sys.executable).with_name("moto_server")
SHOW_CAP = 1 << 20  # show of a package with a 128 MiB weights member: under 1 MiB fetched
DOCTOR_CAP = 4 << 20  # doctor reads the .so's ELF headers and symbol tables too

try:
    import fsspec  # noqa: F401
    import s3fs  # noqa: F401
    import boto3
    missing = None if os.path.exists(NGINX) and MOTO.exists() else f"{NGINX} or {MOTO} is missing"
except ImportError as e:
    missing = f"the [remote] extra is not installed ({e.name})"
if missing:
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"CI=true: the remote tests must run, but {missing} "
                           "(apt-get install nginx; pip install 'pt2-inspect[remote]' moto[server])")
    pytest.skip(missing, allow_module_level=True)


def _wait(port: int, proc, what: str):
    for _ in range(200):
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port}")


def _big_package(dest: Path) -> Path:
    """A real sample with a 128 MiB stored weights member added (as AOTI stores members, uncompressed)."""
    src = S / "cpu/jagged/jagged.pt2"
    out = dest / "big.pt2"
    shutil.copy(src, out)
    with zipfile.ZipFile(out, "a", compression=zipfile.ZIP_STORED) as z:
        with z.open("jagged/data/aotinductor/model/weights_blob.bin", "w", force_zip64=True) as f:
            chunk = bytes(range(256)) * 4096
            for _ in range(128):
                f.write(chunk)
    return out


def _flipped(src: Path, dest: Path) -> Path:
    """``src`` with 64 bytes flipped inside its wrapper.cpp: the same size and zip directory (CRCs), other bytes."""
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as z:
        info = next(i for i in z.infolist() if i.filename.endswith(".wrapper.cpp"))
    assert info.compress_type == zipfile.ZIP_STORED
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 1000
    for i in range(start, start + 64):
        data[i] ^= 0x20
    dest.write_bytes(bytes(data))
    return dest


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """nginx over a copy of some samples (+ the big package), and moto's S3 with the same objects."""
    tmp = tmp_path_factory.mktemp("remote")
    www = tmp / "www"
    for rel in ("cuda/jagged/jagged.pt2", "cpu/jagged/jagged.pt2"):
        (www / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(S / rel, www / rel)
    _big_package(www)
    shutil.copy(S / "cpu/jagged/jagged.pt2", www / "changing.pt2")
    port = free_port()
    conf = tmp / "nginx.conf"
    user = "user root;" if os.geteuid() == 0 else ""
    conf.write_text(f"""{user}
worker_processes 1; daemon off; pid {tmp}/nginx.pid; error_log {tmp}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log {tmp}/access.log;
  client_body_temp_path {tmp}/b; proxy_temp_path {tmp}/p; fastcgi_temp_path {tmp}/f; uwsgi_temp_path {tmp}/u;
  scgi_temp_path {tmp}/s;
  server {{
    listen 127.0.0.1:{port};
    location /pkgs/ {{ alias {www}/; }}
    location /norange/ {{ alias {www}/; max_ranges 0; }}
  }}
}}
""")
    ng = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    s3port = free_port()
    moto = subprocess.Popen([str(MOTO), "-H", "127.0.0.1", "-p", str(s3port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    hang = HangingServer(8)  # the timeout case
    try:
        _wait(port, ng, "nginx")
        _wait(s3port, moto, "moto_server")
        env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
               "AWS_ENDPOINT_URL": f"http://127.0.0.1:{s3port}"}
        s3 = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], aws_access_key_id="testing",
                          aws_secret_access_key="testing", region_name="us-east-1")
        s3.create_bucket(Bucket="models")
        for f in www.rglob("*.pt2"):
            s3.upload_file(str(f), "models", f.relative_to(www).as_posix())
        yield {"http": f"http://127.0.0.1:{port}", "s3env": env, "s3": s3, "www": www, "tmp": tmp,
               "hang": f"http://127.0.0.1:{hang.port}"}
    finally:
        hang.close()
        for p in (ng, moto):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def cli(*argv, env=None, cache: Path | None = None):
    return run_child(*argv, env={**(env or {}), **({"PT2_INSPECT_CACHE_DIR": str(cache)} if cache is not None else {})})


def _answer(p) -> dict:
    assert p.returncode in (0, 1), p.stderr
    d = json.loads(p.stdout)
    d.pop("package")
    return d


def _fetched(stderr: str) -> tuple[int, int]:
    line = next(x for x in stderr.splitlines() if x.startswith("pt2-inspect: remote: "))
    req = int(line.split(": ")[-1].split(" requests")[0])
    got = int(line.split("requests, ")[1].split(" bytes")[0].replace(",", ""))
    return req, got


COMMANDS = [
    ("show", []),
    ("trace-assert", ["--log", str(S / "cuda/jagged/error.log")]),
    ("diagnose", ["--log", str(S / "cuda/jagged/error.log")]),
    ("doctor", ["--torch", "2.13"]),
    ("source", ["--wrapper", "--line", "1029", "--context", "3"]),
]


@pytest.mark.parametrize("scheme", ["http", "s3"])
@pytest.mark.parametrize("command,args", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_an_answer_from_a_url_equals_the_local_files(served, scheme, command, args):
    url = f"{served['http']}/pkgs/cuda/jagged/jagged.pt2" if scheme == "http" else "s3://models/cuda/jagged/jagged.pt2"
    env = served["s3env"] if scheme == "s3" else None
    got = cli(command, url, *args, "--json", "--no-cache", env=env)
    want = cli(command, str(S / "cuda/jagged/jagged.pt2"), *args, "--json", "--no-cache")
    assert got.returncode == want.returncode, got.stderr
    assert got.stdout.replace(url, str(S / "cuda/jagged/jagged.pt2")) == want.stdout
    assert command == "source" or json.loads(got.stdout)["package"] == url


@pytest.mark.parametrize("scheme", ["http", "s3"])
def test_a_large_weights_member_is_not_fetched(served, scheme):
    size = (served["www"] / "big.pt2").stat().st_size
    assert size > 128 << 20
    url = f"{served['http']}/pkgs/big.pt2" if scheme == "http" else "s3://models/big.pt2"
    env = served["s3env"] if scheme == "s3" else None
    p = cli("show", url, "--json", "--no-cache", "--debug", env=env)
    local = cli("show", str(served["www"] / "big.pt2"), "--json", "--no-cache")
    assert _answer(p) == _answer(local)
    req, got = _fetched(p.stderr)
    assert 0 < got < SHOW_CAP and req <= 8, p.stderr
    d = cli("doctor", url, "--json", "--no-cache", "--debug", env=env)
    assert _answer(d) == _answer(cli("doctor", str(served["www"] / "big.pt2"), "--json", "--no-cache"))
    req, got = _fetched(d.stderr)
    assert 0 < got < DOCTOR_CAP, d.stderr


def test_a_rewritten_object_is_not_answered_from_the_cache(served, tmp_path):
    """Same size, same zip directory (CRCs), 64 bytes flipped in wrapper.cpp: a new ETag, so a new cache key;
    the read then finds the bad CRC (exit 3) instead of the old answer."""
    cache = tmp_path / "cache"
    www, s3 = served["www"], served["s3"]
    for url, env, rewrite in [
        (f"{served['http']}/pkgs/changing.pt2", None, lambda: (
            _flipped(S / "cpu/jagged/jagged.pt2", www / "changing.pt2"),
            os.utime(www / "changing.pt2", (time.time() + 5, time.time() + 5)))),
        ("s3://models/changing.pt2", served["s3env"], lambda: s3.upload_file(
            str(_flipped(S / "cpu/jagged/jagged.pt2", served["tmp"] / "flipped.pt2")), "models", "changing.pt2")),
    ]:
        shutil.copy(S / "cpu/jagged/jagged.pt2", www / "changing.pt2")
        if env:
            s3.upload_file(str(www / "changing.pt2"), "models", "changing.pt2")
        first = cli("show", url, "--json", env=env, cache=cache)
        assert first.returncode == 0, first.stderr
        again = cli("show", url, "--json", "--debug", env=env, cache=cache)  # a hit: the wrapper is not fetched
        assert again.stdout == first.stdout
        rewrite()
        after = cli("show", url, "--json", env=env, cache=cache)
        assert after.returncode == 3 and "CRC" in after.stderr, (url, after.returncode, after.stderr)


@pytest.mark.parametrize("case", ["norange", "missing_http", "missing_s3", "timeout", "not_zip"])
def test_each_failure_is_one_line_exit_3(served, case):
    env = None
    if case == "norange":
        url, expect = f"{served['http']}/norange/cpu/jagged/jagged.pt2", "does not answer range requests"
    elif case == "missing_http":
        url, expect = f"{served['http']}/pkgs/nope.pt2", "no such object"
    elif case == "missing_s3":
        url, expect, env = "s3://models/nope.pt2", "no such object", served["s3env"]
    elif case == "timeout":
        url, expect, env = f"{served['hang']}/x.pt2", "did not answer within 1 s", {"PT2_INSPECT_REMOTE_TIMEOUT": "1"}
    else:
        (served["www"] / "notzip.pt2").write_bytes(b"hello, this is not a zip archive at all" * 10)
        url, expect = f"{served['http']}/pkgs/notzip.pt2", "not a zip archive"
    t0 = time.monotonic()
    p = cli("show", url, "--no-cache", env=env)
    assert p.returncode == 3, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and expect in lines[0] and "Traceback" not in p.stderr, p.stderr
    assert time.monotonic() - t0 < 30


def test_scan_lists_a_url_prefix(served):
    p = cli("scan", "s3://models/cpu/", "s3://models/cuda/jagged/jagged.pt2", "--torch", "2.13", "--json",
            env=served["s3env"])
    rows = [json.loads(x) for x in p.stdout.splitlines()]
    assert [r["package"] for r in rows[:-1]] == ["s3://models/cpu/jagged/jagged.pt2", "s3://models/cuda/jagged/jagged.pt2"]
    local = cli("scan", str(S / "cpu/jagged/jagged.pt2"), "--torch", "2.13", "--json")
    want = json.loads(local.stdout.splitlines()[0])
    assert {**rows[0], "package": None} == {**want, "package": None}
    assert rows[-1]["summary"]["packages"] == 2 and p.returncode == 0, p.stderr


def test_the_mcp_server_reads_a_url_only_with_allow_remote(served):
    if os.environ.get("CI") != "true":  # under CI the [mcp] extra must be there: an ImportError fails
        pytest.importorskip("mcp")
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    url = f"{served['http']}/pkgs/cuda/jagged/jagged.pt2"

    async def call(*flags):
        params = StdioServerParameters(command=sys.executable, args=["-m", "inspector.cli", "mcp", *flags],
                                       cwd=str(ROOT), env={"PT2_INSPECT_CACHE_DIR": os.environ["PT2_INSPECT_CACHE_DIR"]})
        async with Client(params) as client:
            return await client.call_tool("show", {"package": url})

    refused = anyio.run(call)
    assert refused.is_error and "--allow-remote" in refused.content[0].text
    r = anyio.run(call, "--allow-remote")
    assert not r.is_error, r.content
    assert r.structured_content == json.loads(cli("show", url, "--json").stdout)


def test_extract_from_a_url_writes_the_local_files_members(served, tmp_path):
    url = f"{served['http']}/pkgs/cuda/jagged/jagged.pt2"
    p = cli("extract", url, "-o", str(tmp_path / "r"), "--json", "--no-cache")
    q = cli("extract", str(S / "cuda/jagged/jagged.pt2"), "-o", str(tmp_path / "l"), "--json", "--no-cache")
    assert p.returncode == q.returncode == 0, p.stderr
    names = json.loads(p.stdout)["members"]
    assert names and names == json.loads(q.stdout)["members"]
    for n in names:
        assert (tmp_path / "r" / n).read_bytes() == (tmp_path / "l" / n).read_bytes()
