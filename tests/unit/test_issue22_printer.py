"""The intermediate value printer (level 2) on a real recommender (issue 22 §1): torch 2.13 CPU, several addmm
calls and a fused masked mean written through a view at offset 32 into the cat buffer, 0/0 for a user with no
history (sample_packages/harvest/issue22_cpu213/recommender_printer2, built by build_recommender.py; its runs'
logs are real).  Each printed block is mapped to its call by its position in run_impl's launch sequence; the
evidence is the block that proves the verdict; exactly one call's FX nodes and user line are named."""

from __future__ import annotations

import json

import pytest

import inspector
from inspector.cli import main
from inspector.logs import parse_log
from inspector import diagnose

from _paths import ROOT, S

R = S / "harvest/issue22_cpu213/recommender_printer2"
PKG = R / "recommender_printer2.pt2"


def _log(name: str) -> str:
    return (R / "logs" / f"{name}.log").read_text()


def _line_of(needle: str) -> int:
    """The wrapper line of the one run_impl statement holding ``needle``."""
    with inspector.open_package(PKG) as p:
        lines = p.index().wmap.lines
    hits = [i + 1 for i, s in enumerate(lines) if needle in s and not s.strip().startswith("aoti_torch_print")]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def test_launches_are_counted_per_kernel_not_per_argument():
    blocks = parse_log(_log("good")).printer_blocks
    addmm = [b for b in blocks if b.kernel == "aoti_torch_cpu_addmm_out" and b.when == "before_launch"]
    # 5 addmm launches; the 3rd and 4th are back to back (launches 5 and 6 of the log)
    assert sorted({b.call for b in addmm}) == [1, 2, 3, 4, 5]
    assert {(b.call, b.launch) for b in addmm} == {(1, 1), (2, 3), (3, 5), (4, 6), (5, 8)}
    assert all(b.lines[0].startswith("[  ") for b in blocks)


def test_the_first_nan_is_the_masked_mean_written_through_a_view():
    with inspector.open_package(PKG) as pkg:
        d = diagnose(pkg, _log("no_history"))
    pf = d.printer
    assert d.category == "printer" and pf.kind == "nan" and pf.what == "NaN"
    assert pf.call.kernel == "cpp_fused_div_mul_sum_unsqueeze_0" and pf.call.launch == 2
    assert pf.call.wrapper_line == _line_of("cpp_fused_div_mul_sum_unsqueeze_0((const float*)")
    assert pf.arg == "buf3" and pf.view_of == "buf4 at offset 32"  # the view, not the buffer it views
    assert pf.call.nodes and set(pf.call.nodes) <= {"sum_1", "sum_2", "unsqueeze", "mul_6", "div"}
    assert pf.call.frames and "hist_mean = (hist * m).sum(1) / m.sum(1)" in pf.call.frames[0]
    ev = [e.quote for e in d.evidence]
    assert ev[0] == "[  after_launch - cpp_fused_div_mul_sum_unsqueeze_0 - buf3  ]:"
    assert "Mean value: -nan" in ev and not any("aoti_model_inputs" in e for e in ev)
    assert "aoti_torch_cpu_addmm_out" not in d.verdict and "hist_mean" in d.verdict


def test_against_a_good_run_the_fourth_addmm_is_named_by_position():
    with inspector.open_package(PKG) as pkg:
        d = diagnose(pkg, _log("item_weights"), against=_log("good"))
    pf = d.printer
    assert pf.kind == "diff" and pf.input_differs is None  # the same inputs: only the item tower's weight differs
    c = pf.call
    assert (c.kernel, c.call, c.calls, c.launch) == ("aoti_torch_cpu_addmm_out", 4, 5, 6)
    assert c.wrapper_line == _line_of("aoti_torch_cpu_addmm_out(buf8, item_bias, arg11_1")
    assert c.nodes == ["addmm_1"]  # this call's only (before: the FX nodes of every addmm call)
    assert len(c.frames) >= 1 and "it = self.item(item_feat)" in c.frames[0]
    ev = [e.quote for e in d.evidence]
    assert ev[:2] == ["[  after_launch - aoti_torch_cpu_addmm_out - buf8  ]:", "Mean value: 3.17401"]
    assert "(good run) Mean value: 0.030287" in ev
    assert f"line {c.wrapper_line}" in d.verdict and "self.item(item_feat)" in d.verdict


def test_against_a_good_run_with_another_input_says_the_inputs_differ():
    with inspector.open_package(PKG) as pkg:
        d = diagnose(pkg, _log("item_scaled"), against=_log("good"))
    pf = d.printer
    assert pf.kind == "diff" and pf.call.call == 4 and pf.input_differs.arg == "arg11_1"
    assert "the runs' inputs differ too: arg11_1" in d.verdict
    assert "[  aoti_model_inputs - arg11_1  ]:" in [e.quote for e in d.evidence]


def test_the_same_answer_from_the_index_cache(cache_dir, capsys):
    # a call read back from the index cache keeps its line, not its text: the position check reads the wrapper
    docs = []
    for _ in range(2):
        assert main(["diagnose", str(PKG), "--log", str(R / "logs/item_weights.log"),
                     "--against", str(R / "logs/good.log"), "--json"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    assert docs[0] == docs[1] and docs[0]["printer"]["call"]["wrapper_line"] is not None


@pytest.mark.parametrize("scenario", ["no_history", "item_weights"])
def test_the_json_validates(scenario, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "inspector/schemas/diagnose.schema.json").read_text())
    args = ["diagnose", str(PKG), "--log", str(R / f"logs/{scenario}.log"), "--json"]
    if scenario != "no_history":
        args += ["--against", str(R / "logs/good.log")]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert doc["printer"]["call"]["frames"]


def test_a_call_read_back_from_the_index_cache_keeps_its_text(cache_dir, capsys):
    # the same class on another rule: an unbacked symbol's origin (`aoti_torch_item_int32(…, &u0_raw)`) was found
    # cold and lost warm, because the cached calls kept no statement text
    h = S / "harvest/aoti_tests_cpu213/test_stride_with_unbacked_expr"
    verdicts = []
    for _ in range(2):
        main(["diagnose", str(h / "test_stride_with_unbacked_expr.pt2"), "--log", str(h / "logs/bad_u0.log"), "--json"])
        verdicts.append(json.loads(capsys.readouterr().out)["verdict"])
    assert verdicts[0] == verdicts[1] and "u0 is a data-dependent size" in verdicts[1]
