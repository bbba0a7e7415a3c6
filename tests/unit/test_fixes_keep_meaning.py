"""Issue 35 §5 (first two items), on real runs: a float mask where a bool one was compiled (torch 2.13 CPU, the input
check's own message: sample_packages/harvest/issue35_branches/build.py), and dims that must share a symbol (HF
Llama's attention mask, torch 2.11 CUDA: issue34_gpu)."""

import json
from pathlib import Path

import pytest

from tests._cli import run

H = Path(__file__).resolve().parents[2] / "sample_packages" / "harvest"


@pytest.mark.parametrize("name", ["mask_keep_true_cpu", "mask_keep_false_cpu"])
@pytest.mark.parametrize("log", ["float01_checked.log", "additive_checked.log"])
def test_float_mask_fix_keeps_both_readings(capsys, name, log):
    d = H / "issue35_branches" / name
    rc, out, _ = run(capsys, ["diagnose", d / f"{name}.pt2", "--log", d / "logs" / log, "--json"])
    ic = json.loads(out)["input_check"]
    assert (ic["kind"], ic["expected"], ic["got"]) == ("dtype", "bool", "float32")
    assert "mask.to(torch.bool)" in ic["fix"] and "mask == 0" in ic["fix"] and "mask != 0" in ic["fix"]
    assert "not .to(torch.bool)" in ic["fix"]  # the additive reading is named: .to(bool) would invert it


def test_check_float_mask_names_the_additive_reading(capsys):
    d = H / "issue35_branches" / "mask_keep_true_cpu"
    rc, out, _ = run(capsys, ["check", d / "mask_keep_true_cpu.pt2", "--input", "0=float32[2,8,16]",
                              "--input", "1=float32[2,8,8]", "--json"])
    v = json.loads(out)["violations"]
    assert v[0]["kind"] == "dtype" and "mask == 0" in v[0]["detail"]


def test_shared_dims_fix_says_which_dims_to_pass_equal(capsys):
    d = H / "issue34_gpu" / "llama_shared_dim"
    rc, out, _ = run(capsys, ["check", d / "llama_shared_dim.pt2", "--input", "0=int64[2,16]@cuda",
                              "--input", "1=int64[2,24]@cuda", "--json"])
    v = [x for x in json.loads(out)["violations"] if x["kind"] == "shared"][0]
    assert v["must_equal"] == [{"input": 0, "dim": 1}] and v["size"] == 16
    assert "input 1 dim 1 and input 0 dim 1 are both" in v["fix"] and "pass them equal" in v["fix"]
