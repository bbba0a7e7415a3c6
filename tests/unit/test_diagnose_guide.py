"""The guide's other failures (issue 15 §1, issue 16's runtime assertions), each on the real log a real run printed:
the category, and what the verdict must name (the input, buffer, op, constant, symbol or torch release)."""

from __future__ import annotations

import json

import pytest

import inspector
from inspector import diagnose

from _paths import S

H = S / "harvest"


def test_a_package_without_its_wrapper_json_is_named_as_the_cause():
    """The real run of a custom-op package re-zipped without its .wrapper.json: `Unable to find a proxy executor`
    (then a data_ptr error from the op's missing output). Not an extern op's failure: the missing member."""
    folder = H / "issue15/custom_op_cuda"
    log = (folder / "logs/no_proxy_json.log").read_text()
    with inspector.open_package(folder / "no_json.pt2") as pkg:
        d = diagnose(pkg, log)
    assert d.category == "custom_op" and "no <hash>.wrapper.json" in d.verdict and "line 842" in d.verdict
    with inspector.open_package(folder / "custom_op_cuda.pt2") as pkg:  # the same log against the whole package
        d = diagnose(pkg, log)
    assert d.category == "custom_op" and "has none" in d.verdict


def test_printer_against_a_good_run():
    """Level 2 logs of the same package, a good input and one that makes a NaN inside (log of -1): the first
    kernel whose output differs is the fused log kernel, judged after it ran (before_launch outputs hold
    uninitialised memory: the addmm's buf0 prints inf there in both runs and is not blamed)."""
    folder = H / "issue15_cpu213/printer2_cpu"
    bad, good = (folder / "logs/neg_input.log").read_text(), (folder / "logs/good.log").read_text()
    assert "Mean value: inf" in bad.split("after_launch")[0]  # the uninitialised output before the addmm ran
    with inspector.open_package(folder / "printer2_cpu.pt2") as pkg:
        d = diagnose(pkg, bad, against=good)
        assert d.category == "printer" and "differs from the good run" in d.verdict
        assert "cpp_fused_add_log_mul_relu_sum_0" in d.verdict and "-nan" in d.verdict
        same = diagnose(pkg, good, against=good)
        assert "matches the good run" in same.verdict


def test_printer_blocks_parse():
    from inspector.logs import parse_log

    blocks = parse_log((H / "issue15_cpu213/printer2_cpu/logs/neg_input.log").read_text()).printer_blocks
    whens = {b.when for b in blocks}
    assert whens == {"aoti_model_inputs", "before_launch", "after_launch"}
    after = [b for b in blocks if b.when == "after_launch"]
    assert [(b.kernel, b.arg, b.bad) for b in after if b.bad] == [
        ("cpp_fused_add_log_mul_relu_sum_0", "buf1", "NaN"), ("cpp_fused_add_log_mul_relu_sum_0", "buf2", "NaN")]
    assert all(b.stats.get("Dtype") == "float32" for b in after)


def test_the_printers_own_calls_are_not_ops():
    """A package built with the printer calls aoti_torch_print_tensor_handle around every launch: runtime plumbing,
    not an extern op (and never an 'unchecked extern call')."""
    from inspector.queries.show import summarize

    with inspector.open_package(H / "issue15_cpu213/printer2_cpu/printer2_cpu.pt2") as pkg:
        d = summarize(pkg).to_dict()
    text = json.dumps(d)
    assert "aoti_torch_cpu_addmm_out" in text and "aoti_torch_print_tensor_handle" not in text


def test_a_log_from_another_package_is_said_to_be_one():
    """cuda/jagged's real log given with cuda/embedding: its Assertion line names a .py this package lacks.  Never
    'the Assertion line is not in the text' with this package's candidates (issue 15 §3)."""
    from inspector import trace_assert

    log = (S / "cuda/jagged/error.log").read_text()
    with inspector.open_package(S / "cuda/embedding/embedding.pt2") as pkg:
        d = diagnose(pkg, log)
        assert d.category == "foreign_log" and "another package or build" in d.verdict and not d.candidates
        t = trace_assert(pkg, log=log)
        assert not t.matches and not t.candidates and "is not in this package" in t.verdict


def test_a_log_from_another_build_of_the_same_model_is_said_to_be_one():
    """cpu-2.8/jagged's real log (torch 2.8) given with cpu/jagged (torch 2.13): the same check, another kernel
    name: another build of the same model, and the kernel of this one that holds the same check."""
    log = (S / "cpu-2.8/jagged/error.log").read_text()
    with inspector.open_package(S / "cpu/jagged/jagged.pt2") as pkg:
        d = diagnose(pkg, log)
    assert d.category == "foreign_log" and "another build of the same model" in d.verdict
    assert "cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0" in d.verdict


def test_the_first_thread_decides_which_hypothesis_leads():
    """With a bound of 0 every index fails, thread [0,0,0] of block [0,0,0] too.  Real logs: cuda/jagged (an empty
    input) prints that thread and leads with the empty input; cuda/bucketize_index (one bucket past the table) and
    the torch_geometric out-of-range ids do not print it, and lead with the index being too large."""
    from inspector import trace_assert

    cases = [(S / "cuda/jagged/jagged.pt2", S / "cuda/jagged/error.log", True),
             (S / "cuda/bucketize_index/bucketize_index.pt2", S / "cuda/bucketize_index/error.log", False),
             (H / "pyg/gcn/gcn.pt2", H / "pyg/gcn/logs/oob_id.log", False)]
    for pkg_path, log, empty_first in cases:
        with inspector.open_package(pkg_path) as pkg:
            t = trace_assert(pkg, log=log.read_text())
        v = t.matches[0].verdict
        assert ("empty input" in t.matches[0].hypotheses[0].sentence) == empty_first, (pkg_path, v)
        assert ("the log shows that one did not" in v) == (not empty_first), (pkg_path, v)
        # the thread is the evidence, quoted: the empty input is likely (not certain), a bound not 0 is certain
        assert t.matches[0].hypotheses[0].certainty == ("likely" if empty_first else "certain")
        assert any("thread" in e for e in t.matches[0].hypotheses[0].evidence)


@pytest.mark.parametrize("net", ["gat", "edgeconv"])
def test_an_extern_call_that_only_noticed_a_device_assert_is_no_match(net):
    """torch_geometric GAT runs that hit a Triton index assert print `Exception in aoti_torch: CUDA error:
    device-side assert triggered` at the scatter_reduce calls after it, then abort (`terminate called`, rc -6):
    those calls noticed the assert; they are not matched as failing, and nothing says the run went on (issue 16)."""
    from inspector import trace_assert

    folder = H / "pyg" / net
    for scenario in ("oob_id", "neg_id"):
        log = (folder / "logs" / f"{scenario}.log").read_text()
        assert "terminate called" in log or "Aborted" in log or "Fatal Python error" in log
        with inspector.open_package(folder / f"{net}.pt2") as pkg:
            t = trace_assert(pkg, log=log)
        assert t.matches and all(m.kernel_kind != "extern" for m in t.matches), [m.kernel for m in t.matches]
        assert "went on" not in json.dumps(t.to_dict())


def test_an_index_wrapped_in_broadcast_to_is_traced():
    """EdgeConv's assert text is `0 <= tl.broadcast_to(tmp19, [YBLOCK, XBLOCK]) < ks1` (issue 16): the bound and
    the origin are traced as for a bare tmp (num_nodes = input 0 dim 0; the ids of input 1)."""
    from inspector.parse.message import parse_check_message
    from inspector import trace_assert

    m = parse_check_message("index out of bounds: 0 <= tl.broadcast_to(tmp19, [YBLOCK, XBLOCK]) < ks1")
    assert (m.index_var, m.bound) == ("tmp19", "ks1")
    assert parse_check_message("index out of bounds: 0 <= tl.reshape(tmp3, [XBLOCK]) < 512").static_bound == 512
    assert parse_check_message("index out of bounds: 0 <= (tmp5).to(tl.int64) < ks0").index_var == "tmp5"
    folder = H / "pyg" / "edgeconv"
    for scenario in ("oob_id", "neg_id"):
        with inspector.open_package(folder / "edgeconv.pt2") as pkg:
            t = trace_assert(pkg, log=(folder / "logs" / f"{scenario}.log").read_text())
        mt = t.matches[0]
        assert mt.complete and mt.bound.input.index == 0 and mt.bound.input.dim == 0
        assert [o.input.index for o in mt.index_origin if o.input] == [1]


def test_runtime_input_checks_need_compiling_in_on_torch_2_6():
    """AOTI_RUNTIME_CHECK_INPUTS acts at run time on builds that compiled the guards in (every sample but torch 2.6's);
    a torch 2.6 package has none, so the step says it acts at compile time there."""
    log = "RuntimeError: something went wrong\n"
    for pkg_path, when in ((S / "cpu-2.6/jagged/jagged.pt2", "compile"), (S / "cpu/jagged/jagged.pt2", "run")):
        with inspector.open_package(pkg_path) as pkg:
            d = diagnose(pkg, log)
        st = next(s for s in d.steps if "AOTI_RUNTIME_CHECK_INPUTS" in s.env)
        assert st.when == when, (pkg_path, st)
        assert ("no input guards compiled in" in st.do) == (when == "compile")


def test_show_names_the_users_inputs_in_the_terminal_too(capsys):
    """With an exported program (packaged, or --ep) show's input table has the user's names, as --json has."""
    from inspector.cli import main

    assert main(["show", str(S / "cpu/transformer/transformer.pt2"), "--ep",
                 str(S / "cpu/transformer/ep/transformer_ep.pt2"), "--wide"]) == 0
    out = capsys.readouterr().out
    row = next(l for l in out.splitlines() if "arg149_1" in l and "int64" in l)
    assert "ids" in row and "user name" in out


def test_an_argmax_position_names_the_dim_that_bounds_it():
    """cuda/argmax_embedding: `emb(scores.argmax(dim=1))` with scores 2x150 and a 100-row table.  The index is a
    position along input 0 dim 1, so that size (150) is what overruns the table: the trace says so (issue 15 §3)."""
    from inspector import trace_assert

    with inspector.open_package(S / "cuda/argmax_embedding/argmax_embedding.pt2") as pkg:
        t = trace_assert(pkg, log=(S / "cuda/argmax_embedding/error.log").read_text())
    mt = t.matches[0]
    assert "position an argmax/argmin returns along input 0 dim 1" in mt.verdict
    assert mt.hypotheses[0].sentence.startswith("the index is a position triton_per_fused_argmax_0 found")
    assert "100 rows" in mt.hypotheses[0].sentence


def test_an_aten_layout_error_is_never_read_as_an_index_bound():
    """Issue 16: `setStorage: sizes [300, 4] … storage of size 0` (a real pyg run on an empty graph printed it) was
    answered "input 1 holds a value outside 0..3 … or grow the table". Crafted: cpu/embedding_bag's real log with
    the op's error line swapped for that text (and for a shape and a dtype error); the real log still traces its index."""
    folder = S / "cpu/embedding_bag"
    real = (folder / "error.log").read_text()
    line = "Index 4 of input takes value 300 which is not in the valid range [0, 300)"
    assert line in real
    swaps = {
        "storage": "setStorage: sizes [300, 4], strides [4, 1], storage offset 0, and itemsize 4 requiring a storage "
                   "size of 4800 are out of bounds for storage of size 0",
        "shape": "shape '[-1, 100]' is invalid for input of size 2099",
        "dtype": "expected scalar type Long but found Int",
    }
    with inspector.open_package(folder / "embedding_bag.pt2") as pkg:
        assert "holds values ≥ 300" in diagnose(pkg, real).verdict
        for kind, text in swaps.items():
            d = diagnose(pkg, real.replace(line, text))
            assert d.category == "extern_op", (kind, d.category)
            assert f"failed with an ATen {kind} error, not an index out of range" in d.verdict, d.verdict
            assert "300" not in d.verdict and "grow the table" not in " ".join(d.notes + [s.do for s in d.steps])


def test_an_ambiguous_aten_assert_leads_with_the_rerun_that_names_the_call():
    folder = H / "issue15/two_bags_cuda"
    with inspector.open_package(folder / "two_bags_cuda.pt2") as pkg:
        d = diagnose(pkg, (folder / "logs/bad_items.log").read_text())
    assert d.trace.ambiguous and len(d.trace.matches) == 2
    assert d.steps[0].env == {"CUDA_LAUNCH_BLOCKING": "1"}
    # the single-call sample keeps its one answer
    with inspector.open_package(S / "cuda/embedding_bag/embedding_bag.pt2") as pkg:
        one = diagnose(pkg, (S / "cuda/embedding_bag/error.log").read_text())
    assert not one.verdict.startswith("ambiguous") and "≥ 300" in one.verdict
