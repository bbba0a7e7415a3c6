"""Facts written once (issue 33 §3): each lives in one module, the others import it, and a second copy fails here."""

from __future__ import annotations

import re
from pathlib import Path

from inspector import naming

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "inspector").rglob("*.py"))


def _holders(literal: str) -> list[str]:
    """The modules of inspector/ whose source holds ``literal``."""
    return sorted(str(p.relative_to(ROOT)) for p in SOURCES if literal in p.read_text())


def test_the_shim_calls_that_run_no_op_are_named_once_in_naming():
    assert SOURCES
    # (`"aoti_torch_empty"` is also the dialect's allocation prefix: another fact, spelled the same)
    for name in ('"aoti_torch_clone"', '"aoti_torch_copy"', '"aoti_torch_assign_tensors"'):
        assert _holders(name) == ["inspector/naming.py"], name


def test_the_two_sets_say_what_they_hold():
    alloc, no_kernel = naming.ALLOC_OR_COPY_SHIMS, naming.NO_KERNEL_SHIMS
    for target in ("aoti_torch_empty_strided", "aoti_torch_clone_preserve_strides", "aoti_torch_copy_"):
        assert target.startswith(alloc) and target.startswith(no_kernel)
    # assigning a handle runs no kernel (divisions skip it) but is no allocation or copy (guards still count it)
    assert "aoti_torch_assign_tensors_out".startswith(no_kernel)
    assert not "aoti_torch_assign_tensors_out".startswith(alloc)
    for op in ("aoti_torch_cuda_index_put_out", "aoti_torch_cpu_gather_out", "aoti_torch_proxy_executor_call_function"):
        assert not op.startswith(no_kernel)
    assert set(alloc) < set(no_kernel)
