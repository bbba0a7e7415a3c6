"""Reading ELF headers without loading anything: a package's `.so` and its CUDA cubins.

Only what `doctor` needs (issue 14), read through a ``read(offset, size) -> bytes`` callable so that a
member is never read whole (a `.so` that embeds the weights can be gigabytes; its section headers and
dynamic symbols are a few kilobytes):

- `ElfHeader`: class, machine, flags (a cubin's SM target is in its flags), section-header table place.
- `dynamic_symbols`: the `.dynsym` table (name, defined or undefined, binding, the version it needs).
- `needed_versions`: the `.gnu.version_r` entries (``libstdc++.so.6: GLIBCXX_3.4.30`` …).
- `cubin_sm`: the SM number a cubin was built for, from ``e_flags`` (both of NVIDIA's encodings).
- `fatbin_entries`: the images of a CUDA fatbin (``emit_multi_arch_kernel=True``): SASS or PTX, and for which SM.
- `embedded_images`: the kernel images a `.so` carries in ``.rodata`` (``embed_kernel_binary=True``): each
  ``__<kernel>_start`` … ``__<kernel>_end`` symbol pair, as a file range.

ELF64 little-endian only (every AOTInductor build is x86-64 or aarch64 Linux, and cubins are ELF64).
Nothing here is dlopen'ed, executed or unpickled; a malformed file raises `ElfError`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Callable

Reader = Callable[[int, int], bytes]

EM_X86_64, EM_AARCH64, EM_CUDA = 62, 183, 190
SHT_SYMTAB, SHT_NOBITS = 2, 8
SHT_DYNSYM, SHT_GNU_VERNEED, SHT_GNU_VERSYM = 11, 0x6FFFFFFE, 0x6FFFFFFF
MAX_SECTIONS = 65536
MAX_TABLE_BYTES = 256 * 1024 * 1024  # a .dynsym or .dynstr larger than this is not a real one


class ElfError(ValueError):
    """The bytes are not an ELF64 little-endian file we can read."""


@dataclass(frozen=True)
class ElfHeader:
    machine: int
    flags: int
    abi_version: int  # e_ident[EI_ABIVERSION]: NVIDIA's cubin flag encoding depends on it
    osabi: int
    shoff: int
    shentsize: int
    shnum: int
    shstrndx: int
    elf_type: int


@dataclass(frozen=True)
class Section:
    name: str
    type: int
    offset: int
    size: int
    link: int
    entsize: int
    addr: int = 0  # sh_addr: where the section sits in memory (symbol values are such addresses)


@dataclass(frozen=True)
class Symbol:
    name: str
    defined: bool  # st_shndx != SHN_UNDEF
    binding: str  # "local" | "global" | "weak" | "other"
    kind: str  # "func" | "object" | "notype" | "other"
    version: str | None = None  # for an undefined symbol: the version it needs (GLIBC_2.34 …), when versioned
    value: int = 0  # st_value: for a defined symbol, its address


def file_reader(path) -> Reader:
    """A reader over a file on disk (opened per call: nothing held open)."""

    def read(offset: int, size: int) -> bytes:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read(size)

    return read


def bytes_reader(data: bytes) -> Reader:
    return lambda offset, size: data[offset:offset + size]


def _exact(read: Reader, offset: int, size: int, what: str) -> bytes:
    if offset < 0 or size < 0 or size > MAX_TABLE_BYTES:
        raise ElfError(f"{what}: offset {offset} size {size} out of range")
    b = read(offset, size)
    if len(b) != size:
        raise ElfError(f"{what}: file ends at {offset + len(b)}, {size} bytes wanted at {offset}")
    return b


def header(read: Reader) -> ElfHeader:
    b = _exact(read, 0, 64, "ELF header")
    if b[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    if b[4] != 2 or b[5] != 1:
        raise ElfError(f"not ELF64 little-endian (class {b[4]}, data {b[5]})")
    (e_type, machine, _v, _entry, _phoff, shoff, flags, _ehsize, _phentsize, _phnum, shentsize, shnum,
     shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", b, 16)
    return ElfHeader(machine=machine, flags=flags, abi_version=b[8], osabi=b[7], shoff=shoff, shentsize=shentsize,
                     shnum=shnum, shstrndx=shstrndx, elf_type=e_type)


def sections(read: Reader, h: ElfHeader | None = None) -> list[Section]:
    h = h or header(read)
    if h.shoff == 0 or h.shnum == 0:
        return []
    if h.shentsize < 64 or h.shnum > MAX_SECTIONS:
        raise ElfError(f"section headers: {h.shnum} entries of {h.shentsize} bytes")
    table = _exact(read, h.shoff, h.shentsize * h.shnum, "section headers")
    raw = []
    for i in range(h.shnum):
        (name, typ, _flags, addr, offset, size, link, _info, _align, entsize) = struct.unpack_from(
            "<IIQQQQIIQQ", table, i * h.shentsize)
        raw.append((name, typ, offset, size, link, entsize, addr))
    names = b""
    if h.shstrndx < len(raw):
        _, _, off, size, _, _, _ = raw[h.shstrndx]
        names = _exact(read, off, size, "section names")
    return [Section(_cstr(names, n), typ, off, size, link, ent, addr) for n, typ, off, size, link, ent, addr in raw]


def _cstr(table: bytes, at: int) -> str:
    if at >= len(table):
        return ""
    end = table.find(b"\0", at)
    return table[at:end if end >= 0 else len(table)].decode("utf-8", "replace")


def _versions_needed(read: Reader, secs: list[Section]) -> dict[int, tuple[str, str]]:
    """version index -> (library, version name) from .gnu.version_r."""
    out: dict[int, tuple[str, str]] = {}
    for s in secs:
        if s.type != SHT_GNU_VERNEED or s.link >= len(secs):
            continue
        data = _exact(read, s.offset, s.size, ".gnu.version_r")
        strs = _exact(read, secs[s.link].offset, secs[s.link].size, ".gnu.version_r strings")
        at, seen = 0, 0
        while at + 16 <= len(data) and seen < 4096:
            _ver, cnt, file_, aux, nxt = struct.unpack_from("<HHIII", data, at)
            lib = _cstr(strs, file_)
            a = at + aux
            for _ in range(min(cnt, 4096)):
                if a + 16 > len(data):
                    break
                _hash, _flags, other, name, anext = struct.unpack_from("<IHHII", data, a)
                out[other & 0x7FFF] = (lib, _cstr(strs, name))
                if not anext:
                    break
                a += anext
            seen += 1
            if not nxt:
                break
            at += nxt
    return out


def needed_versions(read: Reader) -> list[tuple[str, str]]:
    """(library, version) pairs the file needs, e.g. ``("libstdc++.so.6", "GLIBCXX_3.4.30")``, sorted."""
    return sorted(set(_versions_needed(read, sections(read)).values()))


_BIND = {0: "local", 1: "global", 2: "weak"}
_KIND = {0: "notype", 1: "object", 2: "func"}


def dynamic_symbols(read: Reader) -> list[Symbol]:
    """Every entry of ``.dynsym`` (the null entry left out), with the version an undefined one needs."""
    return _symbols(read, sections(read), SHT_DYNSYM)


def _symbols(read: Reader, secs: list[Section], table: int) -> list[Symbol]:
    dyn = next((s for s in secs if s.type == table), None)
    if dyn is None:
        return []
    if dyn.link >= len(secs):
        raise ElfError("a symbol table links to no string table")
    data = _exact(read, dyn.offset, dyn.size, ".dynsym")
    strs = _exact(read, secs[dyn.link].offset, secs[dyn.link].size, ".dynstr")
    versym = next((s for s in secs if s.type == SHT_GNU_VERSYM), None) if table == SHT_DYNSYM else None
    vers = _exact(read, versym.offset, versym.size, ".gnu.version") if versym else b""
    needed = _versions_needed(read, secs)
    ent = dyn.entsize or 24
    out = []
    for i in range(1, len(data) // ent):
        name, info, _other, shndx, value, _size = struct.unpack_from("<IBBHQQ", data, i * ent)
        version = None
        if shndx == 0 and 2 * i + 2 <= len(vers):
            v = struct.unpack_from("<H", vers, 2 * i)[0] & 0x7FFF
            if v in needed:
                version = needed[v][1]
        out.append(Symbol(_cstr(strs, name), shndx != 0, _BIND.get(info >> 4, "other"), _KIND.get(info & 0xF, "other"),
                          version, value))
    return out


def cubin_sm(h: ElfHeader) -> int | None:
    """The SM number a CUDA cubin was built for (90 for ``sm_90``), None when it is not a cubin.

    NVIDIA's flag layout changed with the cubin ABI: ABI version 7 and older keep the SM number in the low
    byte of ``e_flags`` (0x5a055a: sm_90); newer ones keep it in the second byte (0x6006402: sm_100; seen on
    torch 2.11 / CUDA 13 for the H200: ABI version 8, flags 0x9005a04, sm_90).  The remaining bits (an
    architecture-specific ``a`` or family ``f`` target) are not decoded."""
    if h.machine != EM_CUDA:
        return None
    sm = (h.flags >> 8) & 0xFF if h.abi_version >= 8 else h.flags & 0xFF
    return sm or None


# -- CUDA fatbins (nvcc -fatbin / fatbinary --create): a container header, then one entry per image ----------
FATBIN_MAGIC = 0xBA55ED50
_FATBIN_KIND = {1: "ptx", 2: "sass"}
_FATBIN_COMPRESSED = 0x2000
MAX_FATBIN_ENTRIES = 4096


@dataclass(frozen=True)
class FatbinEntry:
    kind: str  # "sass" (an ELF cubin) | "ptx" (text a driver JIT-compiles) | "other"
    sm: int  # the architecture it is for: 90 for sm_90 / compute_90
    offset: int  # where its payload starts in the file
    size: int
    compressed: bool


def fatbin_entries(read: Reader) -> list[FatbinEntry]:
    """The images of a fatbin file: every container (16-byte header: magic 0xBA55ED50, version, header size,
    payload size), and in it every entry header (kind 1 PTX / 2 ELF, header size, payload size, arch).
    Raises `ElfError` when the bytes are not a fatbin."""
    out: list[FatbinEntry] = []
    at = 0
    while True:
        head = read(at, 16)
        if len(head) < 16:
            break
        magic, _version, hsize, fsize = struct.unpack_from("<IHHQ", head)
        if magic != FATBIN_MAGIC:
            if not out:
                raise ElfError("not a CUDA fatbin (no 0xBA55ED50 header)")
            break  # padding after the last container
        if hsize < 16 or fsize > MAX_TABLE_BYTES * 16:
            raise ElfError(f"fatbin container at {at}: header {hsize} bytes, payload {fsize}")
        e, end = at + hsize, at + hsize + fsize
        while e + 64 <= end and len(out) < MAX_FATBIN_ENTRIES:
            b = _exact(read, e, 64, "fatbin entry header")
            kind, _unk, ehsize, esize = struct.unpack_from("<HHIQ", b)
            arch = struct.unpack_from("<I", b, 28)[0]
            flags = struct.unpack_from("<Q", b, 40)[0]
            if ehsize < 64 or e + ehsize + esize > end:
                raise ElfError(f"fatbin entry at {e}: header {ehsize} bytes, payload {esize}, container ends at {end}")
            out.append(FatbinEntry(_FATBIN_KIND.get(kind, "other"), arch, e + ehsize, esize,
                                   bool(flags & _FATBIN_COMPRESSED)))
            e += ehsize + esize
        at = end
    return out


def embedded_images(read: Reader) -> dict[str, tuple[int, int]]:
    """kernel name -> (file offset, size) of each image a `.so` embeds between ``__<kernel>_start`` and
    ``__<kernel>_end`` (the symbols torch's ``embed_kernel_binary`` writes with ``.incbin``), from ``.symtab``
    when it is there, else ``.dynsym``; the address is turned into a file offset by the section holding it."""
    secs = sections(read)
    syms = _symbols(read, secs, SHT_SYMTAB) or _symbols(read, secs, SHT_DYNSYM)
    at = {s.name: s.value for s in syms if s.defined}
    out: dict[str, tuple[int, int]] = {}
    for name, start in at.items():
        if not (name.startswith("__") and name.endswith("_start")):
            continue
        kernel = name[2:-len("_start")]
        end = at.get(f"__{kernel}_end")
        if end is None or end <= start:
            continue
        sec = next((s for s in secs if s.type != SHT_NOBITS and s.addr and s.addr <= start and end <= s.addr + s.size),
                   None)
        if sec is not None:
            out[kernel] = (sec.offset + start - sec.addr, end - start)
    return out


def sub_reader(read: Reader, offset: int, size: int) -> Reader:
    """A reader over ``size`` bytes at ``offset`` of another (an image inside a `.so` or a fatbin)."""
    return lambda o, n: read(offset + o, max(0, min(n, size - o))) if 0 <= o < size else b""
