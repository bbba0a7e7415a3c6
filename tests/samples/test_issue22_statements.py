"""Statements PyTorch's own AOTI tests generate (issue 22 §7), on packages torch 2.11 built on the H200 from the
`add_kernel` family of torch/testing/_internal/triton_utils.py (sample_packages/harvest/aoti_tests/issue22_*,
built by sample_packages/harvest/issue22_gpu.py) and a torch 2.13 CPU package whose outputs are sizes
(issue22_cpu213/scalar_output_cpu): every statement understood, and what the statements say is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector
from inspector.cli import main
from inspector.parse.triton import parse_triton_statement

from _paths import S

H = S / "harvest"
GPU = sorted((H / "aoti_tests").glob("issue22_*/*.pt2"))
SCALAR = H / "issue22_cpu213/scalar_output_cpu/scalar_output_cpu.pt2"


def test_the_real_packages_are_here():
    names = {p.parent.name for p in GPU}
    assert {"issue22_add_kernel", "issue22_add_kernel_autotuned", "issue22_add_kernel_2d_autotuned",
            "issue22_add_kernel_with_optional_param", "issue22_unbacked_grid", "issue22_tma_1d_new",
            "issue22_tma_2d_new", "issue22_bmm_template"} <= names
    assert SCALAR.is_file()


@pytest.mark.parametrize("pkg", [*GPU, SCALAR], ids=lambda p: p.parent.name)
def test_strict_show_full_skips_nothing(pkg, capsys):
    rc = main(["--strict", "--no-cache", "show", str(pkg), "--full", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err[-600:]
    for m in json.loads(out.out)["models"]:
        cov = m["coverage"]
        assert cov["understood"] == cov["total"] > 0


def _wrapper_line(pkg: Path, needle: str) -> str:
    with inspector.open_package(pkg) as p:
        lines = p.index().wmap.lines
    hits = [s.strip() for s in lines if needle in s]
    assert hits, needle
    return hits[0]


def test_a_multi_line_def_is_one_statement_and_its_body_is_read():
    # `def add_kernel(` / `in_ptr0,` … `BLOCK_SIZE: "tl.constexpr",` / `):` as triton_utils.py spells it
    pkg = H / "aoti_tests/issue22_add_kernel/issue22_add_kernel.pt2"
    assert _wrapper_line(pkg, "def add_kernel(") == "def add_kernel("
    with inspector.open_package(pkg) as p:
        m = p.model()
        k = next(k for n, k in m.kernels.items() if n.startswith("add_kernel"))
    assert [(q.name, q.role) for q in k.params] == [("in_ptr0", "in"), ("in_ptr1", "in"), ("out_ptr", "out"),
                                                    ("n_elements", "size"), ("BLOCK_SIZE", "other")]
    assert k.params[-1].ctype == "tl.constexpr"  # the string annotation, unquoted
    assert [s.ptr for s in k.stores] == ["out_ptr"]  # the body after the def was read


def test_autotuned_and_2d_kernels_keep_their_params():
    for folder, kernel, names in (
            ("issue22_add_kernel_autotuned", "add_kernel_autotuned", ["in_ptr0", "in_ptr1", "out_ptr", "n_elements", "BLOCK_SIZE"]),
            ("issue22_add_kernel_2d_autotuned", "add_kernel_2d_autotuned",
             ["in_ptr0", "in_ptr1", "out_ptr", "x_elements", "y_elements", "BLOCK_SIZE_X", "BLOCK_SIZE_Y"]),
            ("issue22_tma_2d_new", "add_kernel_with_tma_2d_new_api",
             ["in_desc_ptr0", "in_desc_ptr1", "out_desc_ptr", "BLOCK_SIZE_X", "BLOCK_SIZE_Y"])):
        pkg = next((H / "aoti_tests" / folder).glob("*.pt2"))
        with inspector.open_package(pkg) as p:
            ks = [k for n, k in p.model().kernels.items() if n.startswith(kernel)]
        assert ks, folder
        for k in ks:
            assert [q.name for q in k.params] == names, folder


def test_the_optional_param_kernel_is_read_at_both_launches():
    pkg = H / "aoti_tests/issue22_add_kernel_with_optional_param/issue22_add_kernel_with_optional_param.pt2"
    with inspector.open_package(pkg) as p:
        ks = [k for n, k in p.model().kernels.items() if n.startswith("add_kernel_with_optional_param")]
    assert len(ks) == 2
    assert all([q.name for q in k.params][:4] == ["in_ptr0", "in_ptr1", "out_ptr", "n_elements"] for k in ks)


def test_tma_descriptor_declarations():
    pkg = H / "aoti_tests/issue22_tma_1d_new/issue22_tma_1d_new.pt2"
    assert _wrapper_line(pkg, "StableTMADescriptor buf") == "alignas(64) StableTMADescriptor buf1;"


def test_scalar_to_tensor_handles():
    assert _wrapper_line(SCALAR, "scalar_to_tensor_0 =") == (
        "RAIIAtenTensorHandle scalar_to_tensor_0 = scalar_to_tensor_handle(0L);")


def test_a_trailing_comment_is_no_part_of_the_statement():
    pkg = H / "aoti_tests/issue22_bmm_template/issue22_bmm_template.pt2"
    line = _wrapper_line(pkg, "# batch dimension for BMM")
    assert line == "idx_q = tl.program_id(1).to(INDEX_DTYPE)  # batch dimension for BMM"
    r = parse_triton_statement(line, "assign_stmt")
    assert r.target == "idx_q" and r.value.text == "tl.program_id(1).to(INDEX_DTYPE)"
