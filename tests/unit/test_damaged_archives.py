"""Damaged archives and metadata (issue 36 §1): one line naming the member and what is wrong, exit 3, never a
traceback or exit 4.  Each case is a real sample (cpu/jagged) with one thing changed, the way a bad disk, a hostile
uploader or another zip tool changes it: the zip's own fields (a compression method no reader knows, the encrypted
flag, a name flagged UTF-8 that is not, a member listed twice) or a metadata member's JSON (nested thousands deep;
the right keys with the wrong types).  The zip fields are patched by PKWARE APPNOTE's layout (4.3.7 local header,
4.3.12 central directory entry), in both headers of the member."""

from __future__ import annotations

import json
import struct
import warnings
import zipfile

import pytest

from _cli import one_error_line, run
from _paths import S

SRC = S / "cpu/jagged/jagged.pt2"
LOG = S / "cpu/jagged/error.log"
COMMANDS = [["show"], ["show", "--full"], ["doctor"], ["trace-assert", "--log", LOG], ["diagnose", "--log", LOG]]


def _member(suffix: str) -> str:
    with zipfile.ZipFile(SRC) as z:
        return next(i.filename for i in z.infolist() if i.filename.endswith(suffix))


WRAPPER, META, KINFO = _member(".wrapper.cpp"), _member(".wrapper_metadata.json"), _member("kernel_information.json")


def _patch(name: str, fn) -> bytes:
    """The sample's bytes with ``fn(buf, header_offset, is_central)`` applied to both headers of member ``name``."""
    b = bytearray(SRC.read_bytes())
    for sig, name_len_at, name_at, central in ((b"PK\x01\x02", 28, 46, True), (b"PK\x03\x04", 26, 30, False)):
        i = b.find(sig)
        while i >= 0:
            n = struct.unpack_from("<H", b, i + name_len_at)[0]
            if bytes(b[i + name_at: i + name_at + n]) == name.encode():
                fn(b, i, central)
            i = b.find(sig, i + 4)
    return bytes(b)


def _method(m):
    return lambda b, at, central: struct.pack_into("<H", b, at + (10 if central else 8), m)


def _flags(bits):
    def f(b, at, central):
        o = at + (8 if central else 6)
        struct.pack_into("<H", b, o, struct.unpack_from("<H", b, o)[0] | bits)
    return f


def _bad_utf8(b, at, central):  # one byte of the name made 0xff, the UTF-8 flag left set
    n = struct.unpack_from("<H", b, at + (28 if central else 26))[0]
    b[at + (46 if central else 30) + n - 12] = 0xFF


def _rewritten(replace: dict | None = None, extra=()) -> bytes:
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(SRC) as zi, zipfile.ZipFile(buf, "w") as zo, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it is asked to write
        for i in zi.infolist():
            zo.writestr(i, (replace or {}).get(i.filename, zi.read(i.filename)))
        for n, d in extra:
            zo.writestr(n, d)
    return buf.getvalue()


def _meta() -> dict:
    with zipfile.ZipFile(SRC) as z:
        return json.loads(z.read(META))


# (case, the package's bytes, what the error line must hold)
DAMAGED = [
    ("method_99", lambda: _patch(WRAPPER, _method(99)), [WRAPPER, "compression method 99"]),
    ("method_99_metadata", lambda: _patch(META, _method(99)), [META, "compression method 99"]),
    ("encrypted", lambda: _patch(WRAPPER, _flags(0x1)), [WRAPPER, "encrypted"]),
    ("name_flagged_utf8_is_not", lambda: _patch(WRAPPER, _bad_utf8), ["flagged UTF-8 but is not"]),
    ("metadata_nested_deep", lambda: _rewritten({META: b"[" * 100_000 + b"]" * 100_000}), [META, "nests"]),
    ("provenance_nested_deep", lambda: _rewritten({KINFO: b'{"a":' * 50_000 + b"1" + b"}" * 50_000}), [KINFO, "nests"]),
    ("metadata_a_list", lambda: _rewritten({META: json.dumps([_meta()]).encode()}), [META, "a JSON array"]),
    ("metadata_numbers", lambda: _rewritten({META: json.dumps({k: 7 for k in _meta()}).encode()}),
     [META, "AOTI_DEVICE_KEY is a JSON number"]),
    ("metadata_lists", lambda: _rewritten({META: json.dumps({k: [1] for k in _meta()}).encode()}),
     [META, "is a JSON array"]),
    ("provenance_a_number", lambda: _rewritten({KINFO: b"42"}), [KINFO, "a JSON number"]),
    ("provenance_entry_a_number", lambda: _rewritten({KINFO: b'{"k:1": 5}'}), [KINFO, "k:1 is a JSON number"]),
    ("provenance_traces_a_number", lambda: _rewritten({KINFO: b'{"k:1": {"stack_traces": 3}}'}),
     [KINFO, "stack_traces is not a list of strings"]),
]


@pytest.mark.parametrize("case,make,says", DAMAGED, ids=[c[0] for c in DAMAGED])
def test_a_damaged_package_is_one_line_naming_what_exit_3(case, make, says, tmp_path, capsys):
    pkg = tmp_path / f"{case}.pt2"
    pkg.write_bytes(make())
    for cmd in COMMANDS:
        rc, out, err = run(capsys, [cmd[0], pkg, *cmd[1:], "--no-cache"])
        assert rc == 3, (case, cmd, rc, out[:300], err[-600:])
        one_error_line(err, *says)


def test_the_cases_change_what_they_say_they_change():
    """The patches hit: the original reads, and each patched member is the one the error names."""
    with zipfile.ZipFile(SRC) as z:
        assert {i.compress_type for i in z.infolist()} == {0} and all(i.flag_bits & 0x800 for i in z.infolist())
    import io
    with zipfile.ZipFile(io.BytesIO(_patch(WRAPPER, _method(99)))) as z:
        assert z.getinfo(WRAPPER).compress_type == 99 and z.getinfo(META).compress_type == 0
    with zipfile.ZipFile(io.BytesIO(_patch(WRAPPER, _flags(0x1)))) as z:
        assert z.getinfo(WRAPPER).flag_bits & 0x1 and not z.getinfo(META).flag_bits & 0x1


def test_a_member_listed_twice_is_a_warning_in_show_and_doctor(tmp_path, capsys):
    pkg = tmp_path / "dup.pt2"
    with zipfile.ZipFile(SRC) as z:
        pkg.write_bytes(_rewritten(extra=[(WRAPPER, z.read(WRAPPER))]))
    rc, out, err = run(capsys, ["show", pkg, "--no-cache", "--json"])
    assert rc == 0
    warned = [w for m in json.loads(out)["models"] for w in m["warnings"] if "listed 2 times" in w]
    assert len(warned) == 1 and WRAPPER in warned[0] and "not defined" in warned[0], out[-800:]
    rc, out, err = run(capsys, ["doctor", pkg, "--no-cache", "--json"])
    found = [f for f in json.loads(out)["findings"] if "in the zip 2 times" in f["message"]]
    assert len(found) == 1 and found[0]["severity"] == "warn" and WRAPPER in found[0]["message"], out[-800:]
    rc, out, err = run(capsys, ["doctor", SRC, "--no-cache", "--json"])  # the sample itself has none
    assert not [f for f in json.loads(out)["findings"] if "in the zip" in f["message"]]


def test_scan_makes_a_damaged_package_a_row_and_exits_3(tmp_path, capsys):
    (tmp_path / "good.pt2").write_bytes(SRC.read_bytes())
    (tmp_path / "bad.pt2").write_bytes(_patch(WRAPPER, _method(99)))
    rc, out, err = run(capsys, ["scan", tmp_path, "--no-cache", "--json"])
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    bad = [r for r in rows if str(r.get("package", "")).endswith("bad.pt2")]
    assert rc == 3 and len(bad) == 1 and bad[0]["status"] == "unreadable" and "compression method 99" in bad[0]["error"]
    assert rows[-1]["summary"]["unreadable"] == 1 and rows[-1]["summary"]["internal_errors"] == 0
    rc, out, err = run(capsys, ["scan", tmp_path / "good.pt2", "--no-cache", "--json"])
    assert rc in (0, 1)  # the good one alone: not exit 3
