"""doctor's memory estimate on library models (issue 34 §5) against what their runs really held.

The truths: sample_packages/harvest/memory_cpu213/*/measure.json, measured on this machine (torch 2.13 CPU) by
build_and_measure.py there: in a fresh process per model, after a warm-up run, the resident-size high-water mark
(VmHWM, reset through /proc/self/clear_refs) above the resident size before the run, with glibc serving every
block of 64 KiB or more by its own mmap and giving it back at free (so resident memory follows the tensors alive).
A run under 1 MiB is left out (pages and the heap's small blocks are its noise); the ±15 % is held on each size's
second run of 2 MiB or more (the first run at a new size also grows the heap: up to +20 % at 2 MiB), the upper
bound, where there is one, on every run.  The same packages gave, on main,
0.005 to 0.04 of the truth for wav2vec2 (its conv lengths: `c10::div_floor_integer(s27, 5L)`, cut in two at the
comma) and 0.01 to 0.04 for the ViT (`s45 = (1.0/16.0)*arg32_1_size_2`, a symbol from a dim / 16, and the
convolution's and attention's outputs unsized)."""

from __future__ import annotations

import json

import pytest

import inspector
from inspector.queries.check import parse_spec
from inspector.queries.doctor import doctor
from inspector.queries.memory import memory_plan, symbol_values

from _paths import S

H = S / "harvest/memory_cpu213"
MiB = 1 << 20
MODELS = ["bert_pool", "gpt2", "llama", "vit", "wav2vec2"]
# ±15 % on the tensors the wrapper allocates; wav2vec2's CPU convolution holds a workspace of its own besides
# (13-19 MiB over a 12.5 MiB output, eager too), so its figure is a floor and its upper bound must hold instead
WITHIN = {"bert_pool": 0.15, "gpt2": 0.15, "llama": 0.15, "vit": 0.15}


def _specs(name, size):
    if name in ("vit", "wav2vec2"):
        return [parse_spec(f"0=float32[{','.join(map(str, size))}]")]
    one = f"[{','.join(map(str, size))}]"
    return [parse_spec(f"0=int64{one}")] + ([parse_spec(f"1=int64{one}")] if name == "bert_pool" else [])


def _runs(name):
    doc = json.loads((H / name / "measure.json").read_text())
    assert "VmHWM" in doc["how"]
    return [r for r in doc["runs"] if r["peak_over_before"] >= MiB]


def _estimate(name, size):
    with inspector.open_package(H / name / f"{name}.pt2") as pkg:
        plan = memory_plan(pkg)
        values = symbol_values(pkg.index().eager(), _specs(name, size))
        return plan, plan.estimate({s: values.get(s, 64) for s in plan.symbols})


@pytest.mark.parametrize("name", MODELS)
def test_the_estimate_lands_on_the_measured_peak_or_bounds_it(name):
    runs = _runs(name)
    assert len(runs) >= 3, "two sizes of a MiB or more, twice each"
    held = 0
    for r in runs:
        plan, e = _estimate(name, r["size"])
        assert e.estimable and not e.steady.unknown and not plan.unsized, (name, r["size"], e.steady.unknown)
        ratio = e.steady.bytes / r["peak_over_before"]
        if name in WITHIN and (r["attempt"] == 1 or r["peak_over_before"] < 2 * MiB):
            pass
        elif name in WITHIN:
            assert abs(ratio - 1) <= WITHIN[name], (name, r["size"], e.steady.bytes, r["peak_over_before"])
            held += 1
        else:
            assert ratio <= 1 and e.upper is not None and r["peak_over_before"] <= e.upper, (name, r["size"], ratio)
        if e.upper is not None:
            assert r["peak_over_before"] <= e.upper, (name, r["size"], e.upper, r["peak_over_before"])
    assert held or name not in WITHIN


def test_the_estimate_grows_with_the_size():
    # main's wav2vec2 figure was the same 64.5 KiB at every size (the "65 KiB at every size")
    small = _estimate("wav2vec2", [4, 16000])[1].steady.bytes
    big = _estimate("wav2vec2", [8, 64000])[1].steady.bytes
    assert big > 7 * small > 0


def test_conv_lengths_are_evaluated():
    # `(-1L) + (c10::div_floor_integer(static_cast<int64_t>(s27), static_cast<int64_t>(5L)))`: one size, not two
    with inspector.open_package(H / "wav2vec2/wav2vec2.pt2") as pkg:
        plan = memory_plan(pkg)
    a = next(x for x in plan.allocations if x.buffer == "buf6")
    assert len(a.sizes) == 3 and a.elements({"s77": 8, "s27": 64000}) == 8 * 32 * 12799


def test_a_symbol_derived_from_a_dim_by_a_float_is_computed():
    # `int64_t s45 = (1.0/16.0)*arg32_1_size_2;` (timm's patch grid): H = 224 gives 14 patches
    with inspector.open_package(H / "vit/vit.pt2") as pkg:
        plan = memory_plan(pkg)
        v = plan.derived(symbol_values(pkg.index().eager(), _specs("vit", [8, 3, 224, 224])))
    assert v["s45"] == 14 and v["s84"] == 14 and v["s77"] == 8


def test_extern_outputs_are_sized_by_the_package_s_own_checks():
    with inspector.open_package(H / "vit/vit.pt2") as pkg:
        plan = memory_plan(pkg)
    conv = next(a for a in plan.allocations if a.buffer == "buf2")
    assert conv.kind == "checked" and [str(s) for s in conv.sizes] == ["s77", "192L", "s45", "s84"]
    lse = next(a for a in plan.allocations if a.buffer == "buf19")  # the flash attention's logsumexp, by contract
    assert lse.dtype == "float32" and lse.elements({"s77": 2, "s45": 4, "s84": 4}) == 2 * 3 * 17


def test_a_custom_op_makes_the_figure_a_floor_and_says_why():
    # timm's ViT resizes its position embedding through the proxy executor (_upsample_bicubic2d_aa); the roi_align
    # head (torchvision, built on the H200) calls roi_align and nms there: their own buffers are inside the op
    with inspector.open_package(H / "vit/vit.pt2") as pkg:
        f = next(x for x in doctor(pkg, inputs=_specs("vit", [8, 3, 224, 224])).findings if x.kind == "memory")
    assert "no upper bound: 1 custom op call (proxy executor" in f.message and "at least" in f.message
    roi = S / "harvest/issue34_memory/roi_align_head/roi_align_head.pt2"
    with inspector.open_package(roi) as pkg:
        r = doctor(pkg, inputs=[parse_spec("0=float32[8,3,32,32]"), parse_spec("1=float32[1024,5]")])
        plan = memory_plan(pkg)
    f = next(x for x in r.findings if x.kind == "memory")
    assert "2 custom op calls" in f.message and "1 extern op outputs nothing in the package sizes" in f.message
    reading = r.readings["model"]["memory"]
    assert reading["upper_bytes"] is None and ["unsized", "buf10"] in reading["not_counted"]  # nms: data-dependent
    out = next(a for a in plan.allocations if a.buffer == "buf4")  # roi_align's [K, 16, 7, 7], read through a view
    assert out.kind == "viewed" and out.elements({"s65": 1024}) == 1024 * 784


def test_the_cpu_figures_are_not_rounded_to_cuda_blocks():
    # the CPU allocator's bytes are the tensors' own; BERT [64,128] lands on the measured peak within 0.3 %
    plan, e = _estimate("bert_pool", [64, 128])
    assert plan.round == 1 and e.steady.bytes == 23134208
