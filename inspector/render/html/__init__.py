"""The HTML report (`pt2-inspect report`), drawn from the typed `inspector.queries.report.ReportResult`:
`layout` places a trace chain's nodes, `svg` draws it, `page` fills the templates.  The templates are package
data in ``templates/``: report.html (the page), trace.html (one traced failure), report.css and report.js.

Slots are ``{{name}}``; every slot is filled in one pass, so text that happens to hold ``{{x}}`` is never
filled again.  Values are HTML the caller escaped (``fill`` escapes nothing).  Data the page's script reads
goes in JSON islands (``json_island``): ``<script type="application/json">``, read with JSON.parse.
"""

from __future__ import annotations

import html
import json
from functools import lru_cache
from importlib import resources


def esc(s) -> str:
    """``s`` as HTML text or an attribute's value."""
    return html.escape(str(s), quote=True)


def _slots(text: str):
    """(start, end, name) of each ``{{name}}`` slot in ``text`` (a name: letters, digits, ``_``), in order."""
    at = text.find("{{")
    while at >= 0:
        end = text.find("}}", at + 2)
        name = text[at + 2:end] if end >= 0 else ""
        if name and all(c.isalnum() or c == "_" for c in name):
            yield at, end + 2, name
            at = text.find("{{", end + 2)
        else:
            at = text.find("{{", at + 1)


@lru_cache(maxsize=None)
def load(name: str) -> str:
    return resources.files(__name__).joinpath("templates").joinpath(name).read_text(encoding="utf-8")


def fill(template: str, **slots: str) -> str:
    """``template`` (a file name in ``templates/``) with each ``{{name}}`` replaced by ``slots[name]``."""
    text = load(template)
    found = list(_slots(text))
    missing = {name for _, _, name in found} - set(slots)
    if missing:
        raise KeyError(f"{template}: no value for {sorted(missing)}")
    out, at = [], 0
    for start, end, name in found:
        out += [text[at:start], str(slots[name])]
        at = end
    return "".join(out) + text[at:]


def json_island(id_: str, data) -> str:
    """``data`` as a JSON island the page's script reads.  Inside <script> the HTML parser ends the element at
    the first ``</script`` and treats ``<!--`` specially: every ``</`` is written ``<\\/`` and every ``<!--``
    ``\\u003c!--``, both still JSON for the same text."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("</", "<\\/").replace("<!--", "\\u003c!--")
    return f'<script type="application/json" id="{id_}">{text}</script>'
