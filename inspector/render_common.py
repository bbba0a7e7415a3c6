"""Rendering that both render.py (trace-assert) and render_queries.py (diagnose, check) draw: the ranked
candidate assertions of a device-side assert without its line.  Imports neither of them."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

MAX_CANDIDATE_ROWS = 10


def candidate_line(x) -> Text:
    """One ``Candidate`` (inspector.queries.candidates)."""
    return Text(f"{x.kernel} `{x.message}` — {x.reason}; bound {x.bound}; index from "
                f"{', '.join(x.index_origin) or '?'}")


def render_candidates(console: Console, candidates: list) -> None:
    """trace-assert on a device-side assert without its line: the ranked suspects."""
    root = Tree(Text(f"candidate assertions ({len(candidates)}, most likely first)", style="bold"))
    for x in candidates[:MAX_CANDIDATE_ROWS]:
        root.add(candidate_line(x))
    root.add(Text("rerun with CUDA_LAUNCH_BLOCKING=1 (at run time) to print the failing Assertion line", style="green"))
    console.print(root)
