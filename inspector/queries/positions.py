"""Index values a size bounds: positions an op returns (top-k, sort, argmax/argmin, bucketize) and what
bounds them.  An index that is such a position holds values 0..L-1 (bucketize: 0..L) where L is a length the
package names (a dim of a model input, or a constant).  When L can exceed the table the index reads, the
shapes alone let the index run past it: `check` says "may fail", `trace-assert` ranks that cause first.

Imports only the model and the naming of symbols (below walk and match)."""

from __future__ import annotations

from dataclasses import dataclass

import inspector.graph.ids as ids
from ..model import CallSite, Kernel, Model
from ..naming import root_symbol, shim_op_name
from ..parse import expr_tree as E
from ..parse.cpp_loops import loop_headers
from ..parse.names import is_accumulator, is_loop_index, is_tmp
from ..parse.message import static_bound

# extern op (without the aoti_torch_<device>_ prefix and overload suffix) -> position of its `dim` argument,
# and how far its positions go past the length (bucketize returns 0..len(boundaries): one past the end).
_POSITION_OPS = {"topk": (2, 0), "sort": (1, 0), "sort_stable": (2, 0), "argsort": (1, 0), "argsort_stable": (2, 0),
                 "argmax": (1, 0), "argmin": (1, 0), "max_dim": (1, 0), "min_dim": (1, 0),
                 "kthvalue": (2, 0), "mode": (1, 0), "bucketize_Tensor": (None, 1), "searchsorted_Tensor": (None, 1)}


@dataclass
class PositionBound:
    """The index is a position ``op`` returns: its values reach ``length`` - 1 (+ ``past``).  ``input``/``dim``:
    the model input whose dim is that length (None when it is a constant); ``symbol``: the dim's root symbol;
    ``min``/``max``: what its guards allow; ``static``: the length when it is a number."""

    op: str
    where: str  # the kernel or extern call that computes it ("aoti_torch_cpu_topk at wrapper.cpp line 905")
    input: int | None = None
    dim: int | None = None
    input_name: str | None = None
    symbol: str | None = None
    min: int | None = None
    max: int | None = None
    static: int | None = None
    past: int = 0  # bucketize/searchsorted return one past the last boundary
    loop_index: str | None = None  # op "loop": the loop variable (``x1``) or Triton grid index (``y0``); where: the kernel
    grid: bool = False  # op "loop": a Triton grid index, not a CPU loop

    @property
    def length(self) -> str:
        """The size the positions run along, in words."""
        if self.input is not None:
            return f"input {self.input} dim {self.dim}"  # its wrapper name: the trace's index row
        if self.static is None:
            return "?"
        return f"{self.static} boundaries" if self.past else f"a fixed length of {self.static}"

    @property
    def name(self) -> str:
        """``topk``, ``bucketize`` (no overload suffix)."""
        if self.op == "reduction":
            return "an argmax/argmin"
        if self.op == "loop":
            return "the kernel's loop (an arange)"
        return self.op.replace("_Tensor", "").replace("_stable", "")


def _op_name(target: str) -> str | None:
    op = shim_op_name(target)
    if op == target:  # not a device C-shim call
        return None
    op = op.removesuffix("_out")
    for suffix in ("_values", "_default"):
        if op.endswith(suffix) and op[: -len(suffix)] in _POSITION_OPS:
            op = op[: -len(suffix)]
    return op if op in _POSITION_OPS else None


def _int(text: str | None) -> int | None:
    return static_bound(text) if text else None


def buffer_shape(sizes, m: Model, name: str) -> list | None:
    """The sizes run_impl allocates buffer ``name`` with (``int_array_0[] = {8L, }`` … ``empty_strided(1,
    int_array_0, …, &buf0_handle)``), as ``sizes(buffer, wrapper line)`` reads them (`ModelIndex.allocation_sizes`);
    None when it is not a plain allocation."""
    b = m.buffers.get(name)
    if sizes is None or b is None or b.kind != "alloc":
        return None
    got = sizes(name, b.line)
    return list(got) if got is not None else None


def _bound_of(m: Model, site: CallSite, op: str, sizes=None) -> PositionBound | None:
    dim_at, past = _POSITION_OPS[op]
    where = f"{site.target} at wrapper.cpp line {site.line}"
    if op.startswith(("bucketize", "searchsorted")):
        # bucketize(self, boundaries, ...) / searchsorted(sorted_sequence, self, ...): the boundaries' length
        src = site.args[1] if op.startswith("bucketize") else site.args[0]
        dim = -1
    else:
        src = site.args[0] if site.args else None
        dim = E.constant(site.args[dim_at].tree) if dim_at is not None and dim_at < len(site.args) else None
    if src is None or src.base is None or dim is None:
        return None
    inp = next((i for i in m.inputs if i.name == src.base), None)
    if inp is None or not inp.shape:
        const = next((c for c in m.constants if getattr(c, "name", None) == src.base), None)
        shape = getattr(const, "shape", None) or buffer_shape(sizes, m, src.base)
        if shape and _int(str(shape[dim])) is not None:
            return PositionBound(op=op, where=where, static=int(_int(str(shape[dim]))), past=past)
        return None
    d = dim % len(inp.shape)
    size = str(inp.shape[d])
    if _int(size) is not None:
        return PositionBound(op=op, where=where, input=inp.index, dim=d, input_name=inp.name, static=_int(size), past=past)
    sym = root_symbol(m.symbols, size)
    return PositionBound(op=op, where=where, input=inp.index, dim=d, input_name=inp.name,
                         symbol=sym.name if sym else size, min=sym.min if sym else None,
                         max=sym.max if sym else None, past=past)


def extern_position(m: Model, path, sizes=None) -> PositionBound | None:
    """The position op an index origin's path (`walk.Step`s) passes through (``… buf2 <- aoti_torch_cpu_topk <-
    arg0_1``): the extern call the walk went through."""
    for step in path:
        if step.kind != "extern_op":
            continue
        op = _op_name(step.name)
        if op is None:
            continue
        site = next((c for c in m.calls if c.kind == "extern" and ids.extern(c.line) == step.node_id), None)
        if site is not None:
            return _bound_of(m, site, op, sizes)
    return None


def index_position(m: Model, origins, sizes=None) -> PositionBound | None:
    """The first index origin that is a position a (extern) position op returns.  ``sizes(buffer, wrapper line)``:
    the sizes a buffer is allocated with (`ModelIndex.allocation_sizes`), to read the length of a buffer the op takes
    its length from (bucketize's boundaries)."""
    for o in origins:
        b = extern_position(m, o.path, sizes)
        if b is not None:
            return b
    return None


# A CPU reduction kernel's argmax/argmin: ``out_ptr0[…] = static_cast<int64_t>(tmp_acc0.index);`` after
# ``argmax_combine_vec<…>(tmp_acc0_vec, tmp0, x1)`` inside ``for(int64_t x1=…; x1<static_cast<int64_t>(ks1); …)``.
_COMBINERS = ("argmax_combine", "argmax_combine_vec", "argmin_combine", "argmin_combine_vec")


def _word(n) -> str | None:
    """A name's id or an integer's digits (``ks1``, ``8``): the only lengths a reduction is bounded by here."""
    n = E.strip_parens(n)
    return n.id if isinstance(n, E.Name) else str(n.value) if isinstance(n, E.Int) else None


def _bucketize_length(tree) -> str | None:
    """The boundaries' length argument of Triton's inlined ``triton_helpers.bucketize_binary_search(x, in_ptr1,
    8, …)`` (its third argument) in ``tree``."""
    for n in E.walk(tree):
        if isinstance(n, E.Call) and (E.dotted(n.func) or "").endswith("bucketize_binary_search") and len(n.args) > 3:
            return _word(n.args[2])
    return None


def _calls(tree):
    """(function name, arguments) of each call in ``tree``; a template's arguments are no part of its name
    (``argmax_combine_vec<float,1,2,true>(a, b, x1)`` is a call of ``argmax_combine_vec``)."""
    for n in E.walk(tree):
        if isinstance(n, E.Call) and isinstance(n.func, E.Name):
            yield n.func.id.split("<")[0], n.args


def _combined_over(k: Kernel, acc: str) -> str | None:
    """The loop variable an ``argmax_combine(acc, value, x1)`` of ``acc`` takes its positions from
    (``Kernel.acc_updates``)."""
    for up in k.acc_updates:
        for fname, args in _calls(up.value.tree):
            if fname in _COMBINERS and len(args) >= 3 and isinstance(args[0], E.Name) \
                    and args[0].id in (acc, acc + "_vec") and isinstance(args[2], E.Name) and is_loop_index(args[2].id):
                return args[2].id
    return None


def _loop_bound(k: Kernel, x: str) -> str | None:
    """What the first ``for(int64_t x=…; x<BOUND; …)`` of ``k`` with a plain bound runs below (``ks1``, ``8``)."""
    for h in loop_headers(k):
        if h.var == x:
            b = E.strip_parens(h.bound.tree)
            w = _word(b.operand if isinstance(b, E.Cast) else b)
            if w is not None:
                return w
    return None


def _stored_index(st) -> str | None:
    """The accumulator whose ``.index`` a store writes (``out_ptr0[x0] = static_cast<int64_t>(tmp_acc0.index)``)."""
    for n in E.walk(st.value.tree):
        if isinstance(n, E.Attr) and n.name == "index" and isinstance(n.base, E.Name) and is_accumulator(n.base.id):
            return n.base.id
    return None


def _length_of(m: Model, kname: str, text: str, where: str) -> PositionBound | None:
    """A kernel argument (``ks1``, ``r0_numel``) or literal as the length a reduction runs along."""
    from ..graph.build import call_params

    site = next((c for c in m.calls if c.kind == "kernel" and c.target == kname), None)
    if text.rstrip("L").isdigit():
        return PositionBound(op="reduction", where=where, static=int(text.rstrip("L")))
    if site is None:
        return None
    args = dict(zip(call_params(m, site), site.args))
    arg = args.get(text)
    name = getattr(arg, "text", None) or (str(arg) if arg is not None else None)
    if not name:
        return None
    if name.rstrip("L").isdigit():
        return PositionBound(op="reduction", where=where, static=int(name.rstrip("L")))
    sym = m.symbols.get(name)
    if sym is not None and sym.input is not None and sym.input < len(m.inputs):
        inp = m.inputs[sym.input]
        return PositionBound(op="reduction", where=where, input=sym.input, dim=sym.dim, input_name=inp.name,
                             symbol=sym.name, min=sym.min, max=sym.max)
    return None


def reduction_position(m: Model, origins) -> PositionBound | None:
    """The position an argmax/argmin reduction found, when an index origin passes through one: Triton's
    ``tmpN_idx`` (``triton_helpers.max_with_index``), bounded by the kernel's ``r0_numel``; a CPU kernel's
    ``tmp_accN.index`` stored to ``out_ptrK``, bounded by the loop its ``argmax_combine`` runs over."""
    from ..graph.build import call_params

    def writer(o, i: int) -> str | None:  # the last kernel the path went into before step i
        return next((p.name for p in reversed(o.path[:i]) if p.kind == "kernel" and p.name in m.kernels), None)

    for o in origins:
        for i, s in enumerate(o.path):
            step = s.name
            stored = s.kind in ("store", "kernel_param") and s.role == "out"  # an out pointer the kernel stores
            if s.kind == "tmp" or stored:  # Triton's inlined bucketize: its boundaries' size
                kname = writer(o, i)
                k = m.kernels.get(kname) if kname else None
                names = [step]
                if k is not None and stored:  # the value the kernel stores there
                    names = [n for st in k.stores if st.ptr == step for n in E.names(st.value.tree) if is_tmp(n)]
                t = next((t for t in (k.tmps if k else []) if t.name in names), None)
                length = _bucketize_length(t.expr.tree) if t is not None else None
                if length is not None:
                    b = _length_of(m, kname, length, kname)
                    if b is not None:
                        b.op, b.past = "bucketize", 1
                        return b
            if step.endswith("_idx"):
                kname = writer(o, i)
                site = next((c for c in m.calls if c.kind == "kernel" and c.target == kname), None)
                if site is None:
                    continue
                args = dict(zip(call_params(m, site), site.args))
                p = next((p for p in ("r0_numel", "rnumel") if p in args), None)
                if p is not None:
                    b = _length_of(m, kname, p, kname)
                    if b is not None:
                        return b
            elif stored:
                kname = writer(o, i)
                kname = kname or next((k for k in m.kernels if any(k == q.name for q in o.path)), None)
                ks = [m.kernels[kname]] if kname else list(m.kernels.values())
                for k in ks:
                    if k.backend != "cpp":
                        continue
                    for st in k.stores:
                        acc = _stored_index(st) if st.ptr == step else None
                        if acc is None:
                            continue
                        x = _combined_over(k, acc)
                        loop = _loop_bound(k, x) if x else None
                        if loop:
                            b = _length_of(m, k.name, loop, k.name)
                            if b is not None:
                                return b
    return None


def _copied_from(tree) -> str | None:
    """The one name ``tree`` copies (``x1``, ``c10::convert<int64_t>(tmp5)``, ``static_cast<int64_t>(x1)``,
    ``(x1)``); None for anything that computes (``x1 + 8``, ``tmp0 - 1``), whose values are not the name's."""
    n = E.strip_parens(tree)
    while True:
        if isinstance(n, E.Name):
            return n.id
        if isinstance(n, E.Cast):
            n = E.strip_parens(n.operand)
        elif isinstance(n, E.Call) and len(n.args) == 1 and (E.dotted(n.func) or "").split("<")[0].endswith(
                "convert"):
            n = E.strip_parens(n.args[0])
        else:
            return None


def cpu_loop_position(m: Model, k: Kernel, a) -> PositionBound | None:
    """The index of CPU check ``a`` is the position of one of ``k``'s own loops (``auto tmp5 = x1;``,
    ``auto tmp6 = c10::convert<int64_t>(tmp5);`` inside ``for(int64_t x1=0; x1<ks0; …)``: an arange, GPT-2's
    position ids): its values run over 0 … L-1, all of them, where L is the loop's bound, a kernel argument
    traced to a model input's dim (or a number).  None when the index computes anything else."""
    from ..graph.build import resolve_tmp

    if k.backend != "cpp" or not a.index_var:
        return None
    name, line, scope = a.index_var, a.line, a.scope
    for _ in range(16):  # a chain of copies, at most this long
        if is_loop_index(name):
            bound = _loop_bound(k, name)
            b = _length_of(m, k.name, bound, k.name) if bound else None
            if b is None:
                return None
            b.op, b.where, b.loop_index = "loop", k.name, name
            return b
        if not is_tmp(name):
            return None
        t = resolve_tmp(k, name, line, scope)
        if t is None:
            return None
        name, line, scope = _copied_from(t.expr.tree), t.line, t.scope
        if name is None:
            return None
    return None
