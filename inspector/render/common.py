"""Rendering with rich for What several commands draw: plain tables that fit the terminal (`_Table`), shapes and byte
counts, the ranked candidate assertions of a device-side assert without its line, and a diagnosis's next steps.
Never parses anything."""

from __future__ import annotations

from typing import TYPE_CHECKING


from rich.console import Console
from rich.text import Text
from rich.tree import Tree

if TYPE_CHECKING:
    from rich.table import Table


def _fmt_shape(shape) -> Text:
    return Text("[" + ", ".join(str(x) for x in shape) + "]" if shape is not None else "-")


def _row(t: Table, *cells) -> None:
    """Cells as plain text: shapes like [s59, 8] must not be read as rich markup."""
    t.add_row(*(c if isinstance(c, Text) else Text(str(c)) for c in cells))


def _emoji_like(text: str) -> bool:
    """Whether ``text`` holds what rich's markup may read as an emoji code (``:smile:``: two colons with no space
    between them)."""
    at = text.find(":")
    while at >= 0:
        nxt = text.find(":", at + 1)
        if nxt < 0:
            return False
        if not any(c.isspace() for c in text[at + 1:nxt]):
            return True
        at = nxt
    return False


class _Table:
    """A table as `show` draws it (rich's `Table(title=…, title_justify="left", show_edge=False)`: heavy head,
    a space of padding each side), its cells plain text.  `print` writes it as plain lines when rich would
    draw exactly those bytes (no colour, no recording, every cell printable ASCII, the whole table within the
    console's width: nothing wraps); else it draws it with rich.  A piped `show` of ten models' kernel tables
    spent most of its time in rich's layout, which has nothing to do there."""

    def __init__(self, title: str, columns, min_widths: dict[int, int] | None = None, whole=(), droppable=()):
        """``min_widths``: column index -> its least width; such a column folds (never "…") when rich draws it.
        ``whole``: columns never narrowed below their widest cell or header (numbers: a cell is never cut to
        `39, 4`); every other column then folds.  ``droppable``: columns left out, in this order, while the whole
        ones and the least widths do not fit the console; a note says which (issue 22 §5)."""
        self.title, self.columns, self.min_widths, self.rows = title, list(columns), min_widths or {}, []
        self.whole, self.droppable = set(whole), list(droppable)

    def add(self, *cells) -> None:
        self.rows.append([c.plain if isinstance(c, Text) and not c.spans and not c.style else c for c in cells])

    def _plain_lines(self, console: Console) -> list[str] | None:
        if console.color_system is not None or console.record or console.is_jupyter or \
                getattr(console, "_buffer_index", 0):  # (inside `with console:` rich holds its output back)
            return None
        cells = [self.title, *self.columns]
        for r in self.rows:
            cells += r
        if not all(isinstance(c, str) and c.isascii() and c.isprintable() for c in cells) or \
                any("[" in c or _emoji_like(c) for c in cells[: 1 + len(self.columns)]):  # rich reads titles and
            return None                                                                   # headers as markup
        widths = [max(len(h), self.min_widths.get(i, 0), *(len(r[i]) for r in self.rows)) + 2
                  for i, h in enumerate(self.columns)]
        width = sum(widths) + len(widths) - 1
        if width > console.width or len(self.title) > width:
            return None
        out = [self.title.ljust(width)] if self.title else []  # (rich draws no line for an empty title)
        out += ["┃".join(f" {h.ljust(w - 2)} " for h, w in zip(self.columns, widths)),
                "╇".join("━" * w for w in widths)]
        out += ["│".join(f" {c.ljust(w - 2)} " for c, w in zip(r, widths)) for r in self.rows]
        return out

    def print(self, console: Console) -> None:
        lines = self._plain_lines(console)
        if lines is not None:
            console.file.write("\n".join(lines) + "\n")
            return
        from rich.table import Table  # (only here: a piped show never needs it)

        keep = list(range(len(self.columns)))
        widths: dict[int, int] = {}
        dropped: list[str] = []
        if self.whole:  # lay the columns out here: rich would cut a number, or crop the last column away
            natural = {i: max(len(self.columns[i]), *(len(str(r[i])) for r in self.rows)) for i in keep}
            least = {i: natural[i] if i in self.whole else min(natural[i], max(6, self.min_widths.get(i, 6)))
                     for i in keep}

            def room(cols):  # what the folding columns get: the console less the whole ones and the padding
                return console.width - (3 * len(cols) - 1) - sum(natural[j] for j in cols if j in self.whole)

            for i in self.droppable:
                if room(keep) >= sum(least[j] for j in keep if j not in self.whole):
                    break
                keep.remove(i)
                dropped.append(self.columns[i])
            flex = [j for j in keep if j not in self.whole]
            left = room(keep)
            widths = {j: natural[j] for j in keep if j in self.whole}
            if sum(natural[j] for j in flex) <= left:
                widths.update({j: natural[j] for j in flex})
            else:  # each folding column its least; what is left goes to them in order (the kernel names first)
                extra = max(0, left - sum(least[j] for j in flex))
                for j in flex:
                    widths[j] = least[j] + min(extra, natural[j] - least[j])
                    extra -= widths[j] - least[j]
        t = Table(title=self.title, title_justify="left", show_edge=False)
        for i in keep:
            col = self.columns[i]
            if widths:
                t.add_column(col, overflow="fold", width=widths[i], no_wrap=i in self.whole)
            elif i in self.min_widths:
                t.add_column(col, overflow="fold", min_width=self.min_widths[i])
            else:
                t.add_column(col)
        for r in self.rows:
            _row(t, *[r[i] for i in keep])
        console.print(t)
        if self.whole and dropped:
            console.print(f"  (left out to fit {console.width} columns: {', '.join(dropped)}; `--wide` or a wider "
                          "terminal shows them)")


def _bytes(n: int | None) -> str:
    if n is None:
        return "?"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


MAX_CANDIDATE_ROWS = 10


def candidate_line(x) -> Text:
    """One ``Candidate`` (inspector.queries.candidates)."""
    return Text(f"{x.kernel} `{x.message}` — {x.reason}; bound {x.bound}; index from "
                f"{', '.join(x.index_origin) or '?'}")


def render_candidates(console: Console, candidates: list) -> None:
    """trace-assert on a device-side assert without its line: the ranked suspects."""
    root = Tree(Text(f"candidate assertions ({len(candidates)}, most likely first)", style="bold"))
    for x in candidates[:MAX_CANDIDATE_ROWS]:
        root.add(candidate_line(x))
    root.add(Text("rerun with CUDA_LAUNCH_BLOCKING=1 (at run time) to print the failing Assertion line", style="green"))
    console.print(root)


def _steps(tree: Tree, steps: list) -> None:
    st = tree.add(Text("next steps", style="bold green"))
    for i, s in enumerate(steps, 1):
        line = Text(f"{i}. {s.do}")
        if s.env:
            env = " ".join(f"{k}={v}" for k, v in s.env.items())
            line.append(f"\n   {env}", style="cyan")
            if s.when:
                line.append(f"  ({'at compile time: recompile' if s.when == 'compile' else 'at run time'})",
                            style="dim")
        st.add(line)
