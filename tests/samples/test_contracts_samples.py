"""Issue 34 §2 and §4 on real packages from library code: what the runtime checks do not enforce.  `check`'s
prediction is held to what the real run did (its log and index.json, recorded when the package was built):

- a shared `Dim` the wrapper reads into no symbol (HF Llama's attention mask, torch 2.11 CUDA; torch 2.13 / 2.14.1
  CPU state it with assert_size_stride) and wav2vec2's lengths (its dim 0 is the waveforms' batch);
- a dim the package computes from its size (timm ViT with dynamic_img_size: 16L*s45, a multiple of the patch;
  wav2vec2's time, a multiple of 10): the model sees another tensor, silently;
- custom ops through the proxy executor (torchvision::roi_align, torchvision::nms): their arguments, the inputs
  that reach each, and the value contracts nothing checks (rois[:, 0] < images.size(0))."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import inspector
from inspector.queries.check import check, parse_spec
from inspector.queries.op_calls import op_calls
from inspector.queries.shared_dims import dim_contracts, read_as

ROOT = Path(__file__).resolve().parents[2]
H = ROOT / "sample_packages" / "harvest"
GPU_LLAMA = H / "issue34_gpu" / "llama_shared_dim"
CPU214 = H / "contracts_cpu214"
CPU213 = H / "contracts_cpu213"


def _check(pt2: Path, *specs: str):
    with inspector.open_package(pt2) as pkg:
        return check(pkg, [parse_spec(s) for s in specs])


def _run(folder: Path, scenario: str, checked: bool) -> tuple[dict, str]:
    doc = json.loads((folder / "index.json").read_text())
    run = next(r for r in doc["runs"] if r["scenario"] == scenario and bool(r.get("env")) == checked)
    return run, (folder / run["log"]).read_text()


def _diff(log: str, what: str) -> float:
    """``max |aoti - eager|`` on the log line that starts with ``what``."""
    line = next(x for x in log.splitlines() if x.startswith(what))
    return float(re.search(r"max \|aoti - eager\| (\S+)", line).group(1))


# -- a shared Dim the wrapper reads into no symbol (torch 2.11 CUDA) ----------------------------------------------

def test_cuda_llama_mask_dims_are_read_as_the_ids_sizes():
    """Both mask dims are range-checked only; the kernel indexes the mask with the ids' batch and sequence."""
    with inspector.open_package(GPU_LLAMA / "llama_shared_dim.pt2") as pkg:
        got = {(r.input, r.dim): r.owners for r in read_as(pkg, "model")}
        shown = dim_contracts(pkg, "model")
    assert got == {(1, 0): [(0, 0)], (1, 1): [(0, 1)]}
    assert {(c["input"], c["dim"]) for c in shown if c["kind"] == "shared"} == {(1, 0), (1, 1)}


def test_cuda_llama_short_mask_is_no_fit_and_the_run_was_silent():
    res = _check(GPU_LLAMA / "llama_shared_dim.pt2", "0=int64[2,16]@cuda", "1=int64[2,8]@cuda")
    shared = [v for v in res.violations if v["kind"] == "shared"]
    assert not res.ok and shared and "input 0 dim 1" in shared[0]["detail"] and "no runtime check" in shared[0]["detail"]
    run, _ = _run(GPU_LLAMA, "short_mask", False)
    assert run["rc"] == 0  # what check says before the run: no error, wrong numbers


def test_cuda_llama_longer_mask_in_range_is_a_violation_no_guard_sees():
    """A mask [2,24] is inside its guards' range (16..128): only the kernels' reading says it is wrong."""
    res = _check(GPU_LLAMA / "llama_shared_dim.pt2", "0=int64[2,16]@cuda", "1=int64[2,24]@cuda")
    assert [v["kind"] for v in res.violations] == ["shared"]
    assert "AOTI_RUNTIME_CHECK_INPUTS=1 included" in res.violations[0]["detail"]


def test_cuda_llama_matching_mask_fits():
    assert _check(GPU_LLAMA / "llama_shared_dim.pt2", "0=int64[2,16]@cuda", "1=int64[2,16]@cuda").ok


def test_cuda_scatter_add_src_follows_the_index_length():
    """sample_packages/cuda/scatter_add (torch 2.11): src [n, 4] shares `n` with the keys; the wrapper reads it into no
    symbol.  src [4, 4] with 20 keys reads past src's end."""
    res = _check(ROOT / "sample_packages/cuda/scatter_add/scatter_add.pt2", "0=float32[16,4]@cuda", "1=int64[20]@cuda",
                 "2=float32[4,4]@cuda")
    assert [v["kind"] for v in res.violations] == ["shared"] and "s23 = 20" in res.violations[0]["detail"]


def test_cpu_scatter_add_fits_with_the_example_and_not_with_a_short_src():
    """torch 2.8 CPU: one kernel reuses `x0` in two loop nests (4*ks0 and ks1): each access is read with the loops
    around it (read with the other nest's bound, the example's src [20, 4] was said to be read past its end)."""
    pt2 = ROOT / "sample_packages/cpu-2.8/scatter_add/scatter_add.pt2"
    assert _check(pt2, "0=float32[16,4]", "1=int64[20]", "2=float32[20,4]").ok
    assert [v["kind"] for v in _check(pt2, "0=float32[16,4]", "1=int64[20]", "2=float32[4,4]").violations] == ["shared"]


# -- a shared Dim the wrapper states (torch 2.13 / 2.14.1 CPU: assert_size_stride, only with the checks on) ---------

@pytest.mark.parametrize("folder", [CPU214 / "llama_shared_mask", CPU213 / "llama_shared_mask"], ids=["2.14.1", "2.13"])
def test_cpu_llama_short_mask(folder):
    res = _check(folder / "llama_shared_mask.pt2", "0=int64[2,16]", "1=int64[2,12]")
    v = next(v for v in res.violations if v["kind"] == "equal")
    assert "AOTI_RUNTIME_CHECK_INPUTS=1 stops it" in v["detail"] and "wrong numbers with no error" in v["detail"]
    plain, log = _run(folder, "mask_short", False)
    assert plain["rc"] == 0 and _diff(log, "eager on the intended") > 1e-2  # silently wrong
    checked, log = _run(folder, "mask_short", True)
    assert checked["rc"] != 0 and "expected size 12==16" in log  # stopped, as check says


def test_wav2vec2_lengths_follow_the_batch():
    res = _check(CPU214 / "wav2vec2_lengths/wav2vec2_lengths.pt2", "0=float32[3,1600]", "1=int64[2]")
    assert [v["kind"] for v in res.violations] == ["equal"] and "input 0 dim 0" in res.violations[0]["detail"]
    plain, _ = _run(CPU214 / "wav2vec2_lengths", "lengths_short", False)
    assert plain["rc"] == 0


# -- a dim the package computes from its size ------------------------------------------------------------------------

def test_vit_height_100_is_read_as_96():
    res = _check(CPU214 / "vit_dynamic_size/vit_dynamic_size.pt2", "0=float32[2,3,100,64]")
    v = res.violations[0]
    assert v["kind"] == "divisible" and "not a multiple of 16" in v["detail"] and "[2, 3, 96, 64]" in v["detail"]
    plain, log = _run(CPU214 / "vit_dynamic_size", "height_100", False)
    assert plain["rc"] == 0
    assert _diff(log, "eager on its memory read as [2, 3, 96, 64]") < 1e-5  # what check says the model sees
    assert _diff(log, "eager on the cut image") > 1e-3  # not the image cut to 96 rows
    checked, log = _run(CPU214 / "vit_dynamic_size", "height_100", True)
    assert checked["rc"] != 0 and "expected size 100==96" in log
    assert _check(CPU214 / "vit_dynamic_size/vit_dynamic_size.pt2", "0=float32[2,3,96,64]").ok


def test_vit_show_says_a_multiple_of_the_patch():
    with inspector.open_package(CPU214 / "vit_dynamic_size/vit_dynamic_size.pt2") as pkg:
        got = [(c["dim"], c["multiple_of"]) for c in dim_contracts(pkg, "model") if c["kind"] == "derived"]
    assert got == [(2, 16), (3, 16)]


def test_wav2vec2_time_is_a_multiple_of_ten():
    res = _check(CPU214 / "wav2vec2_lengths/wav2vec2_lengths.pt2", "0=float32[2,1605]", "1=int64[2]")
    assert [v["kind"] for v in res.violations] == ["divisible"] and "not a multiple of 10" in res.violations[0]["detail"]
    _, log = _run(CPU214 / "wav2vec2_lengths", "time_1605", False)
    assert _diff(log, "eager on its memory read as [2, 1600]") < 1e-4


# -- custom ops: arguments, the inputs that reach them, value contracts ------------------------------------------

def test_roi_align_arguments_and_the_inputs_that_reach_them():
    with inspector.open_package(CPU214 / "roi_head/roi_head.pt2") as pkg:
        calls = {c.op: c for c in op_calls(pkg, "model")}
    ra = calls["torchvision::roi_align"]
    assert [a.name for a in ra.args] == ["input", "rois", "spatial_scale", "pooled_height", "pooled_width",
                                         "sampling_ratio", "aligned"]
    assert ra.arg("rois").direct and [i.index for i in ra.arg("rois").inputs] == [1]
    assert not ra.arg("input").direct and [i.index for i in ra.arg("input").inputs] == [0]
    assert (ra.arg("pooled_height").value, ra.arg("spatial_scale").value) == ("4", "0.5")
    assert [u.condition for u in ra.unchecked][0] == "0 <= rois[:, 0] < input.size(0)"
    nms = calls["torchvision::nms"]
    assert [a.name for a in nms.args][:2] == ["dets", "scores"]
    assert {i.index for i in nms.arg("dets").inputs} == {0, 1}  # boxes from the rois and the head's output


def test_roi_head_check_says_the_batch_index_contract_and_the_runs_break_it():
    res = _check(CPU214 / "roi_head/roi_head.pt2", "0=float32[2,3,32,32]", "1=float32[6,5]")
    assert res.ok and res.certainty == "likely" and "torchvision::roi_align" in res.verdict
    note = next(n for n in res.notes if "rois[:, 0] < input.size(0)" in n)
    assert "rois = input 1 (arg5_1)" in note and "input 0 (arg4_1)" in note and "nothing checks it" in note
    for checked in (False, True):  # AOTI_RUNTIME_CHECK_INPUTS=1 does not see it either
        run, log = _run(CPU214 / "roi_head", "batch_index_b", checked)
        assert run["rc"] == 0
        got = re.search(r"^boxes .* scores (\[.*?\])", log, re.M).group(1)
        want = re.search(r"good run's scores: (\[.*?\])", log).group(1)
        assert got != want  # a wrong answer, no error
        run, _ = _run(CPU214 / "roi_head", "batch_index_1e6", checked)
        assert run["rc"] == -11  # the crash check's note names
