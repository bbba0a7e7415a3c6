"""Facts of run_impl statements and launchers about buffers and their sizes that doctor's memory estimate reads
from the scan's statements (nothing parsed by the grammars): a view's base and size array
(``reinterpret_tensor_wrapper(buf4, 2, int_array_2, int_array_3, 32L)``), a launcher's parameter names, a Triton
kernel's first pointer type (its decorator's ``'signature': {'in_out_ptr0': '*fp32', …}``, the dialect's
`triton_signature`).

    >>> view_of("reinterpret_tensor_wrapper(buf4, 2, int_array_2, int_array_3, 32L)").sizes
    'int_array_2'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dialects.base import Dialect
from .statements import View
from .tokens import call_args, lexed_expr

VIEW_FUNCTION = "reinterpret_tensor_wrapper"
VIEW_CALL = VIEW_FUNCTION + "("


def view_of(text: str) -> View | None:
    """The first view ``text`` makes (``reinterpret_tensor_wrapper(base, ndim, sizes, strides, offset)``: the
    grammar's `View`, its ``args`` the arguments after the base), or None."""
    at = text.find(VIEW_CALL)
    if at < 0:
        return None
    args = call_args(text[at:])
    if len(args) < 4 or not (args[0].isidentifier() and args[1].isdigit() and args[2].isidentifier()):
        return None
    return View(args[0], tuple(map(lexed_expr, args[1:])))


def launcher_param_names(lines: list[str]) -> list[str]:
    """The parameter names of a launcher's parameter lines (``const int64_t xnumel,`` -> ``xnumel``; ``&``/``*``
    dropped; "" for a line that names none)."""
    params = [ln.strip().rstrip(",").split("=")[0].split()[-1:] for ln in lines]
    return [p[0].lstrip("&*") if p else "" for p in params]


def first_pointer_type(dialect, lines: list[str]) -> str | None:
    """Triton's element type (``fp32``) of a kernel's first pointer parameter, from its decorator lines."""
    for line in lines:
        m = dialect.triton_signature.search(line)
        if m:
            return m.group("t")
    return None


# -- the buffer life cycle of run_impl statements, by the dialect's patterns (`Dialect.allocation` and kin) --------
@dataclass(frozen=True)
class AllocCall:
    """What ``aoti_torch_empty_strided(4, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cuda,
    …, &buf0_handle)`` says: the buffer, the names of its size and stride arrays, its dtype and device."""

    buffer: str
    sizes: str
    strides: str
    dtype: str
    device: str


@dataclass(frozen=True)
class Share:
    """``auto buf4 = std::move(buf0);`` (moved) or ``auto buf5 = reinterpret_tensor_wrapper(buf3, …, 32L);`` (a view
    at an offset): ``name`` holds ``source``'s storage."""

    name: str
    source: str
    moved: bool
    offset: str | None = None  # a view's storage offset as written (`32L`), None when not said


def int_arrays(dialect, text: str) -> list[tuple[str, list[str]]]:
    """``int64_t int_array_0[] = {s77, 64L};`` -> [("int_array_0", ["s77", "64L"])]; an item's own commas
    (``c10::div_floor_integer(static_cast<int64_t>(s27), static_cast<int64_t>(5L))``) stay in it."""
    return [(a.group("name"), braced_items(a.group("items"))) for a in dialect.int_array.finditer(text)]


def braced_items(text: str) -> list[str]:
    """The top-level items of a brace list's inside (``s77, std::max(1L, s27)`` -> s77, std::max(1L, s27))."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    return [x for x in call_args("(" + text + ")") if x]


SIZE_STRIDE_CALL = "assert_size_stride("


def size_stride_check(text: str) -> tuple[str, list[str], list[str]] | None:
    """``assert_size_stride(buf2, {s77, 192L, s45}, {192L*s45, 1L, 192L}, "torch.ops.aten.convolution.default")``
    (torch 2.13's check of an input or of an extern op's output, run under AOTI_RUNTIME_CHECK_INPUTS=1) ->
    (buf2, its sizes, its strides), the items as written; None when ``text`` is no such check."""
    at = text.find(SIZE_STRIDE_CALL)
    if at < 0:
        return None
    args = call_args(text[at:])
    if len(args) < 3 or not args[0].isidentifier() or not args[1].startswith("{") or not args[2].startswith("{"):
        return None
    return args[0], braced_items(args[1]), braced_items(args[2])


def numel_local(dialect, text: str) -> tuple[str, str, str] | None:
    """``int64_t triton_x_xnumel = 4*s0;`` -> ("triton_x", "x", "4*s0"): (kernel, axis, expression)."""
    n = dialect.numel_local.match(text)
    return (n.group("kernel"), n.group("axis"), n.group("expr").strip()) if n else None


def allocation(dialect, text: str) -> AllocCall | None:
    al = dialect.allocation.search(text)
    return AllocCall(al.group("buf"), al.group("sizes"), al.group("strides"), al.group("dtype"), al.group("device")) \
        if al else None


def extern_outputs(dialect, text: str) -> list[str]:
    """The buffers an extern op's call fills through a handle (``&buf3_handle``), in order."""
    return dialect.extern_output.findall(text)


def storage_share(dialect, text: str) -> Share | None:
    sh = dialect.storage_share.match(text)
    if not sh:
        return None
    if sh.group("moved"):
        return Share(sh.group("name"), sh.group("moved"), True)
    vo = dialect.view_offset.search(text)
    return Share(sh.group("name"), sh.group("viewed"), False, vo.group("offset") if vo else None)


def releases(dialect, text: str) -> list[str]:
    """``buf0.reset();`` -> ["buf0"]."""
    return [r.group("buf") for r in dialect.release.finditer(text)]


def handed_out(dialect, text: str) -> list[str]:
    """``output_handles[0] = buf2.release();`` -> ["buf2"]."""
    return [o.group("buf") for o in dialect.handed_out.finditer(text)]


# How far above its allocation a buffer's size array may be declared (Inductor declares it just before).
ARRAY_REACH = 400


def alloc_sizes(lines: list[str], name: str, line: int, dialect=Dialect) -> list[str] | None:
    """The sizes buffer ``name``, allocated at wrapper line ``line`` (1-based; the allocation may sit up to two
    lines below it), is made with, as written (``8L`` read as ``8``); None when the lines hold no such
    allocation or its size array.  ``dialect``: the wrapper's (default: the base dialect's patterns)."""
    if not lines or not 0 < line <= len(lines):
        return None
    for ln in range(line - 1, max(line - 3, 0) - 1, -1):
        al = allocation(dialect, lines[ln])
        if al and al.buffer == name:
            for k in range(ln, max(ln - ARRAY_REACH, 0) - 1, -1):
                for arr, items in int_arrays(dialect, lines[k]):
                    if arr == al.sizes:
                        return [x.rstrip("L") for x in items]
            return None
    return None
