"""Which member of a package is what: the archive layout's facts (where models sit, how each generated
file is named), so `inspector.archive` files members by role without knowing torch's names.

Roles: "wrapper", "kernel_cpp", "wrapper_metadata" (one each per model), "inline_cpp" (torch 2.6: one
`<hash>.cpp` holding the wrapper and its CPU kernels), "inline_metadata" (torch 2.6: `<hash>_metadata.json`),
"kernel_information", "cubin", "shared_object", "weights", "other".
"""

from __future__ import annotations

# Every model's files sit under this folder of the archive (after its root folder, when it has one).
AOTI_DIR = "data/aotinductor/"

# package_constants_on_disk_format="pickle_weights": every constant is torch.save'd (a pickle) into its own member
# `data/weights/weight_<i>` at the archive's top (one per storage, shared by its models), and each model's folder
# holds `weights_config.json` (FQN -> [member, shape, stride, offset]).  Only load_pt2(..., load_weights_from_disk=True)
# (torch.export.pt2_archive._package) reads them and calls load_constants; aoti_load_package / load_package do not.
PICKLED_WEIGHTS_DIR = "data/weights/"
PICKLED_WEIGHT_PREFIX = "weight_"
PICKLED_WEIGHTS_CONFIG = "weights_config.json"

# package_constants_on_disk_format="binary_blob" (with package_constants_in_so=False): every constant of a model in one
# raw member beside its .so, `<hash>.wrapper_weights.blob` (the constants' bytes back to back, no header; seen: 768
# bytes for 768 bytes of constants, torch 2.13 CPU).  aoti_load_package (AOTIModelPackageLoader) finds it and loads it
# into the model before the first run; the .so loaded alone (AOTIModelContainerRunnerCpu, torch._export.aot_load)
# knows nothing of it.
WEIGHTS_BLOB_SUFFIX = ".wrapper_weights.blob"

# package_cpp_only=True (and compile_standalone): the model folder is a CMake project (`CMakeLists.txt`, the compile and
# linker flags as JSON, the weights as `<hash>.weights.o`) and holds no `.so` and no kernel.cpp: the CPU kernels
# (`extern "C" void cpp_fused_<k>(…)`) are appended to the wrapper, after run_impl (seen: torch 2.13 CPU).
CMAKE_PROJECT = "CMakeLists.txt"
# aot_inductor_mode.compile_standalone's CMakeLists.txt (a libtorch-free static library; link_libtorch=False) says
# `find_package(TorchStandalone REQUIRED)` where package_cpp_only's says `find_package(Torch REQUIRED)`: the package
# name, as `parse.binaries.CMakeFacts.packages` reads it.
CMAKE_STANDALONE_PACKAGE = "TorchStandalone"

# Compiled device code (CUDA cubins, ROCm hsaco, SPIR-V; CUDA fatbins of emit_multi_arch_kernel=True and the PTX
# members of compile_standalone): read for the `assertFile` strings and, by doctor, for their architecture.
DEVICE_CODE = (".cubin", ".hsaco", ".spv", ".fatbin", ".ptx")


def role(fn: str) -> str:
    """The role of the member named ``fn`` inside a model's folder."""
    if fn.endswith(".wrapper.cpp"):
        return "wrapper"
    if fn.endswith(".kernel.cpp"):
        return "kernel_cpp"
    if fn.endswith(".wrapper_metadata.json"):
        return "wrapper_metadata"
    if fn.endswith(".cpp") and "." not in fn[: -len(".cpp")] and "/" not in fn:
        return "inline_cpp"
    if fn.endswith("_metadata.json") and "." not in fn[: -len("_metadata.json")] and "/" not in fn:
        return "inline_metadata"
    if fn == "kernel_information.json":
        return "kernel_information"
    if fn.endswith(DEVICE_CODE):
        return "cubin"
    if fn.endswith(".so"):
        return "shared_object"
    if "weight" in fn or fn.endswith(".bin"):
        return "weights"
    return "other"


def pickled_weights(members, root: str = "") -> list[str]:
    """The pickle_weights members (`data/weights/weight_<i>`) among ``members`` of an archive whose top folder is
    ``root``, in their index order.  Names only: nothing here reads them."""
    prefix = root + PICKLED_WEIGHTS_DIR
    out = [m for m in members if m.startswith(prefix) and m[len(prefix):].startswith(PICKLED_WEIGHT_PREFIX)
           and "/" not in m[len(prefix):]]
    return sorted(out, key=lambda m: (len(m), m))


def weights_blob(members, folder: str) -> str | None:
    """The binary_blob weights member of the model whose folder is ``folder`` (None when it has none).  Names only."""
    return next((m for m in members if m.startswith(folder) and "/" not in m[len(folder):]
                 and m.endswith(WEIGHTS_BLOB_SUFFIX)), None)
