"""Source FX nodes and ATen ops of a kernel call, and splitting fused kernel names."""

from __future__ import annotations

from ..model import CallSite, Kernel, Model
from ..naming import kernel_ops, shim_op_name, split_overload

def extern_op_name(target: str) -> str:
    """``aoti_torch_cpu__embedding_bag`` -> ``_embedding_bag``; ``aoti_torch_cuda_addmm_out`` -> ``addmm_out``."""
    return shim_op_name(target)


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
        base, overload = split_overload(op)
        nodes = prov.pre_grad_nodes if prov and prov.pre_grad_nodes else [base]
        return nodes, not (prov and prov.pre_grad_nodes), [f"aten.{base}" + (f".{overload}" if overload else "")], traces, post
    if prov and prov.pre_grad_nodes:
        ops = [f"aten.{o}" for o in kernel_ops(name)]
        return prov.pre_grad_nodes, False, ops, traces, post
    ops = kernel_ops(name)
    return ops, True, [f"aten.{o}" for o in ops], traces, post
