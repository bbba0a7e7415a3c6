"""Sentences of the MCP server (inspector.cli._mcp_server) and of remote reads (inspector.remote) a person reads."""

from __future__ import annotations


def cut_note(tool: str, how: dict, max_chars: int) -> str:
    """The note before a cut answer: what was cut and how to ask for the rest."""
    lists = ", ".join(f"{p or '/'} ({n:,} items)" for p, n in how["lists"])
    nxt = (f"call {tool} again with the same arguments and offset={how['next_offset']} for the next items"
           if how["more"] > 0 else "these are the last items")
    return (f"note: the answer is over {max_chars:,} characters, so every list longer than {how['limit']:,} "
            f"items shows items {how['offset']:,}..{how['offset'] + how['limit'] - 1:,} only: {lists}; {nxt}. "
            "For generated code, ask source for a line range (line, context) instead of whole files.")


def written_note(tool: str) -> str:
    """Before the text of the file a tool's command wrote (repro's script)."""
    return f"the file {tool} wrote (not run, and not kept on the server: save it where you want it):"


def fetch_stats(rows: list[dict]) -> list[str]:
    """--debug's lines after a command that read a package from a URL."""
    return [f"pt2-inspect: remote: {r['url']}: {r['requests']} requests, {r['bytes']:,} bytes fetched "
            f"of {r['size']:,}" for r in rows]
