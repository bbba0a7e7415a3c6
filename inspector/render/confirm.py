"""A confirmation run (inspector.queries.confirm) as text: its verdict, then one line per run (rendering only:
every sentence is inspector.explain.confirm's)."""

from __future__ import annotations


def render_confirmation(c, conf) -> None:
    c.print(conf.verdict, markup=False, highlight=False)
    for line in conf.lines:
        c.print(f"  {line}", markup=False, highlight=False)
