"""`check`: inputs against the package's contract, each case backed by what a real run printed."""

from __future__ import annotations

import json
import re

import pytest

import inspector
from inspector.cli import main
from inspector.errors import UsageError
from inspector.queries.arith import evaluate
from inspector.queries.check import check, parse_spec

from _paths import S


def _check(pkg, *specs, **kw):
    with inspector.open_package(S / pkg) as p:
        return check(p, [parse_spec(s) for s in specs], **kw)


def test_empty_dim_predicts_the_assertion_the_real_run_fired():
    r = _check("cpu/jagged/jagged.pt2", "0=float32[0,8]@cpu", "1=int64[3]@cpu")  # build.py's trigger
    assert not r.ok
    assert [(v["input"], v["kind"]) for v in r.violations] == [(0, "range")]
    assert "2..65536" in r.violations[0]["detail"]
    # The real CPU run (error.log) fails exactly this check.
    real = re.search(r"index out of bounds: [^\n]+", (S / "cpu/jagged/error.log").read_text()).group(0)
    assert [p["message"] for p in r.predicted_assertions] == [real]
    assert "is 0" in r.predicted_assertions[0]["why"]


def test_empty_dim_cuda_predicts_the_triton_assertion():
    r = _check("cuda/jagged/jagged.pt2", "0=float32[0,8]@cuda", "1=int64[3]@cuda")
    real = re.search(r"Assertion `([^`]+)`", (S / "cuda/jagged/error.log").read_text()).group(1)
    assert real in [p["message"] for p in r.predicted_assertions]


def test_too_large_dim_agrees_with_the_runtime_check():
    r = _check("cpu/gather_dynamic/gather_dynamic.pt2", "0=float32[2,5000]", "1=int64[2,8]")
    assert [(v["input"], v["kind"]) for v in r.violations] == [(0, "range")]
    # Real: "input_handles[0]: dim value is too large at 1, expected to be <= 4096, but got: 5000"
    assert "dim 1 is 5000" in r.violations[0]["detail"] and "2..4096" in r.violations[0]["detail"]


def test_cpu_tensors_for_a_cuda_package():
    r = _check("cuda/embedding/embedding.pt2", "0=int64[2,4]@cpu")
    assert [(v["input"], v["kind"]) for v in r.violations] == [(0, "device")]
    assert "cuda" in r.violations[0]["detail"]


def test_batch_of_one_is_outside_the_compiled_range():
    # Real (logs/check_inputs_batch_one.log): exported with min=1, the runtime check still wants >= 2.
    real = (S / "cpu/embedding/logs/check_inputs_batch_one.log").read_text()
    assert "dim value is too small at 0, expected it to be >= 2, but got: 1" in real
    r = _check("cpu/embedding/embedding.pt2", "0=int64[1,4]@cpu")
    assert [(v["input"], v["kind"]) for v in r.violations] == [(0, "range")]
    assert "specializes sizes 0 and 1" in r.violations[0]["detail"]


def test_wrong_dtype_agrees_with_the_runtime_check():
    r = _check("cpu/embedding/embedding.pt2", "0=int32[2,4]@cpu")
    # Real: "input_handles[0]: unmatched dtype, expected: 4(at::kLong), but got: 3"
    assert [(v["input"], v["kind"]) for v in r.violations] == [(0, "dtype")]
    assert "int64" in r.violations[0]["detail"] and "int32" in r.violations[0]["detail"]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_unequal_shared_dims(device):
    # Real (cpu): "expected size 3==4, stride 8==8 at dim=0"; the CUDA wrapper does not say which symbol
    # idx dim 0 is, the packaged exported program does.
    r = _check(f"{device}/gather_dynamic/gather_dynamic.pt2", f"x=float32[4,32]@{device}", f"idx=int64[3,8]@{device}")
    assert [(v["input"], v["kind"]) for v in r.violations] == [(1, "equal")]
    assert "s77" in r.violations[0]["detail"]


def test_rank_static_size_and_stride():
    r = _check("cpu/jagged/jagged.pt2", "0=float32[4,9]stride[1,4]", "1=int64[3,1]")
    kinds = sorted({(v["input"], v["kind"]) for v in r.violations})
    assert kinds == [(0, "size"), (0, "stride"), (1, "rank")]
    assert any("static 8" in v["detail"] for v in r.violations)


def test_fitting_inputs_exit_0_and_json(tmp_path, capsys):
    pkg = str(S / "cpu/gather_dynamic/gather_dynamic.pt2")
    assert main(["check", pkg, "--input", "x=float32[4,32]@cpu", "--input", "idx=int64[4,8]@cpu"]) == 0
    assert capsys.readouterr().out.startswith("✓ ")
    spec = tmp_path / "in.json"
    spec.write_text(json.dumps([{"input": 0, "dtype": "float32", "shape": [4, 32]},
                                {"input": "idx", "dtype": "int64", "shape": [3, 8], "device": "cpu"}]))
    assert main(["check", pkg, "--inputs-json", str(spec), "--json"]) == 1
    r = json.loads(capsys.readouterr().out)
    assert {"ok", "violations", "predicted_assertions"} <= set(r) and r["ok"] is False
    assert {"input", "kind", "detail"} <= set(r["violations"][0])


def test_unchecked_load_from_an_empty_table_is_predicted():
    """ima_gather (assert_indirect_indexing=False) reads x through idx with no check: an empty x is predicted."""
    with inspector.open_package(S / "cpu/ima_gather/package/ima_gather.pt2") as p:
        r = check(p, [parse_spec("0=float32[2,0]"), parse_spec("1=int64[2,3]")])
        (pred,) = r.predicted_assertions
        assert pred["kernel"] == "cpp_fused_add_gather_mul_0" and pred["message"].startswith("unchecked load in_ptr1[")
        assert "input 0 (arg0_1)" in pred["why"] and "dim 1 is 0" in pred["why"]
        assert check(p, [parse_spec("0=float32[2,5]"), parse_spec("1=int64[2,3]")]).ok
    # ima_embedding indexes a constant (never empty): nothing predicted.
    with inspector.open_package(S / "cpu/ima_embedding/package/ima_embedding.pt2") as p:
        assert check(p, [parse_spec("0=int64[1,4]@cpu")]).ok  # batch is static 1 in this export


def test_usage_errors(capsys):
    pkg = str(S / "cpu/jagged/jagged.pt2")
    assert main(["check", pkg, "--input", "0:float32"]) == 2
    assert main(["check", pkg, "--input", "7=float32[1]"]) == 2
    assert main(["check", pkg, "--input", "nosuch=float32[1]"]) == 2
    assert main(["check", pkg]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("pt2-inspect: error:") == 4


def test_evaluate_bound_expressions():
    assert evaluate("ks0 + ks1", {"ks0": 3, "ks1": 0}) == 3
    assert evaluate("ks1*ks2", {"ks1": 0, "ks2": 8}) == 0
    assert evaluate("(-1) + ks0", {"ks0": 0}) == -1
    assert evaluate("64L", {}) == 64
    assert evaluate("ks0", {}) is None
    assert evaluate("__import__('os')", {}) is None


def test_compound_bound_fails_only_when_every_term_is_empty():
    """cat_index: the bound is a.size(0) + b.size(0); one empty input still leaves rows to index."""
    both = _check("cpu/cat_index/cat_index.pt2", "0=float32[0,4]", "1=float32[0,4]", "2=int64[3]")
    assert [p["message"] for p in both.predicted_assertions] == ["index out of bounds: 0 <= tmp7 < ks0 + ks1"]
    assert "ks0 = input 0 dim 0 = 0, ks1 = input 1 dim 0 = 0" in both.predicted_assertions[0]["why"]
    one = _check("cpu/cat_index/cat_index.pt2", "0=float32[0,4]", "1=float32[3,4]", "2=int64[3]")
    assert one.predicted_assertions == [] and [v["kind"] for v in one.violations] == ["range"]


# -- issue 14 §2: never "fit" for inputs that break the package's own guards ------------------------------

_S = S


@pytest.mark.parametrize("name", ["adv_index_2d", "gather_dynamic", "index_put_acc", "scatter_add", "scatter_reduce",
                                   "topk_gather"])
def test_a_dim_without_a_symbol_is_checked_against_its_own_guards(name):
    """CUDA samples whose input has a dim no symbol names (`[?, 4]`: the same size as another input's) are still
    guarded by check_input_K: a 0 there is a violation, never a fit."""
    with inspector.open_package(_S / "cuda" / name / f"{name}.pt2") as pkg:
        m = pkg.index().eager()
        hits = [(i, d) for i in m.inputs for d, w in enumerate(i.shape) if str(w) == "?"]
        assert hits, "the sample has a '?' dim (what this test is about)"
        guarded = [(i, d) for i, d in hits if any(g.dim == d and g.kind == "min" for g in i.guards)]
        assert guarded
        for inp, d in guarded:
            specs = []
            for j in m.inputs:
                shape = [0 if (j is inp and k == d) else 4 for k in range(len(j.shape))]
                specs.append(parse_spec(f"{j.index}={j.dtype}[{','.join(map(str, shape))}]@cuda"))
            r = check(pkg, specs)
            assert not r.ok and any(v["kind"] == "range" and v["input"] == inp.index and f"dim {d} is 0" in v["detail"]
                                    for v in r.violations), r.violations


@pytest.mark.parametrize("dtype", ["torch.int64", "long", "int64"])
def test_torch_spellings_of_a_dtype_are_accepted(dtype):
    assert parse_spec(f"1={dtype}[3]@cpu").dtype == "int64"


def test_an_unknown_dtype_and_a_duplicate_input_are_usage_errors():
    from inspector.queries.check import parse_inputs_json

    with pytest.raises(UsageError, match="unknown dtype 'floaty'"):
        parse_spec("0=floaty[3]")
    with pytest.raises(UsageError, match="given twice"):
        parse_inputs_json('[{"input": 0, "dtype": "float32"}, {"input": 0, "dtype": "float32"}]')
    with inspector.open_package(_S / "cpu" / "jagged" / "jagged.pt2") as pkg, pytest.raises(UsageError, match="twice"):
        check(pkg, [parse_spec("0=float32[10,8]"), parse_spec("arg0_1=float32[10,8]")])


def test_inputs_on_two_gpus_are_a_violation():
    with inspector.open_package(_S / "cuda" / "jagged" / "jagged.pt2") as pkg:
        r = check(pkg, [parse_spec("0=float32[10,8]@cuda:0"), parse_spec("1=int64[3]@cuda:1")])
        assert not r.ok and [v["kind"] for v in r.violations] == ["device"] and "cuda:1" in r.violations[0]["detail"]
        assert check(pkg, [parse_spec("0=float32[10,8]@cuda:1"), parse_spec("1=int64[3]@cuda:1")]).ok


def test_torch_2_6_rank_is_not_claimed():
    """torch 2.6 packages emit no input guards: run_impl reads only dim 0 of a 2-D input, so its rank is unknown;
    check never says 'expects 1 dim', and never says 'fit' without saying what it could not check."""
    with inspector.open_package(_S / "cpu-2.6" / "jagged" / "jagged.pt2") as pkg:
        r = check(pkg, [parse_spec("0=float32[10,8]"), parse_spec("1=int64[3]")])
        assert r.ok and not r.violations and "not checked" in r.verdict and "rank and dtype" in r.verdict
        assert not check(pkg, [parse_spec("0=float32[0,8]"), parse_spec("1=int64[3]")]).ok
