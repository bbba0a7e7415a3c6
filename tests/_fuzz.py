"""A seeded mutation fuzzer over real packages and logs (issue 36 §1): the damage an attacker or a bad disk makes.

`mutate(data, rng)` returns ``(variant, bytes)``: bytes flipped anywhere, or one field of the zip's own layout
changed (PKWARE APPNOTE §4.3.7 local header, §4.3.12 central directory header, §4.3.16 end record): a name byte, the
method, the flags, a size, a CRC, an offset, an extra field's length, the comment; or a member duplicated, two
members overlapping, the file truncated.  `run_case` runs one command in this process and returns its exit code and
output; the oracle (exit 0, 1 or 3, no traceback, within a time cap) is the caller's.  Used by
tests/unit/test_fuzz_archives.py (a few hundred cases) and bench/fuzz.py (the long run)."""

from __future__ import annotations

import contextlib
import io
import random
import signal
import struct
import warnings
import zipfile

LOCAL, CENTRAL, END = b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06"

# (offset, struct format) of the fields of each header that a mutation may change
LOCAL_FIELDS = {"version": (4, "<H"), "flags": (6, "<H"), "method": (8, "<H"), "crc": (14, "<L"),
                "compressed_size": (18, "<L"), "size": (22, "<L"), "name_length": (26, "<H"), "extra_length": (28, "<H")}
CENTRAL_FIELDS = {"flags": (8, "<H"), "method": (10, "<H"), "crc": (16, "<L"), "compressed_size": (20, "<L"),
                  "size": (24, "<L"), "name_length": (28, "<H"), "extra_length": (30, "<H"),
                  "comment_length": (32, "<H"), "external_attr": (38, "<L"), "local_offset": (42, "<L")}
END_FIELDS = {"entries_here": (8, "<H"), "entries": (10, "<H"), "directory_size": (12, "<L"),
              "directory_offset": (16, "<L"), "comment_length": (20, "<H")}

# values that make each kind of field interesting: edges, an unknown method, the encryption and UTF-8 flags
SPECIAL = [0, 1, 0xFF, 0xFFFF, 0xFFFFFFFF, 99, 12, 14, 0x1, 0x800, 0x8, 0x7FFFFFFF, 0xA1FF0000]


def _headers(b: bytes, sig: bytes) -> list[int]:
    out, i = [], 0
    while (i := b.find(sig, i)) >= 0:
        out.append(i)
        i += 4
    return out


def _set(b: bytearray, at: int, fmt: str, rng: random.Random) -> None:
    size = struct.calcsize(fmt)
    if at + size > len(b):
        return
    (old,) = struct.unpack_from(fmt, b, at)
    choice = rng.random()
    if choice < 0.5:
        new = rng.choice(SPECIAL)
    elif choice < 0.8:
        new = old + rng.choice([-1, 1, -16, 16, 1 << rng.randrange(0, 8 * size)])
    else:
        new = rng.randrange(0, 1 << (8 * size))
    struct.pack_into(fmt, b, at, new % (1 << (8 * size)))


def _field(b: bytearray, rng: random.Random, sig: bytes, fields: dict) -> str:
    at = _headers(bytes(b), sig)
    if not at:
        return "none"
    h = rng.choice(at)
    name = rng.choice(sorted(fields))
    off, fmt = fields[name]
    _set(b, h + off, fmt, rng)
    return name


def _name_byte(b: bytearray, rng: random.Random) -> None:
    """One byte of a member's name (local or central) set to a byte ≥ 0x80, '/', '.', NUL or '\\\\'."""
    heads = [(h, 30, 26) for h in _headers(bytes(b), LOCAL)] + [(h, 46, 28) for h in _headers(bytes(b), CENTRAL)]
    if not heads:
        return
    h, start, len_at = rng.choice(heads)
    (n,) = struct.unpack_from("<H", b, h + len_at)
    if n and h + start + n <= len(b):
        b[h + start + rng.randrange(n)] = rng.choice([0xFF, 0x80, 0xC3, ord("/"), ord("."), 0, ord("\\")])


def _rewritten(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """A valid zip rebuilt with one member duplicated (same name, other bytes), or a name made odd."""
    with zipfile.ZipFile(io.BytesIO(data)) as src:  # read first: writing a ZipInfo moves its offset
        members = [(i.filename, i.compress_type, src.read(i)) for i in src.infolist()]
    name, _, body = rng.choice(members)
    out = io.BytesIO()
    how = rng.choice(["duplicate", "duplicate_empty", "absolute_name", "dotdot_name", "long_comment"])
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w") as z:
        warnings.simplefilter("ignore")  # "Duplicate name": the point
        for n, method, d in members:
            z.writestr(n, d, compress_type=method)
        if how == "duplicate":
            z.writestr(name, body[::-1])
        elif how == "duplicate_empty":
            z.writestr(name, b"")
        elif how == "absolute_name":
            z.writestr("/etc/" + name.rsplit("/", 1)[-1], b"x")
        elif how == "dotdot_name":
            z.writestr("../" + name, body)
        else:
            z.comment = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 65535)))
    return how, out.getvalue()


def _overlap(b: bytearray, rng: random.Random) -> None:
    """Point one central entry's local offset at another member's local header: two names, one body."""
    c, l = _headers(bytes(b), CENTRAL), _headers(bytes(b), LOCAL)
    if c and len(l) > 1:
        struct.pack_into("<L", b, rng.choice(c) + 42, rng.choice(l))


MUTATORS = ("bytes", "local_field", "central_field", "end_field", "name_byte", "rewrite", "overlap", "truncate")


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One damaged copy of a package's bytes: (its variant, its bytes)."""
    kind = rng.choice(MUTATORS)
    b = bytearray(data)
    if kind == "bytes":
        for _ in range(rng.randrange(1, 9)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return kind, bytes(b)
    if kind == "local_field":
        return f"local:{_field(b, rng, LOCAL, LOCAL_FIELDS)}", bytes(b)
    if kind == "central_field":
        return f"central:{_field(b, rng, CENTRAL, CENTRAL_FIELDS)}", bytes(b)
    if kind == "end_field":
        return f"end:{_field(b, rng, END, END_FIELDS)}", bytes(b)
    if kind == "name_byte":
        _name_byte(b, rng)
        return kind, bytes(b)
    if kind == "rewrite":
        how, out = _rewritten(data, rng)
        return f"rewrite:{how}", out
    if kind == "overlap":
        _overlap(b, rng)
        return kind, bytes(b)
    return kind, bytes(b[: rng.randrange(len(b))])


def mutate_log(text: bytes, rng: random.Random) -> tuple[str, bytes]:
    """A damaged log: bytes flipped, a line repeated thousands of times, NULs, invalid UTF-8, or cut."""
    b = bytearray(text)
    kind = rng.choice(["bytes", "repeat_line", "nul", "invalid_utf8", "truncate", "huge_numbers"])
    if kind == "bytes" and b:
        for _ in range(rng.randrange(1, 33)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == "repeat_line":
        lines = bytes(b).splitlines(keepends=True) or [b"x\n"]
        line = rng.choice(lines)
        b = bytearray(b"".join(lines[: len(lines) // 2]) + line * rng.randrange(100, 5000))
    elif kind == "nul":
        b = bytearray(bytes(b).replace(b" ", b"\0", rng.randrange(1, 50)))
    elif kind == "invalid_utf8":
        at = rng.randrange(len(b) + 1)
        b[at:at] = bytes([0xFF, 0xFE, 0xC3])
    elif kind == "huge_numbers":
        b = bytearray(bytes(b).replace(b"0", b"9" * rng.randrange(20, 400), 3))
    else:
        b = b[: rng.randrange(len(b) + 1)]
    return kind, bytes(b)


class TimeCap(Exception):
    pass


def run_case(argv: list[str], cap_s: float) -> tuple[int | str, str]:
    """``pt2-inspect ARGV`` in this process: (its exit code, or "timeout"; what it printed).  A bug escapes as
    exit 4 (the CLI catches it and says so), so a traceback here is one the CLI let through."""
    from inspector.cli import main

    def alarm(*_):
        raise TimeCap

    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, cap_s)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 2
    except TimeCap:
        rc = "timeout"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return rc, out.getvalue() + err.getvalue()
