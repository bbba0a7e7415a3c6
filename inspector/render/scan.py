"""Rendering with rich for `scan`: the summary, a line per package, and the JUnit XML report.  Never parses anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from rich.table import Table


def render_scan_row(console: Console, row) -> None:
    if getattr(row, "status", None) == "not_aoti":
        mark, style = ("-", "dim")
    elif row.ok is None:
        mark, style = ("✗", "bold red") if row.internal else ("?", "yellow")
    else:
        mark, style = ("✓", "green") if row.ok else ("✗", "bold red")
    n = {s: sum(1 for f in row.findings if f["severity"] == s) for s in ("error", "warn")}
    counts = f"  ({n['error']} error(s), {n['warn']} warning(s))" if row.findings else ""
    console.print(Text.assemble((f"{mark} ", style), (row.package, "bold"), f": {row.headline or row.verdict}",
                                (counts, "dim")))


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
