"""Which assertion, kernel launch or extern call a reported failure names."""

from __future__ import annotations

import os

import inspector.explain.trace as say
from ..dialects.op_contracts import DIM_ARG, INDEXING_OPS  # noqa: F401 - the ops' table (one place); re-exported
from ..logs import FailedCall, ReportedAssert
from ..model import CallSite, Model
from ..naming import strip_overload
from ..package import Package
from ..parse import expr_tree as E
from ..parse.names import message_key
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


norm_msg = message_key  # a check message as compared with a log's (inspector.parse.names)


# Candidates (not exact matches) found and explained at most: a message shared by thousands of look-alike
# kernels is ambiguous whatever the count, and each one explained is a slice and a walk.
CANDIDATES = 25


def assertions_where(pkg: Package, model: str | None, site_ok, assertion_ok=lambda k, a: True, limit: int | None = None,
                     kernels=None) -> list:
    """(model name, kernel, assertion) for the asserts whose scanned site passes ``site_ok`` (cheap: the
    kernel name, line and raw text, nothing parsed) and, its kernel parsed, whose assertion passes
    ``assertion_ok``; only among ``kernels`` ((model, kernel) pairs) when given, at most ``limit`` + 1 of them
    (one more than the limit, so a caller can say there are more).  Only the kernels of sites that pass are
    parsed."""
    out = []
    for name in [model] if model else pkg.model_names:
        ix = pkg.index(name)
        for site in ix.assert_sites():
            if (kernels is not None and (name, site.kernel) not in kernels) or not site_ok(site):
                continue
            k = ix.kernel(site.kernel)
            a = next((a for a in k.assertions if a.line == site.line), None) if k else None
            if a is not None and assertion_ok(k, a):
                out.append((name, k, a))
                if limit is not None and len(out) > limit:
                    return out
    return out


def message_in(message: str | None):
    """A site filter: the assert statement carries ``message`` (compared as `norm_msg` does)."""
    if not message:
        return lambda site: True
    want = norm_msg(message)
    return lambda site: site.carries(want)


def find_for_report(pkg: Package, r: ReportedAssert, model: str | None):
    """(model name, kernel, assertion, exact, how) candidates for one reported failure."""
    out = []
    if r.kind == "cpu":
        for name, k, a in assertions_where(pkg, model, lambda s: s.kernel == r.kernel and s.line == r.line):
            member = pkg.files(name).kernel_cpp
            same_file = not member or os.path.basename(member) == r.file_name
            # package_cpp_only: the kernels are compiled from the wrapper, and the check names wrapper.cpp
            file = "wrapper.cpp" if member and member.endswith(".wrapper.cpp") else "kernel.cpp"
            out.append((name, k, a, same_file, say.how_cpu_check(r.kernel, file, r.line, same_file)))
        if len(out) > 1:
            exact = [o for o in out if o[3]]
            out = exact or out
        return out
    if r.kind == "cuda":
        has_msg = message_in(r.message)
        same = lambda k, a: k.backend == "triton" and (not r.message or norm_msg(a.message) == norm_msg(r.message))  # noqa: E731
        # Which kernels' cubins name the file the assert printed: read from each candidate's loadKernel line and
        # its cubin, before any kernel is parsed (a package may hold thousands of look-alikes on that line).
        named, embedded = set(), False
        for name in [model] if model else pkg.model_names:
            ix = pkg.index(name)
            for s in ix.assert_sites():
                if s.line == r.line and has_msg(s) and (name, s.kernel) not in named:
                    cubin = ix.cubin(s.kernel)
                    files = pkg.cubin_assert_files(cubin) if cubin else pkg.embedded_assert_files(name, s.kernel)
                    if r.file in files:
                        named.add((name, s.kernel))
                        embedded = embedded or not cubin
        if named:
            by_file = assertions_where(pkg, model, lambda s: s.line == r.line and has_msg(s), same,
                                       kernels=named)
            how = say.how_cubin(r.file_name, r.line, embedded)
            return [(n, k, a, True, how) for n, k, a in by_file]
        cands = assertions_where(pkg, model, lambda s: s.line == r.line and has_msg(s), same, limit=CANDIDATES)
        how = say.how_line_and_message(r.line, r.file_name)
        return [(n, k, a, False, how) for n, k, a in cands]
    if r.kind == "aten":
        return []
    return [(n, k, a, False, say.HOW_MESSAGE) for n, k, a in assertions_where(
        pkg, model, message_in(r.message), lambda k, a: norm_msg(a.message) == norm_msg(r.message), limit=CANDIDATES)]


def _call_lines(pkg: Package, name: str, keep, near: tuple[int, int] | None = None) -> list[int]:
    """Wrapper lines of the run_impl calls (`records.Call`) that pass ``keep`` (scan only); only among the calls at
    wrapper lines ``near`` (lo, hi) when given."""
    return [c.line for c in pkg.index(name).calls(near) if keep(c)]


def site_for_noticed(pkg: Package, n: FailedCall, model: str | None) -> tuple[Model, CallSite] | None:
    """The run_impl call a ``… API call failed at …wrapper.cpp, line N`` line names (in a slice of its model)."""
    for name in [model] if model else pkg.model_names:
        wrapper = pkg.files(name).wrapper
        if wrapper and os.path.basename(wrapper) != n.file_name and len(pkg.model_names) > 1:
            continue
        lines = _call_lines(pkg, name, lambda c: c.line == n.line or (c.target == n.call and abs(c.line - n.line) <= 2),
                            near=(n.line - 2, n.line + 2))
        if not lines:
            continue
        m = pkg.index(name).slice(call_lines=lines)
        site = next((c for c in m.calls if c.line == n.line), None)
        if site is None:
            site = next((c for c in m.calls if c.target == n.call and abs(c.line - n.line) <= 2), None)
        if site is not None:
            return m, site
    return None


def extern_calls(pkg: Package, name: str, keep=lambda call: True) -> tuple[Model, list[CallSite]]:
    """The extern op calls of model ``name`` (`records.Call`) that pass ``keep``, read in a slice."""
    lines = _call_lines(pkg, name, lambda c: c.kind == "extern" and keep(c))
    m = pkg.index(name).slice(call_lines=lines)
    keep_lines = set(lines)
    return m, [c for c in m.calls if c.kind == "extern" and c.line in keep_lines]


def extern_sites_for_aten(pkg: Package, r: ReportedAssert, model: str | None) -> list[tuple[Model, CallSite]]:
    """Extern calls whose op can launch the ATen kernel that asserted (``EmbeddingBag.cu`` -> _embedding_bag)."""
    stem = os.path.splitext(r.file_name or "")[0]
    ops = set()
    for key, names in ATEN_KERNEL_OPS.items():
        if key.lower() in stem.lower() or key.lower() in (r.kernel or "").lower():
            ops.update(names)

    def launches_one(call):
        op = extern_op_name(call.target)
        base = strip_overload(op)
        return base in ops or op in ops or base.lstrip("_") in ops

    out = []
    if not ops:
        return out
    for name in [model] if model else pkg.model_names:
        m, sites = extern_calls(pkg, name, launches_one)
        out += [(m, c) for c in sites]
    return out




def indexed_dim(site: CallSite) -> int:
    """The dimension of the table an extern op indexes: its `dim` argument when it has one, else 0."""
    op = strip_overload(extern_op_name(site.target))
    pos = DIM_ARG.get(op)
    if pos is None:
        return 0
    if site.target.endswith("_out"):
        pos += 1
    if pos < len(site.args):
        d = E.constant(site.args[pos].tree)
        if d is not None:
            return d
    return 0


def index_args(site: CallSite) -> tuple[str | None, list[str]]:
    """(table argument, index arguments) of an extern call, by its op's schema when known."""
    op = strip_overload(extern_op_name(site.target))
    bases = [a.base for a in site.args]
    pos = INDEXING_OPS.get(op) or INDEXING_OPS.get(op.lstrip("_"))
    if site.target.endswith("_out") and not site.target.startswith(("aoti_torch_cpu__embedding_bag",)) and pos:
        pos = (pos[0] + 1, pos[1] + 1)  # the out tensor comes first
    if pos and len(bases) > max(pos):
        return bases[pos[0]], [b for b in [bases[pos[1]]] if b]
    return None, [b for b in site.reads if b]
