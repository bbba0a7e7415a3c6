"""The sizes run_impl allocates a buffer with: ``int64_t int_array_0[] = {8L, s0, };`` … ``aoti_torch_empty_strided(
1, int_array_0, …, &buf0_handle)``, read from the wrapper's lines through the dialect's ``allocation`` and
``int_array`` patterns (inspector.dialects.base), so no query reads that text itself."""

from __future__ import annotations

from ..dialects.base import Dialect

# How far above its allocation a buffer's size array may be declared (Inductor declares it just before).
ARRAY_REACH = 400


def alloc_sizes(lines: list[str], name: str, line: int, dialect=Dialect) -> list[str] | None:
    """The sizes buffer ``name``, allocated at wrapper line ``line`` (1-based; the allocation may sit up to two
    lines below it), is made with, as written (``8L`` read as ``8``); None when the lines hold no such
    allocation or its size array."""
    if not lines or not 0 < line <= len(lines):
        return None
    for ln in range(line - 1, max(line - 3, 0) - 1, -1):
        al = dialect.allocation.search(lines[ln])
        if al and al.group("buf") == name:
            arr = al.group("sizes")
            for k in range(ln, max(ln - ARRAY_REACH, 0) - 1, -1):
                am = dialect.int_array.search(lines[k])
                if am and am.group("name") == arr:
                    return [x.strip().rstrip("L") for x in am.group("items").split(",") if x.strip()]
            return None
    return None
