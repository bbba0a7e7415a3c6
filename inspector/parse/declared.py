"""The name a run_impl declaration introduces, by plain string search (`declared_name`, `declared_names`): what the
index follows to find the statements a name needs; the grammar still decides what a statement means."""

from __future__ import annotations

import re

from .tokens import IDENTIFIER
from .wrapper_map import RunStatement


_DECLARED = re.compile(rf"\b({IDENTIFIER})\s*(?:\[\])?\s*(?:=|;|\()")


def declared_name(st: RunStatement) -> str | None:
    """The name a run_impl declaration introduces (``RAIIAtenTensorHandle buf0(buf0_handle);`` -> buf0), by plain
    string search: what the index follows to find the statements a name needs (the grammar still decides
    what the statement means)."""
    if st.kind not in ("declaration", "handle_decl"):
        return None
    text = st.text
    if "decltype(auto)" in text:
        text = text.replace("decltype(auto)", "")
    if "[[maybe_unused]]" in text:
        text = text.replace("[[maybe_unused]]", "")
    m = _DECLARED.search(text)
    return m.group(1) if m else None


# A handle declaration's name: the type's word is followed by a space, so `_DECLARED` cannot match in it and
# its first match is this name (anchored here instead of searched for)
_NAME_END = re.compile(r"[=;(]")  # what ends a declared name, the first of them
_HANDLE_DECL = re.compile(rf"(?:RAII)?AtenTensorHandle ({IDENTIFIER})\s*(?:\[\])?\s*(?:=|;|\()")


def declared_names(texts: list[str]) -> list[str | None]:
    """`declared_name` of each of these declarations' texts (statements of kind "declaration" or "handle_decl"), in
    one loop (no call per statement: a 20,000-kernel run_impl has ~90,000 declarations)."""
    out, search, handle, first_end = [], _DECLARED.search, _HANDLE_DECL.match, _NAME_END.search
    add = out.append
    for text in texts:
        if "decltype(auto)" in text:
            text = text.replace("decltype(auto)", "")
        if "[[maybe_unused]]" in text:
            text = text.replace("[[maybe_unused]]", "")
        # The first of `=`, `;`, `(` ends the name when one is found at all: the name is then the last word
        # before it (after any spaces and one `[]`), as `_DECLARED` finds it; any other shape goes to the regex.
        # (Most declarations hold a `=` with neither of the others before it: one `partition` finds the end.)
        head, eq, _ = text.partition("=")
        if not eq or ";" in head or "(" in head:
            end = first_end(text)
            head = text[:end.start()] if end is not None else None
        if head is not None:
            head = head.rstrip()
            if head[-2:] == "[]":
                head = head[:-2].rstrip()
            name = head[head.rfind(" ") + 1:]
            if name.isidentifier() and name.isascii():
                add(name)
                continue
        # `RAIIAtenTensorHandle buf0(buf0_handle);`: the anchored match is what the search finds first there
        m = handle(text) or search(text)
        add(m.group(1) if m else None)
    return out
