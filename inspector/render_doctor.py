"""Rendering for `doctor` (rich): the verdict first, then one finding per line, most serious first.  Never parses."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

_STYLE = {"error": ("✗", "bold red"), "warn": ("!", "yellow"), "info": ("·", "dim")}


def render_doctor(console: Console, r) -> None:
    mark, style = ("✗", "bold red") if not r.ok else ("✓", "bold green")
    console.print(Text.assemble((f"{mark} ", style), r.verdict()))
    console.print(Text(f"package {r.package}: {len(r.models)} model(s)", style="dim"))
    for f in r.findings:
        m, st = _STYLE[f.severity]
        where = f" [{f.model}]" if f.model and len(r.models) > 1 else ""
        console.print(Text.assemble((f"{m} {f.severity:<5} ", st), (f"{f.kind}{where}: ", "bold"), f.message))
        for e in f.evidence[:4]:
            console.print(Text(f"        {e}", style="dim"))
        if f.fix:
            console.print(Text(f"        → {f.fix}", style="green"))


def render_scan_row(console: Console, row) -> None:
    if row.ok is None:
        mark, style = ("✗", "bold red") if row.internal else ("?", "yellow")
    else:
        mark, style = ("✓", "green") if row.ok else ("✗", "bold red")
    n = {s: sum(1 for f in row.findings if f["severity"] == s) for s in ("error", "warn")}
    counts = f"  ({n['error']} error(s), {n['warn']} warning(s))" if row.findings else ""
    console.print(Text.assemble((f"{mark} ", style), (row.package, "bold"), f": {row.verdict}", (counts, "dim")))


def render_scan_summary(console: Console, s: dict) -> None:
    from rich.table import Table

    console.print(Text(f"{s['packages']} package(s), {s['models']} model(s): {s['will_not_run']} will not run, "
                       f"{s['unreadable']} unreadable" + (f", {s['internal_errors']} internal error(s)"
                                                          if s["internal_errors"] else ""), style="bold"))
    if s["findings"]:
        t = Table("finding", "error", "warn", "info", box=None)
        for kind, c in s["findings"].items():
            t.add_row(kind, str(c["error"]), str(c["warn"]), str(c["info"]))
        console.print(t)
