"""CPU wrappers of compile_standalone packages (torch 2.13): the model class is named after the model
(`AOTInductorModel<name>`, `model_name_for_generated_files`, "aoti_model" by default), the kernels follow run_impl."""

from __future__ import annotations

from dataclasses import replace

from .base import Dialect

CPU_STANDALONE = Dialect(
    name="cpp-wrapper-cpu/standalone",
    summary="CPU, aot_inductor_mode.compile_standalone: a libtorch-free CMake project (`CMakeLists.txt` with "
            "find_package(TorchStandalone), a static library, `<name>.h`); the model class is `AOTInductorModel<name>`, "
            "run_impl is `void AOTInductorModel<name>::run_impl(`, the `cpp_fused_<k>` kernels follow it in the wrapper",
    torch_seen=("2.13",),
    requires=("::run_impl(", "class AOTInductorModelKernels"),
    excludes=("void AOTInductorModel::run_impl(", "static inline void call_triton_", "async_compile.triton("),
    launch_style="cpp",
    launcher_start=None,
)

_OPEN = "void AOTInductorModel"
_RUN = "::run_impl("


def model_class(text: str) -> str | None:
    """The class whose run_impl the wrapper defines (`AOTInductorModelaoti_model`), by plain string search."""
    at = 0
    while True:
        i = text.find(_OPEN, at)
        if i < 0:
            return None
        j = text.find("::", i)
        if j > 0 and text.startswith(_RUN, j):
            return text[i + len("void "):j]
        at = i + 1


def for_class(d: Dialect, cls: str) -> Dialect:
    """``d`` with the run_impl markers of model class ``cls`` (`void AOTInductorModelaoti_model::run_impl(` …
    `} // AOTInductorModelaoti_model::run_impl`): compile_standalone names the class after the model, on CPU and
    CUDA alike."""
    plain = "void AOTInductorModel::run_impl("
    return replace(d, requires=tuple(f"void {cls}{_RUN}" if r == plain else r for r in d.requires),
                   run_impl_start=f"void {cls}{_RUN}", run_impl_end=f"}} // {cls}::run_impl")


def for_text(text: str) -> Dialect:
    """`CPU_STANDALONE` with the run_impl markers of the model class the wrapper defines."""
    cls = model_class(text)
    return for_class(CPU_STANDALONE, cls) if cls else CPU_STANDALONE
