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
    if getattr(row, "status", None) == "not_aoti":
        mark, style = ("-", "dim")
    elif row.ok is None:
        mark, style = ("✗", "bold red") if row.internal else ("?", "yellow")
    else:
        mark, style = ("✓", "green") if row.ok else ("✗", "bold red")
    n = {s: sum(1 for f in row.findings if f["severity"] == s) for s in ("error", "warn")}
    counts = f"  ({n['error']} error(s), {n['warn']} warning(s))" if row.findings else ""
    console.print(Text.assemble((f"{mark} ", style), (row.package, "bold"), f": {row.verdict}", (counts, "dim")))


def render_scan_summary(console: Console, s: dict) -> None:
    from rich.table import Table

    console.print(Text(f"{s['packages']} package(s), {s['models']} model(s): {s['will_not_run']} will not run, "
                       f"{s['unreadable']} unreadable"
                       + (f", {s['not_aoti']} not an AOTI package (an exported program)" if s.get("not_aoti") else "")
                       + (f", {s['not_checked']} not checked (a job failed)" if s.get("not_checked") else "")
                       + (f", {s['internal_errors']} internal error(s)" if s["internal_errors"] else ""),
                       style="bold"))
    if s["findings"]:
        t = Table("finding", "error", "warn", "info", box=None)
        for kind, c in s["findings"].items():
            t.add_row(kind, str(c["error"]), str(c["warn"]), str(c["info"]))
        console.print(t)


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


def render_scan_junit(rows, summary: dict) -> str:
    """A JUnit XML report: one test case per package; doctor errors are failures, a package not read or not
    checked is an error, an exported program is skipped (what CI systems show)."""
    import xml.etree.ElementTree as ET

    n_fail = sum(1 for r in rows if r.ok is False)
    n_err = sum(1 for r in rows if r.ok is None and r.status != "not_aoti")
    n_skip = sum(1 for r in rows if r.status == "not_aoti")
    suites = ET.Element("testsuites", name="pt2-inspect scan", tests=str(len(rows)), failures=str(n_fail),
                        errors=str(n_err), skipped=str(n_skip))
    suite = ET.SubElement(suites, "testsuite", name="pt2-inspect scan", tests=str(len(rows)), failures=str(n_fail),
                          errors=str(n_err), skipped=str(n_skip))
    for r in rows:
        case = ET.SubElement(suite, "testcase", classname="pt2-inspect.doctor", name=r.package)
        if r.status == "not_aoti":
            ET.SubElement(case, "skipped", message=r.verdict)
        elif r.ok is None:
            el = ET.SubElement(case, "error", message=r.verdict, type=r.status)
            el.text = r.error or r.verdict
        elif r.ok is False:
            errors = [f for f in r.findings if f["severity"] == "error"]
            el = ET.SubElement(case, "failure", message=r.verdict, type="doctor")
            el.text = "\n".join(f"{f['kind']}: {f['message']}" for f in errors) or r.verdict
        warns = [f for f in r.findings if f["severity"] == "warn"]
        if warns:
            ET.SubElement(case, "system-out").text = "\n".join(f"warn {f['kind']}: {f['message']}" for f in warns)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
