"""Inductor and ATen naming rules, each written once: op-overload suffixes, fused-kernel name prefixes and
the multi-word ATen ops a fused name holds, dtype spellings, and symbol aliases.

    >>> strip_overload("aoti_torch_cpu_index_select_out"), kernel_ops("triton_poi_fused_index_select_1")
    ('aoti_torch_cpu_index_select', ['index_select'])
"""

from __future__ import annotations

import re

# An extern op's C shim name ends with its overload (`aoti_torch_cpu_scatter_reduce_two_out`).
_OVERLOAD = re.compile(r"_(out|two_out|two|default)$")

# The prefix of a fused kernel's name before its ops (`triton_poi_fused_`, `cpp_fused_`, …).
FUSED_PREFIX = re.compile(r"^(cpp_fused_|triton_(poi|red|per|tem|for)_fused_|triton_(poi|red|per|tem|for)_|cpp_)")

# ATen op names that contain "_", so a fused kernel name splits into the right ops (longest first).
MULTI_WORD_OPS = sorted({
    "index_copy", "index_add", "index_put", "index_select", "index_fill", "zeros_like", "ones_like", "full_like",
    "empty_like", "rand_like", "native_layer_norm", "layer_norm", "group_norm", "batch_norm", "native_batch_norm",
    "scatter_add", "scatter_reduce", "scatter_reduce_two", "embedding_bag", "embedding_dense_backward",
    "masked_fill", "masked_scatter", "masked_select", "where_self", "log_softmax", "_softmax", "_log_softmax",
    "logical_and", "logical_or", "logical_not", "bitwise_and", "bitwise_or", "bitwise_not", "floor_divide",
    "true_divide", "remainder", "clamp_min", "clamp_max", "_to_copy", "slice_scatter", "select_scatter",
    "constant_pad_nd", "reflection_pad2d", "repeat_interleave", "unsafe_index", "_unsafe_index",
    "_unsafe_index_put", "scaled_dot_product", "avg_pool2d", "max_pool2d", "adaptive_avg_pool2d", "rsqrt",
    "new_zeros", "new_ones", "new_empty", "split_with_sizes", "_native_batch_norm_legit_no_training",
}, key=len, reverse=True)

# What a user may write for a dtype (`check --input 0=half[4]`) -> torch's name.
DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
                 "short": "int16", "bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


def split_overload(op: str) -> tuple[str, str | None]:
    """``index_put_out`` -> ``("index_put", "out")``; ``embedding`` -> ``("embedding", None)``: the op and the
    overload suffix a C-shim name carries (``out``, ``two_out``, ``two``, ``default``)."""
    m = _OVERLOAD.search(op)
    return (op[: m.start()], m.group(1)) if m else (op, None)


def strip_overload(op: str) -> str:
    """``aoti_torch_cpu_index_put_out`` -> ``aoti_torch_cpu_index_put`` (the op without its overload)."""
    return split_overload(op)[0]


_SHIM_DEVICE_PREFIX = re.compile(r"^aoti_torch_(cpu|cuda|xpu|mps)_")


def shim_op_name(target: str) -> str:
    """``aoti_torch_cuda_index_put_out`` -> ``index_put_out``: the ATen op a device C-shim call runs."""
    return _SHIM_DEVICE_PREFIX.sub("", target)


def extern_op(target: str, device: str | None = None) -> str | None:
    """``aoti_torch_cuda_addmm_out`` -> ``addmm``: the ATen op a device C-shim call runs, its ``_out`` dropped
    (other overloads kept: ``scatter_reduce_two``); None when ``target`` is no C-shim call (of ``device``)."""
    m = _SHIM_DEVICE_PREFIX.match(target)
    if not m or (device is not None and m.group(1) != device):
        return None
    op, overload = split_overload(target[m.end():])
    return op if overload in (None, "out") else f"{op}_{overload.removesuffix('_out')}"


def dispatcher_name(target: str) -> str | None:
    """``aoti_torch_cpu__embedding_bag`` -> ``at::_ops::_embedding_bag::call``: the name the intermediate value
    printer (torch 2.14) gives an extern call of a C shim by the C++ dispatcher entry it runs; None when ``target``
    is no C-shim call."""
    op = shim_op_name(target)
    return None if op == target else f"at::_ops::{strip_overload(op)}::call"


# The extern ops (C-shim names, `extern_op`) that call cuBLAS, and cuDNN's convolutions (on CUDA)
CUBLAS_OPS = frozenset({"mm", "addmm", "bmm", "baddbmm", "addbmm", "addmv", "mv", "_scaled_mm", "linear"})
CONV_OPS = frozenset({"convolution", "_convolution"})
CONV_OP_PREFIX = "cudnn_convolution"
EFFICIENT_ATTENTION = "aoti_torch_cuda__scaled_dot_product_efficient_attention"  # no _out overload in the shim
# (output, logsumexp): the output has the query's sizes and dtype, the logsumexp is float32 [B, H, L]
FLASH_ATTENTION_CPU = "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"
# a custom op's call (torchvision::roi_align, a Python op): its own allocations happen inside the op, unseen
PROXY_EXECUTOR_CALL = "aoti_torch_proxy_executor_call_function"


# C-shim calls (name prefixes: `aoti_torch_empty_strided`, `aoti_torch_clone_preserve_strides`, `aoti_torch_copy_`)
# that allocate or copy a tensor: Inductor wraps no error check around them and they never fail on bad data, so
# none is "an extern op run unchecked" nor the op that failed.
ALLOC_OR_COPY_SHIMS = ("aoti_torch_clone", "aoti_torch_copy", "aoti_torch_empty")
# The call a custom op (one with no C shim: torchvision's, a torch.library op) is run through: the proxy executor,
# called without an error check; its second argument indexes the package's `<hash>.wrapper.json` nodes.
PROXY_CALL = "aoti_torch_proxy_executor_call_function"
# Those and `aoti_torch_assign_tensors` (one handle made to alias another's tensor): the C-shim calls that run no
# ATen kernel, so none divides by a size or checks one.
NO_KERNEL_SHIMS = (*ALLOC_OR_COPY_SHIMS, "aoti_torch_assign_tensors")


def calls_cublas(target: str) -> bool:
    """Whether a run_impl call is a CUDA extern op that calls cuBLAS (``aoti_torch_cuda_mm_out``)."""
    return extern_op(target, "cuda") in CUBLAS_OPS


def calls_convolution(target: str) -> bool:
    """Whether a run_impl call is a convolution on any device (cuDNN's, or the CPU's oneDNN/im2col one: either
    takes a workspace of its own while it runs, measured up to 1.5x its output on the CPU, torch 2.13)."""
    op = extern_op(target, "cuda") or extern_op(target, "cpu") or ""
    return op in CONV_OPS or op.startswith(CONV_OP_PREFIX)


def calls_cudnn_conv(target: str) -> bool:
    """Whether a run_impl call is a CUDA convolution (cuDNN's: ``aoti_torch_cuda_convolution``)."""
    op = extern_op(target, "cuda") or ""
    return op in CONV_OPS or op.startswith(CONV_OP_PREFIX)


_ATEN_TARGET = re.compile(r"aten\.(\w+)")


def aten_op(target: str) -> str | None:
    """``torch.ops.aten.gather.default`` -> ``gather``: the ATen op an FX node's target names (None: none)."""
    m = _ATEN_TARGET.search(target or "")
    return m.group(1) if m else None


_FUSED_NAME = re.compile(r"^(?:cpp|triton_[a-z]+)_fused_(?P<ops>\w+?)_\d+$")


def fused_words(kernel: str) -> set[str]:
    """The words of a fused kernel's ops (``cpp_fused_add_gather_mul_0`` -> add, gather, mul; multi-word ops come
    apart: `kernel_ops` keeps them); empty for a name that is no fused kernel's."""
    m = _FUSED_NAME.match(kernel)
    return set(m.group("ops").split("_")) if m else set()


# Bytes per element of torch's dtypes (what an allocation of N elements costs).
DTYPE_BYTES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2,
               "int8": 1, "uint8": 1, "bool": 1, "complex64": 8, "complex128": 16, "float8_e4m3fn": 1,
               "float8_e5m2": 1, "uint16": 2, "uint32": 4, "uint64": 8}


def is_kernel_def(def_name: str, kernel: str) -> bool:
    """Whether the Triton ``def <def_name>(`` is kernel ``kernel``'s: Inductor's kernels keep their name; a
    user-defined kernel (triton_op / wrap_triton) is launched as ``<its def name>_<n>`` (``gather_kernel`` ->
    ``gather_kernel_0``)."""
    return def_name == kernel or (kernel.startswith(def_name + "_") and kernel[len(def_name) + 1:].isdigit())


def kernel_ops(name: str) -> list[str]:
    """``cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0`` -> [ge, index, index_copy, mul, sub, where, zeros_like]."""
    s = FUSED_PREFIX.sub("", name)
    s = re.sub(r"_\d+$", "", s)
    out = []
    while s:
        s = s.lstrip("_")
        for op in MULTI_WORD_OPS:
            if s == op or s.startswith(op + "_"):
                out.append(op)
                s = s[len(op):]
                break
        else:
            head, _, s = s.partition("_")
            if head:
                out.append(head)
    return out


# Every other spelling of a dtype that pt2-inspect reads, -> torch's name.  One table per writer, and the two
# numberings disagree (4 is int64 in c10's and int32 in the exported program's): a code is read with its writer's
# table, by that table's name, never through a generic alias.
# c10::ScalarType codes, as AOTI_RUNTIME_CHECK_INPUTS prints them (c10/core/ScalarType.h's order, torch 2.13; the
# sub-byte uint1..7 / int1..7 are torch's dummy dtypes).
C10_SCALAR_TYPES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16", 6: "float32",
                    7: "float64", 8: "complex32", 9: "complex64", 10: "complex128", 11: "bool", 12: "qint8",
                    13: "quint8", 14: "qint32", 15: "bfloat16", 16: "quint4x2", 17: "quint2x4", 18: "bits1x8",
                    19: "bits2x4", 20: "bits4x2", 21: "bits8", 22: "bits16", 23: "float8_e5m2", 24: "float8_e4m3fn",
                    25: "float8_e5m2fnuz", 26: "float8_e4m3fnuz", 27: "uint16", 28: "uint32", 29: "uint64",
                    **{29 + n: f"uint{n}" for n in range(1, 8)}, **{36 + n: f"int{n}" for n in range(1, 8)},
                    44: "float8_e8m0fnu", 45: "float4_e2m1fn_x2"}
# The exported program's serialized ScalarType (torch/_export/serde/schema.py, torch 2.13): another numbering,
# with a gap after bfloat16 (the codes from 28 on were added later).
EXPORT_SCALAR_TYPES = {0: "unknown", 1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float16",
                       7: "float32", 8: "float64", 9: "complex32", 10: "complex64", 11: "complex128", 12: "bool",
                       13: "bfloat16", 28: "uint16", 29: "float8_e4m3fn", 30: "float8_e5m2", 31: "float8_e4m3fnuz",
                       32: "float8_e5m2fnuz", 33: "float8_e8m0fnu", 34: "uint32", 35: "uint64"}
# safetensors' header dtypes.
SAFETENSORS_DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64",
                      "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool",
                      "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2", "U16": "uint16", "U32": "uint32",
                      "U64": "uint64", "C64": "complex64"}
# torch.save's storage classes (read from the pickle's opcodes, never unpickled).
STORAGE_DTYPES = {"DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16",
                  "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
                  "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool", "ComplexFloatStorage": "complex64",
                  "ComplexDoubleStorage": "complex128", "Float8_e4m3fnStorage": "float8_e4m3fn",
                  "Float8_e5m2Storage": "float8_e5m2"}
# Triton's pointer element types in a kernel's signature (`'in_out_ptr0': '*fp32'`).
TRITON_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64", "i64": "int64",
                 "i32": "int32", "i8": "int8", "u8": "uint8", "i1": "bool"}


# torch's dtype names (torch.<name>): what a spelling must become to be checked against a package.
TORCH_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
                "complex64", "complex128", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                "uint16", "uint32", "uint64")


def dtype_name(text: str | None) -> str | None:
    """A user's dtype spelling (``float32``, ``torch.int64``, ``long``, ``half``) -> torch's name; an unknown
    spelling passes through (`known_dtype` says whether it is one)."""
    if not text:
        return text
    t = text.strip()
    t = t[len("torch."):] if t.startswith("torch.") else t
    return DTYPE_ALIASES.get(t, t)


def known_dtype(name: str | None) -> bool:
    return name is None or name in TORCH_DTYPES


def root_symbol(symbols: dict, name):
    """The symbol ``name`` stands for, its aliases followed (``s23 = s2``) while they name a known symbol;
    None when ``name`` is no symbol."""
    sym = symbols.get(str(name))
    seen = set()
    while sym is not None and sym.alias_of and sym.alias_of in symbols and sym.name not in seen:
        seen.add(sym.name)
        sym = symbols[sym.alias_of]
    return sym
