"""Issue 35 §3: which branch of a torch.cond / while_loop (a torch map is lowered to one) the failing kernel runs in,
the predicate that selects it, and the other branch's bound, on real packages torch 2.13 built and the failures
their runs printed (sample_packages/harvest/issue35_branches/build.py), and on PyTorch's own AOTI tests."""

import json
from pathlib import Path

import pytest

from inspector.package import open_package
from inspector.parse.branches import branch_at, branches
from tests._cli import run

H = Path(__file__).resolve().parents[2] / "sample_packages" / "harvest"
B = H / "issue35_branches"


def _trace(capsys, name: str, log: str, cmd: str = "trace-assert") -> dict:
    d = B / name
    rc, out, _ = run(capsys, [cmd, str(d / f"{name}.pt2"), "--log", str(d / "logs" / log), "--json"])
    assert rc in (0, 1), out
    data = json.loads(out)
    return data if cmd == "trace-assert" else data["trace"]


def _run_columns(pkg_path: Path):
    ix = open_package(pkg_path, cache=False).index()
    return ix.wmap.run.line, ix.wmap.run.text


def test_cond_layout_true_and_false_blocks():
    bs = branches(*_run_columns(B / "cond_two_tables_cpu" / "cond_two_tables_cpu.pt2"))
    assert [(b.op, b.role, b.subgraph, b.predicate) for b in bs] == [
        ("cond", "true", "true_graph_0", "buf1"), ("cond", "false", "false_graph_0", "buf1")]
    assert bs[0].last < bs[1].first
    assert branch_at(bs, bs[1].first + 3) is bs[1] and branch_at(bs, bs[0].first - 5) is None


def test_size_condition_and_while_layout_from_pytorch_tests():
    bs = branches(*_run_columns(H / "aoti_tests_cpu213" / "test_cond_symint_input" / "test_cond_symint_input.pt2"))
    assert [(b.role, b.condition, b.predicate) for b in bs] == [("true", "s68 > 5L", None), ("false", "s68 > 5L", None)]
    bs = branches(*_run_columns(H / "aoti_tests_cpu213" / "test_while_loop_simple" / "test_while_loop_simple.pt2"))
    assert [(b.op, b.role) for b in bs] == [("while_loop", "cond"), ("while_loop", "body")]
    assert bs[1].predicate == "buf0_cond_result"


def test_cond_false_branch_named_with_predicate_and_other_bound(capsys):
    """ids[2, 1] = 70 with x.sum() >= 0: emb_b's 60 rows fail in the false branch; emb_a (true) has 100 rows."""
    for cmd in ("trace-assert", "diagnose"):
        m = _trace(capsys, "cond_two_tables_cpu", "oob_false.log", cmd)["matches"][0]
        b = m["branch"]
        assert (b["op"], b["role"], b["subgraph"]) == ("cond", "false", "false_graph_0")
        assert b["predicate_kernel"] == "cpp_fused_lt_sum_0" and b["predicate_inputs"] == [0]
        assert set(b["predicate_ops"]) == {"aten.lt", "aten.sum"}
        assert b["user_predicate"] is None  # the package keeps only the computed form: said so
        assert [(o["role"], o["table"], o["rows"], o["bound"]) for o in b["other"]] == [("true", "emb_a.weight", 100, 100)]
        assert "values up to 99 are fine in the true branch" in b["sentence"]
        assert "not in the package" in b["sentence"]
    d = B / "cond_two_tables_cpu"
    rc, out, _ = run(capsys, ["trace-assert", str(d / "cond_two_tables_cpu.pt2"), "--log", str(d / "logs" / "oob_false.log")])
    assert "false branch (false_graph_0)" in out


def test_cond_predicate_that_is_an_input_cuda(capsys):
    d = H.parent / "options" / "cond_index_cuda"
    rc, out, _ = run(capsys, ["trace-assert", str(d / "cond_index_cuda.pt2"), "--log", str(d / "logs" / "oob_true.log"), "--json"])
    b = json.loads(out)["matches"][0]["branch"]
    assert (b["role"], b["predicate"], b["predicate_inputs"], b["predicate_kernel"]) == ("true", "arg1_1", [0], None)
    assert "input 0 (arg1_1) itself is True" in b["sentence"]


@pytest.mark.parametrize("name", ["while_table_cpu", "map_table_cpu"])
def test_loop_body_named_with_what_it_takes(capsys, name):
    """A while_loop body, and a torch map (Inductor lowers it to a while_loop over the batch)."""
    b = _trace(capsys, name, "oob.log")["matches"][0]["branch"]
    assert (b["op"], b["role"]) == ("while_loop", "body") and b["subgraph"].startswith("while_loop_body_graph_0")
    assert b["predicate_kernel"] and b["body_inputs"] and b["body_model_inputs"]
    assert "emb_weight" in b["body_inputs"] and "emb_weight" not in b["carried"] and len(b["carried"]) == 2


def test_top_level_kernel_has_no_branch(capsys):
    d = H / "issue34_cpu213" / "dtype_ids_cpu"
    rc, out, _ = run(capsys, ["trace-assert", str(d / "dtype_ids_cpu.pt2"), "--log", str(d / "logs" / "int32_ids.log"), "--json"])
    assert "branch" not in json.loads(out)["matches"][0]
