"""CPU wrappers (torch 2.8+): `cpp_fused_<k>` kernels in a `<hash>.kernel.cpp` beside the wrapper."""

from __future__ import annotations

from .base import Dialect

CPU_KERNEL_CPP = Dialect(
    name="cpp-wrapper-cpu/kernel.cpp",
    summary="CPU: `cpp_fused_<k>(…)` calls in run_impl, the kernels in a `<hash>.kernel.cpp` beside the wrapper; "
            "Source Nodes comments only above extern ops",
    torch_seen=("2.13",),
    requires=("void AOTInductorModel::run_impl(",),
    excludes=("static inline void call_triton_", "async_compile.triton("),
    launch_style="cpp",
    launcher_start=None,
)
