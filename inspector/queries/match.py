"""Which assertion, kernel launch or extern call a reported failure names."""

from __future__ import annotations

import os
import re

from ..logparse import NoticedCall, ReportedAssert
from ..model import CallSite, Model
from ..package import Package
from .fused import extern_op_name

# ATen CUDA kernels that assert on their own, and the ops whose extern calls can launch them.
ATEN_KERNEL_OPS = {
    "EmbeddingBag": ("embedding_bag", "_embedding_bag"),
    "embedding_backward": ("embedding_dense_backward",),
    "indexSelect": ("index_select",),
    "index_elementwise": ("index", "index_put", "_index_put_impl"),
    "IndexKernel": ("index", "index_put", "_index_put_impl", "index_select", "take", "put"),
    "ScatterGather": ("scatter", "scatter_add", "scatter_reduce", "gather"),
    "scatter_gather": ("scatter", "scatter_add", "scatter_reduce", "gather"),
    "Indexing": ("index_select", "index_add", "index_copy", "index_fill", "index_put", "take", "put"),
    "vectorized_gather": ("gather", "index_select"),
}

# Extern ops that index a tensor: (position of the table argument, position of the index argument).
INDEXING_OPS = {
    "embedding": (0, 1), "_embedding_bag": (0, 1), "embedding_bag": (0, 1), "index_select": (0, 2),
    "gather": (0, 2), "scatter": (0, 2), "scatter_add": (0, 2), "scatter_reduce": (0, 2),
    "index_put": (0, 1), "_index_put_impl": (0, 1), "take": (0, 1), "index": (0, 1), "index_add": (0, 2),
    "index_copy": (0, 2),
}


def norm_msg(s: str) -> str:
    return re.sub(r"(\d+)L\b", r"\1", s.strip().strip("`\"'")).replace(" ", "")


def all_assertions(pkg: Package, model: str | None):
    names = [model] if model else pkg.model_names
    for name in names:
        m = pkg.model(name)
        for k in m.kernels.values():
            for a in k.assertions:
                yield m, k, a


def find_for_report(pkg: Package, r: ReportedAssert, model: str | None):
    """(model, kernel, assertion, exact, how) candidates for one reported failure."""
    out = []
    if r.kind == "cpu":
        for m, k, a in all_assertions(pkg, model):
            if k.name == r.kernel and a.line == r.line:
                same_file = not m.kernel_member or os.path.basename(m.kernel_member) == r.file_name
                out.append((m, k, a, same_file, f"CPU check: {r.kernel} at kernel.cpp line {r.line}"
                            + ("" if same_file else " (kernel.cpp name differs from the package's)")))
        if len(out) > 1:
            exact = [o for o in out if o[3]]
            out = exact or out
        return out
    if r.kind == "cuda":
        cands = [(m, k, a) for m, k, a in all_assertions(pkg, model)
                 if k.kind == "triton" and a.line == r.line and (not r.message or norm_msg(a.message) == norm_msg(r.message))]
        by_file = [(m, k, a) for m, k, a in cands if k.cubin and r.file in pkg.cubin_assert_files(k.cubin)]
        if by_file:
            return [(m, k, a, True, f"device assert at {r.file_name}:{r.line}; the kernel's cubin names that file") for m, k, a in by_file]
        return [(m, k, a, False, f"line {r.line} and message match; no cubin names {r.file_name}") for m, k, a in cands]
    if r.kind == "aten":
        return []
    return [(m, k, a, False, "message match") for m, k, a in all_assertions(pkg, model)
            if norm_msg(a.message) == norm_msg(r.message)]


def site_for_noticed(pkg: Package, n: NoticedCall, model: str | None) -> tuple[Model, CallSite] | None:
    """The run_impl call a ``… API call failed at …wrapper.cpp, line N`` line names."""
    for name in [model] if model else pkg.model_names:
        m = pkg.model(name)
        if m.wrapper_member and os.path.basename(m.wrapper_member) != n.file_name and len(pkg.model_names) > 1:
            continue
        site = next((c for c in m.calls if c.line == n.line), None)
        if site is None:
            site = next((c for c in m.calls if c.target == n.call and abs(c.line - n.line) <= 2), None)
        if site is not None:
            return m, site
    return None


def extern_sites_for_aten(pkg: Package, r: ReportedAssert, model: str | None) -> list[tuple[Model, CallSite]]:
    """Extern calls whose op can launch the ATen kernel that asserted (``EmbeddingBag.cu`` -> _embedding_bag)."""
    stem = os.path.splitext(r.file_name or "")[0]
    ops = set()
    for key, names in ATEN_KERNEL_OPS.items():
        if key.lower() in stem.lower() or key.lower() in (r.kernel or "").lower():
            ops.update(names)
    out = []
    for name in [model] if model else pkg.model_names:
        m = pkg.model(name)
        for c in m.calls:
            if c.kind != "extern":
                continue
            op = extern_op_name(c.target)
            base = re.sub(r"_(out|two_out|two|default)$", "", op)
            if base in ops or op in ops or base.lstrip("_") in ops:
                out.append((m, c))
    return out


# Extern ops whose schema has a `dim` argument: its position (before the out tensor is counted).
DIM_ARG = {"gather": 1, "scatter": 1, "scatter_add": 1, "scatter_reduce": 1, "index_select": 1, "index_add": 1,
           "index_copy": 1}


def indexed_dim(site: CallSite) -> int:
    """The dimension of the table an extern op indexes: its `dim` argument when it has one, else 0."""
    op = re.sub(r"_(out|two_out|two|default)$", "", extern_op_name(site.target))
    pos = DIM_ARG.get(op)
    if pos is None:
        return 0
    if site.target.endswith("_out"):
        pos += 1
    if pos < len(site.args):
        mm = re.fullmatch(r"\s*(-?\d+)L?\s*", site.args[pos].text)
        if mm:
            return int(mm.group(1))
    return 0


def index_args(site: CallSite) -> tuple[str | None, list[str]]:
    """(table argument, index arguments) of an extern call, by its op's schema when known."""
    op = re.sub(r"_(out|two_out|two|default)$", "", extern_op_name(site.target))
    bases = [a.base for a in site.args]
    pos = INDEXING_OPS.get(op) or INDEXING_OPS.get(op.lstrip("_"))
    if site.target.endswith("_out") and not site.target.startswith(("aoti_torch_cpu__embedding_bag",)) and pos:
        pos = (pos[0] + 1, pos[1] + 1)  # the out tensor comes first
    if pos and len(bases) > max(pos):
        return bases[pos[0]], [b for b in [bases[pos[1]]] if b]
    return None, [b for b in site.reads if b]
