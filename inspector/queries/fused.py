"""Source FX nodes and ATen ops of a kernel call, and splitting fused kernel names."""

from __future__ import annotations

import re

from ..model import CallSite, Kernel, Model

# ATen op names that contain "_", so a fused kernel name splits into the right ops.
_MULTI_WORD_OPS = sorted({
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


def split_fused_name(name: str) -> list[str]:
    """``cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0`` -> [ge, index, index_copy, mul, sub, where, zeros_like]."""
    s = re.sub(r"^(cpp_fused_|triton_(poi|red|per|tem|for)_fused_|triton_(poi|red|per|tem|for)_|cpp_)", "", name)
    s = re.sub(r"_\d+$", "", s)
    out = []
    while s:
        s = s.lstrip("_")
        for op in _MULTI_WORD_OPS:
            if s == op or s.startswith(op + "_"):
                out.append(op)
                s = s[len(op):]
                break
        else:
            head, _, s = s.partition("_")
            if head:
                out.append(head)
    return out


def extern_op_name(target: str) -> str:
    """``aoti_torch_cpu__embedding_bag`` -> ``_embedding_bag``; ``aoti_torch_cuda_addmm_out`` -> ``addmm_out``."""
    return re.sub(r"^aoti_torch_(cpu|cuda|xpu|mps)_", "", target)


def source_nodes(m: Model, k: Kernel | None, site: CallSite | None, name: str | None = None):
    """(nodes, derived?, aten ops, stack traces, post-grad nodes) for a kernel's (or extern op's) call."""
    name = name or (k.name if k else site.target if site else "")
    prov = m.provenance.get(site.provenance) if site and site.provenance else None
    if prov is None:
        prov = next((p for key, p in m.provenance.items() if key.rsplit(":", 1)[0] == name), None)
    traces = prov.stack_traces if prov else []
    post = prov.post_grad_nodes if prov else []
    if site and site.source_nodes:
        return site.source_nodes, False, site.aten_ops, traces, post
    if site is not None and site.kind == "extern":
        op = extern_op_name(site.target)
        mm = re.fullmatch(r"(\w+?)_((?:two_)?out|two)", op)
        base, overload = (mm.group(1), mm.group(2)) if mm else (op, None)
        nodes = prov.pre_grad_nodes if prov and prov.pre_grad_nodes else [base]
        return nodes, not (prov and prov.pre_grad_nodes), [f"aten.{base}" + (f".{overload}" if overload else "")], traces, post
    if prov and prov.pre_grad_nodes:
        ops = [f"aten.{o}" for o in split_fused_name(name)]
        return prov.pre_grad_nodes, False, ops, traces, post
    ops = split_fused_name(name)
    return ops, True, [f"aten.{o}" for o in ops], traces, post
