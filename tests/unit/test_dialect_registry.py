"""The wrapper dialects' registry and how each family reads a run_impl line, on snippets of real wrappers (2.11 CUDA,
2.13 CPU); every sample read with its dialect: tests/samples/test_dialects.py."""

from __future__ import annotations

from inspector.dialects import CPU_KERNEL_CPP, CUDA_CALL_TRITON, DIALECTS, FALLBACK, by_name


def test_registry_names_are_unique_and_resolvable():
    names = [d.name for d in DIALECTS] + [FALLBACK.name]
    assert len(names) == len(set(names))
    for n in names:
        assert by_name(n).name == n


def test_call_style_snippets():
    """How each family's run_impl callee maps to a kernel or an extern op (2.11 CUDA, 2.13 CPU lines)."""
    assert CUDA_CALL_TRITON.call_target("call_triton_poi_fused_add_0", set()) == ("triton_poi_fused_add_0", "kernel")
    assert CPU_KERNEL_CPP.call_target("cpp_fused_index_0", {"cpp_fused_index_0"}) == ("cpp_fused_index_0", "kernel")
    assert CPU_KERNEL_CPP.call_target("aoti_torch_cpu_cumsum", set()) == ("aoti_torch_cpu_cumsum", "extern")
    assert CPU_KERNEL_CPP.call_target("aoti_torch_get_data_ptr", set()) is None
    assert CUDA_CALL_TRITON.start_rule("AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_mm_out(buf1, arg1_1, buf0));") == "checked_call"
    assert CUDA_CALL_TRITON.start_rule("int64_t s59 = arg0_1_size[0];") == "declaration"
    assert CUDA_CALL_TRITON.start_rule("}") is None
