"""A cached answer parses nothing (issue 21 §5): a cached `trace-assert` and a cached `show` on real samples load
no Lark (the expression trees a trace reads come from the kernel's cache part, `expr_tree.remember`), and
answer byte for byte what the run that filled the cache answered.  Each run is its own process, so that
``sys.modules`` says what that process imported; the last test takes the stored trees away and sees the
probe catch the parser loading (the check can fail)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.parse import expr_tree as E

from _paths import ROOT, S


# the largest sample (whose cached trace walks three tmps through `negative_wrap`), a CPU reduction whose
# position reads its loop headers' trees, a CPU and a CUDA (Triton) kernel that wrap a negative index
# (`negative_wrap` True: it reads the select's trees too)
CASES = ["cpu/transformer", "cpu/argmax_embedding", "cpu/bucketize_index", "cuda/hf_roberta"]

# runs the CLI and prints, last on stderr, what the process loaded: lark, the expression-tree module, and how
# many log patterns it compiled (`logs.patterns.Pattern.regex` is compiled on first use)
_PROBE = ("import sys, runpy, atexit\n"
          "def said():\n"
          "    P = sys.modules.get('inspector.logs.patterns')\n"
          "    n = sum('regex' in vars(p) for p in P.REGISTRY.values()) if P else 0\n"
          "    sys.stderr.write('\\nLOADED %d %d %d\\n' % ('lark' in sys.modules, 'inspector.parse.expr_tree' in sys.modules, n))\n"
          "atexit.register(said)\n"
          "sys.argv = ['pt2-inspect'] + sys.argv[1:]\n"
          "runpy.run_module('inspector.cli', run_name='__main__')\n")


def _loaded(args: list[str], cache: Path) -> tuple[int, str, tuple[bool, bool, int]]:
    """(exit code, stdout, (lark imported, expr_tree imported, log patterns compiled)) of one CLI process."""
    env = dict(os.environ, PT2_INSPECT_CACHE_DIR=str(cache))
    p = subprocess.run([sys.executable, "-c", _PROBE, *args], env=env, capture_output=True, text=True, timeout=120,
                       cwd=ROOT)  # this tree's inspector (`-c` puts the working folder first on sys.path)
    last = p.stderr.strip().splitlines()[-1].split()
    assert last[0] == "LOADED" and len(last) == 4, p.stderr[-2000:]
    return p.returncode, p.stdout, (last[1] == "1", last[2] == "1", int(last[3]))


def _run(args: list[str], cache: Path) -> tuple[int, str, bool]:
    rc, out, (lark, _, _) = _loaded(args, cache)
    return rc, out, lark


def _commands(sample: str) -> list[list[str]]:
    d = S / sample
    (pkg,) = d.glob("*.pt2")
    return [["trace-assert", str(pkg), "--log", str(d / "error.log"), "--json"], ["show", str(pkg), "--json"],
            ["trace-assert", str(pkg), "--log", str(d / "error.log")]]


@pytest.mark.parametrize("sample", CASES)
def test_cached_answers_load_no_parser(sample, tmp_path):
    for cmd in _commands(sample):
        rc0, first, lark0 = _run(cmd, tmp_path)
        rc1, again, lark1 = _run(cmd, tmp_path)
        assert (rc1, again) == (rc0, first), cmd  # the cached answer is the answer
        assert first.strip()
        assert not lark1, f"a cached {cmd[0]} on {sample} imported lark"
    trace = json.loads(_run(_commands(sample)[0], tmp_path)[1])
    assert trace["matches"], sample  # a real trace: it walked a kernel's tmps


@pytest.mark.parametrize("sample", ["cpu/transformer", "cuda/hf_roberta"])
def test_cached_show_builds_no_trees_and_compiles_no_log_pattern(sample, tmp_path):
    """A cached `show` reads no expression tree and no log: it neither imports the tree module (whose node
    classes cost ~0.02 s to create) nor compiles one log pattern; a trace of a log compiles them (the count can
    be other than 0)."""
    show = _commands(sample)[1]
    _loaded(show, tmp_path)
    rc, out, (lark, trees, patterns) = _loaded(show, tmp_path)
    assert rc == 0 and out.strip()
    assert (lark, trees, patterns) == (False, False, 0)
    _, _, (_, trees, patterns) = _loaded(_commands(sample)[0], tmp_path)
    assert trees and patterns > 0


def test_probe_catches_a_parse(tmp_path):
    """Without the stored trees, the same cached trace must load the parser: the probe above can fail."""
    cmd = _commands("cpu/transformer")[0]
    _, first, _ = _run(cmd, tmp_path)
    parts = list(tmp_path.glob("*.lazy/k-*.json"))
    assert parts
    for p in parts:
        doc = json.loads(p.read_text())
        assert doc["payload"]["trees"]
        doc["payload"]["trees"] = {}
        p.write_text(json.dumps(doc))
    rc, again, lark = _run(cmd, tmp_path)
    assert again == first
    assert lark


def test_stored_trees_decode_to_the_parsed_ones(tmp_path, monkeypatch):
    """Every tree a kernel part stores decodes to the tree the parser builds for its text (same nodes, same text
    back); a node name that is not an expression node is refused, never looked up anywhere else."""
    monkeypatch.setattr(E, "_STORED", {})  # every tree below from the parser itself
    for sample in CASES:
        _run(_commands(sample)[0], tmp_path)
    trees = {}
    for p in tmp_path.glob("*.lazy/k-*.json"):
        trees.update(json.loads(p.read_text())["payload"]["trees"])
    assert len(trees) > 50
    for text, data in trees.items():
        t = E.decode(data)
        assert t == E.parse_expr.__wrapped__(text) and E.unparse(t) == E.unparse(E.parse_expr.__wrapped__(text))
    for bad in (["Hole", "x", None], ["print", "x"], ["Name"], [0, "x"], "Name", ["Name", "x", "y"]):
        with pytest.raises(ValueError):
            E.decode(bad)
