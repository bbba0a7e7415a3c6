"""`pt2-inspect mcp` through the official MCP SDK's own client: the server is started as a subprocess over
stdio (as an agent starts it), its tools listed and each called on a real sample; every result equals the
CLI's --json for the same arguments, validates against our schema (the client checks structured content
against the tool's output schema), and a path outside the root, a symbolic link out of it, and a URL
without --allow-remote are refused without a read.  Skips without the [mcp] extra, except under CI=true."""

from __future__ import annotations

import json
import os
import sys

import pytest

from _cli import run_child
from _paths import ROOT, S

pytestmark = pytest.mark.slow  # starts real servers (seconds): out of the fast lane

JAGGED = "sample_packages/cuda/jagged/jagged.pt2"
CPU = "sample_packages/cpu/jagged/jagged.pt2"

try:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
except ImportError as e:  # the [mcp] extra is not installed
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"CI=true: the mcp tests must run, but the SDK is missing ({e}): "
                           "pip install 'pt2-inspect[mcp]'") from None
    pytest.skip("the [mcp] extra is not installed: pip install 'pt2-inspect[mcp]'", allow_module_level=True)


def cli_json(*argv: str) -> dict:
    p = run_child(*argv, "--json", timeout=None)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


CALLS = [  # (tool, arguments, the same as CLI arguments)
    ("show", {"package": JAGGED}, ["show", JAGGED]),
    ("trace_assert", {"package": JAGGED, "log": "sample_packages/cuda/jagged/error.log"},
     ["trace-assert", JAGGED, "--log", "sample_packages/cuda/jagged/error.log"]),
    ("diagnose", {"package": JAGGED, "log": "sample_packages/cuda/jagged/error.log"},
     ["diagnose", JAGGED, "--log", "sample_packages/cuda/jagged/error.log"]),
    ("doctor", {"package": CPU, "torch": "2.13"}, ["doctor", CPU, "--torch", "2.13"]),
    ("check", {"package": JAGGED, "input": ["0=float32[0,8]@cuda", "1=int64[3]@cuda"]},
     ["check", JAGGED, "--input", "0=float32[0,8]@cuda", "--input", "1=int64[3]@cuda"]),
    ("locate", {"package": JAGGED, "kernel": "triton_per_fused_cumsum_0"},
     ["locate", JAGGED, "--kernel", "triton_per_fused_cumsum_0"]),
    ("source", {"package": JAGGED, "wrapper": True, "line": 1029, "context": 2},
     ["source", JAGGED, "--wrapper", "--line", "1029", "--context", "2"]),
]


def _session(coro_fn, *server_args: str):
    """Run ``coro_fn(client)`` against a fresh `pt2-inspect mcp` subprocess rooted at the repo."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "inspector.cli", "mcp", *server_args],
                                   cwd=str(ROOT), env={"PT2_INSPECT_CACHE_DIR": os.environ["PT2_INSPECT_CACHE_DIR"]})

    async def main():
        async with Client(params) as client:
            return await coro_fn(client)

    return anyio.run(main)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """One server for the module: the tool list, every call of CALLS, and the refusals."""
    outside = tmp_path_factory.mktemp("outside")
    (outside / "x.pt2").write_bytes((S / "cpu/jagged/jagged.pt2").read_bytes())
    second = tmp_path_factory.mktemp("second_root")  # a second --root, holding a link out of the roots
    link = second / "link.pt2"
    link.symlink_to(outside / "x.pt2")
    (second / "inside.pt2").write_bytes((S / "cpu/jagged/jagged.pt2").read_bytes())
    os.mkfifo(second / "fifo.log")  # a log that never ends: refused, not read for the call's whole time limit

    async def go(client):
        tools = await client.list_tools()
        got = {name: await client.call_tool(name, args) for name, args, _ in CALLS}
        refused = {
            "outside": await client.call_tool("show", {"package": str(outside / "x.pt2")}),
            "dotdot": await client.call_tool("show", {"package": "../" + outside.name + "/x.pt2"}),
            "symlink": await client.call_tool("show", {"package": str(link)}),
            "url": await client.call_tool("show", {"package": "https://127.0.0.1:9/x.pt2"}),
            "log_outside": await client.call_tool("diagnose", {"package": JAGGED, "log": "/etc/passwd"}),
            "unknown_arg": await client.call_tool("show", {"package": JAGGED, "bogus": 1}),
            "bad_package": await client.call_tool("show", {"package": "README.md"}),
            "option_in_path": await client.call_tool("doctor", {"package": "--weights=/etc/passwd"}),
            "option_in_value": await client.call_tool("trace_assert", {"package": JAGGED,
                                                                       "message": "--log=/etc/passwd"}),
            "nul": await client.call_tool("show", {"package": JAGGED + "\0.pt2"}),
            "fifo": await client.call_tool("diagnose", {"package": JAGGED, "log": str(second / "fifo.log")}),
            "negative_context": await client.call_tool("source", {"package": JAGGED, "wrapper": True, "line": 10,
                                                                  "context": -5}),
            "wrong_type": await client.call_tool("source", {"package": JAGGED, "wrapper": "yes"}),
        }
        inline = await client.call_tool("trace_assert", {"package": JAGGED, "log_text": (
            S / "cuda/jagged/error.log").read_text()})
        capped = await client.call_tool("source", {"package": JAGGED, "wrapper": True})
        capped2 = await client.call_tool("source", {"package": JAGGED, "wrapper": True, "offset": 5})
        second_root = await client.call_tool("show", {"package": str(second / "inside.pt2")})
        return tools, got, refused, inline, capped, capped2, second_root

    yield _session(go, "--root", str(ROOT), "--root", str(second), "--max-chars", "20000")


def test_the_tools_are_listed_with_our_schemas(results):
    tools = {t.name: t for t in results[0].tools}
    assert {"show", "trace_assert", "diagnose", "doctor", "check", "locate", "source"} <= set(tools)
    have_repro = (ROOT / "inspector/cli/repro.py").is_file()
    assert ("repro" in tools) == have_repro  # the stub is listed only once the CLI has the command
    for name, schema in [("show", "show"), ("trace_assert", "trace"), ("diagnose", "diagnose"),
                         ("doctor", "doctor"), ("check", "check"), ("locate", "locate"), ("source", "source")]:
        assert tools[name].output_schema == json.loads((ROOT / f"inspector/schemas/{schema}.schema.json").read_text())
        assert tools[name].input_schema["type"] == "object" and "package" in tools[name].input_schema["required"]
        assert tools[name].annotations.read_only_hint is True


@pytest.mark.parametrize("name,args,argv", CALLS, ids=[c[0] for c in CALLS])
def test_each_tool_answers_exactly_the_cli_json(results, name, args, argv):
    r = results[1][name]
    assert not r.is_error, r.content
    assert r.structured_content == cli_json(*argv)


def test_a_log_given_inline_is_the_same_answer_as_the_file(results):
    r = results[3]
    assert not r.is_error, r.content
    want = cli_json("trace-assert", JAGGED, "--log", "sample_packages/cuda/jagged/error.log")

    def but_confirm(matches):  # the commands that confirm a cause name the log file; an inline log is none
        return [{k: v for k, v in m.items() if k != "confirm"} for m in matches]

    assert but_confirm(r.structured_content["matches"]) == but_confirm(want["matches"])
    assert r.structured_content["verdict"] == want["verdict"]
    said = json.dumps(r.structured_content)
    assert "pt2-inspect-mcp-" not in said and "/tmp/" not in said  # no path of the server's own


@pytest.mark.parametrize("case,expect", [
    ("outside", "outside the server's roots"), ("dotdot", "outside the server's roots"),
    ("symlink", "symbolic link out of them"), ("url", "--allow-remote"), ("log_outside", "outside the server's roots"),
    ("unknown_arg", "unknown argument 'bogus'"), ("bad_package", "exit 3"), ("option_in_path", "starts with '-'"),
    ("nul", "NUL byte"), ("fifo", "not a regular file"), ("negative_context", "context must be at least 0"),
    ("wrong_type", "wrapper must be a boolean"),
])
def test_refusals_are_tool_errors(results, case, expect):
    r = results[2][case]
    assert r.is_error
    text = r.content[0].text
    assert expect in text, text
    assert "\n" not in text.strip()


def test_a_large_answer_is_cut_with_a_note_how_to_page(results):
    capped, capped2 = results[4], results[5]
    assert not capped.is_error, capped.content
    text = capped.content[0].text
    assert text.startswith("note: the answer is over 20,000 characters") and "offset=" in text
    full = cli_json("source", JAGGED, "--wrapper")["lines"]
    lines = capped.structured_content["lines"]
    assert 0 < len(lines) < len(full) and lines == full[: len(lines)]
    assert capped2.structured_content["lines"] == full[5: 5 + len(capped2.structured_content["lines"])]
    assert len(json.dumps(capped.structured_content)) <= 20000


def test_a_file_under_a_second_root_is_read(results):
    r = results[6]
    assert not r.is_error, r.content
    assert r.structured_content["models"][0]["name"] == "model"


def test_a_value_that_looks_like_an_option_stays_a_value(results):
    """`message: "--log=/etc/passwd"` is passed as `--message=--log=/etc/passwd`: a message, never a --log read."""
    r = results[2]["option_in_value"]
    assert not r.is_error, r.content
    assert "/etc/passwd" in json.dumps(r.structured_content) and r.structured_content["matches"] == []


@pytest.mark.skipif(not (ROOT / "inspector/cli/repro.py").is_file(), reason="the CLI has no repro command yet")
def test_repro_writes_its_script_into_the_answer_and_never_runs_it(tmp_path):
    args = {"package": "sample_packages/cpu/jagged/jagged.pt2", "input": ["0=float32[0,8]@cpu", "1=int64[3]@cpu"]}

    async def go(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "run_it" not in tools["repro"].input_schema["properties"]
        assert "output" not in tools["repro"].input_schema["properties"]
        return await client.call_tool("repro", args)

    r = _session(go, "--root", str(ROOT))
    assert not r.is_error, r.content
    assert r.structured_content["run"] is None
    want = cli_json("repro", args["package"], "--input", args["input"][0], "--input", args["input"][1],
                    "-o", str(tmp_path / "repro.py"))
    assert {**r.structured_content, "script": None} == {**want, "script": None}
    text, script = r.content[0].text, (tmp_path / "repro.py").read_text()
    assert "the file repro wrote (not run" in text and text.endswith("\n" + script) and script.startswith("#!")
