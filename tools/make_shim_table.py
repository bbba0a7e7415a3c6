"""Generate inspector/data/shim_symbols.json: which `aoti_*` C-shim symbols each torch release exports.

A package's `.so` calls torch through the C shim (`aoti_torch_empty_strided`, `aoti_torch_cuda_index_put_out`,
...). Loaded by a torch release that lacks one of them, it fails with `undefined symbol: aoti_torch_...`
(pytorch#123745). `pt2-inspect doctor --torch X.Y` compares the package's undefined dynamic symbols with this
table. The table is read from the real wheels: for each release, `torch/lib/libtorch_cpu.so` and
`torch/lib/libtorch_cuda.so` (when the wheel has it: CPU builds do not) are streamed out of the wheel
into a temp file and their defined dynamic symbols read with `inspector.elf` (never loaded).

    python tools/make_shim_table.py                      # download each release's wheel (pip), rebuild the table
    python tools/make_shim_table.py --wheel torch-2.6.0-...whl --wheel ...   # from wheels on disk
    python tools/make_shim_table.py --check              # exit 1 when the shipped table is stale

The table records, per release, the wheel file it was read from, its size and SHA-256, and the digest of
this generator's extraction rule; `tests/unit/test_elf.py` fails when the rule changed without a rebuild, and
re-reads the 2.13.0 row from the torch installed for the tests when that is the same build.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inspector import elf  # noqa: E402

TABLE = ROOT / "inspector" / "data" / "shim_symbols.json"
# (release, pip requirement) in order; each is a Linux x86-64 CPython 3.11 wheel from PyPI (CUDA builds,
# libtorch_cuda.so included) except where the requirement names a local build.
RELEASES = ("2.6.0", "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.1", "2.15.0")
LIBS = ("libtorch_cpu.so", "libtorch_cuda.so")
SYMBOL = re.compile(r"^aoti_")  # the C shim's prefix: aoti_torch_*, aoti_torch_cpu_*, aoti_torch_cuda_*, ...
RULE_VERSION = 1  # bump when what is read changes; the digest below also covers LIBS and SYMBOL


def rule_digest() -> str:
    return hashlib.sha256(json.dumps([RULE_VERSION, LIBS, SYMBOL.pattern]).encode()).hexdigest()[:16]


def exported(path: str) -> set[str]:
    """The defined global/weak dynamic symbols of a shared library that the rule keeps."""
    return {s.name for s in elf.dynamic_symbols(elf.file_reader(path))
            if s.defined and s.binding in ("global", "weak") and SYMBOL.match(s.name)}


def from_lib_dir(lib_dir: Path) -> dict[str, set[str]]:
    """{lib: symbols} of the libraries found in an installed torch's lib folder."""
    return {lib: exported(str(lib_dir / lib)) for lib in LIBS if (lib_dir / lib).exists()}


def from_wheel(wheel: Path) -> dict[str, set[str]]:
    out = {}
    with zipfile.ZipFile(wheel) as z, tempfile.TemporaryDirectory() as tmp:
        for lib in LIBS:
            member = f"torch/lib/{lib}"
            try:
                info = z.getinfo(member)
            except KeyError:
                continue
            dst = Path(tmp) / lib
            with z.open(info) as src, open(dst, "wb") as f:
                shutil.copyfileobj(src, f, 16 * 1024 * 1024)
            out[lib] = exported(str(dst))
            dst.unlink()
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(16 * 1024 * 1024), b""):
            h.update(chunk)
    return h.hexdigest()


def _download(release: str, dest: Path) -> Path:
    # not the machine's pip.conf or PIP_* settings: their cap on torch, their local CPU builds (2.13.0+cpu)
    env = {k: v for k, v in os.environ.items() if k not in ("PIP_FIND_LINKS", "PIP_CONSTRAINT", "PIP_EXTRA_INDEX_URL")}
    env["PIP_CONFIG_FILE"] = os.devnull
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.11", "--platform", "manylinux_2_28_x86_64", "--platform",
                    "manylinux1_x86_64", "--platform", "manylinux2014_x86_64", "--platform",
                    "manylinux_2_17_x86_64", f"torch=={release}", "-d", str(dest)], check=True, env=env)
    (whl,) = [p for p in dest.glob(f"torch-{release}-*.whl")]
    return whl


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel", action="append", type=Path, default=[], help="a torch wheel on disk (repeatable)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "shim-wheels")
    ap.add_argument("--keep", action="store_true", help="keep downloaded wheels in --work")
    ap.add_argument("--redo", action="append", default=[], help="read this release again (repeatable)")
    ap.add_argument("--check", action="store_true", help="exit 1 when the shipped table's rule is stale")
    a = ap.parse_args()
    if a.check:
        t = json.loads(TABLE.read_text())
        ok = t["rule"] == rule_digest() and list(t["releases"]) == [r for r in RELEASES if r in t["releases"]]
        print("shim table is current" if ok else "shim table is stale: run tools/make_shim_table.py")
        return 0 if ok else 1
    wheels: dict[str, Path] = {}
    for w in a.wheel:
        m = re.match(r"torch-([\d.]+)", w.name)
        if m:
            wheels[m.group(1)] = w
    a.work.mkdir(parents=True, exist_ok=True)
    table = json.loads(TABLE.read_text()) if TABLE.exists() else {"releases": {}, "symbols": {}}
    done = dict(table.get("releases", {}))
    per_release: dict[str, set[str]] = {}
    for n, rs in table.get("symbols", {}).items():
        for r in rs:
            per_release.setdefault(r, set()).add(n)
    stale = table.get("rule") != rule_digest()
    for release in RELEASES:
        if release in wheels:
            whl = wheels[release]
        elif release in done and not stale and release not in a.redo:
            continue
        else:
            try:
                whl = _download(release, a.work)
            except subprocess.CalledProcessError:
                print(f"{release}: no wheel could be downloaded; left out", flush=True)
                continue
        libs = from_wheel(whl)
        done[release] = {"wheel": whl.name, "bytes": whl.stat().st_size, "sha256": _sha256(whl),
                         "libs": {lib: len(s) for lib, s in sorted(libs.items())}}
        per_release[release] = set().union(*libs.values()) if libs else set()
        print(f"{release}: " + ", ".join(f"{lib} {len(s)}" for lib, s in sorted(libs.items())), flush=True)
        if not a.keep and whl.parent == a.work:
            whl.unlink()
    order = [r for r in RELEASES if r in done]
    symbols: dict[str, list[str]] = {}
    for r in order:
        for n in per_release.get(r, ()):
            symbols.setdefault(n, []).append(r)
    out = {
        "about": "aoti_* symbols each torch release's libtorch_cpu.so / libtorch_cuda.so define; made by "
                 "tools/make_shim_table.py from the real wheels, never by hand",
        "rule": rule_digest(),
        "releases": {r: done[r] for r in order},
        "symbols": {n: symbols[n] for n in sorted(symbols)},
    }
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(json.dumps(out, indent=1, sort_keys=False) + "\n")
    print(f"wrote {TABLE} ({len(symbols)} symbols, {len(order)} releases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
