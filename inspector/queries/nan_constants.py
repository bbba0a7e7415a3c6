"""Kernels whose output is NaN by construction: they read no tensor and store a NaN constant.

Inductor folds the values of a tensor it holds no writer for (a `torch.empty`) to NaN; a kernel computed from it
alone stores NaN whatever the input.  Seen for real (torch 2.11): a user-defined Triton kernel taking TMA tensor
descriptors was dropped at export and the relu after it stored relu(NaN)
(sample_packages/harvest/aoti_tests/test_triton_kernel_tma_descriptor).
"""

from __future__ import annotations

from ..parse import expr_tree as E


def _nan(tree) -> bool:
    """Whether a tmp's tree holds the NaN literal Inductor writes: ``float("nan")`` (in ``tl.full([1], float("nan"),
    tl.float32)``)."""
    return any(isinstance(n, E.Call) and E.dotted(n.func) == "float" and len(n.args) == 1
               and isinstance(n.args[0], E.Str) and n.args[0].value == "nan" for n in E.walk(tree))


def constant_nan_kernels(pkg, model: str | None = None) -> list[tuple[str, int | None]]:
    """Triton kernels that read no tensor and store a NaN constant: what they write is NaN whatever the input.
    ``(kernel, its first launch line)``.  Only kernels whose source holds a NaN literal are parsed."""
    ix = pkg.index(model)
    out = []
    launches = {c.target: c.line for c in reversed(ix.calls())}
    for name in ix.kernels_writing_nan():
        k = ix.kernel(name)
        if k is None or not k.stores or any("load" in t.expr.names for t in k.tmps):
            continue
        nan_tmps = {t.name for t in k.tmps if _nan(t.expr.tree)}
        made = set(nan_tmps)
        for t in k.tmps:  # what is computed from a NaN stays NaN (max(0, nan) is nan in Triton)
            if made & set(t.expr.names):
                made.add(t.name)
        if any(made & set(st.value.names) for st in k.stores):
            out.append((name, launches.get(name)))
    return out
