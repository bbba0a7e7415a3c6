"""Issue 36 §2: the index cache never answers for changed bytes.  Each case changes a cached package so that its
size, its times and its inode stay as they were (an edit in place, then `os.utime` back: what `touch -r` or a restore
that keeps times does), and checks that the next answer is the new bytes' (or exit 3 where they are damage), never the
cached one.  The key is the members' content (`Archive.fingerprint`), not a stat."""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path

import pytest

import inspector
from inspector.errors import UnreadablePackage

from _paths import S

SRC = S / "cuda/topk_gather/topk_gather.pt2"
GUARD = b"> 1024)"


def _stored_copy(dst: Path, change=lambda name, data: data) -> Path:
    """``SRC`` rewritten with every member stored (its bytes lie in the file as they are), each changed by ``change``."""
    with zipfile.ZipFile(SRC) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zo:
        for info in zi.infolist():
            zo.writestr(info.filename, change(info.filename, zi.read(info)))
    return dst


def _keeping_stat(path: Path, edit) -> None:
    """Run ``edit(file)`` on ``path`` opened in place, then give it back its times; its size and inode must stay."""
    st = path.stat()
    with path.open("r+b") as f:
        edit(f)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    now = path.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)


def _data_offset(path: Path, member_end: str) -> tuple[int, zipfile.ZipInfo]:
    with zipfile.ZipFile(path) as z:
        info = next(i for i in z.infolist() if i.filename.endswith(member_end))
    with path.open("rb") as f:
        f.seek(info.header_offset)
        head = f.read(30)
    n, m = struct.unpack("<2H", head[26:30])
    return info.header_offset + 30 + n + m, info


def _max_of(pkg: Path) -> list[int]:
    with inspector.open_package(pkg, cache=True) as p:
        return sorted(s.max for s in p.model().symbols.values() if s.max is not None)


def _device(pkg: Path) -> str:
    with inspector.open_package(pkg, cache=True) as p:
        return p.model().device


def test_bytes_changed_in_place_under_kept_times_are_never_answered_from_the_cache(tmp_path, cache_dir):
    """64 bytes of wrapper.cpp rewritten in place, the zip's directory (its CRC claim), size, times and inode kept:
    the cached answer is not served; reading the member finds the damage (exit 3's error)."""
    pkg = _stored_copy(tmp_path / "p.pt2")
    assert 1024 in _max_of(pkg)  # cached now
    at, info = _data_offset(pkg, ".wrapper.cpp")
    with pkg.open("rb") as f:
        f.seek(at)
        data = f.read(info.file_size)
    i = data.index(GUARD)
    _keeping_stat(pkg, lambda f: (f.seek(at + i), f.write(b"> 2048)")))
    with pytest.raises(UnreadablePackage, match="CRC|damaged|cannot read"):
        _max_of(pkg)


def test_a_same_size_rewrite_with_kept_times_gets_the_new_answer(tmp_path, cache_dir):
    """The whole zip rewritten (a valid one: its CRCs right) to the same size, times put back: the new answer."""
    pkg = _stored_copy(tmp_path / "p.pt2")
    assert 1024 in _max_of(pkg)
    new = _stored_copy(tmp_path / "new.pt2", lambda n, d: d.replace(GUARD, b"> 2048)") if n.endswith(".wrapper.cpp") else d)
    assert new.stat().st_size == pkg.stat().st_size
    body = new.read_bytes()
    _keeping_stat(pkg, lambda f: f.write(body))
    got = _max_of(pkg)
    assert 2048 in got and 1024 not in got


def test_a_truncated_package_is_damage_not_a_cached_answer(tmp_path, cache_dir):
    pkg = _stored_copy(tmp_path / "p.pt2")
    assert _max_of(pkg)
    size = pkg.stat().st_size
    st = pkg.stat()
    with pkg.open("r+b") as f:
        f.truncate(size - 100)
    os.utime(pkg, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(UnreadablePackage):
        _max_of(pkg)


def test_two_equal_size_members_swapped_with_their_crcs_give_the_swapped_answer(tmp_path, cache_dir):
    """The wrapper's and the kernel's metadata (equal sizes, one says cuda, the other cpu) swapped in place with
    their CRCs in the local headers and the directory: a valid zip, same size, times and inode, and the model's
    device is now the other one."""
    def change(name, data):
        if name.endswith(".kernel_metadata.json"):  # cuda -> cpu, a space keeps its size
            return data.replace(b'"cuda",', b'"cpu", ')
        return data
    pkg = _stored_copy(tmp_path / "p.pt2", change)
    assert _device(pkg) == "cuda"
    a_at, a = _data_offset(pkg, ".wrapper_metadata.json")
    b_at, b = _data_offset(pkg, ".kernel_metadata.json")
    assert a.file_size == b.file_size and a.CRC != b.CRC
    with zipfile.ZipFile(pkg) as z:
        start_dir = z.start_dir
    raw = pkg.read_bytes()

    def edit(f):
        da, db = raw[a_at: a_at + a.file_size], raw[b_at: b_at + b.file_size]
        f.seek(a_at), f.write(db), f.seek(b_at), f.write(da)
        for info, crc in ((a, b.CRC), (b, a.CRC)):  # the local header's CRC (offset 14)
            f.seek(info.header_offset + 14), f.write(struct.pack("<L", crc))
        at = start_dir  # the central directory's entries: CRC at offset 16
        while raw[at: at + 4] == b"PK\x01\x02":
            n, m, k = struct.unpack("<3H", raw[at + 28: at + 34])
            name = raw[at + 46: at + 46 + n].decode()
            if name in (a.filename, b.filename):
                f.seek(at + 16), f.write(struct.pack("<L", b.CRC if name == a.filename else a.CRC))
            at += 46 + n + m + k

    _keeping_stat(pkg, edit)
    with zipfile.ZipFile(pkg) as z:
        assert z.testzip() is None  # a valid zip
    assert _device(pkg) == "cpu"
