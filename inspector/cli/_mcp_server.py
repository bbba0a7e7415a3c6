"""`pt2-inspect mcp`: the commands as Model Context Protocol tools, over stdio, on the official `mcp` SDK.

Each tool is one CLI command (`TOOLS`, data: adding one is one line).  Its input schema is made from that
command's own argparse parser (a positional or option becomes a property of the same name; ``--log FILE``
also gets ``log_text``, the log given inline), and a call runs the command in a child process with
``--json``, so its output is exactly that command's ``--json`` answer, with our JSON Schema
(inspector/schemas/) as the tool's output schema.  Read only: every path argument must resolve (symbolic
links followed) inside one of the ``--root`` folders; a URL is refused unless ``--allow-remote``.  An
answer over ``max_chars`` has its longest lists cut to a window, and a note says how to page on
(``offset``); kernel and wrapper lines are read by range through ``source`` (``line``, ``context``).

The SDK is the ``[mcp]`` extra, imported only by `serve`.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import inspector.cli.check as check
import inspector.cli.diagnose as diagnose
import inspector.cli.doctor as doctor
import inspector.cli.locate as locate
import inspector.cli.repro as repro
import inspector.cli.show as show
import inspector.cli.source as source
import inspector.cli.trace_assert as trace_assert

INSTALL = "pip install 'pt2-inspect[mcp]'"
MAX_CHARS = 100_000  # a tool answer longer than this is cut (the note says how to ask for the rest)
CALL_TIMEOUT_S = 300


@dataclass(frozen=True)
class Tool:
    name: str  # the MCP tool's name
    command: str  # the CLI command
    module: ModuleType  # its module of inspector.cli (whose parser makes the input schema)
    schema: str | None  # inspector/schemas/<schema>.schema.json: the output schema
    description: str
    hidden: tuple[str, ...] = ()  # more arguments never offered (repro's --run: a tool never runs anything)
    writes: str | None = None  # an output-file argument: pointed into a temporary folder, its text returned


TOOLS = (
    Tool("show", "show", show, "show", "What the package is: models, inputs and their symbolic shapes, symbols "
         "and the ranges their guards allow, outputs, constants, kernels and their assertions. Start here: the contract."),
    Tool("check", "check", check, "check", "Check concrete inputs (input=DTYPE[d0,...]@DEVICE) against the "
         "package's contract, and list the assertions they would make fail."),
    Tool("diagnose", "diagnose", diagnose, "diagnose", "Any failure log (give log_text inline, or log as a "
         "path): its category, a verdict and next steps that fit this package."),
    Tool("trace_assert", "trace-assert", trace_assert, "trace", "The chain from a failing device or CPU "
         "assertion (log_text, message or line) to the model input that feeds it, and what to do about it."),
    Tool("locate", "locate", locate, "locate", "The reverse of a trace: which kernels and extern calls came "
         "from a line of user code (source=FILE:LINE), an FX node, a module path or a kernel."),
    Tool("source", "source", source, "source", "Generated lines by range: a kernel's (kernel, numbered as its "
         "errors count) or wrapper.cpp's (wrapper=true), centred on line with context lines either side."),
    Tool("doctor", "doctor", doctor, "doctor", "Before it runs: will the package run here (GPU architecture, "
         "CPU ISA, torch C-shim symbols, GLIBC, weights, missing members, peak memory at given input shapes)."),
    Tool("repro", "repro", repro, "repro", "Write a script that reproduces the failure with the failing shapes "
         "(its text comes back after the JSON answer; it is never run).", hidden=("run_it",),
         writes="output"),
)

# arguments never offered as tool input: the tool always answers --json; these only shape a terminal's text
_HIDDEN = {"help", "json", "wide", "output", "debug", "strict", "no_cache", "all_kernels"}
# arguments that name a file or folder to read (checked against the roots); "auto" is no path
_PATHS = {"package", "log", "ep", "against", "weights", "inputs_json", "host_cpuinfo"}
# The least value each whole-number argument takes (the CLI refuses less, or reads it as nonsense): in the tool's
# input schema as `minimum`, and checked before the command runs (issue 36 §4: `context: -5` was accepted).
_MINIMUM = {"line": 1, "context": 0, "jobs": 1, "offset": 0, "steps": 1, "limit": 1, "depth": 0, "hypothesis": 1}
_INLINE = {"log": "log_text", "against": "against_text"}  # a log given as text instead of a path


class ToolError(Exception):
    """A call refused or failed: its message is the tool's error text."""


def _parser(tool: Tool) -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="pt2-inspect", add_help=False)
    sub = top.add_subparsers(dest="command")
    return tool.module.add_parser(sub)


def _actions(tool: Tool, offered: bool = True):
    for act in _parser(tool)._actions:
        if isinstance(act, argparse._HelpAction) or offered and (act.dest in _HIDDEN or act.dest in tool.hidden):
            continue
        yield act


def input_schema(tool: Tool) -> dict:
    """The tool's arguments: the command's own, by their CLI names (dest), plus log_text and offset."""
    props: dict = {}
    required = []
    for act in _actions(tool):
        help_text = (act.help or "").replace("%(default)s", str(act.default))
        if isinstance(act, (argparse._StoreTrueAction,)):
            prop = {"type": "boolean"}
        elif isinstance(act, argparse._AppendAction) or act.nargs in ("+", "*"):
            prop = {"type": "array", "items": {"type": "integer" if act.type is int else "string"}}
        else:
            prop = {"type": "integer" if act.type is int else "string"}
            if act.choices:
                prop["enum"] = list(act.choices)
            if act.type is int and act.dest in _MINIMUM:
                prop["minimum"] = _MINIMUM[act.dest]
        if act.dest == "package":
            help_text = "the package: a path under the server's roots (a URL only with --allow-remote)"
        prop["description"] = help_text or act.dest
        props[act.dest] = prop
        if act.required or not act.option_strings:
            required.append(act.dest)
        if act.dest in _INLINE:
            props[_INLINE[act.dest]] = {"type": "string", "description": f"the {act.dest} log's text, inline "
                                        f"(instead of {act.dest} as a path)"}
    props["offset"] = {"type": "integer", "minimum": 0, "description": "for an answer that was cut: the first "
                       "item of each cut list to return (the cut answer's note gives the next offset)"}
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def output_schema(tool: Tool) -> dict | None:
    if tool.schema is None:
        return None
    path = Path(__file__).parents[1] / "schemas" / f"{tool.schema}.schema.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


class Roots:
    """The folders a call may read under (resolved), and whether URLs are allowed."""

    def __init__(self, roots: list[str], allow_remote: bool = False):
        self.roots = [Path(os.path.realpath(r)) for r in roots] or [Path(os.path.realpath(os.getcwd()))]
        self.allow_remote = allow_remote

    def check(self, arg: str, value: str) -> str:
        """The path to pass on (made absolute), or a `ToolError` saying why it is not read."""
        from ..remote import is_url

        if "://" in value:
            if not is_url(value):
                raise ToolError(f"{arg}: {value!r} is not a URL this server reads (https://, s3://, gs://)")
            if not self.allow_remote:
                raise ToolError(f"{arg}: {value} is a URL; this server reads only files under its roots "
                                f"(start it with --allow-remote to read URLs)")
            if arg != "package":
                raise ToolError(f"{arg}: only the package may be a URL")
            return value
        if value == "-":
            raise ToolError(f"{arg}: '-' (stdin) is the protocol's channel here; give {_INLINE.get(arg, arg)}")
        base = self.roots[0]
        p = Path(value) if os.path.isabs(value) else base / value
        real = Path(os.path.realpath(p))
        if not any(real == r or r in real.parents for r in self.roots):
            why = " (a symbolic link out of them)" if real != Path(os.path.abspath(p)) else ""
            raise ToolError(f"{arg}: {value} is outside the server's roots ({', '.join(map(str, self.roots))}){why}; "
                            "nothing was read")
        if value.startswith("-"):  # argparse would read it as an option (`--weights=/etc/passwd`)
            raise ToolError(f"{arg}: {value!r} starts with '-'; give such a path as ./{value}")
        try:
            mode = os.stat(real).st_mode
        except OSError as e:
            raise ToolError(f"{arg}: {value}: {e.strerror}; nothing was read") from None
        # a FIFO, socket or device would block the call or never end: only a regular file (a package: or a folder)
        if not (stat.S_ISREG(mode) or (arg == "package" and stat.S_ISDIR(mode))):
            raise ToolError(f"{arg}: {value} is not a regular file"
                            + (" or a folder" if arg == "package" else "") + "; nothing was read")
        return value  # as given (the answer names it so); the command runs in the first root


def validate(tool: Tool, args: dict) -> None:
    """Every argument against the tool's own input schema (`input_schema`): its type, enum and minimum, and no NUL
    in a string (a path with one is no file: the OS refuses it).  A `ToolError` names the argument and what it
    needs; nothing runs."""
    schema = input_schema(tool)
    props = schema["properties"]
    if not isinstance(args, dict):
        raise ToolError("the arguments must be an object")
    for name in schema["required"]:
        if name not in args:
            raise ToolError(f"{name} is required")
    for name, value in args.items():
        prop = props.get(name)
        if prop is None:
            raise ToolError(f"unknown argument {name!r}; {tool.name} takes: {', '.join(sorted(props))}")
        items = value if prop["type"] == "array" else [value]
        if prop["type"] == "array" and not isinstance(value, list):
            raise ToolError(f"{name} must be a list")
        want = prop["items"]["type"] if prop["type"] == "array" else prop["type"]
        for v in items:
            _check_value(name, v, want, prop)


_JSON_TYPES = {"string": str, "integer": int, "boolean": bool}


def _check_value(name: str, v, want: str, prop: dict) -> None:
    ok = isinstance(v, _JSON_TYPES[want]) and not (want == "integer" and isinstance(v, bool))
    if not ok:
        raise ToolError(f"{name} must be a{'n' if want == 'integer' else ''} {want}, not {type(v).__name__}")
    if want == "string" and "\0" in v:
        raise ToolError(f"{name} holds a NUL byte: no path or value has one")
    if "enum" in prop and v not in prop["enum"]:
        raise ToolError(f"{name} must be one of {', '.join(map(str, prop['enum']))}")
    if want == "integer" and "minimum" in prop and v < prop["minimum"]:
        raise ToolError(f"{name} must be at least {prop['minimum']} (got {v})")


def argv_for(tool: Tool, args: dict, roots: Roots, tmp: str, stdin: list | None = None) -> list[str]:
    """The CLI's arguments for a call (``--json`` added); paths checked, an inline log given on the command's stdin
    (appended to ``stdin``), an inline `--against` log written to ``tmp``."""
    validate(tool, args or {})
    args = dict(args or {})
    args.pop("offset", None)
    acts = {a.dest: a for a in _actions(tool)}
    for dest, inline in _INLINE.items():
        if inline in args:
            if dest not in acts:
                raise ToolError(f"unknown argument {inline!r}")
            if args.get(dest):
                raise ToolError(f"give {dest} or {inline}, not both")
            text = args.pop(inline)
            if not isinstance(text, str):
                raise ToolError(f"{inline} must be a string")
            if dest == "log":  # on the command's stdin, as `--log -`: the answer names no file of the server's
                args[dest] = "-"
                args["_stdin"] = text
            else:
                f = Path(tmp) / f"{dest}.log"
                f.write_text(text, encoding="utf-8")
                args[dest] = str(f)
            args[f"_{dest}_inline"] = True
    if stdin is not None and "_stdin" in args:
        stdin.append(args["_stdin"])
    argv = [tool.command]
    for dest, value in args.items():
        if dest.startswith("_"):
            continue
        act = acts.get(dest)
        if act is None:
            raise ToolError(f"unknown argument {dest!r}; {tool.name} takes: {', '.join(sorted(acts))}")
        values = value if isinstance(value, list) else [value]
        if dest in _PATHS and not args.get(f"_{dest}_inline"):
            values = [v if (dest == "host_cpuinfo" and v == "auto") else roots.check(dest, str(v)) for v in values]
        if isinstance(act, argparse._StoreTrueAction):
            if value is True:
                argv.append(act.option_strings[-1])
            continue
        if not act.option_strings:
            for v in map(str, values):
                if v.startswith("-"):  # argparse would read it as an option (`--weights=/etc/passwd`)
                    raise ToolError(f"{dest}: {v!r} starts with '-'; give such a path as ./{v}")
                argv.append(v)
            continue
        for v in values:
            argv.append(f"{act.option_strings[-1]}={v}")  # one token: a value is never taken for an option
    if tool.writes:  # the file the command writes goes to the call's temporary folder, never under the roots
        flag = next(a for a in _actions(tool, offered=False) if a.dest == tool.writes).option_strings[-1]
        argv.append(f"{flag}={Path(tmp) / 'written' / tool.name}.out")
        (Path(tmp) / "written").mkdir()
    argv.append("--json")
    return argv


def _lists(obj, path=""):
    """Every list in a JSON value, with its JSON pointer."""
    if isinstance(obj, list):
        yield path, obj
        for i, v in enumerate(obj):
            yield from _lists(v, f"{path}/{i}")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _lists(v, f"{path}/{k}")


def _cut(obj, limit: int, offset: int, cut: list):
    if isinstance(obj, list):
        items = obj[offset: offset + limit] if len(obj) > limit else obj
        if len(obj) > limit:
            cut.append(len(obj))
        return [_cut(v, limit, offset, cut) for v in items]
    if isinstance(obj, dict):
        return {k: _cut(v, limit, offset, cut) for k, v in obj.items()}
    return obj


def cap(answer: dict, max_chars: int = MAX_CHARS, offset: int = 0) -> tuple[dict, dict | None]:
    """(the answer, None) when it fits; else (the answer with every list longer than L items cut to items
    offset..offset+L, the largest L that fits; a dict describing the cut)."""
    if offset == 0 and len(json.dumps(answer)) <= max_chars:
        return answer, None
    longest = max((len(v) for _, v in _lists(answer)), default=0)
    lo, hi, best = 1, max(1, longest), None
    while lo <= hi:
        mid = (lo + hi) // 2
        cut: list = []
        trial = _cut(answer, mid, offset, cut)
        if len(json.dumps(trial)) <= max_chars:
            best, lo = (mid, trial, cut), mid + 1
        else:
            hi = mid - 1
    if best is None:
        cut = []
        best = (1, _cut(answer, 1, offset, cut), cut)
    limit, trial, cut = best
    lists = [(p, len(v)) for p, v in _lists(answer) if len(v) > limit]
    return trial, {"limit": limit, "offset": offset, "next_offset": offset + limit,
                   "lists": lists[:20], "more": max(0, max((n for _, n in lists), default=0) - offset - limit)}


def call(tool: Tool, args: dict, roots: Roots, max_chars: int = MAX_CHARS) -> tuple[dict, str]:
    """Run one tool call: (the --json answer, possibly cut; the text for the model: the note and the JSON)."""
    from ..explain.agents import cut_note, written_note

    offset = (args or {}).get("offset") or 0
    if not isinstance(offset, int) or offset < 0:
        raise ToolError("offset must be a whole number ≥ 0")
    with tempfile.TemporaryDirectory(prefix="pt2-inspect-mcp-") as tmp:
        fed: list[str] = []
        argv = argv_for(tool, args, roots, tmp, fed)
        stdin = {"input": fed[0]} if fed else {"stdin": subprocess.DEVNULL}
        try:
            p = subprocess.run([sys.executable, "-m", "inspector.cli", *argv], capture_output=True, text=True,
                               **stdin, timeout=CALL_TIMEOUT_S, cwd=str(roots.roots[0]),
                               env={**os.environ, "COLUMNS": "200"})
        except subprocess.TimeoutExpired:
            raise ToolError(f"{tool.name}: time limit: no answer within the server's {CALL_TIMEOUT_S} s per call "
                            "(the call was stopped)") from None
        written = Path(tmp) / "written" / f"{tool.name}.out"
        written = written.read_text(encoding="utf-8", errors="replace") if tool.writes and written.is_file() else None
    if p.returncode not in (0, 1):
        err = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        raise ToolError(f"{err} (exit {p.returncode})")
    try:
        answer = json.loads(p.stdout)
    except ValueError:
        raise ToolError(f"{tool.name}: the command printed no JSON answer (exit {p.returncode})") from None
    out, how = cap(answer, max_chars, offset)
    text = json.dumps(out)  # the same measure as `cap`: the text stays under max_chars too (plus the note)
    if how is not None:
        text = cut_note(tool.name, how, max_chars) + "\n" + text
    if written is not None:
        text += "\n\n" + written_note(tool.name) + "\n" + written
    return out, text


def serve(roots: list[str], allow_remote: bool = False, max_chars: int = MAX_CHARS) -> None:
    """Serve the tools over stdio until the client closes the connection."""
    try:
        import anyio
        import mcp_types as types
        from mcp.server.lowlevel import Server
        from mcp.server.stdio import stdio_server
    except ImportError:
        from ..errors import UsageError

        raise UsageError(f"pt2-inspect mcp needs the MCP SDK: {INSTALL}") from None
    from .._version import __version__

    r = Roots(roots, allow_remote)
    tools = {t.name: t for t in TOOLS}
    listed = [types.Tool(name=t.name, description=t.description, input_schema=input_schema(t),
                         output_schema=output_schema(t),
                         annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                                           idempotent_hint=True, open_world_hint=allow_remote))
              for t in tools.values()]

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params):
        tool = tools.get(params.name)
        if tool is None:
            return types.CallToolResult(content=[types.TextContent(text=f"no tool {params.name!r}; there are: "
                                                                   f"{', '.join(tools)}")], is_error=True)
        try:
            out, text = await anyio.to_thread.run_sync(call, tool, params.arguments or {}, r, max_chars)
        except ToolError as e:
            return types.CallToolResult(content=[types.TextContent(text=str(e))], is_error=True)
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=out)

    server = Server("pt2-inspect", version=__version__, on_list_tools=list_tools, on_call_tool=call_tool,
                    instructions="Read-only tools over PyTorch AOTInductor .pt2 packages: show (the contract) "
                                 "first, then diagnose a log, trace_assert an assertion, locate the user's "
                                 "code, source for generated lines by range.")

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
