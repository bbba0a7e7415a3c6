"""The source lines a report shows beside a chain's node (a `Panel`): the wrapper's or a kernel's lines around a
marked line, or a kernel's signature, read once per model (the index's own lines when it scanned the wrapper)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Kernel, Model
from ..package import Package


CONTEXT = 6  # lines either side of a marked line in the source panel


def _lines(text: list[str], first: int, mark: int | None, before: int = CONTEXT, after: int = CONTEXT):
    """[[line, text], …] around ``mark`` (or the head when None) of a text whose first line is ``first``."""
    if mark is None:
        lo, hi = first, first + before + after
    else:
        lo, hi = mark - before, mark + after
    lo, hi = max(lo, first), min(hi, first + len(text) - 1)
    return _dedent([[n, text[n - first]] for n in range(lo, hi + 1)])


def _dedent(lines: list[list]) -> list[list]:
    """Drop the indentation all the lines share (CPU kernels sit 40 columns deep in loop nests)."""
    pad = min((len(t) - len(t.lstrip()) for _, t in lines if t.strip()), default=0)
    return [[n, t[pad:].rstrip()] for n, t in lines]


@dataclass
class Panel:
    """Source lines to show: ``lines`` (``[[n, text], …]``) of member ``file``, line ``mark`` marked (None: none).
    ``view``: what they are — "wrapper" (wrapper.cpp's lines), "kernel" (kernel ``kernel``'s, numbered as its
    ``backend`` numbers them), "signature" (its first lines, where its params are named), "around" (the lines
    around its assert that the trace quotes).  Titled by `inspector.explain.report.panel_title`."""

    file: str
    view: str
    lines: list[list]
    mark: int | None
    kernel: str | None = None
    backend: str | None = None


class _Lines:
    """A text's lines split at "\\n" read as `str.splitlines` reads them: without the empty last one a final
    newline leaves (nothing copied)."""

    __slots__ = ("_lines", "_n")

    def __init__(self, lines: list[str]):
        self._lines = lines
        self._n = len(lines) - 1 if lines and lines[-1] == "" else len(lines)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> str:
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._lines[i % self._n]


class _Sources:
    """Numbered lines of the wrapper and of kernels, read once per model."""

    def __init__(self, pkg: Package, m: Model):
        self.m = m
        self._wrapper: list[str] | None = None
        self._pkg = pkg

    @property
    def wrapper(self) -> list[str]:
        if self._wrapper is None:
            # the index's own lines when it scanned this wrapper (the line numbers marked come from them): a
            # second copy of a 177 MB wrapper's lines cost the report ~470 MB of peak memory
            scanned = self._pkg.scanned_lines(self.m.name, self.m.wrapper_member) if self.m.wrapper_member else None
            if scanned is not None:
                self._wrapper = _Lines(scanned)
            else:
                self._wrapper = self._pkg.archive.read_text(self.m.wrapper_member).splitlines() if self.m.wrapper_member else []
        return self._wrapper

    def wrapper_at(self, line: int | None, before: int = CONTEXT, after: int = CONTEXT) -> Panel | None:
        if not line or not self.wrapper:
            return None
        return Panel(self.m.wrapper_member, "wrapper", _lines(self.wrapper, 1, line, before, after), line)

    def kernel_at(self, k: Kernel | None, line: int | None) -> Panel | None:
        if k is None or not k.lines():
            return None
        return Panel(k.source_file, "kernel", _lines(k.source, k.line_base, line), line, k.name, k.backend)

    def kernel_head(self, k: Kernel | None) -> Panel | None:
        """The kernel's signature and first lines (where its params are named)."""
        if k is None or not k.lines():
            return None
        # A CPU kernel's lines are its whole kernel.cpp (line_base + i is file line i): its own signature is at
        # first_line (from the file's top, every CPU kernel showed the first kernel's signature)
        start = max(k.first_line - k.line_base, 0) if k.backend == "cpp" else 0
        first = next((i for i in range(start, len(k.source))
                      if "def " in k.source[i] or "extern \"C\"" in k.source[i] or "void " in k.source[i]), start)
        return Panel(k.source_file, "signature",
                     _dedent([[k.line_base + i, k.source[i]] for i in range(first, min(len(k.source), first + 12))]),
                     None, k.name, k.backend)
