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
