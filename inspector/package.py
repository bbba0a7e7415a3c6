"""A package, opened: the archive plus each model indexed on first use.

    >>> import inspector
    >>> pkg = inspector.open_package("sample_packages/cpu/jagged/jagged.pt2")
    >>> [m.name for m in pkg.models]
    ['model']
"""

from __future__ import annotations

from collections.abc import Sequence

import functools
import os
import re
from pathlib import Path

from .archive import MAX_CUBIN_BYTES, Archive, ModelFiles
from .errors import UnreadablePackage, UsageError
from .model import Model
from .options import Options, current
from .parse import forget_statements

_ASSERT_FILE = re.compile(rb"assertFile_\d+\[\d+\]\s*=\s*\{([\d,\s]+)\}")

class Package:
    """What `open_package` returns.  Models are parsed lazily and cached on the instance."""

    def __init__(self, archive: Archive, cache: bool | None = None, options: Options | None = None):
        self.archive = archive
        forget_statements()  # the statement memo serves one package at a time
        # when not told: the options in force (`inspector.options.using`: the CLI's), else no cache
        self.options = (options or current()).with_cache(cache)
        self.use_cache = self.options.cache
        self._lines: dict[str, list[str]] = {}
        self.path = archive.path
        self._files = archive.model_files()
        if not self._files:
            hint = " (it holds an exported program only: models/*.json)" if archive.exported_programs() else ""
            raise UnreadablePackage(f"{archive.path}: no AOTInductor model inside (no data/aotinductor/<model>/*.wrapper.cpp){hint}")
        self._models: dict[str, Model] = {}
        self._graphs: dict = {}
        self._indexes: dict = {}

    # -- package-level facts -------------------------------------------------
    @property
    def format(self) -> str:
        return self.archive.small_text("archive_format") or ("wrapper" if self.archive.kind == "wrapper" else "unknown")

    @property
    def archive_version(self) -> str | None:
        # torch 2.6 archives say `version` at the top instead of `archive_version`
        return self.archive.small_text("archive_version") or self.archive.small_text("version")

    @property
    def model_names(self) -> list[str]:
        return [f.name for f in self._files]

    @property
    def exported_programs(self) -> list[str]:
        return self.archive.exported_programs()

    @property
    def models(self) -> list[Model]:
        return [self.model(n) for n in self.model_names]

    def files(self, name: str) -> ModelFiles:
        for f in self._files:
            if f.name == name:
                return f
        raise UsageError(f"no model {name!r} in {self.path}; it holds: {', '.join(self.model_names)}")

    def _name(self, name: str | None) -> str:
        if name is None:
            if len(self._files) != 1 and "model" not in self.model_names:
                raise UsageError(f"{self.path} holds several models ({', '.join(self.model_names)}): pass --model NAME")
            return "model" if "model" in self.model_names else self._files[0].name
        self.files(name)  # a UsageError naming the models when it is not there
        return name

    def model(self, name: str | None = None) -> Model:
        """The indexed model ``name`` (the only one when ``name`` is None)."""
        name = self._name(name)
        if name not in self._models:
            m = self._load(self.files(name))
            self.options.seen.append((str(self.path), m.name, m.coverage))
            self._models[name] = m
        return self._models[name]

    # -- the index cache -------------------------------------------------------------
    def _fingerprints(self, f: ModelFiles) -> list[str]:
        parts = [f"model:{f.name}", f"folder:{f.folder}", self.archive.container_stamp()]
        for member in (f.wrapper, f.kernel_cpp, f.wrapper_metadata, f.kernel_information):
            parts.append(self.archive.fingerprint(member) if member else "-")
        parts.extend(f"cubin:{c}:{self.archive.size(c)}" for c in sorted(f.cubins))
        return parts

    def _cache_key(self, f: ModelFiles) -> str:
        """The index cache key of a model: the whole parse's file and the lazy index's parts share it."""
        from .index import cache

        return cache.make_key(self._fingerprints(f))

    def _load(self, f: ModelFiles) -> Model:
        """The model from the index cache when its key matches, else indexed (and cached)."""
        if not self.use_cache:
            return self._index(f)
        from .index import cache

        key = self._cache_key(f)
        note = None
        try:
            m = cache.read(key)
        except cache.CacheError as e:
            m, note = None, f"index cache ignored and rebuilt: {e}"
        if m is not None:
            self._attach_sources(m)
            return m
        m = self._index(f)
        try:
            cache.write(key, m)
        except OSError as e:
            m.warnings.append(f"index cache not written to {cache.cache_dir()}: {e.strerror or e}")
        if note:
            m.warnings.append(note)
        return m

    def member_lines(self, member: str) -> list[str]:
        if member not in self._lines:
            self._lines[member] = self.archive.read_text(member).split("\n")
        return self._lines[member]

    def _attach_sources(self, m: Model) -> None:
        """A cached index keeps no kernel source lines: read them from the member when a query asks."""
        from .dialects import embedded_source

        for k in m.kernels.values():
            if not k.source_file or k.source_file not in self.archive.members():
                continue
            if k.backend == "triton":
                k.source_loader = (lambda k=k: embedded_source(
                    self.member_lines(k.source_file), k.first_line - 1, k.first_line - 1 + k.source_count))
            else:
                k.source_loader = lambda k=k: self.member_lines(k.source_file)

    def index(self, name: str | None = None):
        """The lazy index of a model (`inspector.index.model_index.ModelIndex`): scanned, parsed on demand."""
        name = self._name(name)
        if name not in self._indexes:
            from .index.model_index import ModelIndex

            progress = self.options.progress
            bar = progress(f"indexing {name}") if progress else None
            try:
                f = self.files(name)
                key = self._cache_key(f) if self.use_cache else None
                ix = self._indexes[name] = ModelIndex(self.archive, f, progress=bar, key=key)
                self.options.seen.append((str(self.path), name, ix.coverage))
            finally:
                if bar is not None:
                    bar.close()
        return self._indexes[name]

    def scanned_lines(self, name: str | None, member: str) -> Sequence[str] | None:
        """The lines of ``member`` (split at "\\n"; the index's `WrapperLines`, not a copy) when this process's index of model ``name`` scanned it as
        its wrapper, else None (nothing read): a caller that shows wrapper lines reuses them."""
        ix = self._indexes.get(name)
        if ix is None or not ix.scanned or ix.files.wrapper != member:
            return None
        return ix.wmap.lines

    def _index(self, f: ModelFiles) -> Model:
        ix = self.index(f.name)
        progress = self.options.progress
        bar = progress(f"indexing {f.name}") if progress else None
        try:
            return ix.full(progress=bar)
        finally:
            if bar is not None:
                bar.close()

    def graph(self, name: str | None = None):
        """The networkx graph of a model (built once per package object)."""
        return self.graph_of(self.model(name))

    def graph_of(self, m: Model):
        """The networkx graph of a model or of a slice of one (`ModelIndex.slice`), built once per object."""
        hit = self._graphs.get(id(m))
        if hit is None or hit[0] is not m:
            from .graph.build import build_graph

            hit = self._graphs[id(m)] = (m, build_graph(m))
        return hit[1]

    # -- costly, on demand -------------------------------------------------------
    @functools.lru_cache(maxsize=None)
    def cubin_assert_files(self, member: str) -> tuple[str, ...]:
        """The ``assertFile`` strings a cubin embeds (the kernel's .py path at compile time)."""
        return _assert_files(self.archive.read_bytes(member, limit=MAX_CUBIN_BYTES))

    def embedded_assert_files(self, model: str, kernel: str) -> tuple[str, ...]:
        """The ``assertFile`` strings of a kernel image the model's `.so` embeds (embed_kernel_binary=True: no
        cubin member; the image lies between ``__<kernel>_start`` and ``_end``), read by its range."""
        import inspector.elf as elf

        f = self.files(model)
        if not f.shared_objects:
            return ()
        so = f.shared_objects[0]
        cache = self.__dict__.setdefault("_embedded_images", {})
        if so not in cache:
            try:
                cache[so] = elf.embedded_images(lambda o, n: self.archive.read_range(so, o, n))
            except elf.ElfError:
                cache[so] = {}
        rng = cache[so].get(kernel)
        if rng is None:
            return ()
        return _assert_files(self.archive.read_range(so, rng[0], min(rng[1], MAX_CUBIN_BYTES)))

    def close(self):
        self.archive.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _assert_files(data: bytes) -> tuple[str, ...]:
    out = []
    for m in _ASSERT_FILE.finditer(data):
        try:
            out.append(bytes(int(x) for x in m.group(1).split(b",") if x.strip()).rstrip(b"\0").decode("utf-8", "replace"))
        except ValueError:
            continue
    return tuple(dict.fromkeys(out))


def open_package(path: str | os.PathLike, cache: bool | None = None, options: Options | None = None) -> Package:
    """Open a `.pt2`, an extracted package folder, a bare ``*.wrapper.cpp`` or a ``.pt2``'s URL; nothing is parsed yet.

    ``options`` (`inspector.options.Options`): the index cache, a progress hook, where coverage is collected;
    ``cache=True`` reads and writes the on-disk index cache (`inspector.index.cache`) whatever they say."""
    from .remote import is_url

    if is_url(path):  # https://, s3://, gs:// (inspector.remote): ranged reads through fsspec
        from .remote import RemoteArchive

        archive = RemoteArchive.open_url(path)
        if archive.identity is None:  # no ETag nor modification time: a changed object could not be told
            cache = False
        return Package(archive, cache=cache, options=options)
    return Package(Archive.open(Path(path)), cache=cache, options=options)
