"""Rendering with rich for `locate`: the kernels and extern calls a line of user code, an FX node or a module became.
Never parses anything."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text


def render_locate(console: Console, r) -> None:
    mark, style = ("✓", "bold green") if r.found else ("✗", "bold red")
    console.print(Text.assemble((f"{mark} ", style), r.verdict()))
    console.print(Text(f"package {r.package}, model {r.model!r} (from {r.source})", style="dim"))
    for x in r.found:
        lines = ", ".join(str(n) for n in x.wrapper_lines) or "not called in run_impl"
        console.print(Text.assemble(("  " + x.target, "bold"), f"  ({x.kind}; wrapper.cpp line {lines})"))
        for w in x.why[:4]:
            console.print(Text(f"      matched: {w}", style="green"))
        if x.nodes:
            console.print(Text(f"      FX nodes: {', '.join(x.nodes)}", style="dim"))
        for fr in x.frames[:6]:
            console.print(Text(f"      {fr}", style="dim"))
    if r.found:
        console.print(Text.assemble("print just these (at compile time): ",
                                    (f"AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT={r.printer_filter} "
                                     "AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER=2", "cyan")))
    for n in r.notes:
        console.print(Text(f"note: {n}", style="yellow"))
