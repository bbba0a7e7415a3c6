"""Reading a package safely: a `.pt2` zip, an extracted package folder, or a bare `*.wrapper.cpp`.

Nothing here runs, loads or unpickles anything.  Members are read lazily,
straight from the zip, and only the text members a query needs; `.so`,
weights and cubins are never read unless asked for (cubins are, later, for
their assert strings).  Extraction happens only when asked, into a fresh
temporary folder, refusing `..`, absolute names and symlinks.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import mmap
import os
import stat
import struct
import tempfile
import threading
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .dialects.members import AOTI_DIR, CMAKE_PROJECT, role
from .errors import UnreadablePackage

# Caps against zip bombs and mistaken inputs, not against real packages: a production package with
# 20,000 Triton kernels has a 137 MB wrapper.cpp, so one text member may be up to 1 GiB; a member
# whose zip header claims less than it inflates to is cut at the cap and refused.
MAX_TEXT_BYTES = 1024 * 1024 * 1024  # one wrapper/kernel/json member
MAX_CUBIN_BYTES = 256 * 1024 * 1024
MAX_MEMBERS = 1_000_000
# A stored (uncompressed) text member at least this big is decoded straight from the zip file mapped into memory
# (`Archive.read_text`): no bytes copy of it is made first (177 MB and ~0.15 s on the assertion-dense 20k package).
MAP_TEXT_BYTES = 1 << 20
# The compression methods Python's zipfile reads (PKWARE APPNOTE 4.4.5: stored, deflated, bzip2, LZMA); torch writes
# stored members.  Any other (99 is WinZip's AES) is a member nobody here can read.
READABLE_METHODS = {0: "stored", 8: "deflated", 12: "bzip2", 14: "LZMA"}
ENCRYPTED_FLAG = 0x1  # general purpose bit 0 (APPNOTE 4.4.4)
UTF8_FLAG = 0x800  # general purpose bit 11: the name is UTF-8; without it, IBM code page 437 (APPNOTE appendix D)
# The local file header (APPNOTE 4.3.7): signature, version needed, flags, method, time, date, CRC-32, compressed and
# uncompressed size, name length, extra field length; 30 bytes, the name and the extra field follow.
LOCAL_HEADER = struct.Struct("<4s5H3L2H")
LOCAL_SIGNATURE = b"PK\x03\x04"
# What reading a damaged member raises (each is the package's damage, exit 3): zipfile's own errors, a short file, a
# method or encryption only the local header declares, and the decompressors' errors on a stream that is not one
# (bz2 raises OSError).  The fuzz lane (tests/unit/test_fuzz_archives.py) found zlib.error escaping as exit 4.
MEMBER_READ_ERRORS = (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error,
                      lzma.LZMAError)


_CRC_WINDOW = 16 << 20


def _data_start(mm, info: zipfile.ZipInfo) -> int | None:
    """Where member ``info``'s data starts in the mapped zip ``mm``: after its local header (APPNOTE §4.3.7: the
    fixed 30 bytes, the name, the extra field); None when the header there is not this member's."""
    head = mm[info.header_offset: info.header_offset + LOCAL_HEADER.size]
    if len(head) != LOCAL_HEADER.size:
        return None
    signature, *_, fname_len, extra_len = LOCAL_HEADER.unpack(head)
    if signature != LOCAL_SIGNATURE:
        return None
    at = info.header_offset + LOCAL_HEADER.size
    try:
        name = info.orig_filename.encode("utf-8" if info.flag_bits & UTF8_FLAG else "cp437")
    except UnicodeEncodeError:
        return None
    if mm[at: at + fname_len] != name:
        return None
    return at + fname_len + extra_len


@dataclass
class ModelFiles:
    """The members of one model under ``data/aotinductor/<name>/``."""

    name: str
    folder: str
    wrapper: str | None = None
    kernel_cpp: str | None = None
    wrapper_metadata: str | None = None
    kernel_information: str | None = None
    cubins: list[str] = field(default_factory=list)
    shared_objects: list[str] = field(default_factory=list)
    weights: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    def add(self, fn: str, member: str) -> None:
        """File ``member`` (file name ``fn`` inside the model folder) under what it is (`inspector.dialects.members`)."""
        r = role(fn)
        if r in ("wrapper", "kernel_cpp", "wrapper_metadata", "kernel_information"):
            setattr(self, r, member)
        elif r == "inline_cpp":  # torch 2.6: one `<hash>.cpp` holds the wrapper and the cpp_fused_* kernels
            if self.wrapper is None:
                self.wrapper = member
            if self.kernel_cpp is None:
                self.kernel_cpp = member
        elif r == "inline_metadata":
            if self.wrapper_metadata is None:  # torch 2.6: `<hash>_metadata.json`
                self.wrapper_metadata = member
        elif r == "cubin":
            self.cubins.append(member)
        elif r == "shared_object":
            self.shared_objects.append(member)
        elif r == "weights":
            self.weights.append(member)
        else:
            self.other.append(member)


def _compiled_so(folder: Path, stem: str) -> Path | None:
    """The `.so` compiled from ``<stem>.wrapper.cpp`` in ``folder``: ``<stem>.wrapper.so`` / ``<stem>.so``, else the
    folder's only `.so` when the folder holds one wrapper (torch._export.aot_compile writes the wrapper, its
    kernel.cpp and ``model.so``, or the ``aot_inductor.output_path`` it was given, side by side; seen on 2.13)."""
    for name in (f"{stem}.wrapper.so", f"{stem}.so"):
        c = folder / name
        if c.is_file() and not c.is_symlink():
            return c
    sos = [c for c in folder.glob("*.so") if c.is_file() and not c.is_symlink()]
    if len(sos) == 1 and len(list(folder.glob("*.wrapper.cpp"))) == 1:
        return sos[0]
    return None


def _compile_folder_wrapper(p: Path) -> Path | None:
    """A folder with no ``data/aotinductor/`` inside, holding one ``*.wrapper.cpp`` and a `.so` (a compile folder or
    aot_compile's output): that wrapper, read as the bare wrapper with its siblings.  None for a package folder."""
    if (p / "data").is_dir() or any(c.is_dir() and (c / "data" / "aotinductor").is_dir() for c in p.iterdir()):
        return None
    wrappers = [c for c in p.glob("*.wrapper.cpp") if c.is_file() and not c.is_symlink()]
    if len(wrappers) != 1 or _compiled_so(p, wrappers[0].name[: -len(".wrapper.cpp")]) is None:
        return None
    return wrappers[0]


def _safe_name(name: str) -> bool:
    """A member name that stays inside the folder it is extracted to."""
    if not name or name.startswith(("/", "\\")) or "\\" in name:
        return False
    parts = PurePosixPath(name).parts
    if ".." in parts or (parts and len(parts[0]) == 2 and parts[0][1] == ":"):
        return False
    return True


class Archive:
    """A package's members by name, whatever the container.  Use `Archive.open(path)`."""

    def __init__(self, path: Path):
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self._dir: Path | None = None
        self._members: dict[str, int] = {}  # name -> size
        self._crc: dict[str, int] = {}  # name -> CRC-32 from the zip's central directory
        self.root = ""  # the archive's top folder, e.g. "embedding/"
        self.skipped: list[str] = []  # unsafe names, symlinks: never read
        self.unreadable: dict[str, str] = {}  # member -> why no reader can read it (its method, encryption)
        self.duplicates: dict[str, int] = {}  # a name the zip directory lists more than once -> how many times
        self.odd_names: list[str] = []  # names without the UTF-8 flag holding bytes >= 0x80 (read as code page 437)
        self._local_zip = False  # a zip file on this machine (`_open_zip`), which `read_text` may map

    # -- opening ---------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike) -> "Archive":
        p = Path(path)
        if not p.exists() and not p.is_symlink():
            raise UnreadablePackage(f"{p}: no such file or folder")
        if p.is_symlink():
            raise UnreadablePackage(f"{p}: is a symbolic link; pass the file it points to")
        a = cls(p)
        if p.is_dir():
            wrapper = _compile_folder_wrapper(p)
            if wrapper is not None:  # torch._export.aot_compile's output: <hash>.wrapper.cpp beside model.so
                a._open_bare_wrapper(wrapper)
                a.path = p
            else:
                a._open_dir(p)
        elif not p.is_file():
            raise UnreadablePackage(f"{p}: not a regular file")
        elif p.name.endswith(".cpp"):
            a._open_bare_wrapper(p)
        else:
            a._open_zip(p)
        a._find_root()
        return a

    def _open_zip(self, p: Path):
        try:
            with p.open("rb") as f:
                head = f.read(4)
        except OSError as e:
            raise UnreadablePackage(f"{p}: cannot read: {e.strerror}") from None
        if head[:2] != b"PK":
            raise UnreadablePackage(f"{p}: not a zip archive (a .pt2 package is a zip); is it the right file?")
        try:
            zf = zipfile.ZipFile(p)
            infos = zf.infolist()
        except (zipfile.BadZipFile, OSError, EOFError) as e:
            raise UnreadablePackage(f"{p}: damaged or truncated zip ({e})") from None
        except UnicodeDecodeError as e:  # a name flagged UTF-8 (bit 11) that is not
            raise UnreadablePackage(f"{p}: a member's name is flagged UTF-8 but is not (byte 0x{e.object[e.start]:02x} "
                                    f"at {e.start}): a damaged zip") from None
        if len(infos) > MAX_MEMBERS:
            raise UnreadablePackage(f"{p}: {len(infos)} members, more than the {MAX_MEMBERS} accepted")
        self._zip = zf
        self._local_zip = True
        self.take_infos(infos)

    def take_infos(self, infos: list[zipfile.ZipInfo]) -> None:
        """The zip directory's entries as members: folders dropped; unsafe names and symlinks skipped (never read);
        a member no reader can read (an unknown compression method, encryption) kept with its reason, so that
        reading it says which member and why; a name listed twice counted (the later entry is the one read here;
        which one torch's loaders read is not defined: miniz finds a name by a search of the sorted directory)."""
        for info in infos:
            mode = info.external_attr >> 16
            if info.is_dir():
                continue
            if stat.S_ISLNK(mode) or not _safe_name(info.filename):
                self.skipped.append(info.filename)
                continue
            name = info.filename
            if name in self._members:
                self.duplicates[name] = self.duplicates.get(name, 1) + 1
            if info.compress_type not in READABLE_METHODS:
                self.unreadable[name] = (f"compression method {info.compress_type}"
                                         f"{' (AES encryption)' if info.compress_type == 99 else ''}, which no reader "
                                         "here knows (a package torch wrote is stored)")
            elif info.flag_bits & ENCRYPTED_FLAG:
                self.unreadable[name] = "encrypted (a package torch wrote is not)"
            else:
                self.unreadable.pop(name, None)
            if not info.flag_bits & UTF8_FLAG and not name.isascii():
                self.odd_names.append(name)
            self._members[name] = info.file_size
            self._crc[name] = info.CRC

    def _open_dir(self, p: Path):
        self._dir = p
        for dirpath, dirnames, filenames in os.walk(p, followlinks=False):
            for fn in filenames:
                full = Path(dirpath) / fn
                rel = full.relative_to(p).as_posix()
                if full.is_symlink() or not full.is_file():
                    self.skipped.append(rel)
                    continue
                self._members[rel] = full.stat().st_size
                if len(self._members) > MAX_MEMBERS:
                    raise UnreadablePackage(f"{p}: more than {MAX_MEMBERS} files")

    def _open_bare_wrapper(self, p: Path):
        if not p.name.endswith(".wrapper.cpp"):
            raise UnreadablePackage(f"{p}: expected a .pt2 package, a package folder or a *.wrapper.cpp")
        self._dir = p.parent
        self._members[p.name] = p.stat().st_size
        # A compile folder keeps the CPU kernels and the metadata beside the wrapper.
        stem = p.name[: -len(".wrapper.cpp")]
        for sib in sorted(p.parent.iterdir()):
            if sib.is_symlink() or not sib.is_file():
                continue
            if sib.name.endswith(".kernel.cpp") or sib.name in (f"{stem}.wrapper_metadata.json", "kernel_information.json",
                                                                CMAKE_PROJECT):
                self._members[sib.name] = sib.stat().st_size
        so = _compiled_so(p.parent, stem)
        if so is not None:
            self._members[so.name] = so.stat().st_size
        self.bare_wrapper = p.name

    def _find_root(self):
        for name in self._members:
            i = name.find(AOTI_DIR)
            if i >= 0:
                self.root = name[:i]
                return
            if name.endswith("archive_format"):
                self.root = name[: -len("archive_format")]

    def close(self):
        if self._zip is not None:
            self._zip.close()
            self._zip = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- members -----------------------------------------------------------
    @property
    def kind(self) -> str:
        if self._zip is not None:
            return "zip"
        return "wrapper" if getattr(self, "bare_wrapper", None) else "folder"

    def members(self) -> list[str]:
        return list(self._members)

    def size(self, name: str) -> int:
        return self._members[name]

    def _readable(self, name: str) -> None:
        if name not in self._members:
            raise KeyError(name)
        if name in self.unreadable:
            raise UnreadablePackage(f"{self.path}: cannot read {name}: {self.unreadable[name]}")

    def read_bytes(self, name: str, limit: int = MAX_TEXT_BYTES) -> bytes:
        self._readable(name)
        if self._members[name] > limit:
            raise UnreadablePackage(f"{self.path}: member {name} is {self._members[name]} bytes, over the {limit} accepted")
        try:
            if self._zip is not None:
                with self._zip.open(name) as f:
                    data = f.read(limit + 1)
            else:
                with (self._dir / name).open("rb") as f:
                    data = f.read(limit + 1)
        except MEMBER_READ_ERRORS as e:
            # (NotImplementedError, RuntimeError: zipfile's words for a method or an encryption only the local header
            # declares, which the directory's entry did not; zlib.error / LZMAError: a compressed stream that is not one)
            raise UnreadablePackage(f"{self.path}: cannot read {name}: {e}") from None
        except UnicodeDecodeError:  # zipfile decodes the local header's name (UTF-8 flag set): a damaged zip
            raise UnreadablePackage(f"{self.path}: cannot read {name}: its local header's name is not UTF-8 "
                                    "(a damaged zip)") from None
        if len(data) > limit:
            raise UnreadablePackage(f"{self.path}: member {name} is over the {limit} bytes accepted")
        return data

    def read_range(self, name: str, offset: int, size: int) -> bytes:
        """``size`` bytes of a member from ``offset`` (fewer at its end), without reading the rest: what
        `inspector.elf` needs of a `.so` (its headers and symbol tables) when the weights are compiled into it.
        A stored zip member (as AOTI writes them) is sought directly; a deflated one is decompressed up to there."""
        self._readable(name)
        if offset < 0 or size < 0:
            return b""
        try:
            if self._zip is not None:
                with self._zip.open(name) as f:
                    f.seek(offset)
                    return f.read(size)
            with (self._dir / name).open("rb") as f:
                f.seek(offset)
                return f.read(size)
        except (*MEMBER_READ_ERRORS, ValueError) as e:
            raise UnreadablePackage(f"{self.path}: cannot read {name}: {e}") from None
        except UnicodeDecodeError:
            raise UnreadablePackage(f"{self.path}: cannot read {name}: its local header's name is not UTF-8 "
                                    "(a damaged zip)") from None

    def container_stamp(self) -> str:
        """What the index cache key holds of the container itself: nothing for a local zip or a folder, whose
        members' fingerprints hash their own bytes (`fingerprint`): a copy, a touch or a restore of the same bytes
        is a hit, and no size, time or inode can make changed bytes look unchanged (issue 36 §2)."""
        return "-"

    def fingerprint(self, name: str) -> str:
        """A checksum of a member's bytes, for the index cache key: for a zip, its size, the CRC-32 its directory
        records and a CRC-32 of the bytes as they lie in the archive (`data_checksum`: the directory's CRC alone
        is a claim, which bytes changed in place do not update); for a folder file, a BLAKE2b of its bytes."""
        if name not in self._members:
            raise KeyError(name)
        if self._zip is not None:
            return f"{name}:{self._members[name]}:crc32:{self._crc[name]:08x}:data:{self.data_checksum(name)}"
        h = hashlib.blake2b(digest_size=20)
        try:
            with (self._dir / name).open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except OSError as e:
            raise UnreadablePackage(f"{self.path}: cannot read {name}: {e.strerror}") from None
        return f"{name}:{self._members[name]}:blake2b:{h.hexdigest()}"

    def data_checksum(self, name: str) -> str:
        """A CRC-32 (zlib's: ~2.4 GB/s here, 47 ms for a 113 MB wrapper.cpp) of member ``name``'s bytes where they
        lie in the local zip (compressed as stored: nothing is inflated), with their offset and length; a member
        whose local header does not lead to its data is read whole (`read_bytes`: zipfile's own CRC check, so
        damage is exit 3).  What the cache key rests on is the content, never a time or an inode."""
        info = self._zip.getinfo(name)
        try:
            with self.path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                start = _data_start(mm, info)
                end = None if start is None else start + info.compress_size
                if end is not None and end <= len(mm):
                    crc, at, view = 0, start, memoryview(mm)
                    try:
                        while at < end:  # 16 MiB windows, each let go once summed: the process's memory stays flat
                            stop = min(end, at + _CRC_WINDOW)
                            crc = zlib.crc32(view[at:stop], crc)
                            lo = at - at % mmap.PAGESIZE
                            if stop - lo >= mmap.PAGESIZE and hasattr(mm, "madvise"):
                                mm.madvise(mmap.MADV_DONTNEED, lo, (stop - lo) - (stop - lo) % mmap.PAGESIZE)
                            at = stop
                    finally:
                        view.release()
                    return f"{start}+{info.compress_size}:{crc:08x}"
        except (OSError, ValueError):
            pass
        return f"read:{zlib.crc32(self.read_bytes(name)):08x}"

    def read_text(self, name: str) -> str:
        try:
            mapped = self._decode_mapped(name)
            if mapped is not None:
                return mapped
            data = self.read_bytes(name)
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise UnreadablePackage(f"{self.path}: {name} is not UTF-8 text (byte {e.start}); not a file torch generated?") from None

    def _decode_mapped(self, name: str) -> str | None:
        """A big stored member of a local zip, decoded from the file mapped into memory (the CRC-32 checked as
        zipfile checks it); None when it is not one such (compressed, small, remote, an odd local header), or when
        anything is amiss (its CRC, its header's name, a short file): then `read_bytes` reads it and raises the
        error zipfile finds, word for word."""
        if not self._local_zip or name not in self._members or name in self.unreadable \
                or not MAP_TEXT_BYTES <= self._members[name] <= MAX_TEXT_BYTES:
            return None
        info = self._zip.getinfo(name)
        if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1 or info.file_size != info.compress_size:
            return None
        try:
            with self.path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                start = _data_start(mm, info)
                if start is None or start + info.file_size > len(mm):
                    return None
                with memoryview(mm)[start: start + info.file_size] as view:
                    return _checked_text(view, info.CRC)
        except (OSError, ValueError, UnicodeEncodeError):
            return None

    def read_json(self, name: str):
        try:
            return json.loads(self.read_text(name))
        except json.JSONDecodeError as e:
            raise UnreadablePackage(f"{self.path}: {name} is not valid JSON ({e.msg} at line {e.lineno})") from None
        except RecursionError:
            raise UnreadablePackage(f"{self.path}: {name} nests its JSON deeper than can be read: not a file torch "
                                    "wrote") from None

    def small_text(self, name: str) -> str | None:
        """archive_format, archive_version and the like: short, optional."""
        full = self.root + name
        if full in self._members and self._members[full] < 4096:
            return self.read_bytes(full).decode("utf-8", "replace").strip()
        return None

    # -- package structure ------------------------------------------------
    def model_files(self) -> list[ModelFiles]:
        """Every model under data/aotinductor/<name>/ (or the bare wrapper as one model)."""
        if self.kind == "wrapper":
            mf = ModelFiles(name="model", folder="")
            for m in self._members:
                mf.add(m, m)
            mf.wrapper = self.bare_wrapper
            if mf.kernel_cpp is None and CMAKE_PROJECT in self._members:
                mf.kernel_cpp = mf.wrapper  # package_cpp_only's wrapper, read from its extracted folder
            return [mf]
        models: dict[str, ModelFiles] = {}
        for name in self._members:
            i = name.find(AOTI_DIR)
            if i < 0:
                continue
            rest = name[i + len(AOTI_DIR):]
            if "/" not in rest:
                continue
            model, fn = rest.split("/", 1)
            models.setdefault(model, ModelFiles(name=model, folder=name[: i + len(AOTI_DIR)] + model + "/")).add(fn, name)
        for m in models.values():
            if m.kernel_cpp is None and m.wrapper and m.folder + CMAKE_PROJECT in self._members:
                m.kernel_cpp = m.wrapper  # package_cpp_only: the CPU kernels sit in the wrapper, after run_impl
        return [m for _, m in sorted(models.items()) if m.wrapper]

    def exported_programs(self) -> list[str]:
        """``models/<name>.json`` members (torch.export.save archives or packages that carry them)."""
        return sorted(m for m in self._members if m.startswith(self.root + "models/") and m.endswith(".json"))

    # -- extraction ----------------------------------------------------------
    def extract(self, names: list[str] | None = None) -> Path:
        """Copy members into a fresh temporary folder (never elsewhere) and return it."""
        out = Path(tempfile.mkdtemp(prefix="pt2-inspect-"))
        for name in names if names is not None else self.members():
            if not _safe_name(name) or name not in self._members:
                raise UnreadablePackage(f"refusing to extract {name!r}")
            dest = (out / name).resolve()
            if out.resolve() not in dest.parents:
                raise UnreadablePackage(f"refusing to extract {name!r} outside {out}")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(self.read_bytes(name, limit=max(MAX_TEXT_BYTES, self._members[name])))
        return out


def _checked_text(view: memoryview, crc: int) -> str | None:
    """``view`` decoded as UTF-8, when its CRC-32 is ``crc`` (None when it is not: the caller then reads it through
    zipfile, which raises the error it finds).  The CRC is computed on a second thread while the text is decoded:
    `zlib.crc32` lets go of the interpreter lock on a big buffer, so the two run at once (0.08 s of the 0.19 s
    that reading the dense 20k package's 177 MB wrapper took)."""
    got: list[int] = []
    worker = threading.Thread(target=lambda: got.append(zlib.crc32(view)), name="crc32", daemon=True)
    worker.start()
    try:
        text = str(view, "utf-8")  # (not UTF-8: the caller's `ValueError` path, which reads it through zipfile)
    finally:
        worker.join()
    return text if got and got[0] == crc else None
