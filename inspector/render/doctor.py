"""Rendering with rich for `doctor`: the verdict first, then one finding per line, most serious first.  Never parses
anything; the words are inspector.explain.doctor's."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ..explain import doctor as say

_STYLE = {"error": ("✗", "bold red"), "warn": ("!", "yellow"), "info": ("·", "dim")}


def render_doctor(console: Console, r) -> None:
    mark, style = ("✗", "bold red") if not r.ok else ("!", "bold yellow") if r.lead is not None else ("✓", "bold green")
    console.print(Text.assemble((f"{mark} ", style), r.headline()))
    console.print(Text(say.package_line(r.package, len(r.models)), style="dim"))
    if r.unchecked:
        console.print(Text(say.not_checked_line(r.unchecked), style="yellow"))
    for f in r.findings:
        m, st = _STYLE[f.severity]
        w = f.words
        where = f" [{f.model}]" if f.model and len(r.models) > 1 else ""
        console.print(Text.assemble((f"{m} {f.severity:<5} ", st), (f"{f.kind}{where}: ", "bold"), w.message))
        for e in w.evidence[:4]:
            console.print(Text(f"        {e}", style="dim"))
        if w.fix:
            console.print(Text(f"        → {w.fix}", style="green"))
