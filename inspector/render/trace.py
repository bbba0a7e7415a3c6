"""Rendering with rich for `trace-assert`: a tree from the failing assertion to its bound, input and index origin.
Never parses anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from ..explain import CONFIRM_WHY, certainty_words
from .common import render_candidates

if TYPE_CHECKING:
    from ..queries.trace import TraceMatch, TraceResult


def _match_tree(mt: TraceMatch, verbose: bool = True) -> Tree:
    """The tree of one match.  Without ``verbose`` (trace-assert's default): the assertion's own line of the
    kernel, the bound in one row, the first hypothesis' evidence (``--verbose``: every hypothesis'), each once."""
    a = mt.assertion
    how = "exact" if mt.exact else "candidate"
    root = Tree(Text.assemble(("✗ ", "bold red"), (a.message, "bold"), f"   model {mt.model!r}, {how}: {mt.matched_by}"))
    where = (f"line {mt.file_line} of its .py" if mt.kernel_kind == "triton" else
             f"an extern ATen op called at wrapper.cpp line {mt.file_line}" if mt.kernel_kind == "extern" else
             f"{'wrapper.cpp' if mt.source_file.endswith('.wrapper.cpp') else 'kernel.cpp'} line {mt.file_line}")
    extern = mt.kernel_kind == "extern"
    kn = root.add(Text.assemble(("kernel ", "bold"), (mt.kernel, "cyan"), f"  ({mt.kernel_kind}, {where}"
                                + (f"; wrapper.cpp line {a.wrapper_line}" if a.wrapper_line and not extern else "")
                                + (f"; launched at wrapper.cpp line {', '.join(map(str, mt.call_sites))}"
                                   if mt.call_sites and not extern else "")
                                + ")"))
    snip = Text()
    for ln, txt in mt.snippet:
        if not verbose and ln != mt.file_line:
            continue
        mark = "→" if ln == mt.file_line else " "
        snip.append(f"{mark}{ln:5d}  {txt.rstrip()}\n", style="bold red" if ln == mt.file_line else "dim")
    if not verbose:  # the check's own line, cut at the terminal's width (piped: whole); --verbose wraps it
        snip.no_wrap, snip.overflow = True, "ellipsis"
    if snip:
        snip.rstrip()
        kn.add(snip)
    if mt.static_bound is not None:
        root.add(Text.assemble(("bound ", "bold"), f"{a.bound_expr} (a constant: {mt.static_bound})"))
    elif mt.bound and not verbose:
        root.add(_bound_row(mt.bound, a.bound_expr))
    elif mt.bound:
        b = mt.bound
        bt = root.add(Text.assemble(("bound ", "bold"), f"{a.bound_expr}"))
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
    label = "value " if a.checks == "finite" else "index "
    if not verbose and len(mt.index_origin) == 1:  # one origin: one row
        o = mt.index_origin[0]
        root.add(Text.assemble((label, "bold"), " ← ".join(s.name for s in o.path), "  ⇒ ",
                               (_origin_end(o), "bold" if (o.input or o.constant or o.computed) else "yellow")))
    it = root.add(Text.assemble((label, "bold"), f"{a.index_var} comes from")) if verbose or len(mt.index_origin) != 1 else None
    for o in mt.index_origin if it is not None else ():
        it.add(Text.assemble(" ← ".join(s.name for s in o.path), "  ⇒ ",
                             (_origin_end(o), "bold" if (o.input or o.constant or o.computed) else "yellow")))
    if mt.element is not None and mt.element.line:  # the element the printed threads held (issue 35 §1)
        root.add(Text(mt.element.line))
    tag = " (derived from the kernel name)" if mt.source_nodes_derived else ""
    nodes = Text.assemble(("source nodes ", "bold"), ", ".join(mt.source_nodes) + tag)
    if mt.aten_ops and not verbose:
        nodes.append_text(Text.assemble("; ", ("ATen ", "bold"), ", ".join(mt.aten_ops)))
    root.add(nodes)
    if mt.aten_ops and verbose:
        root.add(Text.assemble(("ATen ", "bold"), ", ".join(mt.aten_ops)))
    if mt.stack_traces:
        st = root.add(Text("user stack traces (kernel_information.json)", style="bold"))
        for s in mt.stack_traces:
            st.add(Text(s))
    if mt.source_locations:
        sl = root.add(Text("your code (exported program)", style="bold"))
        for x in mt.source_locations:
            sl.add(Text(f"{x.file}:{x.line}  {x.code}  [{x.node}" + (f" in {x.module}" if x.module else "") + "]"))
    if mt.hypotheses:
        ex = root.add(Text("hypotheses, most likely first", style="bold green"))
        quoted: set[str] = set()  # each piece of evidence once: a later hypothesis resting on it too says nothing new
        for i, h in enumerate(mt.hypotheses, 1):
            hn = ex.add(Text.assemble(f"{i}. ", (f"[{h.certainty}] ", "bold"), h.sentence))
            for e in h.evidence if verbose or i == 1 else ():  # the rest's evidence: --verbose
                if e not in quoted:
                    hn.add(Text(f"evidence: {e}", style="dim"))
                quoted.add(e)
    if getattr(mt, "branch", None) is not None and mt.branch.sentence:
        root.add(Text.assemble(("branch ", "bold"), mt.branch.sentence))
    for e in mt.notes:
        root.add(Text.assemble(("note: ", "bold"), e))
    if mt.confirm:
        cf = root.add(Text(f"tell them apart ({CONFIRM_WHY})", style="bold"))
        for c in mt.confirm:
            cf.add(Text(c))
    return root


def _origin_end(o) -> str:
    return (f"model input {o.input.index} ({o.input.name})" if o.input else
            f"constant {o.constant}" if o.constant else o.computed if o.computed else f"? ({o.unresolved})")


def _bound_row(b, expr: str | None) -> Text:
    """The bound's chain in one row: ``bound ks0 = model input 1 (arg1_1) dim 1 (s44 = arg1_1_size[1], wrapper.cpp
    line 874); guards allow 3..1024``; a bound of several terms names each term's input dim."""
    row = Text.assemble(("bound ", "bold"), f"{expr}")
    terms = b.terms or [b]
    named = [f"input {t.input.index} ({t.input.name}) dim {t.input.dim}" for t in terms if t.input]
    if len(named) == len(terms):
        row.append(" = " + (f"model {named[0]}" if len(terms) == 1 else "a size of " + ", ".join(named)))
    else:
        row.append(" (not traced to a model input)", style="yellow")
    defs = [f"{t.kernel_param} ← {t.symbol} = {t.definition} (wrapper.cpp line {t.definition_line})"
            for t in terms if t.symbol]
    if defs:
        row.append(": " + "; ".join(defs))
    rng = [f"{t.symbol} {t.min if t.min is not None else '?'}..{t.max if t.max is not None else '?'}"
           for t in terms if t.input and (t.min is not None or t.max is not None)]
    if rng:
        row.append("; guards allow " + ", ".join(rng) + " (checked only with AOTI_RUNTIME_CHECK_INPUTS=1)")
    return row


def render_trace(console: Console, r: TraceResult, verbose: bool = False) -> None:
    """A trace: the headline, its certainty, each match's tree.  ``verbose``: the verdict in full, the kernel's lines
    around the check, the bound hop by hop, every hypothesis' evidence (the default fits about 30 lines at 80 columns)."""
    if r.verdict:
        console.print(Text.assemble(("verdict: ", "bold red"), (r.headline or r.verdict, "bold")))
        if r.matches:
            console.print(Text.assemble(("certainty: ", "bold"), certainty_words(r.certainty, r.certainty_basis)))
        if verbose and r.headline and r.headline != r.verdict:
            console.print(Text.assemble(("in full: ", "bold"), r.verdict))
        if r.log_verdict:  # a log with no check: what diagnose says it is, on the same reading
            console.print(Text.assemble(("diagnose: ", "bold"), f"{r.log_category}: {r.log_verdict}"))
    if not r.matches and r.candidates:
        render_candidates(console, r.candidates)
    elif r.matches and r.ambiguous:  # no match at all: the CLI says so once, on stderr, with what there is
        console.print(Text(f"ambiguous: {len(r.matches)} assertions match {r.looked_for}; ranked below. Pass the "
                           "whole error text (--log) so the .py path or kernel name can tell them apart.", style="yellow"))
    for mt in r.matches:
        console.print(_match_tree(mt, verbose))
        console.print()
    for c in r.context:
        console.print(Text.assemble(("context: ", "bold"), c))
    for h in r.hints:
        console.print(Text.assemble(("hint: ", "bold yellow"), h))
