"""The on-disk index cache: one JSON file per indexed model, never pickle.

Key: the tool version, this file's format number, and for every member the index was built from
(wrapper, kernel.cpp, wrapper metadata, kernel_information.json; cubin names and sizes) its name, size and
a checksum of its bytes (`Archive.fingerprint`).  For a local zip: a CRC-32 of the member's bytes as they lie
in the file (mapped, not inflated: 47 ms for a 113 MB wrapper.cpp), beside the CRC its directory records (a
claim that bytes changed in place do not update); for a folder or a bare wrapper, a BLAKE2b of the file; for a
remote object, its ETag.  No time, size of the file or inode is in it: a copy or a touch of the same bytes is a
hit, and bytes changed under kept times and sizes are a miss (issue 36 §2, docs/benchmarks.md).  Old entries
simply stay until the folder is cleared.

Where: ``$PT2_INSPECT_CACHE_DIR``, else ``$XDG_CACHE_HOME/pt2-inspect``, else ``~/.cache/pt2-inspect``.
Writes go to a temporary file in that folder and are renamed into place (atomic on POSIX), so
concurrent writers each leave a whole file and a reader never sees half of one.  A file that is not
valid JSON, names another tool or format, or does not decode into the model is ignored (the caller
rebuilds the index and says so in the model's warnings).

Kernel source lines are not stored: `Kernel.source_line` re-reads them from the member on demand.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
import types
import typing
from pathlib import Path

from .._version import __version__
from ..options import cache_dir  # noqa: F401  (where the cache lives: options.py says)
import inspector.model as M

FORMAT = 4  # 4: a kernel part carries its expressions' trees; the sites part writes each assert text once
TOOL = "pt2-inspect index cache"
_SKIP = {("Kernel", "source"), ("Kernel", "source_loader")}


class CacheError(Exception):
    """A cache file that cannot be used (corrupt, foreign, another format)."""


def make_key(parts: list[str]) -> str:
    h = hashlib.blake2b(digest_size=20)
    for p in [TOOL, str(FORMAT), __version__, _schema(), _producer(), *parts]:
        h.update(p.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _producer() -> str:
    """A digest of the code that builds an index (parsers, dialects, grammars, the package indexer): a parser
    fix changes what an index holds, so it must change the key even when the version string does not."""
    here = Path(__file__).resolve().parents[1]  # inspector/
    files = [*sorted((here / "parse").glob("*.py")), *sorted((here / "dialects").glob("*.py")),
             *sorted((here / "index").glob("*.py")),
             here / "package.py", here / "archive.py"]
    grammars = here / "grammars"  # installed copy; the source tree keeps them at the top
    files += sorted((grammars if grammars.is_dir() else here.parent / "grammars").glob("*.lark"))
    h = hashlib.blake2b(digest_size=16)
    for f in files:
        try:
            h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
        except OSError:
            h.update(f.name.encode() + b"\0missing\0")
    return h.hexdigest()


# -- encoding ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _fields(cls) -> tuple[str, ...]:
    """The fields a dataclass is stored with, in order: each instance is one JSON array (half the size
    of an object and faster to read; the field list is part of the cache key, see `_schema`)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.init and (cls.__name__, f.name) not in _SKIP)


def _enc(obj):
    if dataclasses.is_dataclass(obj):
        return [_enc(getattr(obj, n)) for n in _fields(type(obj))]
    if isinstance(obj, dict):
        return {str(k): _enc(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_enc(v) for v in obj]
    return obj


@functools.lru_cache(maxsize=None)
def _schema() -> str:
    """Every model dataclass's stored fields and their types: a model.py change makes a new cache key."""
    parts = []
    for name, cls in sorted(vars(M).items()):
        if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == M.__name__:
            hints = _hints(cls)
            parts.append(f"{name}(" + ",".join(f"{n}:{hints[n]}" for n in _fields(cls)) + ")")
    return ";".join(parts)


@functools.lru_cache(maxsize=None)
def _hints(cls) -> dict:
    return typing.get_type_hints(cls, vars(M))


def _check(kind, v):
    if not isinstance(v, kind):
        raise CacheError(f"expected {kind.__name__ if isinstance(kind, type) else kind}, got {type(v).__name__}")
    return v


@functools.lru_cache(maxsize=None)
def _decoder(tp):
    """A function decoding JSON data into ``tp`` (a type hint of inspector.model), built once per hint."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            inner = _decoder(args[0])
            return lambda v: None if v is None else inner(v)
        return lambda v: v  # int | str and the like: plain JSON values
    if origin is list:
        (a,) = typing.get_args(tp)
        inner = _decoder(a)
        return lambda v: [inner(x) for x in _check(list, v)]
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner = _decoder(args[0])
            return lambda v: tuple(inner(x) for x in _check(list, v))
        inners = [_decoder(a) for a in args]
        return lambda v: tuple(f(x) for f, x in zip(inners, _check(list, v)))
    if origin is dict:
        _, a = typing.get_args(tp)
        inner = _decoder(a)
        return lambda v: {k: inner(x) for k, x in _check(dict, v).items()}
    if dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        names = _fields(tp)
        decoders = [_decoder(hints[n]) for n in names]

        def dec(v):
            if not isinstance(v, list) or len(v) != len(names):
                raise CacheError(f"{tp.__name__}: expected {len(names)} fields")
            try:
                return tp(**{n: f(x) for n, f, x in zip(names, decoders, v)})
            except TypeError as e:
                raise CacheError(f"{tp.__name__}: {e}") from None

        return dec
    if tp in (int, str, bool, float):
        return lambda v: v if v is None or isinstance(v, tp) else _check(tp, v)
    return lambda v: v


def dump_model(m: M.Model) -> dict:
    return _enc(m)


def load_model(d: dict) -> M.Model:
    return _decoder(M.Model)(d)


# -- files ---------------------------------------------------------------------------------------


def _read_doc(path: Path, key: str, **expect) -> dict | None:
    """The JSON document at ``path`` when it is ours (this tool, format and ``key``, and every ``expect``ed
    field); None when there is no file.  Raises `CacheError` when one is there but unusable."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise CacheError(f"{path}: {e.strerror}") from None
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise CacheError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("tool") != TOOL or doc.get("format") != FORMAT or doc.get("key") != key \
            or any(doc.get(k) != v for k, v in expect.items()):
        raise CacheError(f"{path}: not a pt2-inspect {__version__} index (foreign or another format)")
    return doc


def _write_doc(folder: Path, name: str, doc: dict) -> Path:
    """Write atomically: a temporary file in ``folder``, renamed into place (whole files only, whoever wins)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"))
        os.replace(tmp, folder / name)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return folder / name


def read(key: str, directory: Path | None = None) -> M.Model | None:
    """The cached model for ``key``; None when there is none.  Raises `CacheError` when one is there
    but unusable (the caller rebuilds and warns)."""
    path = (directory or cache_dir()) / f"{key}.json"
    doc = _read_doc(path, key)
    if doc is None:
        return None
    try:
        return load_model(doc["model"])
    except (CacheError, KeyError, TypeError, ValueError, AttributeError) as e:
        raise CacheError(f"{path}: does not decode ({type(e).__name__}: {e})") from None


def write(key: str, m: M.Model, directory: Path | None = None) -> Path:
    """The whole model, written atomically."""
    doc = {"tool": TOOL, "format": FORMAT, "version": __version__, "key": key, "model": dump_model(m)}
    return _write_doc(directory or cache_dir(), f"{key}.json", doc)


def read_part(key: str, part: str):
    """One part of a lazily filled index (``<key>.lazy/<part>.json``): its payload, or None when it is not
    there.  Raises `CacheError` when it is there but unusable (foreign, corrupt)."""
    doc = _read_doc(cache_dir() / f"{key}.lazy" / f"{part}.json", key, part=part)
    return None if doc is None else doc.get("payload")


def write_part(key: str, part: str, payload) -> None:
    """Write one part atomically; a read-only folder is only a lost speed-up, so OSError is left to the
    caller to report or ignore."""
    doc = {"tool": TOOL, "format": FORMAT, "version": __version__, "key": key, "part": part, "payload": payload}
    _write_doc(cache_dir() / f"{key}.lazy", f"{part}.json", doc)


def dump(obj) -> object:
    """Any model dataclass as plain JSON data (what `load` reads back, given the type)."""
    return _enc(obj)


def load(tp, data):
    """``data`` (from `dump`) decoded into ``tp``, a model type hint (``Kernel``, ``list[KernelParam]``…)."""
    try:
        return _decoder(tp)(data)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise CacheError(f"does not decode into {tp} ({type(e).__name__}: {e})") from None
