"""Rendering with rich: tables for `show`, a tree for `trace-assert`.  Never parses anything."""

from __future__ import annotations

import os

import re
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text
from .explain import CONFIRM_WHY

from .queries.show import shape_with_ranges

if TYPE_CHECKING:
    from rich.table import Table
    from rich.tree import Tree

    from .queries.show import ModelSummary, ShowResult
    from .queries.trace import TraceMatch, TraceResult

MAX_KERNEL_ROWS = 60  # a terminal table of 20,000 rows takes seconds to draw and nobody reads it


def _fmt_shape(shape) -> Text:
    return Text("[" + ", ".join(str(x) for x in shape) + "]" if shape is not None else "-")


def _row(t: Table, *cells) -> None:
    """Cells as plain text: shapes like [s59, 8] must not be read as rich markup."""
    t.add_row(*(c if isinstance(c, Text) else Text(str(c)) for c in cells))


_EMOJI = re.compile(r":\S*?:")  # what rich's markup may read as an emoji code (`:smile:`)


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
                any("[" in c or _EMOJI.search(c) for c in cells[: 1 + len(self.columns)]):  # rich reads titles and
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


def _inputs_cell(m: ModelSummary, most: int = 3) -> str:
    cells = [f"{i.dtype or '?'}{_fmt_shape(shape_with_ranges(i.shape, m.symbols, i.index)).plain}" for i in m.inputs[:most]]
    more = len(m.inputs) - most
    return ", ".join(cells) + (f" +{more} more" if more > 0 else "") if cells else "-"


def _models_table(console: Console, s: ShowResult) -> None:
    """The lead: one row per model (what it is, what it takes, where its assertions are, how big its weights)."""
    t = _Table(f"models ({len(s.models)})", ("model", "device", "inputs", "kernels", "with assertions", "constants"))
    for m in s.models:
        tot = m.constant_totals
        consts = f"{tot.count:,} ({_bytes(tot.nbytes)})" if tot else str(len(m.constants))
        asserting = sum(1 for k in m.kernels if k.assertions)
        t.add(m.name, m.device or "?", _inputs_cell(m), f"{len(m.kernels):,}",
              f"{asserting:,} ({m.assertions:,} assertion{'' if m.assertions == 1 else 's'})" if asserting else "-",
              consts)
    t.print(console)
    console.print()


def _constants_line(console: Console, m: ModelSummary) -> None:
    """The scan's count of the constants: how many, their bytes by dtype and device."""
    tot = m.constant_totals
    if tot is None or not tot.count:
        return
    parts = [f"{dt or '?'}" + (f" on {dev}" if dev else "") + f" {c:,} ({_bytes(b)})" for dt, dev, c, b in tot.by]
    console.print(f"  constants {tot.count:,} ({_bytes(tot.nbytes)}): " + ", ".join(parts)
                  + ("" if m.constants_listed else "; `show --constants` lists them"))


def render_summary(console: Console, s: ShowResult, max_kernel_rows: int | None = MAX_KERNEL_ROWS,
                   max_constant_rows: int | None = MAX_KERNEL_ROWS) -> None:
    """The models first (one row each), then each model's details.  ``max_kernel_rows`` /
    ``max_constant_rows``: the caps of the kernel and constant tables (None: every row)."""
    head = Text.assemble(("package ", "bold"), s.package, "\n",
                         ("format ", "bold"), f"{s.format}  ", ("archive_version ", "bold"), f"{s.archive_version}")
    if s.exported_programs:
        head.append("\n")
        head.append("exported programs ", style="bold")
        head.append(", ".join(s.exported_programs))
    console.print(Panel(head, title="pt2-inspect show", expand=False))
    _models_table(console, s)
    for m in s.models:
        dev = "  ".join(m.device_parts())
        console.print(Text.assemble(("model ", "bold"), (m.name, "bold cyan"), f"  device {dev}"))
        console.print(f"  wrapper {m.wrapper}" + (f"\n  kernels {m.kernel_cpp}" if m.kernel_cpp else ""))

        named = any(i.user_name for i in m.inputs)  # the exported program's names (a packaged one, or --ep)
        t = _Table("inputs", ("#", "name", *(("user name",) if named else ()), "dtype", "shape", "stride", "device"))
        for i in m.inputs:
            t.add(str(i.index), i.name, *((i.user_name or "-",) if named else ()), i.dtype or "?",
                  _fmt_shape(shape_with_ranges(i.shape, m.symbols, i.index)),
                  _fmt_shape(i.stride), i.device or "?")
        t.print(console)

        if m.symbols:
            t = _Table("symbols (range: input guards)", ("symbol", "input", "dim", "min", "max", "note"))
            for sy in m.symbols:
                t.add(sy.name, str(sy.input) if sy.input is not None else "?",
                     str(sy.dim) if sy.dim is not None else "?",
                     str(sy.min) if sy.min is not None else "-", str(sy.max) if sy.max is not None else "-",
                  f"alias of {sy.alias_of}" if sy.alias_of else
                  ("range-checked only: the wrapper reads it into no symbol" if sy.name.endswith("]") else ""))
            t.print(console)
            console.print(f"  [yellow]note:[/] {escape(s.guard_note)}; without it nothing stops a size outside the range (a 0 included).")

        t = _Table("outputs", ("#", "name", "from"))
        for o in m.outputs:
            t.add(str(o.index), o.name, o.source or "?")
        t.print(console)

        _constants_line(console, m)
        if m.constants and m.constants_listed:
            rows = m.constants if max_constant_rows is None else m.constants[:max_constant_rows]
            t = _Table(f"constants ({len(m.constants)})", ("name", "fqn", "dtype", "shape", "bytes"))
            for c in rows:
                t.add(c.name, c.fqn or "-", c.dtype or "?", _fmt_shape(c.shape), str(c.nbytes) if c.nbytes is not None else "?")
            t.print(console)
            if len(rows) < len(m.constants):
                console.print(f"  … {len(m.constants) - len(rows):,} more constants not shown: `show --json` lists all")

        _kernel_table(console, m, max_kernel_rows)
        if m.extern_ops:
            console.print("  extern ops: " + ", ".join(f"{e.name} ×{e.calls}" for e in m.extern_ops))
        if m.unchecked_extern_calls:
            console.print("  [yellow]unchecked extern calls:[/] " + ", ".join(
                f"{e.name} (wrapper.cpp line {e.line})" for e in m.unchecked_extern_calls)
                + ": no AOTI_TORCH_ERROR_CODE_CHECK, so a failure there only logs `Exception in aoti_torch` "
                "and returns garbage with exit 0")
        cov = m.coverage
        if cov and cov.read == "lazy":
            console.print(f"  statements understood {cov.understood:,}/{cov.total:,} of those parsed (the small facts; "
                          f"{cov.kernels or 0:,} kernel{'' if cov.kernels == 1 else 's'} scanned, {cov.kernels_parsed or 0:,} parsed): "
                          f"`show --full` parses every statement  (dialect {m.dialect})")
        elif cov and cov.total:
            console.print(f"  statements understood {cov.understood:,}/{cov.total:,}  (dialect {m.dialect})")
        for w in m.warnings:
            console.print(f"  [yellow]warning:[/] {escape(w)}")
        console.print()


def _kernel_table(console: Console, m: ModelSummary, max_rows: int | None = MAX_KERNEL_ROWS) -> None:
    """The kernels, at most ``max_rows`` of them (None: all): when there are more, those holding assertions
    come first (in package order), then the rest, and a last line says how many are left out."""
    rows = m.kernels
    if max_rows is not None and len(rows) > max_rows:
        rows = ([k for k in m.kernels if k.assertions] + [k for k in m.kernels if not k.assertions])[:max_rows]
    # Never "…": two kernels must not look alike.  Names fold; the other columns give way to them.
    longest = max((len(k.name) for k in rows), default=6)
    # folded, two names must differ on their first line: the column is at least one past their longest shared start
    names = sorted(k.name for k in rows)
    apart = max((len(os.path.commonprefix([a, b])) + 1 for a, b in zip(names, names[1:])), default=6)
    lines_w = max([12] + [len(", ".join(map(str, k.assert_lines))) for k in rows])  # (only as wide as the console)
    t = _Table(f"kernels ({len(m.kernels)}; {m.assertions} assertions)",
               ("kernel", "kind", "launches", "assertions", "assert lines"),
               min_widths={0: min(longest, max(16, min(apart, console.width - 14 - 8 - 8 - 10 - lines_w)))},
               whole=(2, 3, 4), droppable=(4, 1))
    for k in rows:
        t.add(k.name, f"{k.kind} {k.flavor}" if k.kind == "triton" else k.kind, str(k.launches),
              str(k.assertions), ", ".join(map(str, k.assert_lines)) or "-")
    t.print(console)
    more = len(m.kernels) - len(rows)
    if more:
        left = sum(1 for k in m.kernels if k.assertions) - sum(1 for k in rows if k.assertions)
        console.print(f"  … {more:,} more kernels not shown ({left:,} of them with assertions; kernels with assertions "
                      f"are listed first): `show --json` lists all, `show --all-kernels` draws them all here")


def _match_tree(mt: TraceMatch) -> Tree:
    from rich.tree import Tree

    a = mt.assertion
    how = "exact" if mt.exact else "candidate"
    root = Tree(Text.assemble(("✗ ", "bold red"), (a["message"], "bold"), f"   model {mt.model!r}, {how}: {mt.matched_by}"))
    where = (f"line {mt.file_line} of its .py" if mt.kernel_kind == "triton" else
             f"an extern ATen op called at wrapper.cpp line {mt.file_line}" if mt.kernel_kind == "extern" else
             f"{'wrapper.cpp' if mt.source_file.endswith('.wrapper.cpp') else 'kernel.cpp'} line {mt.file_line}")
    extern = mt.kernel_kind == "extern"
    kn = root.add(Text.assemble(("kernel ", "bold"), (mt.kernel, "cyan"), f"  ({mt.kernel_kind}, {where}"
                                + (f"; wrapper.cpp line {a['wrapper_line']}" if a.get("wrapper_line") and not extern else "")
                                + (f"; launched at wrapper.cpp line {', '.join(map(str, mt.call_sites))}"
                                   if mt.call_sites and not extern else "")
                                + ")"))
    snip = Text()
    for ln, txt in mt.snippet:
        mark = "→" if ln == mt.file_line else " "
        snip.append(f"{mark}{ln:5d}  {txt.rstrip()}\n", style="bold red" if ln == mt.file_line else "dim")
    if snip:
        kn.add(snip)
    if mt.static_bound is not None:
        root.add(Text.assemble(("bound ", "bold"), f"{a['bound_expr']} (a constant: {mt.static_bound})"))
    elif mt.bound:
        b = mt.bound
        bt = root.add(Text.assemble(("bound ", "bold"), f"{a['bound_expr']}"))
        bt.add(f"kernel param {b.kernel_param} ← call argument {b.call_arg}")
        if b.symbol:
            alias = (" → " + " → ".join(b.aliases)) if b.aliases else ""
            bt.add(f"symbol {b.symbol}{alias} = {b.definition} (wrapper.cpp line {b.definition_line})")
        if b.input:
            rng = f"{b.min if b.min is not None else '?'}..{b.max if b.max is not None else '?'}"
            guard = (f"guards allow {rng} (checked only with AOTI_RUNTIME_CHECK_INPUTS=1)"
                     if b.min is not None or b.max is not None else
                     "no guard bounds it (none compiled in: torch 2.6 writes none unless AOTI_RUNTIME_CHECK_INPUTS=1 "
                     "is set when compiling)")
            bt.add(Text.assemble(("model input ", "bold"), f"{b.input.index} ({b.input.name}), dim {b.input.dim}; "
                                 + guard))
        else:
            bt.add(Text("could not trace the bound to a model input", style="yellow"))
    it = root.add(Text.assemble(("value " if a.get("checks") == "finite" else "index ", "bold"), f"{a['index_var']} comes from"))
    for o in mt.index_origin:
        end = (f"model input {o.input.index} ({o.input.name})" if o.input else
               f"constant {o.constant}" if o.constant else o.computed if o.computed else f"? ({o.unresolved})")
        it.add(Text.assemble(" ← ".join(o.path), "  ⇒ ", (end, "bold" if (o.input or o.constant or o.computed) else "yellow")))
    tag = " (derived from the kernel name)" if mt.source_nodes_derived else ""
    root.add(Text.assemble(("source nodes ", "bold"), ", ".join(mt.source_nodes) + tag))
    if mt.aten_ops:
        root.add(Text.assemble(("ATen ", "bold"), ", ".join(mt.aten_ops)))
    if mt.stack_traces:
        st = root.add(Text("user stack traces (kernel_information.json)", style="bold"))
        for s in mt.stack_traces:
            st.add(Text(s))
    if mt.source_locations:
        sl = root.add(Text("your code (exported program)", style="bold"))
        for x in mt.source_locations:
            sl.add(Text(f"{x['file']}:{x['line']}  {x['code']}  [{x['node']}"
                        + (f" in {x['module']}" if x.get("module") else "") + "]"))
    if mt.hypotheses:
        ex = root.add(Text("hypotheses, most likely first", style="bold green"))
        for i, h in enumerate(mt.hypotheses, 1):
            hn = ex.add(Text.assemble(f"{i}. ", (f"[{h.certainty}] ", "bold"), h.text))
            for e in h.evidence:
                hn.add(Text(f"evidence: {e}", style="dim"))
    for e in mt.notes:
        root.add(Text.assemble(("note: ", "bold"), e))
    if mt.confirm:
        cf = root.add(Text(f"tell them apart ({CONFIRM_WHY})", style="bold"))
        for c in mt.confirm:
            cf.add(Text(c))
    return root


def render_trace(console: Console, r: TraceResult) -> None:
    if r.verdict:
        console.print(Text.assemble(("verdict: ", "bold red"), (r.verdict, "bold")))
        if r.matches:
            console.print(Text.assemble(("certainty: ", "bold"), r.certainty
                                        + (f" ({'; '.join(r.evidence)})" if r.evidence else "")))
    if not r.matches and r.candidates:
        from .render_common import render_candidates

        render_candidates(console, r.candidates)
    elif r.matches and r.ambiguous:  # no match at all: the CLI says so once, on stderr, with what there is
        console.print(Text(f"ambiguous: {len(r.matches)} assertions match {r.looked_for}; ranked below. Pass the "
                           "whole error text (--log) so the .py path or kernel name can tell them apart.", style="yellow"))
    for mt in r.matches:
        console.print(_match_tree(mt))
        console.print()
    for c in r.context:
        console.print(Text.assemble(("context: ", "bold"), c))
    for h in r.hints:
        console.print(Text.assemble(("hint: ", "bold yellow"), h))

