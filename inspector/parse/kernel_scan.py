"""Plain string search over a kernel.cpp and a Triton launcher's source, no grammar: each CPU kernel's region and its
``TORCH_CHECK`` lines (`scan_kernel_cpp`, `check_statement`), a Triton kernel's heuristic (`kernel_heuristic`)."""

from __future__ import annotations

import re


_DECORATOR = re.compile(r"@triton_heuristics\.(\w+)\(")
_SIGNATURE_NAME = re.compile(r"(\w+)\s*\($")
CHECK_STARTS = ("AOTI_TORCH_CHECK(", "TORCH_CHECK(")


def _declaration(lines: list[str], i: int) -> bool:
    """The signature starting at ``lines[i]`` ends in ``;`` before any ``{``: a declaration, not the kernel (a
    package_cpp_only wrapper declares each kernel above run_impl and defines it after)."""
    for k in range(i, min(i + 400, len(lines))):
        t = lines[k].strip()
        if "{" in t:
            return False
        if t.endswith(";"):
            return True
    return False


def check_statement(lines: list[str], j: int) -> str:
    """The ``TORCH_CHECK`` statement starting at ``lines[j]``, joined when it spans lines (the CPP GEMM template's
    ``AOTI_TORCH_CHECK(`` / condition / message / ``);``)."""
    s = lines[j].strip()
    while not s.endswith(";") and j + 1 < len(lines):
        j += 1
        s += " " + lines[j].strip()
    return s


def scan_kernel_cpp(lines: list[str]) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """Plain string search, no grammar: each ``extern "C"`` kernel's name -> (first line index, end index,
    the indices of its ``TORCH_CHECK`` lines).  A kernel's region runs to the next signature (or the file's
    end); `parse_kernel_region` stops at the brace that closes its body."""
    starts: list[tuple[int, str]] = []
    for i, raw in enumerate(lines):
        if raw.startswith('extern "C"') or raw.lstrip().startswith('extern "C"'):
            s = raw.strip()
            if s == 'extern "C"' and i + 1 < len(lines):
                s += " " + lines[i + 1].strip()  # a CPP GEMM template's kernel: `extern "C"` / `void <k>(…)`
            if "(" not in s:
                continue  # an `extern "C" {` block
            m = _SIGNATURE_NAME.search(s[: s.index("(") + 1])
            if m and not _declaration(lines, i):
                starts.append((i, m.group(1)))
        elif raw.startswith("inline void ") and raw.rstrip().endswith("(") and i and lines[i - 1].startswith("template <"):
            # a CPP GEMM template's micro-kernel (`template <…>` / `inline void <k>_micro_gemm_kernel(`): its own
            # function, named in `Exception raised from <function>`, so a kernel of its own
            m = _SIGNATURE_NAME.search(raw.strip())
            if m:
                starts.append((i, m.group(1)))
    out = {}
    for j, (i, name) in enumerate(starts):
        end = starts[j + 1][0] if j + 1 < len(starts) else len(lines)
        if end < len(lines) and lines[end - 1].startswith("template <"):
            end -= 1  # the next micro-kernel's template line
        checks = tuple(k for k in range(i, end) if lines[k].lstrip().startswith(CHECK_STARTS))
        out.setdefault(name, (i, end, checks))
    return out


_NAME_FLAVORS = (("triton_poi_", "pointwise"), ("triton_red_", "reduction"), ("triton_per_", "persistent_reduction"),
                 ("triton_tem_", "template"), ("triton_for_", "foreach"))


def decorator_heuristic(line: str) -> str | None:
    """``@triton_heuristics.pointwise(`` -> "pointwise" (None for any other line)."""
    m = _DECORATOR.search(line)
    return m.group(1) if m else None


def kernel_heuristic(name: str, decorator: str | None) -> str:
    """A Triton kernel's heuristic: its ``@triton_heuristics.<heuristic>(`` decorator, else what its name says."""
    if decorator:
        return decorator
    return next((f for prefix, f in _NAME_FLAVORS if name.startswith(prefix)), "other")
