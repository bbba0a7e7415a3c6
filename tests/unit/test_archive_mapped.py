"""`Archive.read_text` decodes a big stored member straight from the mapped zip file: the same text as reading it,
and the same errors (a bad CRC-32, bytes that are not UTF-8) as zipfile and the plain read give."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

import inspector.archive as archive
from inspector.archive import Archive
from inspector.errors import UnreadablePackage

from _members import stored_at
from _paths import S

PACKAGES = [S / "cuda/hf_t5_encoder/hf_t5_encoder.pt2", S / "cpu/jagged/jagged.pt2", S / "cuda/jagged/jagged.pt2"]


@pytest.fixture
def map_every_member(monkeypatch):
    """The samples' members are under the 1 MB the mapped read starts at: map every one."""
    monkeypatch.setattr(archive, "MAP_TEXT_BYTES", 1)


def _wrapper(a: Archive) -> str:
    return next(m for m in a.members() if m.endswith(".wrapper.cpp"))


def test_the_mapped_read_is_the_plain_read(map_every_member):
    """Three real packages (a fixed three, not the sample loop: this is the reading layer, not the samples): two
    store their members as AOTI writes them (mapped), one is deflated to save the repo's bytes (read as before)."""
    for pkg, stored in zip(PACKAGES, (False, True, True), strict=True):
        a = Archive.open(pkg)
        texts = [m for m in a.members() if m.endswith((".cpp", ".json", ".py"))]
        mapped = [m for m in texts if a._decode_mapped(m) is not None]
        assert texts and (_wrapper(a) in mapped) == stored, pkg  # the path under test ran where it should
        for m in texts:
            assert a.read_text(m) == a.read_bytes(m).decode("utf-8"), (pkg, m)


def test_a_big_member_of_the_dense_package_is_mapped():
    """Without the fixture: the real size threshold lets a 1 MB+ stored wrapper through (when the package is here)."""
    pkg = Path("/work/large/dense.pt2")
    if not pkg.exists():
        pytest.skip("the assertion-dense 20k package is not on this machine")
    a = Archive.open(pkg)
    assert a.size(_wrapper(a)) >= archive.MAP_TEXT_BYTES and a._decode_mapped(_wrapper(a)) is not None


def _damaged(tmp_path, damage) -> tuple[Archive, str]:
    """A copy of cpu/jagged whose wrapper's stored bytes have 64 bytes from the middle on replaced by
    ``damage(those bytes)`` (the zip directory's CRC left as it was); the archive and the wrapper's name."""
    pkg = tmp_path / "p.pt2"
    shutil.copyfile(S / "cpu/jagged/jagged.pt2", pkg)
    member = _wrapper(Archive.open(pkg))
    off, size = stored_at(pkg, member)
    with pkg.open("r+b") as f:
        f.seek(off + size // 2)
        data = f.read(64)
        f.seek(off + size // 2)
        f.write(damage(data))
    return Archive.open(pkg), member


def test_flipped_bytes_fail_with_zipfiles_crc_error(tmp_path, map_every_member):
    a, member = _damaged(tmp_path, lambda data: bytes(b ^ 0x01 for b in data))  # still ASCII: only the CRC can tell
    assert a._decode_mapped(member) is None
    with pytest.raises(UnreadablePackage, match="Bad CRC-32"):
        a.read_text(member)


def test_bytes_that_are_not_utf8_are_refused_as_the_plain_read_refuses_them(tmp_path, map_every_member):
    src = Archive.open(S / "cpu/jagged/jagged.pt2")
    member = _wrapper(src)
    text = src.read_bytes(member)
    pkg = tmp_path / "p.pt2"
    with zipfile.ZipFile(pkg, "w", zipfile.ZIP_STORED) as z:  # a CRC that agrees with the bad bytes
        z.writestr(member, text[:100] + b"\xff\xfe" + text[100:])
    a = Archive.open(pkg)
    with pytest.raises(UnreadablePackage, match=r"is not UTF-8 text \(byte 100\)"):
        a.read_text(member)


def test_bytes_that_are_neither_utf8_nor_their_crc_fail_with_the_crc_error(tmp_path, map_every_member):
    """The CRC is computed beside the decoding (`_checked_text`): a damaged member that is also not UTF-8 is still
    refused for its CRC, as zipfile refuses it, not for its encoding."""
    a, member = _damaged(tmp_path, lambda data: b"\xff\xfe" + data[2:])
    assert a._decode_mapped(member) is None
    with pytest.raises(UnreadablePackage, match="Bad CRC-32"):
        a.read_text(member)
