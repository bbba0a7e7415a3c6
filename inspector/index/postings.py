"""Where each name appears among run_impl's statements (a name's postings), for the slices of
`inspector.index.model_index`: the statements a name is mentioned in, as a whole identifier (`inspector.parse.tokens.NAME` reads them),
found per name when a slice asks, never for every name up front.

* `_TextPostings` searches the wrapper's own text (run_impl's lines, where the scan left them) for the first
  `TEXT_NAMES` names a question asks;
* `_Postings` searches a joined copy of every statement, built once more names than that are asked (a `check` asks
  ~140 on the dense 20k package, which the copy answers faster).

A name in more than `HOT` statements answers with HOT + 1 of them (the caller then follows its declaration only).
"""

from __future__ import annotations

import array
import bisect
import itertools
import re

from ..parse.wrapper_map import RunColumns, WrapperLines

# A name mentioned by more run_impl statements than this (`kernels`, `stream`, a dtype) is followed to its
# declaration only, not to every call that names it.
HOT = 256
TEXT_NAMES = 4  # `_TextPostings` searches the wrapper's text for this many names, then a joined copy


class _Postings:
    """The run_impl statements each name appears in (as a whole identifier, as `inspector.parse.tokens.NAME` reads them), looked up
    per name with `str.find` over the statements' joined text when a slice asks: a slice follows a few dozen
    names, so tokenizing every statement of a 20,000-kernel wrapper up front costs more than it saves.  A name
    in more than `HOT` statements answers with HOT + 1 of them (the caller then follows its declaration only).
    Where the wrapper's lines are a view over its text, `_TextPostings` searches that text instead."""

    def __init__(self, run: RunColumns):
        texts = [t if k is not None and k != "comment" else "" for t, k in zip(run.text, run.kind)]
        self.text = "\n".join(texts)
        # machine integers, not a list of int objects: 4 MB instead of 17 MB on 482,000 statements
        self.starts = array.array("q", itertools.accumulate((len(t) + 1 for t in texts), initial=0))
        self.memo: dict[str, list[int]] = {}

    def __getitem__(self, name: str) -> list[int]:
        hit = self.memo.get(name)
        if hit is not None:
            return hit
        starts, text = self.starts, self.text
        out = self.memo[name] = _distinct(bisect.bisect_right(starts, k) - 1 for k in _hits(name, text, 0, len(text))
                                          if not (k and _word(text[k - 1])))
        return out


class _TextPostings:
    """`_Postings` answered from the wrapper's own text (run_impl's lines, where the scan left them) instead of a
    joined copy of every statement: nothing is built up front (the copy was 45 MB and 0.09 s on the dense 20k
    package, for a trace that then asked two names).  A hit is a statement's when it falls on that statement's
    line, in the part of it the statement keeps (a size check keeps only the check), the statement being one a
    rule reads; the part's edges count as a statement's edges, as they do in the joined text."""

    def __init__(self, run: RunColumns, lines: WrapperLines):
        self.run, self.lines, self.text = run, lines, lines.text
        self.span = (lines.offset_of(run.line[0] - 1), lines.offset_of(run.line[-1]) - 1)
        self.memo = {}
        self.joined: _Postings | None = None  # built once more than TEXT_NAMES names are asked

    def __getitem__(self, name: str) -> list[int]:
        hit = self.memo.get(name)
        if hit is not None:
            return hit
        if self.joined is not None or len(self.memo) >= TEXT_NAMES:
            # Many names (a `check` asks ~140 on the dense 20k package): the joined copy, built once, is searched
            # faster (45 MB of statements, against run_impl's 64 MB of lines with their indents and comments).
            if self.joined is None:
                self.joined = _Postings(self.run)
            return self.joined[name]
        out = self.memo[name] = _distinct(self._statements(name))
        return out

    def _statements(self, name: str):
        """The statement of each whole-identifier hit of ``name`` in run_impl's text, in order (repeats included)."""
        run, text = self.run, self.text
        at, kinds, line_at = run.line, run.kind, self.lines.line_at
        for k in _hits(name, text, *self.span):
            line = line_at(k) + 1
            i = bisect.bisect_left(at, line)
            if i == len(at) or at[i] != line or kinds[i] is None or kinds[i] == "comment":
                continue
            if kinds[i] == "size_stride":  # only the check itself is the statement's text
                kept = run.text[i]
                start = text.find(kept, text.rfind("\n", 0, k) + 1)
                if not start <= k <= start + len(kept) - len(name) or k != start and _word(text[k - 1]):
                    continue
            elif _word(text[k - 1]):
                continue
            yield i


def _distinct(statements) -> list[int]:
    """The distinct statements of an ordered stream of them, HOT + 1 at most (then the name is followed to its
    declaration only, and the rest of the search is not needed)."""
    out: list[int] = []
    for i in statements:
        if not out or out[-1] != i:
            out.append(i)
            if len(out) > HOT:
                break
    return out


def _hits(name: str, text: str, start: int, end: int):
    """Where ``name`` starts in ``text[start:end]`` with no word character after it (the caller asks about the one
    before), found by the regex engine: a name such as buf1 is a substring of buf10, buf100, buf1_handle …
    thousands of times in a 20,000-kernel wrapper, and a Python loop over every substring hit cost seconds a slice."""
    for m in re.compile(re.escape(name) + r"(?!\w)").finditer(text, start, end):  # the literal first: a fast search
        yield m.start()


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"
