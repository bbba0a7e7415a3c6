"""`show` says what the package knows where main printed ``?`` (issue 34 §6): an input's unchecked strides and its
range-only dims, on real library packages (torch 2.11 CUDA: Hugging Face Llama, BERT, GPT-2; the lead's issue 34
runs), each of which main showed as ``[?, 1]`` or ``[?, s75]``."""

from __future__ import annotations

import json

import jsonschema

import inspector
from inspector.queries.layout import dense_strides
from inspector.queries.show import summarize
from inspector.parse.exported_program import annotate_summary
from inspector.render.show import render_summary
from rich.console import Console

from _paths import ROOT, S


def _inputs(path):
    with inspector.open_package(path) as pkg:
        s = summarize(pkg)
        annotate_summary(pkg, s)
    jsonschema.validate(s.to_dict(), json.loads((ROOT / "inspector/schemas/show.schema.json").read_text()))
    return s, {i.name: i for i in s.models[0].inputs}


def test_library_packages_show_the_stride_the_kernels_assume():
    cases = {  # package -> input: (shape, stride) main showed as (…, ["?", 1])
        "cuda/hf_llama/hf_llama.pt2": ("arg22_1", ["s72", "s70"], ["s70", 1]),
        "cuda/hf_roberta/hf_roberta.pt2": ("arg41_1", ["s72", "s70"], ["s70", 1]),
        "harvest/memory/bert_dynamic/bert_dynamic.pt2": ("arg201_1", ["s72", "s70"], ["s70", 1]),
        "harvest/hf_ctx/gpt2_positions_cuda/gpt2_positions_cuda.pt2": ("arg29_1", [2, "s70"], ["s70", 1]),
    }
    for path, (name, shape, stride) in cases.items():
        _, ins = _inputs(S / path)
        i = ins[name]
        assert (i.shape, i.stride) == (shape, stride), path
        assert i.stride_unchecked == [0] and i.layout_from == "dense", path  # said: nothing checks it at run time


def test_the_exported_program_says_a_dim_the_wrapper_only_range_checks():
    # gather_dynamic's idx shares x's batch Dim: torch 2.11 reads it into no symbol (main: ['?', 's75'], ['?', 1])
    _, ins = _inputs(S / "cuda/gather_dynamic/gather_dynamic.pt2")
    assert ins["arg1_1"].shape == ["s77", "s75"] and ins["arg1_1"].stride == ["s75", 1]
    assert ins["arg1_1"].layout_from == "exported program"


def test_without_a_program_a_range_only_dim_is_its_range_and_an_unknown_stride_stays_unknown():
    # Llama's attention mask shares the ids' Dims (issue 34 §4): the wrapper reads neither dim; the stride of dim 0
    # is dim 1's size, which nothing says
    _, ins = _inputs(S / "harvest/issue34_gpu/llama_shared_dim/llama_shared_dim.pt2")
    m = ins["arg24_1"]
    assert m.shape == ["2..64", "16..128"] and m.stride == ["?", 1] and m.layout_from is None


def test_the_terminal_marks_the_unchecked_stride():
    s, _ = _inputs(S / "cuda/hf_llama/hf_llama.pt2")
    c = Console(width=200, record=True, color_system=None)
    render_summary(c, s)
    out = c.export_text()
    assert "[s70*, 1]" in out and "a stride the package checks nowhere" in out
    assert "the only dense layout its checked" in " ".join(out.split())


def test_dense_layouts():
    assert dense_strides(["s77", 3, 224, 224], ["?", 50176, 224, 1]) == ([150528, 50176, 224, 1], "dense")
    # ViT's [?, ?, ?, 1]: several orders of the outer dims fit; the row-major one, said as assumed
    assert dense_strides(["s77", 3, "16L*s45", "16L*s84"], ["?", "?", "?", 1]) == (
        ["768*s45*s84", "256*s45*s84", "16*s84", 1], "row-major assumed")
    # channels-last checks pin the order
    assert dense_strides(["s0", 3, "s1", "s2"], ["?", 1, "?", 3]) == (["3*s1*s2", 1, "3*s2", 3], "row-major assumed")
    assert dense_strides(["s0", "s1"], [1, "?"]) == ([1, "s0"], "dense")  # a transposed input
    assert dense_strides(["?", "s1"], ["?", 1]) == (["s1", 1], "dense")  # dim 0's size is not needed
    assert dense_strides(["s0", "?"], ["?", 1]) is None  # it is
