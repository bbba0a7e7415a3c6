"""The wrapper metadata member (``<hash>.wrapper_metadata.json``; torch 2.6: ``<hash>_metadata.json``), read once
into one record.  Its keys are spelled here alone, and so is the one fallback when the member is missing or says
no device: a model that launches GPU kernels (launchers in the wrapper, or cubins) is a CUDA model, else CPU.

    {"AOTI_DEVICE_KEY": "cuda"|"cpu", "AOTI_PLATFORM": "linux", "AOTI_MACHINE": "x86_64",
     "AOTI_CPU_ISA": "AVX512 AVX512_VNNI", "AOTI_COMPUTE_CAPABILITY": "90"|""}
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnreadablePackage

DEVICE_KEY = "AOTI_DEVICE_KEY"
COMPUTE_CAPABILITY = "AOTI_COMPUTE_CAPABILITY"
CPU_ISA = "AOTI_CPU_ISA"
PLATFORM = "AOTI_PLATFORM"
MACHINE = "AOTI_MACHINE"


def guessed_device(launches_gpu_kernels: bool) -> str:
    """The device of a model whose metadata names none: the one fallback."""
    return "cuda" if launches_gpu_kernels else "cpu"


@dataclass(frozen=True)
class WrapperMetadata:
    """What the metadata member says, with the device filled in by :func:`guessed_device` when it says none."""

    device: str
    device_guessed: bool
    compute_capability: str | None
    cpu_isa: tuple[str, ...]
    platform: str | None
    machine: str | None

    @classmethod
    def read(cls, raw: dict | None, launches_gpu_kernels: bool, member: str = "the wrapper metadata") -> "WrapperMetadata":
        """``raw``: the member's JSON (None: no such member).  A JSON object whose known keys are strings; anything
        else torch does not write, and is refused naming ``member`` and the key (UnreadablePackage: exit 3)."""
        if raw is not None and not isinstance(raw, dict):
            raise UnreadablePackage(f"{member}: a JSON {_json_type(raw)}, not the object torch writes")
        raw = raw or {}
        for key in (DEVICE_KEY, COMPUTE_CAPABILITY, CPU_ISA, PLATFORM, MACHINE):
            if raw.get(key) is not None and not isinstance(raw[key], str):
                raise UnreadablePackage(f"{member}: {key} is a JSON {_json_type(raw[key])}, not the string torch writes")
        device = raw.get(DEVICE_KEY) or None
        return cls(device=device or guessed_device(launches_gpu_kernels), device_guessed=device is None,
                   compute_capability=raw.get(COMPUTE_CAPABILITY) or None,
                   cpu_isa=tuple(str(raw.get(CPU_ISA) or "").split()),
                   platform=raw.get(PLATFORM) or None, machine=raw.get(MACHINE) or None)

    def filled(self, raw: dict | None) -> dict:
        """``raw`` with the device key set as this record says (what the index keeps and caches)."""
        out = dict(raw) if isinstance(raw, dict) else {}
        out[DEVICE_KEY] = self.device
        return out


def _json_type(v) -> str:
    """The JSON name of a decoded value's type: "array", "number", …"""
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(v), type(v).__name__)


PROVENANCE_LISTS = ("stack_traces", "pre_grad_nodes", "post_grad_nodes")  # kernel_information.json, per kernel call


def provenance_entries(info, member: str) -> dict[str, dict[str, list[str]]]:
    """kernel_information.json (``{"<kernel>:<handle>": {"stack_traces": [str…], "pre_grad_nodes": […],
    "post_grad_nodes": […]}}``) as each key's three lists (`PROVENANCE_LISTS`); null is no provenance.  Any other shape torch
    does not write, and is refused naming ``member`` and the key (UnreadablePackage: exit 3)."""
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise UnreadablePackage(f"{member}: a JSON {_json_type(info)}, not the object torch writes")
    out = {}
    for key, v in info.items():
        if not isinstance(v, dict):
            raise UnreadablePackage(f"{member}: {key} is a JSON {_json_type(v)}, not an object")
        lists = {}
        for field in PROVENANCE_LISTS:
            x = v.get(field) or []
            if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
                raise UnreadablePackage(f"{member}: {key}'s {field} is not a list of strings")
            lists[field] = list(x)
        out[key] = lists
    return out
