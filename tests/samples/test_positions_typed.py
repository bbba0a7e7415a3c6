"""The positions an index holds, read from typed trees (no regex over generated code): a CPU argmax's
``tmp_acc0.index`` store, its ``argmax_combine_vec<float, 1, 2, true>(tmp_acc0_vec, tmp0, x1)`` and the loop
``x1`` runs below; Triton's inlined bucketize and its boundaries' length; an extern topk and bucketize.  Real
packages and the logs they printed."""

from __future__ import annotations

import pytest

import inspector
from inspector import trace_assert

from _paths import S


# sample, (op, input, dim, static, past) of the position bound, whether the kernel wraps negative indices
CASES = [
    ("cpu/argmax_embedding", ("reduction", 0, 1, None, 0), False),
    ("cuda/argmax_embedding", ("reduction", 0, 1, None, 0), True),
    ("cuda/bucketize_index", ("bucketize", None, None, 8, 1), True),
    ("cpu/bucketize_index", ("bucketize_Tensor", None, None, 8, 1), True),
    ("cpu/topk_gather", ("topk", 0, 1, None, 0), False),
]


@pytest.mark.parametrize("sample,want,wraps", CASES, ids=[c[0] for c in CASES])
def test_position_bounds_from_trees(sample, want, wraps):
    d = S / sample
    with inspector.open_package(d / f"{d.name}.pt2") as pkg:
        r = trace_assert(pkg, log=(d / "error.log").read_text())
    assert r.matches, r.verdict
    mt = r.matches[0]
    p = mt.position
    assert p is not None, mt.verdict
    assert (p.op, p.input, p.dim, p.static, p.past) == want
    if p.input is not None:
        assert p.symbol and p.max is not None  # traced to the input dim's symbol and its guards
    assert mt.negative_wrap is wraps
