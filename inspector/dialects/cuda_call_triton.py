"""CUDA wrappers (torch 2.11): a `call_triton_<k>` launcher per kernel, the Triton source embedded in it."""

from __future__ import annotations

from .base import Dialect

CUDA_CALL_TRITON = Dialect(
    name="cpp-wrapper-gpu/call_triton",
    summary="CUDA: one `static inline void call_triton_<k>(…)` launcher per kernel above run_impl, its Triton "
            "source in a `/* async_compile.triton('<k>', '''…''') */` comment, a cubin per kernel (a user-defined "
            "kernel's launcher is `call_<k>`); "
            "Source Nodes comments above each call",
    torch_seen=("2.11",),
    requires=("void AOTInductorModel::run_impl(", "static inline void call_", "async_compile.triton("),
)
