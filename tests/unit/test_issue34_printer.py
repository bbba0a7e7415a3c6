"""The intermediate value printer (level 2) on real recommender runs whose tensors torch printed in full (issue 34
§1): a DLRM-style model built on torch 2.13 CPU and torch 2.14.1 (sample_packages/harvest/issue34_printer,
build_recsys.py; its logs are real).  Batch 2, so most blocks carry their values in torch's C++ layout: wide
tensors in `Columns a to b` chunks apart by blank lines, a chunk header run into its first row or its scale
(`Columns 1 to 100.001 *`), NaN as `-nan`.  The masked mean's fused kernel writes the second half of the cat
buffer through a view (`auto buf6 = …reinterpret_tensor_wrapper(buf7, 2, …, 32L);  // alias`); the addmm after it
reads buf7.  Each layout rule is also checked on a crafted line."""

from __future__ import annotations

import json
import math

import pytest

import inspector
from inspector import diagnose
from inspector.cli import main
from inspector.logs import parse_log

from _paths import ROOT, S

H = S / "harvest/issue34_printer"
BUILDS = ["recsys_printer2_cpu213", "recsys_printer2_cpu2141"]


def _pkg(name):
    return H / name / f"{name}.pt2"


def _log(name, scen) -> str:
    return (H / name / "logs" / f"{scen}.log").read_text()


def _first_nan_a_person_sees(text: str) -> int:
    """The header line of the first after_launch block whose printed text shows a NaN, read as a person reads it:
    from its header to the next header."""
    lines = text.splitlines()
    heads = [i for i, x in enumerate(lines) if x.startswith("[  ")] + [len(lines)]
    for a, b in zip(heads, heads[1:]):
        if "after_launch" in lines[a] and any("nan" in x for x in lines[a + 1:b]):
            return a + 1
    raise AssertionError("no NaN")


def _wrapper_line(name, needle) -> int:
    with inspector.open_package(_pkg(name)) as p:
        lines = p.index().wmap.lines
    hits = [i + 1 for i, s in enumerate(lines) if needle in s and "aoti_torch_print" not in s]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


@pytest.mark.parametrize("name", BUILDS)
def test_the_first_nan_is_the_fused_kernels_write_through_the_view(name):
    text = _log(name, "no_history")
    with inspector.open_package(_pkg(name)) as pkg:
        d = diagnose(pkg, text)
    pf = d.printer
    assert pf.kind == "nan" and pf.block.line_no == _first_nan_a_person_sees(text)
    assert pf.call.kernel == "cpp_fused__to_copy_div_embedding_mul_sum_unsqueeze_0" and pf.call.launch == 3
    assert pf.call.wrapper_line == _wrapper_line(name, "cpp_fused__to_copy_div_embedding_mul_sum_unsqueeze_0((const")
    assert pf.arg == "buf6" and pf.view_of == "buf7 at offset 32"  # the view the kernel wrote, into the cat buffer
    assert pf.certainty == "certain" and d.certainty == "certain" and not pf.reads_only
    assert pf.bad_rows == [1]  # the user with no history
    assert "aoti_torch_cpu_addmm_out" not in d.verdict and "(NaN in row 1 of 2)" in d.verdict
    assert "hist_mean = (self.item_emb(hist_ids) * m).sum(1) / m.sum(1)" in d.verdict


@pytest.mark.parametrize("name", BUILDS)
def test_against_good_the_divergence_is_the_mlp_layer_printed_wide(name):
    with inspector.open_package(_pkg(name)) as pkg:
        d = diagnose(pkg, _log(name, "mlp_weights"), against=_log(name, "good"))
    pf = d.printer
    c = pf.call
    assert pf.kind == "diff" and pf.input_differs is None
    assert (c.kernel, c.call, c.calls, c.launch, pf.arg) == ("aoti_torch_cpu_addmm_out", 2, 3, 4, "buf8")
    assert c.wrapper_line == _wrapper_line(name, "aoti_torch_cpu_addmm_out(buf8, mlp1_bias, buf7")
    assert c.nodes == ["addmm_1"] and "self.mlp1(x)" in c.frames[0]
    assert pf.block.shape == (2, 16) and pf.block.printed_as == "chunks"  # `Columns 1 to 6-1.2e+09 …` in scientific
    assert pf.good.printed_as == "chunks" and pf.certainty == "certain"
    assert pf.block.number("Mean value") > 1e8 and abs(pf.good.number("Mean value")) < 1


@pytest.mark.parametrize("name", BUILDS)
def test_against_good_scaled_inputs_name_the_dense_tower_and_the_input(name):
    with inspector.open_package(_pkg(name)) as pkg:
        d = diagnose(pkg, _log(name, "dense_scaled"), against=_log(name, "good"))
    pf = d.printer
    assert (pf.call.kernel, pf.call.call, pf.arg, pf.view_of) == ("aoti_torch_cpu_addmm_out", 1, "buf5",
                                                                   "buf7 at offset 0")
    assert pf.input_differs is not None and pf.input_differs.arg == "arg8_1"


def test_a_writer_that_printed_nothing_is_named_from_the_wrapper_with_less_certainty():
    # the fused kernel's blocks left out (AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT without it): the first NaN the log
    # shows is in buf7, which the next addmm only reads; the writer is the wrapper's, through the view buf6
    name = BUILDS[1]
    out, skip = [], False
    for line in _log(name, "no_history").splitlines():
        if line.startswith("[  "):
            skip = "cpp_fused__to_copy" in line
        if not skip:
            out.append(line)
    with inspector.open_package(_pkg(name)) as pkg:
        d = diagnose(pkg, "\n".join(out))
    pf = d.printer
    assert pf.kind == "nan" and pf.reads_only and pf.certainty == "possible" and d.certainty == "possible"
    assert pf.call.kernel == "aoti_torch_cpu_addmm_out" and pf.arg == "buf7"
    assert pf.wrapper_writer == ("cpp_fused__to_copy_div_embedding_mul_sum_unsqueeze_0",
                                 _wrapper_line(name, "cpp_fused__to_copy_div_embedding_mul_sum_unsqueeze_0((const"))
    assert "only reads" in d.verdict and "printed nothing" in d.verdict


BERT = "bert_pool_printer2_cpu213"


def test_a_library_model_the_first_nan_is_the_pooling_not_the_attention_masks_inf():
    # transformers' BERT (tiny config) + mean pooling without its clamp: the attention mask's -inf comes first and
    # is said beside the NaN, which the pooling's 0/0 makes for the sentence whose mask is all 0
    text = _log(BERT, "empty_mask")
    with inspector.open_package(_pkg(BERT)) as pkg:
        d = diagnose(pkg, text)
    pf = d.printer
    assert pf.kind == "nan" and pf.what == "NaN" and pf.block.line_no == _first_nan_a_person_sees(text)
    assert "div" in pf.call.nodes and "sum_2" in pf.call.nodes and pf.bad_rows == [1] and pf.certainty == "certain"
    assert pf.inf_before is not None and pf.inf_before.what == "Inf" and pf.inf_before.call.launch < pf.call.launch
    assert "Inf came first" in d.verdict


def test_a_library_model_against_good_names_the_ffn_output_dense():
    with inspector.open_package(_pkg(BERT)) as pkg:
        d = diagnose(pkg, _log(BERT, "ffn_weights"), against=_log(BERT, "good"))
    c = d.printer.call
    assert (c.kernel, c.call, c.calls) == ("aoti_torch_cpu_addmm_out", 6, 6) and c.nodes == ["addmm_5"]
    assert d.printer.block.shape == (4, 16) and d.printer.block.printed_as == "chunks"  # the tokens' rows, wide
    assert d.printer.input_differs is None and d.printer.certainty == "certain"


@pytest.mark.parametrize("name,scen", [(n, s) for n in BUILDS for s in ("good", "no_history", "mlp_weights",
                                                                        "dense_scaled")]
                         + [(BERT, s) for s in ("good", "empty_mask", "ffn_weights")])
def test_every_printed_value_is_read_and_agrees_with_its_statistics(name, scen):
    rep = parse_log(_log(name, scen))
    with_values = [b for b in rep.printer_blocks if b.values is not None]
    assert len(with_values) >= 30
    assert {b.printed_as for b in with_values} >= ({"chunks", "rows", "column"} if name != BERT else
                                                   {"slices", "chunks", "rows"})
    for b in rep.printer_blocks:
        n = int(b.stats["Number of elements"])
        if n > 64:
            assert b.values is None
            continue
        assert b.values is not None and len(b.values) == n, (b.line_no, b.printed_as)
        assert list(b.shape) == json.loads(b.stats["Size"])
        finite = [v for v in b.values if math.isfinite(v)]
        if len(finite) < n:
            assert b.bad and ("nan" in b.stats["Max value"] or "inf" in b.stats["Min value"])
            continue
        for key, v in (("Min value", min(finite)), ("Max value", max(finite))):
            want = b.number(key)  # printed with 6 significant digits, the values with 4 decimals or 5 significant
            assert math.isclose(v, want, rel_tol=2e-4, abs_tol=6e-5 * max(1.0, abs(max(finite, key=abs)))), \
                (b.line_no, key, v, want)
    # every line of the printer's output is understood: the values, the chunk headers, the footers, the blank lines
    assert rep.unread == len([x for x in _log(name, scen).splitlines() if x.strip() and not _printers(x)])


def _printers(line: str) -> bool:
    return not (line.startswith(("/", "  cpu = ", "W1203", "[issue34]")) or "FutureWarning" in line
                or line.strip().startswith("return cls"))


def test_a_level3_log_with_dispatcher_names_counts_every_launch():
    rep = parse_log(_log("recsys_printer3_cpu2141", "no_history"))
    marks = [(b.when, b.kernel, b.call, b.launch) for b in rep.printer_blocks]
    assert marks[0] == ("mark:before_launch", "at::_ops::_embedding_bag::call", 1, 1)
    assert [m[3] for m in marks] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]


def test_the_json_validates(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "inspector/schemas/diagnose.schema.json").read_text())
    R = H / BUILDS[1]
    assert main(["diagnose", str(_pkg(BUILDS[1])), "--log", str(R / "logs/no_history.log"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert doc["printer"]["certainty"] == "certain" and doc["printer"]["bad_rows"] == [1]


# ---------------------------------------------------------------------------
# Each layout rule on a crafted block (the forms of ATen's Formatting.cpp)
# ---------------------------------------------------------------------------

STATS = """Number of elements: {n}
Dtype: float32
Mean value: {mean}
Min value: 0
Max value: 1
Device: cpu
Size: {size}
Stride: [1]
Layout: Strided
Is contiguous: 1
Requires grad: 0
"""


def _one(values: str, n: int, size: str, mean="0.5", header="[  after_launch - cpp_fused_0 - buf0  ]:"):
    rep = parse_log(f"{header}\n{values}\n{STATS.format(n=n, mean=mean, size=size)}\n")
    assert len(rep.printer_blocks) == 1
    b = rep.printer_blocks[0]
    assert b.stats["Mean value"] == mean and b.stats["Requires grad"] == "0"  # the statistics after the values
    return b


def test_a_chunk_header_runs_into_a_negative_first_value():
    b = _one("Columns 1 to 6-6.6385e-01  1.0000e+00  2.0000e+00  3.0000e+00  4.0000e+00  5.0000e+00\n"
             "\nColumns 7 to 7 6.0000e+00\n[ CPUFloatType{1,7} ]", 7, "[1, 7]")
    assert b.values == (-0.66385, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0) and b.printed_as == "chunks"


def test_a_blank_line_between_chunks_does_not_end_the_block():
    b = _one("Columns 1 to 2 0.1000  0.2000\n  0.3000  0.4000\n\nColumns 3 to 3 0.5000\n  0.6000\n"
             "[ CPUFloatType{2,3} ]", 6, "[2, 3]",
             mean="-nan")
    assert b.values == (0.1, 0.2, 0.5, 0.3, 0.4, 0.6) and b.bad == "NaN"


def test_a_scale_runs_into_the_chunk_header():
    b = _one("Columns 1 to 100.001 *\n" + " ".join(["1.0000"] * 10) + "\n\nColumns 11 to 110.001 *\n 2.0000\n"
             "[ CPUFloatType{1,11} ]", 11,
             "[1, 11]")
    assert b.values == tuple([0.001] * 10 + [0.002])
    b = _one("Columns 1 to 101e-43 *\n" + " ".join(["1.0000"] * 10) + "\n\nColumns 11 to 1110 *\n 2.0000\n"
             "[ CPUFloatType{1,11} ]", 11,
             "[1, 11]")
    assert b.values[0] == pytest.approx(1e-43) and b.values[10] == 20.0
    # in an n-d slice the header and the scale are one space apart
    b = _one("(1,.,.) = \nColumns 1 to 1 0.01 *\n -0.3529\n\nColumns 2 to 2 0.01 *\n  0.5482\n[ CPUFloatType{1,1,2} ]", 2,
             "[1, 1, 2]")
    assert b.values == pytest.approx((-0.003529, 0.005482))


def test_a_scale_line_before_a_column():
    b = _one("1e+10 *\n  2.8000\n -1.0000\n[ CPUFloatType{2} ]", 2, "[2]")
    assert b.values == (2.8e10, -1e10) and b.printed_as == "column"


@pytest.mark.parametrize("tok,want", [("-nan", "NaN"), ("nan", "NaN"), ("inf", "Inf"), ("-inf", "Inf")])
def test_non_finite_values(tok, want):
    b = _one(f" 1.0000 {tok}\n[ CPUFloatType{{1,2}} ]", 2, "[1, 2]", mean="1")
    assert b.count(want) == 1 and b.rows_holding(want) == [0]
    b = _one(f"Columns 1 to 1{tok}\n\nColumns 2 to 2 1\n[ CPUFloatType{{1,2}} ]", 2, "[1, 2]", mean="1")
    assert b.count(want) == 1  # an integer-mode width too narrow for it: the value runs into the header


def test_ints_bools_and_a_zero_dim_value():
    b = _one(" 24   2\n-18  46\n[ CPULongType{2,2} ]", 4, "[2, 2]")
    assert b.values == (24, 2, -18, 46) and b.value_type == "CPULongType" and b.printed_as == "rows"
    b = _one(" 1  0\n[ CPUBoolType{1,2} ]", 2, "[1, 2]")
    assert b.values == (1, 0) and b.value_type == "CPUBoolType"
    b = _one("3.5\n[ CPUFloatType{} ]", 1, "[]")
    assert b.values == (3.5,) and b.shape == () and b.printed_as == "scalar"


def test_an_empty_tensor_prints_its_footer_and_no_value_statistics():
    rep = parse_log("[  after_launch - cpp_fused_0 - buf0  ]:\n[ CPUFloatType{0,4} ]\nNumber of elements: 0\n"
                    "Dtype: float32\nDevice: cpu\nSize: [0, 4]\n\n")
    b = rep.printer_blocks[0]
    assert b.values == () and b.printed_as == "empty" and b.shape == (0, 4) and b.bad is None and rep.unread == 0


def test_an_nd_tensor_is_read_slice_by_slice_the_first_index_fastest():
    text = ("(1,1,.,.) = \n 1  2\n\n(2,1,.,.) = \n 3  4\n\n(1,2,.,.) = \n 5  6\n\n(2,2,.,.) = \n"
            " Columns 1 to 1 7\n\n Columns 2 to 2 8\n[ CPUFloatType{2,2,1,2} ]")
    b = _one(text, 8, "[2, 2, 1, 2]")
    # (i, j) slices land at i*2 + j: (1,1)->0, (1,2)->1, (2,1)->2, (2,2)->3
    assert b.values == (1, 2, 5, 6, 3, 4, 7, 8) and b.printed_as == "slices"
    assert b.rows_holding("NaN") == []


def test_values_that_do_not_add_up_are_said_unread_not_guessed():
    b = _one(" 1  2\n 3\n[ CPUFloatType{2,2} ]", 4, "[2, 2]")
    assert b.values is None and b.printed_as == "unread"


def test_size_arguments_share_a_line_with_the_next_header():
    text = ("[  before_launch - triton_per_0 - s17: 8  ]\\n[  before_launch - triton_per_0 - 16L: 16  ]\\n"
            "[  after_launch - triton_per_0 - buf1  ]:\n" + STATS.format(n=128, mean="-nan", size="[8, 16]") + "\n")
    rep = parse_log(text)
    assert [(b.when, b.arg, b.values) for b in rep.printer_blocks] == [
        ("before_launch", "s17", (8.0,)), ("before_launch", "16L", (16.0,)), ("after_launch", "buf1", None)]
    assert rep.printer_blocks[2].bad == "NaN" and {b.launch for b in rep.printer_blocks} == {1}


def test_an_extern_call_named_by_its_dispatcher_entry():
    b = _one(" 0\n 3\n[ CPULongType{2} ]", 2, "[2]",
             header="[  before_launch - at::_ops::_embedding_bag::call - arg12_1  ]:")
    assert (b.kernel, b.arg, b.call, b.launch) == ("at::_ops::_embedding_bag::call", "arg12_1", 1, 1)


def test_another_writers_line_inside_the_values_is_left_unread():
    b = _one(" 1  2\nW1203 some warning\n 3  4\n[ CPUFloatType{2,2} ]", 4, "[2, 2]")
    assert b.values == (1, 2, 3, 4)
