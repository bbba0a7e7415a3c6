"""Issue 35 §5 (first two items), on real runs: a float mask where a bool one was compiled (torch 2.13 CPU, the input
check's own message: sample_packages/harvest/issue35_branches/build.py), and dims that must share a symbol (HF
Llama's attention mask, torch 2.11 CUDA: issue34_gpu)."""

import json
from pathlib import Path

import pytest

from tests._cli import run

H = Path(__file__).resolve().parents[2] / "sample_packages" / "harvest"


@pytest.mark.parametrize("name,keeps,additive", [("mask_keep_true_cpu", "true", "mask == 0"),
                                                ("mask_keep_false_cpu", "false", "mask != 0")])
@pytest.mark.parametrize("log", ["float01_checked.log", "additive_checked.log"])
def test_float_mask_fix_follows_how_the_kernel_reads_it(capsys, name, keeps, additive, log):
    """masked_fill(~mask, -inf) keeps where True: an additive mask is `mask == 0` (its .to(bool) inverts it);
    masked_fill(mask, -inf) masks where True: `mask != 0`.  A 0/1 mask is .to(torch.bool) either way."""
    d = H / "issue35_branches" / name
    rc, out, _ = run(capsys, ["diagnose", d / f"{name}.pt2", "--log", d / "logs" / log, "--json"])
    ic = json.loads(out)["input_check"]
    assert (ic["kind"], ic["expected"], ic["got"]) == ("dtype", "bool", "float32")
    assert ic["mask_keeps"] == keeps and ic["mask_kernel"].startswith("cpp_fused__softmax")
    assert "mask.to(torch.bool)" in ic["fix"] and f"additive 0/-inf mask: {additive}" in ic["fix"]
    assert ("inverts it" in ic["fix"]) == (keeps == "true")


def test_mask_use_reads_a_triton_select():
    """Inductor's Triton form of masked_fill(~mask, -inf): `tmp1 = tmp0 == 0`, `tl.where(tmp1, tmp3, tmp2)`
    (crafted from that grammar: no GPU package here takes a bool mask)."""
    from types import SimpleNamespace as NS

    from inspector.parse.mask_use import mask_use

    tmps = [NS(name="tmp0", expr="tl.load(in_ptr0 + (x0), xmask).to(tl.int1)", line=20),
            NS(name="tmp2", expr="tl.load(in_ptr1 + (x0), xmask)", line=21),
            NS(name="tmp1", expr="tmp0 == 0", line=22),
            NS(name="tmp3", expr='float("-inf")', line=23),
            NS(name="tmp4", expr="tl.where(tmp1, tmp3, tmp2)", line=24)]
    use = mask_use(NS(name="triton_poi_fused_masked_fill_0", tmps=tmps), "in_ptr0")
    assert (use.keeps, use.line, use.fill) == ("true", 24, "-inf")
    tmps[4] = NS(name="tmp4", expr="tl.where(tmp0, tmp3, tmp2)", line=24)
    assert mask_use(NS(name="k", tmps=tmps), "in_ptr0").keeps == "false"


def test_check_float_mask_names_the_additive_reading(capsys):
    d = H / "issue35_branches" / "mask_keep_true_cpu"
    rc, out, _ = run(capsys, ["check", d / "mask_keep_true_cpu.pt2", "--input", "0=float32[2,8,16]",
                              "--input", "1=float32[2,8,8]", "--json"])
    v = json.loads(out)["violations"]
    assert v[0]["kind"] == "dtype" and "mask == 0" in v[0]["detail"] and "keeps the value where the mask is True" in v[0]["detail"]


def test_shared_dims_fix_says_which_dims_to_pass_equal(capsys):
    d = H / "issue34_gpu" / "llama_shared_dim"
    rc, out, _ = run(capsys, ["check", d / "llama_shared_dim.pt2", "--input", "0=int64[2,16]@cuda",
                              "--input", "1=int64[2,24]@cuda", "--json"])
    v = [x for x in json.loads(out)["violations"] if x["kind"] == "shared"][0]
    assert v["must_equal"] == [{"input": 0, "dim": 1}] and v["size"] == 16
    assert "input 1 dim 1 and input 0 dim 1 are both" in v["fix"] and "pass them equal" in v["fix"]
