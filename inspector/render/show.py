"""Rendering with rich for `show`: the models table, then each model's inputs, symbols, outputs, constants and kernels.
Never parses anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

import os

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from ..explain import contracts as say_contracts
from ..explain import doctor as say_doctor
from ..queries.show import shape_with_ranges
from .common import _Table, _bytes, _fmt_shape

if TYPE_CHECKING:
    from ..queries.show import ModelSummary, ShowResult


MAX_KERNEL_ROWS = 60  # a terminal table of 20,000 rows takes seconds to draw and nobody reads it


def _inputs_cell(m: ModelSummary, most: int = 3) -> str:
    cells = [f"{i.dtype or '?'}{_fmt_shape(shape_with_ranges(i.shape, m.symbols, i.index)).plain}" for i in m.inputs[:most]]
    more = len(m.inputs) - most
    return ", ".join(cells) + (f" +{more} more" if more > 0 else "") if cells else "-"


def _marked(stride, unchecked):
    """A stride with each dim the package checks nowhere marked ``*`` (``[s70*, 1]``)."""
    if stride is None:
        return None
    return [f"{x}*" if d in unchecked and x != "?" else x for d, x in enumerate(stride)]


def _layout_note(console: Console, m: ModelSummary) -> None:
    """Where the starred strides come from, once per model."""
    marked = [i for i in m.inputs if i.stride_unchecked and i.stride and any(
        i.stride[d] != "?" for d in i.stride_unchecked if d < len(i.stride))]
    if not marked:
        return
    froms = sorted({i.layout_from for i in marked if i.layout_from})
    words = {"exported program": "the exported program's", "dense": "the only dense layout its checked strides allow",
             "row-major assumed": "row-major, assumed (several dense layouts fit its checked strides)"}
    console.print("  [yellow]*[/] a stride the package checks nowhere: the kernels assume it and a tensor with "
                  "another (a transposed view, a slice) is read wrong without an error; written from "
                  + "; ".join(words.get(f, f) for f in froms))


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
    stored = say_doctor.constants_stored(m.constants_stored)
    if stored:
        console.print(f"  constants: {stored}")


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
                  _fmt_shape(_marked(i.stride, i.stride_unchecked)), i.device or "?")
        t.print(console)
        _layout_note(console, m)

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

        if m.dim_contracts:
            console.print("  [yellow]dims the runtime checks do not tie down:[/]")
            for c in m.dim_contracts:
                console.print("    " + escape(say_contracts.dim_contract(c, m.inputs[c["input"]].name)))

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
        if m.op_calls:
            console.print("  [yellow]ops whose code is not in the package (what their arguments must hold):[/]")
            for c in m.op_calls:
                console.print("    " + escape(say_contracts.op_call(c)))
                for u in c["contracts"]:
                    console.print("      " + escape(say_contracts.op_contract(u)))
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
