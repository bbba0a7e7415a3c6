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

ROOT = Path(__file__).resolve().parents[2]
S = ROOT / "sample_packages"

# the largest sample (whose cached trace walks three tmps through `negative_wrap`), a CPU reduction whose
# position reads its loop headers' trees, a CPU and a CUDA (Triton) kernel that wrap a negative index
# (`negative_wrap` True: it reads the select's trees too)
CASES = ["cpu/transformer", "cpu/argmax_embedding", "cpu/bucketize_index", "cuda/hf_roberta"]

# runs the CLI and prints, last on stderr, whether the process imported lark
_PROBE = ("import sys, runpy, atexit; sys.argv = ['pt2-inspect'] + sys.argv[1:]; "
          "atexit.register(lambda: sys.stderr.write('\\nLARK=%d\\n' % ('lark' in sys.modules))); "
          "runpy.run_module('inspector.cli', run_name='__main__')")


def _run(args: list[str], cache: Path) -> tuple[int, str, bool]:
    env = dict(os.environ, PT2_INSPECT_CACHE_DIR=str(cache))
    p = subprocess.run([sys.executable, "-c", _PROBE, *args], env=env, capture_output=True, text=True, timeout=120,
                       cwd=ROOT)  # this tree's inspector (`-c` puts the working folder first on sys.path)
    last = p.stderr.strip().splitlines()[-1]
    assert last in ("LARK=0", "LARK=1"), p.stderr[-2000:]
    return p.returncode, p.stdout, last == "LARK=1"


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
