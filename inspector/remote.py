"""A package at a URL (``https://``, ``s3://``, ``gs://``), read through fsspec by range requests.

Only the zip's end record and central directory are fetched when the package is opened, then only the
members a command reads (the wrapper, its metadata, the ELF headers of a `.so` by `read_range`), each by
ranged GETs: a package whose weights are gigabytes costs kilobytes to a few megabytes.  Nothing is
written to disk but the index cache, and that is keyed by the object's identity (its ETag, else its size
and modification time: `RemoteArchive.fingerprint`), so a changed object is never answered from it.

fsspec and its back-ends (s3fs, gcsfs, aiohttp) are the ``[remote]`` extra; they are imported only here,
only when a URL is opened.  Parsing never prints: `stats()` is what ``--debug`` prints (inspector.cli).
"""

from __future__ import annotations

import io
import os
import zipfile

from .archive import LOCAL_HEADER, LOCAL_SIGNATURE, MAX_MEMBERS, Archive
from .errors import UnreadablePackage, UsageError

SCHEMES = ("https://", "http://", "s3://", "gs://", "gcs://")
INSTALL = "pip install 'pt2-inspect[remote]'"
DEFAULT_TIMEOUT_S = 60.0
READ_AHEAD = 64 * 1024  # the least one request fetches: zipfile reads headers a few bytes at a time
TAIL = 128 * 1024  # fetched first: the end record and (for most packages) the whole central directory

_opened: list["RangeFile"] = []  # this process's remote reads, for `--debug` (inspector.cli prints them)


def is_url(path) -> bool:
    return isinstance(path, str) and path.lower().startswith(SCHEMES)


def timeout_s() -> float:
    try:
        return float(os.environ.get("PT2_INSPECT_REMOTE_TIMEOUT", DEFAULT_TIMEOUT_S))
    except ValueError:
        raise UsageError("PT2_INSPECT_REMOTE_TIMEOUT must be a number of seconds") from None


def stats() -> list[dict]:
    """Per URL opened in this process: the requests made and the bytes fetched."""
    return [{"url": f.url, "requests": f.requests, "bytes": f.fetched, "size": f.size} for f in _opened]


def _filesystem(url: str):
    try:
        import fsspec
    except ImportError:
        raise UsageError(f"{url}: reading a package from a URL needs fsspec: {INSTALL}") from None
    proto = url.split("://", 1)[0].lower()
    t = timeout_s()
    kw: dict = {}
    try:
        if proto in ("http", "https"):
            import aiohttp

            kw = {"client_kwargs": {"timeout": aiohttp.ClientTimeout(total=t)}}
        elif proto == "s3":
            kw = {"config_kwargs": {"connect_timeout": t, "read_timeout": t, "retries": {"max_attempts": 1}}}
        elif proto in ("gs", "gcs"):
            kw = {"timeout": t}
        return fsspec.filesystem(proto, **kw)
    except ImportError as e:
        raise UsageError(f"{url}: the {proto}:// back-end is not installed ({e.name}): {INSTALL}") from None


def _explain(url: str, e: BaseException) -> str:
    """One line for what went wrong reading ``url``."""
    import asyncio

    chain, x = [], e
    while x is not None and len(chain) < 8:  # fsspec re-raises a failed HEAD as FileNotFoundError from it
        chain.append(x)
        x = x.__cause__ or x.__context__
    for x in chain:
        n, t = type(x).__name__.lower(), str(x).lower()
        if isinstance(x, (TimeoutError, asyncio.TimeoutError)) or "timeout" in n or "timed out" in t:
            return f"{url}: the server did not answer within {timeout_s():g} s (PT2_INSPECT_REMOTE_TIMEOUT)"
        if "connector" in n or "connection refused" in t or "could not connect" in t:
            return f"{url}: cannot connect to the server ({str(x).splitlines()[0][:160] if str(x) else type(x).__name__})"
    name = type(e).__name__
    text = str(e).splitlines()[0][:200] if str(e) else ""
    if isinstance(e, FileNotFoundError):
        return f"{url}: no such object on the server"
    if "range" in text.lower():
        return f"{url}: the server does not answer range requests, so the package cannot be read in parts " \
               "(download it and pass the file)"
    if isinstance(e, PermissionError):
        return f"{url}: access denied ({text or name})"
    return f"{url}: cannot read it ({name}{': ' + text if text else ''})"


class RangeFile(io.RawIOBase):
    """A read-only, seekable file over a remote object: each miss is one ranged GET of at least READ_AHEAD
    bytes; requests and bytes are counted.  What zipfile reads the package through."""

    def __init__(self, fs, url: str, size: int):
        super().__init__()
        self.fs, self.url, self.size = fs, url, size
        self.pos = 0
        self.requests = 1  # the object's metadata (size, ETag), asked once by RemoteArchive.open_url
        self.fetched = 0
        self._blocks: list[tuple[int, bytes]] = []  # (start, data): the tail and the last reads
        try:
            # block_size>0 and no cache: every fetch is exactly one ranged request (HTTPFile refuses a
            # server that answers a range with the whole body instead of downloading it)
            # size given: no second HEAD/stat for it (the one of `RemoteArchive.open_url` is counted here)
            self._f = fs.open(url, "rb", block_size=READ_AHEAD, cache_type="none", size=size)
        except Exception as e:  # noqa: BLE001 - whatever the back-end raises is one line, exit 3
            raise UnreadablePackage(_explain(url, e)) from None
        _opened.append(self)
        if size:
            self._fetch(max(0, size - TAIL), size)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.pos, 2: self.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def _fetch(self, start: int, end: int) -> bytes:
        try:
            self._f.seek(start)
            data = self._f.read(end - start)
        except Exception as e:  # noqa: BLE001
            raise UnreadablePackage(_explain(self.url, e)) from None
        self.requests += 1
        self.fetched += len(data)
        if len(data) > end - start:
            raise UnreadablePackage(_explain(self.url, ValueError("answered a range with more bytes: no range support")))
        self._blocks = [b for b in self._blocks[-3:]] + [(start, data)]
        return data

    def read_at(self, start: int, n: int, ahead: int = 0) -> bytes:
        end = min(self.size, start + n)
        if start >= end:
            return b""
        for s, data in reversed(self._blocks):
            if s <= start and end <= s + len(data):
                return data[start - s:end - s]
        data = self._fetch(start, min(self.size, max(end, start + ahead)))
        return data[: end - start]

    def readinto(self, b) -> int:
        data = self.read_at(self.pos, len(b), READ_AHEAD)
        b[: len(data)] = data
        self.pos += len(data)
        return len(data)

    def close(self) -> None:
        try:
            self._f.close()
        except Exception:  # noqa: BLE001 - closing a read-only remote file loses nothing
            pass
        super().close()


class RemoteArchive(Archive):
    """An `Archive` whose zip is read by range requests from a URL (see the module's doc)."""

    identity: str | None = None  # ETag, else size and modification time; None: the cache is not used

    @classmethod
    def open_url(cls, url: str) -> "RemoteArchive":
        fs = _filesystem(url)
        try:
            info = fs.info(url)
        except Exception as e:  # noqa: BLE001
            raise UnreadablePackage(_explain(url, e)) from None
        if info.get("type") == "directory":
            raise UnreadablePackage(f"{url}: a folder, not a package (give the .pt2 object's URL)")
        size = int(info.get("size") or 0)
        if size < 22:
            raise UnreadablePackage(f"{url}: {size} bytes: not a zip archive (a .pt2 package is a zip)")
        a = cls(url)  # path: the URL as given (answers name the package by it)
        etag = info.get("ETag") or info.get("etag")
        mtime = info.get("LastModified") or info.get("Last-Modified") or info.get("mtime") or info.get("updated")
        a.identity = f"etag:{etag}" if etag else (f"size:{size}:mtime:{mtime}" if mtime else None)
        a._raw = RangeFile(fs, url, size)
        try:
            zf = zipfile.ZipFile(io.BufferedReader(a._raw, buffer_size=8192))
            infos = zf.infolist()
        except UnreadablePackage:
            raise
        except (zipfile.BadZipFile, OSError, EOFError) as e:
            raise UnreadablePackage(f"{url}: not a zip archive, or a damaged one ({e})") from None
        except UnicodeDecodeError as e:  # a name flagged UTF-8 (bit 11) that is not
            raise UnreadablePackage(f"{url}: a member's name is flagged UTF-8 but is not (byte 0x{e.object[e.start]:02x} "
                                    f"at {e.start}): a damaged zip") from None
        if len(infos) > MAX_MEMBERS:
            raise UnreadablePackage(f"{url}: {len(infos)} members, more than the {MAX_MEMBERS} accepted")
        a._zip = zf
        a.take_infos(infos)  # the same entries as a local zip's (inspector.archive)
        a._infos = {i.filename: i for i in infos if i.filename in a._members}
        a._find_root()
        return a

    def fingerprint(self, name: str) -> str:
        """The zip directory's CRC (as for a local zip) and the object's identity: a rewritten object with
        the same directory still gets a new cache key."""
        return f"{super().fingerprint(name)}:object:{self.identity}"

    def data_checksum(self, name: str) -> str:
        """A remote member's bytes are not fetched for the key: the object's identity (`fingerprint`) stands for
        them (a rewritten object gets a new ETag)."""
        return "object"

    def container_stamp(self) -> str:
        """What stands for the local zip's stat in the index cache key (inspector.package): the object's identity."""
        return f"remote:{self.identity}"

    def read_range(self, name: str, offset: int, size: int) -> bytes:
        """A stored member is read straight at its offset (zipfile would read up to it); else as for a file."""
        info = getattr(self, "_infos", {}).get(name)
        if info is None or name in self.unreadable or info.compress_type != zipfile.ZIP_STORED or offset < 0 or size < 0:
            return super().read_range(name, offset, size)
        head = self._raw.read_at(info.header_offset, LOCAL_HEADER.size)
        if len(head) != LOCAL_HEADER.size or head[:4] != LOCAL_SIGNATURE:
            raise UnreadablePackage(f"{self.path}: cannot read {name}: bad local header")
        *_, n, m = LOCAL_HEADER.unpack(head)
        start = info.header_offset + LOCAL_HEADER.size + n + m + offset
        return self._raw.read_at(start, max(0, min(size, info.file_size - offset)))

    def close(self):
        super().close()
        raw = getattr(self, "_raw", None)
        if raw is not None:
            raw.close()


def list_packages(prefix: str) -> tuple[list[str], str | None]:
    """The ``.pt2`` objects under a URL prefix (sorted URLs), and why none could be listed (or None)."""
    fs = _filesystem(prefix)
    proto = prefix.split("://", 1)[0]
    try:
        names = fs.find(prefix)
    except Exception as e:  # noqa: BLE001 - one line for the scan's missing list
        return [], _explain(prefix, e)
    urls = sorted(n if "://" in n else f"{proto}://{n}" for n in names if str(n).endswith(".pt2"))
    return urls, None if urls else f"{prefix}: no .pt2 object under it"


def open_archive(path) -> Archive:
    """`RemoteArchive.open_url` for a URL, else `Archive.open`: for what reads an archive without a Package."""
    from pathlib import Path

    return RemoteArchive.open_url(path) if is_url(path) else Archive.open(Path(path))
