"""Rendering with rich for `diagnose`: the verdict, the evidence from the log, then what to do.  Never parses anything."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from ..explain import certainty_words
from .common import MAX_CANDIDATE_ROWS, _steps, candidate_line
from .trace import _match_tree


def render_diagnosis(console: Console, d, verbose: bool = False) -> None:
    mark = ("○ ", "bold") if d.category == "no_failure" else ("✗ ", "bold red")  # nothing failed: no cross
    console.print(Text.assemble(mark, (d.category, "bold"), ": ", d.headline or d.verdict))
    root = Tree(Text(f"package {d.package}", style="dim"))
    traced = d.trace is not None and d.trace.matches  # its hypotheses below word the verdict's alternatives
    if d.headline and d.headline != d.verdict and (verbose or not traced):
        root.add(Text.assemble(("in full: ", "bold"), d.verdict))
    root.add(Text.assemble(("certainty: ", "bold"), certainty_words(d.certainty, d.certainty_basis)))
    if d.evidence:
        ev = root.add(Text("evidence (from the log)", style="bold"))
        for e in d.evidence:
            ev.add(Text(e.quote))
    if d.input_check:
        ic = d.input_check
        t = root.add(Text("input check", style="bold"))
        who = f"input {ic.input}" + (f" ({ic.wrapper_name})" if ic.wrapper_name else "") + (
            f" `{ic.user_name}`" if ic.user_name else "")
        t.add(Text(who + (f", dim {ic.dim}" if ic.dim is not None else "")
                   + (f", symbol {ic.symbol} ({ic.min}..{ic.max})" if ic.symbol else "")))
        if ic.expected is not None:
            t.add(Text(f"expected {ic.expected}, got {ic.got}"))
        if ic.fix:
            t.add(Text(f"fix: {ic.fix}", style="green"))
    if d.candidates:
        c = root.add(Text(f"candidate assertions ({len(d.candidates)}, most likely first)", style="bold"))
        for x in d.candidates[:MAX_CANDIDATE_ROWS]:
            c.add(candidate_line(x))
        if len(d.candidates) > MAX_CANDIDATE_ROWS:
            c.add(Text(f"… {len(d.candidates) - MAX_CANDIDATE_ROWS} more (--json)", style="dim"))
    if d.async_error is not None and d.async_error.hypotheses:
        from ..explain.diagnose import async_hypothesis

        a = d.async_error
        h = root.add(Text(f"what could have made it ({len(a.hypotheses)}, most likely first)", style="bold"))
        for x in a.hypotheses[:10]:
            h.add(Text(f"[{x.certainty}] {async_hypothesis(x)}"))
    if d.suspects:
        s = root.add(Text(f"unchecked indirect accesses ({len(d.suspects)}, input-fed first)", style="bold"))
        for x in d.suspects[:10]:
            tbl = x.get("table") or {}
            what = tbl.get("fqn") or tbl.get("name") or x["pointer"]
            src = [o for o in x["index_origin"] if o["input"] is not None or o["constant"]]
            frm = ", ".join(f"input {o['input']} ({o['input_name']})" if o["input"] is not None else f"constant {o['constant']}"
                            for o in src) or "a tensor"
            s.add(Text(f"{x['kernel']} line {x['line']}: {x['access']} {x['pointer']}[{x['address']}] → {what}; "
                       f"index {x['index_var']} from {frm}"))
    if d.fault_sites:
        from ..explain.diagnose import fpe_place

        h = root.add(Text(f"places that can divide by a size ({len(d.fault_sites)}, most likely first)", style="bold"))
        for x in d.fault_sites[:10]:
            h.add(Text(f"[{x['certainty']}] {fpe_place(x)}"))
    _steps(root, d.steps)
    for n in d.notes:
        root.add(Text.assemble(("note: ", "bold yellow"), n))
    console.print(root)
    if d.trace is not None and d.trace.matches:
        console.print()
        console.print(Text("the full trace", style="bold"))
        for mt in d.trace.matches:
            console.print(_match_tree(mt, verbose))
