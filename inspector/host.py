"""The host a package will run on, probed or described: the one home of the host probes (issue 21 §2).

- the GPU: what ``nvidia-smi`` reports for GPU 0, or an architecture given as ``sm_80`` / ``8.0``;
- the CPU: the flags of a ``/proc/cpuinfo`` text (this host's, or a saved one);
- glibc: this host's version (``confstr``), and the order of ``GLIBC_2.34``-style version names;
- torch: whether this Python can import it (found, never imported), and a release given as ``2.13`` / ``2.13.0``
  / ``2.13.0+cu128``, split into its numbers.

Nothing here imports torch or runs anything from a package; the only process started is ``nvidia-smi``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")

_SMI_CAP = re.compile(r"(\d+)\.(\d+)")
_GPU_ARG = re.compile(r"(?:sm_?)?(\d{2,3})[af]?|(\d+)\.(\d)")
_RELEASE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")
_NUMBERS = re.compile(r"\d+")


# -- the GPU ------------------------------------------------------------------------------------------

def nvidia_smi_sm() -> int | None:
    """The compute capability ``nvidia-smi`` reports for GPU 0 (90 for 9.0), None without one."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = _SMI_CAP.search(out)
    return int(m.group(1)) * 10 + int(m.group(2)) if m else None


def gpu_sm(text: str) -> int | None:
    """``sm_80`` / ``sm80`` / ``sm_90a`` / ``8.0`` / ``80`` -> 80; None when it names no architecture."""
    m = _GPU_ARG.fullmatch(text.strip().lower())
    if not m:
        return None
    return int(m.group(1)) if m.group(1) else int(m.group(2)) * 10 + int(m.group(3))


# -- the CPU ------------------------------------------------------------------------------------------

def host_cpu_flags(text: str) -> set[str]:
    """The flags of a ``/proc/cpuinfo`` text (its first ``flags`` line), or of a bare flag list."""
    for line in text.splitlines():
        head, colon, rest = line.partition(":")
        if colon and head.strip() == "flags":
            return set(rest.split())
    return set(text.split())


def read_cpuinfo() -> str:
    """This host's ``/proc/cpuinfo`` text (an OSError when it cannot be read)."""
    return CPUINFO.read_text()


# -- glibc --------------------------------------------------------------------------------------------

def host_glibc() -> str | None:
    """This host's glibc version (``"glibc 2.35"``), None when the C library does not say."""
    try:
        return os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError, AttributeError):
        return None


def version_key(text: str) -> tuple[int, ...]:
    """The numbers of a version name, to order them: ``GLIBC_2.34`` -> (2, 34), ``glibc 2.35`` -> (2, 35)."""
    return tuple(int(x) for x in _NUMBERS.findall(text))


# -- torch --------------------------------------------------------------------------------------------

def torch_python() -> str | None:
    """The Python that runs pt2-inspect, when torch can be imported there (found, not imported): the one that runs
    a package's child processes (repro, sweep)."""
    return sys.executable if importlib.util.find_spec("torch") is not None else None


def torch_info() -> dict:
    """The torch this Python runs a package's child processes with (repro --run, diagnose --confirm): its version
    and folder, found without importing it (no dlopen here)."""
    import importlib.metadata

    spec = importlib.util.find_spec("torch")
    try:
        version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {"version": version, "path": os.path.dirname(spec.origin) if spec and spec.origin else None,
            "python": sys.executable}


def torch_cuda_devices(python: str, timeout: float = 120) -> int | None:
    """How many CUDA devices torch sees in ``python`` (one child process, which imports torch; never this one);
    None when the child could not say (it crashed, or ran past ``timeout``)."""
    import subprocess

    try:
        p = subprocess.run([python, "-c", "import torch; print(torch.cuda.device_count())"], capture_output=True,
                           text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = p.stdout.strip().splitlines()
    return int(out[-1]) if p.returncode == 0 and out and out[-1].isdigit() else None


def release_numbers(text: str) -> tuple[str, str] | None:
    """``"2.13"`` / ``"2.13.0"`` -> ("2", "13"); None when it is not a release number."""
    m = _RELEASE.match(text)
    return (m.group(1), m.group(2)) if m else None
