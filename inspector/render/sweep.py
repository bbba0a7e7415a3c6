"""Rendering with rich for `sweep`: one row per case: predicted, happened, diagnosed, agreed.  Never parses anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from rich.table import Table


TABLE_WIDTH = 120


def render_sweep(console: Console, r) -> None:
    """The sweep: verdict, then one table row per case (prediction; with --run what happened, diagnose, agree)."""
    from rich.table import Table

    bad = bool(r.disagreements)
    console.print(Text.assemble(("✗ " if bad else "✓ ", "bold red" if bad else "bold green"), r.verdict))
    # at most TABLE_WIDTH columns, piped too (cells wrap inside it); a row's note is a numbered footnote below
    t = Table(show_lines=False, pad_edge=False, width=min(console.width, TABLE_WIDTH))
    footnotes: list[str] = []
    t.add_column("case")
    t.add_column("checks")
    t.add_column("predicted")
    if r.ran:
        t.add_column("happened")
        t.add_column("diagnose")
        t.add_column("agree")
    for row in r.rows:
        mark = ""
        if row.note:
            if row.note not in footnotes:
                footnotes.append(row.note)
            mark = f" [{footnotes.index(row.note) + 1}]"
        cells = [row.case + mark, "on" if row.checks else "off", row.prediction.words]
        if r.ran:
            o, d = row.observed or {}, row.diagnosis or {}
            happened = o.get("what", "") + (f": {o['first_error']}" if o.get("first_error") else "")
            diag = d.get("category", "") + (f" {d['kernel']}" if d.get("kernel") else "") + (
                f" input {d['input']}" if d.get("input") is not None else "")
            cells += [happened, diag, "yes" if row.agree else f"NO: {row.why}"]
        t.add_row(*[Text(c) for c in cells])
    console.print(t)
    for i, n in enumerate(footnotes, 1):
        console.print(Text(f"[{i}] {n}", style="dim"))
    for n in r.notes:
        console.print(Text.assemble(("note: ", "bold yellow"), n))
