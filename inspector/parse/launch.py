"""A Triton launcher's launch configuration, as the wrapper states it (issue 35 §1: the element a thread held).

Inductor writes the config autotune chose into each ``call_triton_<kernel>`` launcher:

    uint32_t grid_0 = ((xnumel + (256 - 1)) / (256));        // XBLOCK 256
    uint32_t grid_0 = xnumel;                                // XBLOCK 1 (a reduction's row per block, a 2-D x of 1)
    uint32_t y_grid_raw_ = ((ynumel + (4 - 1)) / (4));       // YBLOCK 4 (a grid split past 65535 blocks)
    launchKernel(kernels_.K, grid_0, grid_1, grid_2, 4, 1024, kernel_args_, stream_);   // num_warps 4, shared 1024

and each pointer's element type in the decorator's ``'signature': {'in_ptr0': '*i64', …}``.  Read here, once, with
these patterns; nothing above `index/` reads the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_GRID_DIV = re.compile(r"uint32_t\s+(?P<lhs>\w+)\s*=\s*\(\((?P<numel>\w+)\s*\+\s*\((?P<b>\d+)\s*-\s*1\)\)\s*/\s*\((?P=b)\)\);")
_GRID_ONE = re.compile(r"uint32_t\s+(?P<lhs>grid_[012]|[xyz]_grid_raw_)\s*=\s*(?P<numel>[xyz]numel)\s*;")
_LAUNCH = re.compile(r"launchKernel\(\s*kernels_\.(?P<k>\w+)\s*,\s*\w+\s*,\s*\w+\s*,\s*\w+\s*,\s*(?P<warps>\d+)\s*,"
                     r"\s*(?P<shared>\d+)\s*,")
_SIGNATURE = re.compile(r"'signature':\s*\{(?P<body>[^}]*)\}")
_SIG_ITEM = re.compile(r"'(?P<name>\w+)':\s*'(?P<t>[^']*)'")


@dataclass(frozen=True)
class LaunchConfig:
    """What a Triton launcher fixes: ``blocks`` the block size of each range (``{"x": 256, "y": 4}``: XBLOCK, YBLOCK;
    a range launched one block per index, ``grid_0 = xnumel``, is 1), ``num_warps`` and ``shared`` (bytes) as passed
    to ``launchKernel``, ``pointer_types`` each pointer parameter's Triton element type (``in_ptr0`` -> ``i64``), and
    the wrapper lines they were read from (1-based)."""

    kernel: str
    blocks: dict = field(default_factory=dict)
    num_warps: int | None = None
    shared: int | None = None
    pointer_types: dict = field(default_factory=dict)
    lines: tuple = ()


def launch_config(kernel: str, lines, first_line: int) -> LaunchConfig | None:
    """The launch configuration of ``kernel`` from its launcher's lines (``first_line``: the 1-based wrapper line of
    ``lines[0]``); None when no ``launchKernel`` of it is among them."""
    blocks: dict[str, int] = {}
    warps = shared = None
    types: dict[str, str] = {}
    at: list[int] = []
    for i, line in enumerate(lines):
        if "'signature'" in line and not types:
            m = _SIGNATURE.search(line)
            if m:
                types = {x.group("name"): x.group("t").lstrip("*") for x in _SIG_ITEM.finditer(m.group("body"))
                         if x.group("t").startswith("*")}
        if "uint32_t" in line:
            m = _GRID_DIV.search(line) or _GRID_ONE.search(line)
            if m and m.group("numel").endswith("numel"):
                r = m.group("numel")[0]
                if r in "xyz" and r not in blocks:
                    blocks[r] = int(m.groupdict().get("b") or 1)
                    at.append(first_line + i)
        if "launchKernel(" in line:
            m = _LAUNCH.search(line)
            if m and m.group("k") == kernel:
                warps, shared = int(m.group("warps")), int(m.group("shared"))
                at.append(first_line + i)
    if warps is None:
        return None
    return LaunchConfig(kernel=kernel, blocks=blocks, num_warps=warps, shared=shared, pointer_types=types,
                        lines=tuple(at))
