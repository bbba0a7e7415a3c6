"""A trace chain as SVG: boxes at `layout`'s places, edges between them, each node clickable by the page's script."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...explain.report import edge_label
from . import esc as _e
from .layout import COL_W, NODE_H, ROW_GAP, layout

if TYPE_CHECKING:
    from ...queries.report_chain import Chain

MAX_LABEL = 40


def _short(s: str, n: int = MAX_LABEL) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def chain_svg(c: Chain, trace_id: int) -> str:
    pos = layout(c)
    ncols = max((x for x, _ in pos.values()), default=0) + 1
    nrows = max((y for _, y in pos.values()), default=0) + 1
    w, h = ncols * COL_W + 20, nrows * (NODE_H + ROW_GAP) + 20
    box_w = COL_W - 30

    def xy(k):
        x, y = pos[k]
        return 10 + x * COL_W, 10 + y * (NODE_H + ROW_GAP)

    out = [f'<svg class="chain" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'role="img" aria-label="trace chain">']
    out.append('<defs><marker id="arr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
               'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#888"/></marker></defs>')
    for a, b, code in c.edges:
        label = edge_label(code)
        (x1, y1), (x2, y2) = xy(a), xy(b)
        sx, sy, ex, ey = x1 + box_w / 2, y1 + NODE_H, x2 + box_w / 2, y2
        if y2 <= y1:  # same or earlier row: go round the side
            sx, sy, ex, ey = x1 + box_w, y1 + NODE_H / 2, x2 + box_w, y2 + NODE_H / 2
        my = (sy + ey) / 2
        out.append(f'<path class="edge" d="M{sx:.0f},{sy:.0f} C{sx:.0f},{my:.0f} {ex:.0f},{my:.0f} {ex:.0f},{ey:.0f}" '
                   f'marker-end="url(#arr)"><title>{_e(label)}</title></path>')
        if label and x1 == x2:  # straight down: the hop's name beside the arrow
            out.append(f'<text class="elabel" x="{sx + 6:.0f}" y="{my + 4:.0f}">{_e(label)}</text>')
    for i, (k, n) in enumerate(c.nodes.items()):
        x, y = xy(k)
        out.append(f'<g class="node k-{n.kind}" data-trace="{trace_id}" data-node="{i}" tabindex="0" '
                   f'data-label="{_e(n.label.lower())}" transform="translate({x},{y})">'
                   f'<title>{_e(n.label)}{(" — " + _e(n.detail)) if n.detail else ""}</title>'
                   f'<rect width="{box_w}" height="{NODE_H}" rx="6"/>'
                   f'<text x="8" y="{NODE_H / 2 + 4:.0f}">{_e(_short(n.label))}</text></g>')
    out.append("</svg>")
    return "".join(out)
