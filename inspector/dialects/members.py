"""Which member of a package is what: the archive layout's facts (where models sit, how each generated
file is named), so `inspector.archive` files members by role without knowing torch's names.

Roles: "wrapper", "kernel_cpp", "wrapper_metadata" (one each per model), "inline_cpp" (torch 2.6: one
`<hash>.cpp` holding the wrapper and its CPU kernels), "inline_metadata" (torch 2.6: `<hash>_metadata.json`),
"kernel_information", "cubin", "shared_object", "weights", "other".
"""

from __future__ import annotations

# Every model's files sit under this folder of the archive (after its root folder, when it has one).
AOTI_DIR = "data/aotinductor/"

# Compiled device code (CUDA cubins, ROCm hsaco, SPIR-V): read only for the `assertFile` strings.
DEVICE_CODE = (".cubin", ".hsaco", ".spv")


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
