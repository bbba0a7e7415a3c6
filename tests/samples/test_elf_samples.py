"""The per-sample tests of test_elf.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from inspector import elf

from _members import READELF, extract, members

SOS = members(".so")
CUBINS = members(".cubin")


def _readelf_dynsyms(path: Path) -> list[tuple[str, bool]]:
    out = subprocess.run([READELF, "-W", "--dyn-syms", str(path)], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*\d+:\s+[0-9a-f]+\s+\d+\s+\w+\s+\w+\s+\w+\s+(\w+)\s*(\S*)", line)
        if m and line.split(":")[0].strip() != "0":
            name = m.group(2).split("@")[0]
            rows.append((name, m.group(1) != "UND"))
    return rows


@pytest.mark.skipif(READELF is None, reason="binutils' readelf is not installed")
@pytest.mark.parametrize("pkg,member", SOS[::7], ids=lambda x: str(x)[-40:])
def test_dynamic_symbols_equal_readelf(pkg, member, tmp_path):
    so = extract(pkg, member, tmp_path)
    ours = [(s.name, s.defined) for s in elf.dynamic_symbols(elf.file_reader(so))]
    theirs = _readelf_dynsyms(so)
    assert theirs and ours == theirs
    assert any(n.startswith("aoti_torch_") and not d for n, d in ours)  # the shim calls are undefined here


@pytest.mark.skipif(READELF is None, reason="binutils' readelf is not installed")
@pytest.mark.parametrize("pkg,member", SOS[::11], ids=lambda x: str(x)[-40:])
def test_needed_versions_equal_readelf(pkg, member, tmp_path):
    so = extract(pkg, member, tmp_path)
    out = subprocess.run([READELF, "-W", "-V", str(so)], capture_output=True, text=True, check=True).stdout
    part = out.split("Version needs section", 1)[1] if "Version needs section" in out else ""
    theirs, lib = set(), None
    for line in part.splitlines():
        m = re.search(r"File:\s+(\S+)", line)
        if m:
            lib = m.group(1)
        m = re.search(r"Name:\s+(\S+)\s+Flags", line)
        if m:
            theirs.add((lib, m.group(1)))
    assert theirs and set(elf.needed_versions(elf.file_reader(so))) == theirs


def test_every_cuda_cubin_is_sm_90():
    """Every CUDA sample was built on the lent H200 (compute capability 9.0)."""
    seen = 0
    for pkg, member in CUBINS:
        with zipfile.ZipFile(pkg) as z:
            head = z.read(member)[:64]
        h = elf.header(elf.bytes_reader(head))
        assert h.machine == elf.EM_CUDA and elf.cubin_sm(h) == 90, (pkg, member, hex(h.flags))
        seen += 1
    assert seen == len(CUBINS) > 0
