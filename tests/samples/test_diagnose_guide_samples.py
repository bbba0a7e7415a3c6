"""The per-sample tests of test_diagnose_guide.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector
from inspector import diagnose

from _paths import S

H = S / "harvest"

# (package, log, category, what the verdict must say)
CASES = [
    (H / "aoti_tests_cpu213/test_aoti_runtime_asserts", "bad_small", "symbolic_assert",
     ["`u0 >= 10`", "with 2", "aoti_torch_item_int64", "wrapper.cpp line 844"]),
    (H / "aoti_tests_cpu213/test_runtime_assert_mod", "bad_2099", "symbolic_assert",
     ["Eq(Mod(s77, 100), 0)", "2099", "input 0 (arg0_1) dim 0"]),
    (H / "aoti_tests_cpu213/test_unbacked_nonzero_check", "bad_one", "symbolic_assert", ["u0"]),
    (H / "issue15_cpu213/nan_asserts_cpu", "nan_input", "nan_inf", ["input 0 (arg2_1)", "NaN"]),
    (H / "issue15_cpu213/nan_asserts_cpu", "inf_input", "nan_inf", ["input 0 (arg2_1)", "Inf"]),
    (H / "issue15_cpu213/nan_asserts_cpu", "nan_y", "nan_inf", ["(arg3_1)", "NaN"]),
    (H / "issue15_cpu213/printer2_cpu", "neg_input", "printer",
     ["first kernel whose output holds NaN", "cpp_fused_add_log_mul_relu_sum_0", "wrote buf1"]),
    (H / "issue15_cpu213/printer2_cpu", "good", "printer", ["no printed output holds NaN/Inf"]),
    (H / "issue15_cpu213/printer3_cpu", "neg_input", "printer", ["cpp_fused_add_log_mul_relu_sum_0"]),
    (H / "issue15_cpu213/constants_cpu", "unknown_fqn", "constants", ["'lin.nope'", "no constant of that name"]),
    (H / "issue15_cpu213/constants_cpu", "missing_full_update", "constants", ["lin_bias (lin.bias)"]),
    (S / "cpu/embedding", "weights/full", "constants", ["'proj.bias'", "folded into kernel code"]),
    (S / "cpu/embedding", "weights/ddp", "constants", ["'module.proj.weight'", "prefix"]),
    (S / "cpu/embedding", "weights/missing", "constants", ["proj_weight (proj.weight)"]),
    (H / "issue15_cpu213/custom_op_cpu", "missing_op", "custom_op", ["hvlib::scale_shift", "line 825"]),
    (H / "issue15_cpu213/weightless_cpu", "no_weights", "weights_not_loaded", ["2 constants", "never loaded"]),
    (H / "issue14_cpu213/pickle_weights_cpu", "aoti_load_package", "weights_not_loaded",
     ['package_constants_on_disk_format="pickle_weights"', "2 pickled member(s) under data/weights/, 5,458 bytes",
      "aoti_load_package ignores them", 'load_pt2(PKG, load_weights_from_disk=True).aoti_runners["model"]']),
    (H / "issue15_cpu213/wrong_kind_cpu", "export_archive_to_aoti_load_package", "wrong_artifact", ["torch.export.load"]),
    (H / "issue15_cpu213/wrong_kind_cpu", "aoti_package_to_export_load", "wrong_artifact", ["aoti_load_package"]),
    # torch 2.11 on the H200 (stop 18)
    (H / "issue15/oom_cuda", "oom", "out_of_memory", ["596.05 GiB", "buf0", "4*s77*s77 bytes", "135.05 GiB free"]),
    (H / "issue15/constants_cuda", "wrong_device", "constants", ["'lin_bias'", "device type 0", "device type 1"]),
    (H / "issue15/constants_cuda", "update_buffer_wrong_device", "constants", ["'lin.weight'", "device type 0"]),
    # a Triton kernel's own NaN/Inf check: the value it checks, read straight from an input or computed from one
    (H / "issue15/runtime_triton_nan_cuda", "nan_input", "nan_inf",
     ["tmp1 holds a NaN or Inf in triton_per_fused_abs_add_addmm_log_mul_relu_sum_0", "read from input 0",
      "line 37", "wrapper.cpp line 949"]),
    (H / "issue15/runtime_triton_nan_cuda", "nan_y", "nan_inf",
     ["tmp7 holds a NaN or Inf", "computed there from input 1", "line 45"]),
    # an ATen kernel's own assert with two calls of the op that launches it: both listed, none led with
    (H / "issue15/two_bags_cuda", "bad_items", "extern_op",
     ["ambiguous", "EmbeddingBag_updateOutputKernel_sum_mean", "line 974: input 0 into `users.weight`, 300 rows",
      "line 989: input 1 into `items.weight`, 50 rows", "CUDA_LAUNCH_BLOCKING=1"]),
    (H / "memory/bert", "buffers_not_loaded", "constants",
     ["embeddings_position_ids (embeddings.position_ids)", "persistent=False", "uninitialised memory"]),
    (S / "cpu/jagged", "logs/torch26_rootless_members", "torch_version",
     ["aoti_torch_new_tensor_handle", "first exported by torch 2.7.1"]),
    (S / "cpu/jagged", "logs/torch26_aoti_load_package", "torch_version", ["root folder"]),
]


def _log(folder: Path, name: str) -> Path:
    return folder / (f"{name}.log" if "/" in name else f"logs/{name}.log")


@pytest.mark.parametrize("folder,log,category,says", CASES, ids=[f"{c[0].name}-{c[1]}" for c in CASES])
def test_real_log_category_and_verdict(folder, log, category, says):
    pkg_path = folder / f"{folder.name}.pt2"
    with inspector.open_package(pkg_path) as pkg:
        d = diagnose(pkg, _log(folder, log).read_text())
    assert d.category == category, (d.category, d.verdict)
    for s in says:
        assert s in d.verdict, (s, d.verdict)
    assert d.steps and d.evidence


# the harvest's words for a category that has another name here
ALIASES = {"weightless (load)": "weights_not_loaded", "none (clean run)": "no_failure"}


def test_every_harvested_run_with_a_right_category_of_these_is_answered_with_it():
    """harvest/*/index.json records, per run, the category a person would give it: for the categories diagnose
    now knows, every such run is answered with it (the rest are issue 15/16's remaining work)."""
    from inspector.queries.diagnose.rules import CATEGORIES

    checked = 0
    for index in sorted(H.glob("*/*/index.json")):
        doc = json.loads(index.read_text())
        pkgs = [p for p in [index.parent / f"{index.parent.name}.pt2"] if p.exists()]
        if not pkgs:
            continue
        for run in doc.get("runs", []):
            want = ALIASES.get(run.get("right_category"), run.get("right_category"))
            if want not in CATEGORIES or want in ("index_assert", "extern_op") or not run.get("log"):
                continue
            log = index.parent / run["log"]
            if not log.exists():
                continue
            with inspector.open_package(pkgs[0]) as pkg:
                d = diagnose(pkg, log.read_text())
            assert d.category == want, (log, d.category, d.verdict)
            checked += 1
    assert checked >= 10
