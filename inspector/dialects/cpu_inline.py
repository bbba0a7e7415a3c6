"""CPU wrappers of torch 2.6 archives: one `<hash>.cpp` holding the kernels above run_impl."""

from __future__ import annotations

from .base import Dialect

CPU_INLINE = Dialect(
    name="cpp-wrapper-cpu/inline",
    summary="CPU, torch 2.6 archives: no root folder, `version` at the top, one `data/aotinductor/<model>/<hash>.cpp` "
            "holding the `cpp_fused_<k>` kernels above run_impl (errors name `<hash>.cpp:N`), `<hash>_metadata.json`; "
            "no check_input_K guards",
    torch_seen=("2.6",),
    requires=("void AOTInductorModel::run_impl(",),
    excludes=("static inline void call_triton_", "async_compile.triton("),
    launch_style="cpp",
    launcher_start=None,
    cpp_kernels_member="inline",
)
