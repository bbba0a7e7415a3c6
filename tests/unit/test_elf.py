"""inspector.elf against binutils' readelf on every real `.so` and cubin the samples ship, and the shipped
C-shim symbol table (tools/make_shim_table.py) against the torch installed for the tests."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from inspector import elf

from _members import extract, members
from _paths import ROOT

SOS = members(".so")
CUBINS = members(".cubin")


def test_the_samples_hold_what_is_checked():
    assert len(SOS) >= 40 and len(CUBINS) >= 60, (len(SOS), len(CUBINS))


@pytest.mark.parametrize("flags,abi,sm", [(0x5A055A, 7, 90), (0x500550, 7, 80), (0x6006402, 8, 100),
                                          (0x6007802, 8, 120), (0x9005A04, 8, 90)])
def test_cubin_sm_both_encodings(flags, abi, sm):
    """Values `cuobjdump --dump-elf` prints for cubins of each architecture (old and new flag layouts)."""
    h = elf.ElfHeader(machine=elf.EM_CUDA, flags=flags, abi_version=abi, osabi=65, shoff=0, shentsize=64, shnum=0,
                      shstrndx=0, elf_type=2)
    assert elf.cubin_sm(h) == sm


@pytest.mark.parametrize("data", [b"", b"MZ" + b"\0" * 80, b"\x7fELF\x01\x01" + b"\0" * 80, b"\x7fELF\x02\x01" + b"\0" * 10])
def test_not_elf64_raises_elf_error(data):
    with pytest.raises(elf.ElfError):
        elf.dynamic_symbols(elf.bytes_reader(data))


def test_truncated_so_raises_elf_error(tmp_path):
    pkg, member = SOS[0]
    data = extract(pkg, member, tmp_path).read_bytes()
    with pytest.raises(elf.ElfError):
        elf.dynamic_symbols(elf.bytes_reader(data[: len(data) // 2]))


# -- the shipped shim table -----------------------------------------------------------------------------

TABLE = json.loads((ROOT / "inspector" / "data" / "shim_symbols.json").read_text())


def _generator():
    spec = importlib.util.spec_from_file_location("make_shim_table", ROOT / "tools" / "make_shim_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_shim_table_is_current():
    gen = _generator()
    assert TABLE["rule"] == gen.rule_digest(), "the extraction rule changed: run tools/make_shim_table.py"
    assert list(TABLE["releases"]) == [r for r in gen.RELEASES if r in TABLE["releases"]]
    assert {"2.6.0", "2.13.0", "2.14.1"} <= set(TABLE["releases"])
    for r, info in TABLE["releases"].items():
        n = sum(1 for rs in TABLE["symbols"].values() if r in rs)
        assert n >= max(info["libs"].values()) > 100, (r, n, info)


def test_shim_table_row_equals_the_installed_torch():
    """Re-read the row of the torch installed for the tests (2.13.0 CPU) from its own libtorch_cpu.so."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip("torch is not installed")
    lib_dir = Path(spec.origin).parent / "lib"
    version = (Path(spec.origin).parent / "version.py").read_text()
    m = re.search(r"__version__\s*=\s*'([\d.]+)", version)
    assert m, version[:200]
    release = m.group(1)
    if release not in TABLE["releases"]:
        pytest.skip(f"torch {release} is not in the table")
    got = set().union(*_generator().from_lib_dir(lib_dir).values())
    want = {n for n, rs in TABLE["symbols"].items() if release in rs}
    if "libtorch_cuda.so" not in TABLE["releases"][release]["libs"]:
        assert got == want
    else:  # a CPU install checked against a CUDA wheel's row: its CPU symbols are a subset
        assert got <= want and got


def test_ranged_reads_equal_the_whole_member():
    """doctor reads a .so's headers and tables through Archive.read_range (never the whole member: the weights may
    be compiled into it)."""
    import inspector

    pkg, member = SOS[0]
    with inspector.open_package(pkg) as p:
        whole = p.archive.read_bytes(member, limit=1 << 30)
        for off, size in ((0, 64), (1000, 4096), (len(whole) - 10, 100)):
            assert p.archive.read_range(member, off, size) == whole[off:off + size]
        r = lambda o, n: p.archive.read_range(member, o, n)  # noqa: E731
        assert elf.dynamic_symbols(r) == elf.dynamic_symbols(elf.bytes_reader(whole))
