"""The scan's map of a wrapper: where each region sits (`WrapperMap`), its lines (`WrapperLines`), its launchers
(`LauncherRegion`) and run_impl's statements (`RunStatement`, held as `RunColumns`).  `inspector.parse.regions`
makes it by plain string search; nothing here parses."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from ..dialects import FALLBACK, Dialect


@dataclass
class LauncherRegion:
    """``static inline void call_triton_<name>(`` … ``}``: where one launcher's parts sit (0-based line indices)."""

    name: str
    start: int  # the `static inline void call_triton_` line
    params_end: int  # the `){` line closing its parameter list
    end: int  # the `}` closing the launcher
    triton: tuple[int, int] | None = None  # [start, end) of the embedded `async_compile.triton(` source
    load_line: int | None = None  # the `loadKernel(` line
    asserts: tuple[int, ...] = ()  # lines of its `tl.device_assert(` statements
    decorator: str | None = None  # the `@triton_heuristics.<heuristic>(` of its source, when it has one


@dataclass(slots=True)
class RunStatement:
    """One non-empty run_impl line: its 1-based wrapper line, stripped text, and what it is.

    ``kind`` is the grammar start rule the dialect chose by the leading word, or "comment",
    "size_stride" (``if (…) assert_size_stride(…)``), or None (not a statement the index reads)."""

    line: int
    text: str
    kind: str | None
    callee: str | None = None  # for calls: the function named (plain string slicing, no parse)


class RunColumns(Sequence):
    """run_impl's statements as four columns (``line``, ``text``, ``kind``, ``callee``: lists, one entry a statement)
    rather than one object each: on the assertion-dense 20k package the scan made 482,000 `RunStatement`s, and the
    questions that read every statement (the declared names, the calls, the comments, the postings) read one
    column.  ``run[i]`` is that statement's `RunStatement`, made when asked."""

    __slots__ = ("line", "text", "kind", "callee")

    def __init__(self):
        self.line: list[int] = []
        self.text: list[str] = []
        self.kind: list[str | None] = []
        self.callee: list[str | None] = []

    def __len__(self) -> int:
        return len(self.kind)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(map(RunStatement, self.line[i], self.text[i], self.kind[i], self.callee[i]))
        return RunStatement(self.line[i], self.text[i], self.kind[i], self.callee[i])

    def __iter__(self):
        return map(RunStatement, self.line, self.text, self.kind, self.callee)

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, (list, RunColumns)) else NotImplemented

    __hash__ = None

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` statements."""
        del self.line[n:], self.text[n:], self.kind[n:], self.callee[n:]


EVERY = 16  # a piece of lines split by the scan has every EVERYth line anchored in its `WrapperLines`


class WrapperLines(Sequence):
    """The wrapper's lines, as ``text.split("\\n")`` gives them, held as the text and the start offsets of the lines
    the scan passed (anchors), not as one string per line: on a 20,000-kernel wrapper the list of 2.14 million
    line strings was ~290 MB, the largest thing a whole parse kept.  A line is sliced from the text when asked:
    from its anchor, or by walking forward from the nearest one (a launcher's lines between those the scan
    found); a slice is split from one piece of text.  ``lines``: the list itself, when the scan made it whole
    anyway (a wrapper with no launchers: the CPU families), kept and served as is."""

    __slots__ = ("text", "_n", "_at_line", "_at_offset", "_list")

    def __init__(self, text: str, n: int, at_line: array, at_offset: array, lines: list[str] | None = None):
        self.text, self._n, self._at_line, self._at_offset, self._list = text, n, at_line, at_offset, lines

    def __len__(self) -> int:
        return self._n

    def _offset(self, i: int) -> int:
        """Where line ``i`` starts (0 <= i <= n; line n is past the end, one past the text's last character)."""
        if i >= self._n:
            return len(self.text) + 1
        k = bisect.bisect_right(self._at_line, i) - 1
        line, off = self._at_line[k], self._at_offset[k]
        find = self.text.find
        while line < i:
            off = find("\n", off) + 1
            line += 1
        return off

    def offset_of(self, i: int) -> int:
        """Where line ``i`` starts in ``text`` (a view over the text only; line n: one past the text's end)."""
        return self._offset(i)

    def line_at(self, offset: int) -> int:
        """The line that offset ``offset`` of ``text`` falls on (a view over the text only)."""
        k = bisect.bisect_right(self._at_offset, offset) - 1
        return self._at_line[k] + self.text.count("\n", self._at_offset[k], offset)

    def __getitem__(self, i):
        if self._list is not None:
            return self._list[i]
        n = self._n
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step != 1:
                return [self[j] for j in range(start, stop, step)]
            if stop <= start:
                return []
            return self.text[self._offset(start): self._offset(stop) - 1].split("\n")
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("wrapper line index out of range")
        a = self._offset(i)
        b = self.text.find("\n", a)
        return self.text[a:] if b < 0 else self.text[a:b]

    def __iter__(self):
        return iter(self._list if self._list is not None else self.text.split("\n"))

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, (list, WrapperLines)) else NotImplemented

    __hash__ = None


@dataclass
class WrapperMap:
    """What the cheap scan found: every region of the wrapper, by plain string search, nothing parsed."""

    member: str
    dialect: Dialect
    lines: WrapperLines  # (a Sequence[str]: the lines as `text.split("\n")` gives them)
    launchers: dict[str, LauncherRegion]
    cpp_kernels: set[str]
    constructor: list[tuple[int, str]]  # (1-based line, stripped statement)
    check_inputs: list[tuple[int, int, int]]  # (K, first body line index, closing `}` index)
    run: RunColumns
    saw_run_impl: bool = False
    _constant_of: list | None = None

    def constant_of(self) -> list[int | None]:
        """For each constructor statement, the constant it describes (``constants_info_[12].… = …`` -> 12),
        else None; by plain slicing, once."""
        if self._constant_of is None:
            self._constant_of = [_constant_index(s, self.dialect) for _, s in self.constructor]
        return self._constant_of

    def call_target(self, callee: str) -> str | None:
        tk = self.dialect.call_target(callee, self.cpp_kernels, self.launchers)
        return tk[0] if tk else None


def _constant_index(s: str, d: Dialect | None = None) -> int | None:
    """``constants_info_[12].name = …`` -> 12 (plain slicing; None for any other constructor statement)."""
    prefix = (d or FALLBACK).constant_info
    if not s.startswith(prefix):
        return None
    k = s[len(prefix): s.find("]")]
    return int(k) if k.isdigit() else None
