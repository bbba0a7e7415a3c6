"""Rendering with rich for `check`: violations, predicted failures and what may fail.  Never parses anything."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text
from rich.tree import Tree


def render_check(console: Console, r) -> None:
    mark = ("✓ ", "bold green") if r.ok else ("? ", "bold yellow") if r.may_fail and not r.violations else ("✗ ", "bold red")
    console.print(Text.assemble(mark, r.headline or r.verdict))
    root = Tree(Text(f"package {r.package}, model {r.model!r}", style="dim"))
    if r.headline and r.headline != r.verdict and not (r.violations or r.predicted_assertions or r.may_fail):
        root.add(Text.assemble(("in full: ", "bold"), r.verdict))  # the rows below word the rest
    if r.violations:
        v = root.add(Text("violations", style="bold"))
        for x in r.violations:
            row = v.add(Text.assemble((f"{x['kind']}: ", "bold"), x["detail"]))
            if x.get("fix"):
                row.add(Text.assemble(("fix: ", "bold"), x["fix"]))
    if r.predicted_assertions:
        p = root.add(Text("predicted failures", style="bold"))
        for x in r.predicted_assertions:
            p.add(Text.assemble((f"{x['kernel']} ", "cyan"), f"`{x['message']}`: {x['why']}"))
    if r.may_fail:
        p = root.add(Text("may fail (the sizes allow it; the values decide)" if all(x["op"] != "extern" for x in r.may_fail)
                          else "may fail (the sizes allow it; the values or an extern op's own code decide)", style="bold"))
        for x in r.may_fail:
            p.add(Text.assemble((f"{x['kernel']} ", "cyan"), f"`{x['message']}`: {x['why']}"))
    root.add(Text.assemble(("certainty: ", "bold"), r.certainty))
    for n in r.notes:
        root.add(Text.assemble(("note: ", "bold yellow"), n))
    console.print(root)
