"""Issue 36 §4: the agent server checks every argument against the tool's own input schema before anything runs
(types, enums, minimums, no NUL), reads only regular files (a FIFO would block the call), and a call past its time
limit is reported as such.  The calls go through `call`, the function the server runs per request (the SDK's own
client drives it in tests/cli/test_mcp.py)."""

from __future__ import annotations

import os
import time

import pytest

from inspector.cli import _mcp_server as server

from _paths import ROOT

TOOLS = {t.name: t for t in server.TOOLS}
PKG = "sample_packages/cpu/take/take.pt2"


@pytest.fixture
def roots():
    return server.Roots([str(ROOT)])


@pytest.mark.parametrize("tool,args,said", [
    ("show", {"package": PKG + "\0x"}, "package holds a NUL byte"),
    ("source", {"package": PKG, "wrapper": True, "line": 10, "context": -5}, "context must be at least 0 (got -5)"),
    ("source", {"package": PKG, "wrapper": True, "line": 0}, "line must be at least 1"),
    ("source", {"package": PKG, "wrapper": "yes"}, "wrapper must be a boolean, not str"),
    ("source", {"package": PKG, "wrapper": True, "line": "10"}, "line must be an integer, not str"),
    ("check", {"package": PKG, "input": "0=float32[2,4]"}, "input must be a list"),
    ("show", {}, "package is required"),
])
def test_arguments_are_checked_against_the_tools_schema_before_anything_runs(roots, tool, args, said):
    t0 = time.monotonic()
    with pytest.raises(server.ToolError, match=said.replace("(", r"\(").replace(")", r"\)")):
        server.call(TOOLS[tool], args, roots)
    assert time.monotonic() - t0 < 1.0  # refused before a command was started


def test_the_schema_says_the_minimums_it_checks():
    props = server.input_schema(TOOLS["source"])["properties"]
    assert props["context"]["minimum"] == 0 and props["line"]["minimum"] == 1


def test_a_fifo_is_refused_not_read(roots, tmp_path):
    fifo = ROOT / f".fifo-{os.getpid()}.log"
    os.mkfifo(fifo)
    try:
        t0 = time.monotonic()
        with pytest.raises(server.ToolError, match="not a regular file"):
            server.call(TOOLS["diagnose"], {"package": PKG, "log": fifo.name}, roots)
        assert time.monotonic() - t0 < 1.0
    finally:
        fifo.unlink()


def test_a_folder_is_a_package_but_not_a_log(roots):
    with pytest.raises(server.ToolError, match="log: sample_packages is not a regular file"):
        server.call(TOOLS["diagnose"], {"package": PKG, "log": "sample_packages"}, roots)


def test_a_call_past_its_time_limit_says_so(roots, monkeypatch):
    monkeypatch.setattr(server, "CALL_TIMEOUT_S", 0.01)
    with pytest.raises(server.ToolError, match=r"show: time limit: no answer within the server's 0.01 s per call"):
        server.call(TOOLS["show"], {"package": PKG}, roots)
