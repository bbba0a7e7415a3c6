"""`pt2-inspect mcp`: the commands as MCP tools for coding agents (inspector.cli._mcp_server)."""

from __future__ import annotations

from ._args import command_parser

HELP = """Serve show, check, diagnose, trace_assert, locate, source and doctor as Model
Context Protocol tools over stdio, for a coding agent (the official MCP SDK:
pip install 'pt2-inspect[mcp]'). Each tool takes the command's arguments and
answers exactly its --json, with the JSON Schema as the tool's output schema.
Read only: packages and logs are read only under the --root folders (default:
the current folder); a path outside them, a symbolic link out of them, or a URL
without --allow-remote is refused. docs/agents.md shows how to register it.

The server runs until the agent closes its stdin; an agent starts it itself:

examples:
  claude mcp add pt2-inspect -- pt2-inspect mcp --root /models --root /var/log/serving
  claude mcp add pt2-inspect -- pt2-inspect mcp --root "$PWD" --allow-remote   # https://, s3:// too
  {"mcpServers": {"pt2-inspect": {"command": "pt2-inspect", "args": ["mcp", "--root", "/models"]}}}
"""


def add_parser(sub):
    p = command_parser(sub, "mcp", "serve the commands as MCP tools for agents (stdio)", HELP)
    p.add_argument("--root", action="append", default=[], metavar="DIR",
                   help="a folder the tools may read under (repeat; default: the current folder)")
    p.add_argument("--allow-remote", action="store_true", help="let the tools read packages at URLs (https://, s3://, gs://)")
    p.add_argument("--max-chars", type=int, default=None, metavar="N",
                   help="cut answers longer than this, with a note how to page (default 100,000)")
    return p


def run(a) -> int:
    import os

    from ..errors import UsageError
    from ._mcp_server import MAX_CHARS, serve

    for r in a.root:
        if not os.path.isdir(r):
            raise UsageError(f"--root {r}: no such folder")
    if a.max_chars is not None and a.max_chars < 1000:
        raise UsageError("--max-chars must be at least 1000")
    serve(a.root, a.allow_remote, a.max_chars or MAX_CHARS)
    return 0
