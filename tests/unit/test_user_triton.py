"""User-defined Triton kernels (torch.library.triton_op / wrap_triton, issue 16): listed, their source shown,
their own `tl.device_assert` traced, on packages torch 2.11 built on the H200 and the real run that tripped one."""

from __future__ import annotations

import inspector
from inspector.parse.message import parse_check_condition
from inspector import diagnose
from inspector import trace_assert

from _paths import S

A = S / "harvest/aoti_tests"
GATHER = A / "test_triton_op_device_assert"


def test_user_kernels_are_listed_with_their_cubin():
    for name, kernel in (("test_triton_op_device_assert", "gather_kernel_0"),
                         ("test_triton_op_float_literal", "add_scaled_kernel_0")):
        with inspector.open_package(A / name / f"{name}.pt2") as pkg:
            m = pkg.model()
            k = m.kernels[kernel]
            assert k.heuristic == "user_autotune" and k.params and k.cubin
            assert any(c.target == kernel and c.kind == "kernel" for c in m.calls)
            assert m.coverage and all(c.missed == 0 for c in m.coverage.values())  # every statement understood


def test_roles_of_a_user_kernels_params_come_from_their_use():
    with inspector.open_package(GATHER / "test_triton_op_device_assert.pt2") as pkg:
        k = pkg.model().kernels["gather_kernel_0"]
    roles = {p.name: p.role for p in k.params}
    assert roles == {"tab_ptr": "in", "idx_ptr": "in", "out_ptr": "out", "n": "size", "rows": "size",
                     "D": "other", "BLOCK": "other"}


def test_its_own_assert_traces_to_the_input_and_the_literal_bound():
    log = (GATHER / "logs/bad_index.log").read_text()
    assert "Assertion `user gather index out of range` failed" in log
    with inspector.open_package(GATHER / "test_triton_op_device_assert.pt2") as pkg:
        t = trace_assert(pkg, log=log)
        mt = t.matches[0]
        assert mt.kernel == "gather_kernel_0" and mt.exact and mt.file_line == 23
        assert mt.static_bound == 50  # `rows`, launched with the literal 50 (the table's rows)
        assert [o.input.index for o in mt.index_origin if o.input] == [0]
        assert mt.source_nodes == ["user_gather"] and not mt.source_nodes_derived
        assert "input 0 holds values ≥ 50" in t.verdict
        d = diagnose(pkg, log)
    assert d.category == "index_assert"


def test_range_conditions():
    c = parse_check_condition("(idx >= 0) & (idx < rows)")
    assert (c.index_var, c.bound, c.lower) == ("idx", "rows", "0")
    c = parse_check_condition("(x < 5) & (0 <= x)")
    assert (c.index_var, c.bound, c.lower) == ("x", "5", "0")
    assert parse_check_condition("idx < n").lower is None
    for other in ("a == b", "(i >= 0) & (j < 4)", "(tmp1 == tmp1) & (tmp1 != float('inf'))"):
        assert parse_check_condition(other) is None
