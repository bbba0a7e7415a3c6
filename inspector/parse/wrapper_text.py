"""Reads of a generated wrapper's (or kernel.cpp's) raw text that need no grammar, for `doctor`: the compile
commands Inductor writes as comments and their ``-m`` flags, the kernel images the ``loadKernel(`` lines name, and
the device index the wrapper allocates and launches on.  Typed answers; the patterns live here alone."""

from __future__ import annotations

import re
from dataclasses import dataclass

# `// g++ /tmp/….cpp -D … -march=native -mavx512f …`: Inductor's compile command, as a comment of the source
_COMPILE_CMD = re.compile(r"^//\s*(?:g\+\+|c\+\+|clang\+\+|\S*/(?:g\+\+|c\+\+|clang\+\+))\s.*$", re.M)
_M_FLAGS = re.compile(r"\s-m([a-z0-9-]+)")
_IMAGE_NAME = re.compile(r"(\w+\.(?:cubin|fatbin))")
_RUNNER_INDEX = re.compile(r"\bthis->device_idx_\b")
_FIXED_INDEX = re.compile(r"\"(cuda|xpu):(\d+)\"")


@dataclass(frozen=True)
class CompileFlags:
    """The ``-m`` flags of a build's compile commands (``-march``/``-mtune`` left out), whether one held
    ``-march=native``, and the member the first command came from (None: no compile command)."""

    flags: frozenset[str]
    native: bool
    member: str | None


def compile_flags(texts) -> CompileFlags:
    """``texts``: (member, text) pairs, the wrapper first."""
    flags: set[str] = set()
    native, where = False, None
    for member, text in texts:
        for m in _COMPILE_CMD.finditer(text):
            cmd = m.group(0)
            flags |= set(_M_FLAGS.findall(cmd)) - {"arch=native"}
            native = native or "-march=native" in cmd
            where = where or member
    return CompileFlags(frozenset(x for x in flags if not x.startswith(("arch", "tune"))), native, where)


def loaded_image_names(wrapper: str, marker: str | None) -> set[str]:
    """The ``.cubin`` / ``.fatbin`` file names on the wrapper's lines that hold ``marker`` (the dialect's
    ``loadKernel(``)."""
    wanted: set[str] = set()
    if not marker:
        return wanted
    for line in wrapper.splitlines():
        if marker in line:
            wanted |= set(_IMAGE_NAME.findall(line))
    return wanted


@dataclass(frozen=True)
class DeviceIndexUse:
    """Where the wrapper uses the runner's own device index (1-based lines), and the device strings it spells
    with a fixed index (``"cuda:1"``)."""

    runner_lines: tuple[int, ...]
    fixed: tuple[str, ...]


def device_index_use(wrapper: str) -> DeviceIndexUse:
    lines = tuple(i + 1 for i, line in enumerate(wrapper.splitlines()) if _RUNNER_INDEX.search(line))
    return DeviceIndexUse(lines, tuple(sorted({m.group(0) for m in _FIXED_INDEX.finditer(wrapper)})))
