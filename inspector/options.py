"""What a caller decides about how a package is read: passed to `Package`, never set as module globals.

    >>> from inspector.options import Options
    >>> import inspector
    >>> pkg = inspector.open_package("sample_packages/cpu/jagged/jagged.pt2", options=Options(cache=True))

``open_package(path, cache=True)`` is the same as ``options=Options(cache=True)``.  The CLI builds one
`Options` per command and makes it the default for every package that command opens (`using`): a
command module calls plain ``open_package(path)``.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable


@dataclass
class Options:
    """``cache``: read and write the on-disk index cache (`inspector.index.cache`).  ``progress``: label ->
    a progress callable ``(done, total)`` with ``.close()``, or None (the library itself never prints).
    ``seen``: (package, model, coverage by region) of every model read with these options, what
    `skipped` sums for ``--strict`` (an index parses on demand, so the count is taken when the command ends)."""

    cache: bool = False
    progress: Callable | None = None
    seen: list = field(default_factory=list)

    def skipped(self) -> list[tuple[str, str, int]]:
        """(package, model, statements skipped) for every model read with these options that skipped some."""
        out: dict[tuple[str, str], int] = {}
        for path, name, coverage in self.seen:
            n = sum(c.missed for c in coverage.values())
            if n:
                out[(path, name)] = n
        return [(p, m, n) for (p, m), n in out.items()]

    def with_cache(self, cache: bool | None) -> "Options":
        return self if cache is None or cache == self.cache else replace(self, cache=cache)


_CURRENT: contextvars.ContextVar[Options | None] = contextvars.ContextVar("pt2_inspect_options", default=None)


def current() -> Options:
    """The options `using` made the default here, else plain `Options()` (no cache, no progress)."""
    return _CURRENT.get() or Options()


@contextlib.contextmanager
def using(options: Options):
    """Within the block, packages opened without options get these (the CLI wraps one command in it)."""
    token = _CURRENT.set(options)
    try:
        yield options
    finally:
        _CURRENT.reset(token)


def cache_dir() -> Path:
    """Where the caches live: ``$PT2_INSPECT_CACHE_DIR``, else ``$XDG_CACHE_HOME/pt2-inspect``, else
    ``~/.cache/pt2-inspect`` (the index cache and the grammars' parse tables both keep their files here)."""
    env = os.environ.get("PT2_INSPECT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "pt2-inspect"
