"""The wrapper metadata member (``<hash>.wrapper_metadata.json``; torch 2.6: ``<hash>_metadata.json``), read once
into one record.  Its keys are spelled here alone, and so is the one fallback when the member is missing or says
no device: a model that launches GPU kernels (launchers in the wrapper, or cubins) is a CUDA model, else CPU.

    {"AOTI_DEVICE_KEY": "cuda"|"cpu", "AOTI_PLATFORM": "linux", "AOTI_MACHINE": "x86_64",
     "AOTI_CPU_ISA": "AVX512 AVX512_VNNI", "AOTI_COMPUTE_CAPABILITY": "90"|""}
"""

from __future__ import annotations

from dataclasses import dataclass

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
    def read(cls, raw: dict | None, launches_gpu_kernels: bool) -> "WrapperMetadata":
        raw = raw if isinstance(raw, dict) else {}
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
