"""The members of real packages, read as the zip holds them: the ELF tests' `.so` and cubin lists and their
extraction, the grammar tests' member texts (one home; they were copied into each unit/samples twin).

``stored_at(pkg, suffix)``: where a member's bytes sit in the file (the tests that damage one).
``SAMPLE_PT2S`` is every ``sample_packages/<build>/<name>/*.pt2`` (the packages directly in a sample folder, as
the ELF tests always read them; ``_samples.PACKAGES`` is the recursive list of AOTI packages).
"""

from __future__ import annotations

import shutil
import struct
import zipfile
from functools import cache
from pathlib import Path

from _paths import S

SAMPLE_PT2S = sorted(S.glob("*/*/*.pt2"))
READELF = shutil.which("readelf")


def members(suffix: str) -> list[tuple[Path, str]]:
    """``(package, member name)`` for every member of ``SAMPLE_PT2S`` whose name ends in ``suffix`` (listed once a
    process: the ELF twins both list the `.so` files)."""
    return list(_members(suffix))


@cache
def _members(suffix: str) -> tuple[tuple[Path, str], ...]:
    out = []
    for p in SAMPLE_PT2S:
        with zipfile.ZipFile(p) as z:
            out += [(p, n) for n in z.namelist() if n.endswith(suffix)]
    return tuple(out)


def extract(pkg: Path, member: str, folder: Path) -> Path:
    """``member`` of ``pkg`` written to ``folder`` under its base name."""
    with zipfile.ZipFile(pkg) as z:
        dst = folder / Path(member).name
        dst.write_bytes(z.read(member))
    return dst


def texts(pkg: Path, suffix: str) -> list[tuple[str, str]]:
    """``(name, UTF-8 text)`` of each member of ``pkg`` whose name ends in ``suffix``."""
    with zipfile.ZipFile(pkg) as z:
        return [(n, z.read(n).decode("utf-8")) for n in z.namelist() if n.endswith(suffix)]


def stored_at(pkg: Path, suffix: str) -> tuple[int, int]:
    """Where the first member of ``pkg`` whose name ends in ``suffix`` keeps its data in the file: (offset, compressed
    size), for the tests that change a member's bytes and leave the zip directory as it was."""
    with zipfile.ZipFile(pkg) as z:
        info = next(i for i in z.infolist() if i.filename.endswith(suffix))
    with pkg.open("rb") as f:
        f.seek(info.header_offset)
        head = f.read(30)
    n, extra = struct.unpack("<HH", head[26:30])
    return info.header_offset + 30 + n + extra, info.compress_size


def first_bytes(pkg: Path, suffix: str) -> bytes:
    """The bytes of the first member of ``pkg`` whose name ends in ``suffix`` (the test fails if there is none)."""
    with zipfile.ZipFile(pkg) as z:
        names = [n for n in z.namelist() if n.endswith(suffix)]
        assert names, f"{pkg}: no member *{suffix}"
        return z.read(names[0])
