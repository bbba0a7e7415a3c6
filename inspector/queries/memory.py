"""Device memory a model's run needs, from the wrapper's own allocations and releases (issue 14: doctor).

run_impl spells out every buffer's life: ``aoti_torch_empty_strided(…, int_array_0, int_array_1, dtype, …,
&buf0_handle)`` with the size arrays declared above it (``{s77, 64L, 56L, 56L}``: a formula of the dynamic
symbols), ``auto buf4 = std::move(buf0);`` and ``reinterpret_tensor_wrapper(buf5, …)`` sharing a storage,
``buf0.reset();`` releasing one, ``output_handles[0] = buf2.release();`` handing one to the caller.  Walking
the statements in order with symbol values gives the bytes alive after each statement; the largest is the
run's peak activation memory (constants and inputs are the caller's, counted apart).

An extern op's own output (``aoti_torch_cuda_convolution(…, &buf0_handle)``) is sized by what the package says
of it: torch 2.13's ``assert_size_stride(buf0, {…}, {…}, "op")`` right after the call, else the op's contract
(attention), else the ``<kernel>_xnumel`` of the first launch that reads it, with the dtype's size from that
kernel's Triton signature when it names one (else the op's first input's, else 4 bytes); an output nothing sizes
is left out and counted in ``unsized``.  A size is computed as the C++ wrapper computes it (`arith.c_size`:
``c10::div_floor_integer``, ``std::max``, a float ``(1.0/16.0)*x`` truncated), with the symbols the given input
sizes bind and the locals the wrapper derives from them (``int64_t s45 = (1.0/16.0)*arg32_1_size_2;``).  The CUDA
caching allocator rounds every block up to 512 bytes, and so does this estimate on CUDA (the CPU allocator's
bytes are the tensors' own).  What happens inside a custom op (a proxy-executor call) is not in the wrapper: its
outputs are counted, its own temporaries are not, and the estimate then says it is no bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..index.records import Alias, Alloc, Call, HandOut, IntArray, NumelLocal, Release, SizeStride
from ..model import Expr
from ..naming import (DTYPE_BYTES, EFFICIENT_ATTENTION, FLASH_ATTENTION_CPU, PROXY_EXECUTOR_CALL, TRITON_DTYPES,
                      calls_convolution, calls_cublas)
from ..parse import expr_tree as E
from ..parse.buffers import VIEW_FUNCTION
from ..parse.tokens import lexed_expr, without_int_suffix
from .arith import ARITH, c_size

ROUND = 512  # the CUDA caching allocator's block granularity
# cuBLAS's workspace (torch's default on sm_90: CUBLAS_WORKSPACE_CONFIG :4096:8 = 32 MiB), allocated through the
# caching allocator at a process's first cuBLAS call and kept: measured on the H200, a fresh process's first run
# peaks at least this much above its activations' start (memory/*/measure.json, issue 22's table: 33-35 MiB at
# batch 1-2 for an MLP, BERT, ResNet-18, MobileNetV3, ViT).
CUBLAS_WORKSPACE = 32 << 20
# cuDNN's convolution workspace, held only during the call: an allowance of this many times the convolution's
# output (measured on ResNet-18: 5.8, 47 and 184 MiB above the activations at batch 1, 16 and 64, against a first
# convolution output of 3.1, 49 and 196 MiB).  The CPU's convolution (torch 2.13: oneDNN, im2col) takes one too:
# wav2vec2's first conv1d, a 12.5 MiB output, peaked 13-19 MiB above it in eager and in the package
# (memory_cpu213/wav2vec2/measure.json).
CONV_WORKSPACE_FACTOR = 2
# what else a library call may hold above that, at most (cuBLASLt's own workspace, an extern op's temporaries):
# the most measured above the modelled figure was 0.6 MiB (BERT, batch 1, a fresh process)
LIBRARY_SLACK = 4 << 20
# A size expression is C++: its `/` is an integer division, and an integer cast (`static_cast<int64_t>(s70*s70)`)
# is its operand; a call (`c10::div_floor_integer(…)`) leaves the size unknown
SIZE_OPS = ARITH | {"/"}
# On the CPU, what a run holds besides its tensors (the heap's small blocks, a BLAS library's packing buffers): the
# most measured above the tensors' figure was 0.3 MiB (GPT-2 [16, 64], a first run at that size;
# memory_cpu213/*/measure.json)
LIBRARY_SLACK_CPU = 1 << 20


def _size(expr: Expr, values: dict[str, int]) -> int | None:
    return c_size(expr.tree, values)


@dataclass
class Allocation:
    buffer: str
    line: int  # wrapper.cpp line
    dtype: str | None
    sizes: list[Expr]  # size expressions (C++), or [numel] for an estimated extern output
    strides: list[Expr]
    kind: str  # "alloc" | "extern_out" (sizes: [numel], estimated) | "checked" (an extern output its check sizes)
    # | "viewed" (an extern output sized by the first view read of it: its sizes, strides and offset)
    estimated_from: str | None = None  # the kernel whose numel sized an extern output
    offset: Expr | None = None

    def elements(self, values: dict[str, int]) -> int | None:
        if self.kind == "extern_out":
            return _size(self.sizes[0], values) if self.sizes else None
        sizes = [_size(s, values) for s in self.sizes]
        strides = [_size(s, values) for s in self.strides]
        if any(v is None for v in sizes + strides):
            return None
        if any(v == 0 for v in sizes):
            return 0
        off = _size(self.offset, values) if self.offset is not None else 0
        if off is None:
            return None
        return off + 1 + sum((n - 1) * st for n, st in zip(sizes, strides))

    def nbytes(self, values: dict[str, int]) -> int | None:
        n = self.elements(values)
        if n is None:
            return None
        return n * DTYPE_BYTES.get(self.dtype or "", 4)

    def formula(self) -> str:
        """``4 * s77*64*56*56`` (bytes; the storage of a contiguous tensor), in the wrapper's own terms."""
        item = DTYPE_BYTES.get(self.dtype or "", 4)
        parts = [without_int_suffix(str(s)) for s in self.sizes]
        body = "*".join(f"({p})" if "+" in p or "-" in p else p for p in parts) or "1"
        return f"{item}*{body}"


@dataclass
class Event:
    line: int
    op: str  # "alloc" | "free" | "cublas" (a call into cuBLAS) | "conv" (a cuDNN convolution)
    storage: int  # index into MemoryPlan.allocations (for "conv": its output's; -1: none)


@dataclass
class MemoryPlan:
    model: str
    device: str
    allocations: list[Allocation] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    unsized: list[str] = field(default_factory=list)  # extern outputs whose size nothing in the wrapper says
    symbols: list[str] = field(default_factory=list)  # the dynamic symbols the sizes use
    outputs: set[int] = field(default_factory=set)  # storages handed to the caller
    custom_ops: list[int] = field(default_factory=list)  # wrapper lines of custom-op calls: their temporaries unseen
    locals: list[tuple[str, Expr]] = field(default_factory=list)  # size locals derived from the symbols, in order

    @property
    def round(self) -> int:
        return ROUND if self.device.startswith("cuda") else 1

    def peak(self, values: dict[str, int], workspace: bool = False, conv_allowance: bool = False) -> "Peak":
        """The most bytes alive at once.  ``workspace``: a fresh process's first run (cuBLAS's workspace appears at
        the first cuBLAS call and stays); ``conv_allowance``: each cuDNN convolution may take a workspace of
        CONV_WORKSPACE_FACTOR times its output while it runs (an upper allowance, not a measured size)."""
        values = self.derived(values)
        live: dict[int, int] = {}
        unknown: set[str] = set()
        best = Peak(0, None, [], 0)
        held = 0  # cuBLAS's workspace, once taken
        for ev in self.events:
            if ev.op == "cublas":
                if workspace and not held:
                    held = CUBLAS_WORKSPACE
                    total = sum(live.values()) + held
                    if total > best.bytes:
                        best = Peak(total, ev.line, [self.allocations[i].buffer for i in live], 0)
                continue
            if ev.op == "conv":
                if conv_allowance:
                    out = self.allocations[ev.storage].nbytes(values) if ev.storage >= 0 else None
                    if out is None:
                        unknown.add(f"the workspace of the convolution at wrapper.cpp line {ev.line}")
                        continue
                    total = sum(live.values()) + held + CONV_WORKSPACE_FACTOR * out
                    if total > best.bytes:
                        best = Peak(total, ev.line, [self.allocations[i].buffer for i in live], 0)
                continue
            a = self.allocations[ev.storage]
            if ev.op == "alloc":
                n = a.nbytes(values)
                if n is None:
                    unknown.add(a.buffer)
                    continue
                live[ev.storage] = -(-n // self.round) * self.round if n else 0
                total = sum(live.values()) + held
                if total > best.bytes:
                    best = Peak(total, ev.line, [self.allocations[i].buffer for i in live], 0)
            elif ev.op == "free":
                live.pop(ev.storage, None)
        best.outputs = sum(v for i, v in live.items() if i in self.outputs)
        best.unknown = sorted(unknown)
        return best

    def derived(self, values: dict[str, int]) -> dict[str, int]:
        """``values`` with the size locals the wrapper computes from them (``int64_t s45 = (1.0/16.0)*arg32_1_size_2;``),
        in the wrapper's order; a local the values do not settle is left out (its allocations stay unknown)."""
        out = dict(values)
        for name, e in self.locals:
            if name not in out and (v := _size(e, out)) is not None:
                out[name] = v
        return out

    def estimate(self, values: dict[str, int]) -> "Estimate":
        """The peak as a range that holds: the activations alone (a run after the first in the process), a fresh
        process's first run (cuBLAS's workspace taken), and its upper bound (every convolution's workspace
        allowance) — None when an allocation's size is unknown (an extern output nothing sizes, a size the values
        do not settle): then the figures are floors."""
        steady = self.peak(values)
        first = self.peak(values, workspace=True)
        top = self.peak(values, workspace=True, conv_allowance=True)
        bounded = not (top.unknown or self.unsized or self.custom_ops)
        sized = sum(1 for a in self.allocations if a.kind == "alloc" or a.sizes)
        conv = any(e.op == "conv" for e in self.events)
        cublas = self.cublas_line() is not None
        slack = LIBRARY_SLACK_CPU if self.device == "cpu" else (LIBRARY_SLACK if cublas or conv else 0)
        upper = top.bytes + slack if bounded else None
        return Estimate(steady, first, upper, top, sized, cublas, conv, self.not_counted(steady))

    def not_counted(self, peak: "Peak") -> list[tuple[str, str]]:
        """Why the estimate is no bound, each as (code, what): a custom op's own allocations, an extern output
        nothing sizes, a size the given values do not settle (a data-dependent size: an unbacked symbol)."""
        out = [("custom_op", f"wrapper.cpp line {ln}") for ln in self.custom_ops]
        out += [("unsized", b) for b in self.unsized]
        out += [("unknown_size", b) for b in peak.unknown]
        return out

    def cublas_line(self) -> int | None:
        return next((e.line for e in self.events if e.op == "cublas"), None)


@dataclass
class Estimate:
    """doctor's memory range (issue 22 §6)."""

    steady: "Peak"  # the activations alone: a run after the first in the same process
    first: "Peak"  # a fresh process's first run: cuBLAS's workspace included where the package calls cuBLAS
    upper: int | None  # bytes no run exceeds (workspaces and convolution allowances included); None: no bound known
    top: "Peak"  # where that bound is reached
    sized: int  # allocations whose size the wrapper says
    cublas: bool
    conv: bool
    not_counted: list = field(default_factory=list)  # (code, what): why `upper` is None (`MemoryPlan.not_counted`)

    @property
    def estimable(self) -> bool:
        """False when not one allocation could be sized: no figure at all, never 0 B."""
        return self.sized > 0 and not (self.steady.bytes == 0 and self.steady.unknown)


@dataclass
class Peak:
    bytes: int
    line: int | None  # the allocation at which the peak is reached
    live: list[str]  # buffers alive then
    outputs: int  # bytes held at the end (the outputs handed to the caller)
    unknown: list[str] = field(default_factory=list)  # allocations whose size the values did not settle


def memory_plan(pkg, model: str | None = None) -> MemoryPlan:
    """The buffer life cycle of one model's run_impl (the index's typed statements, `ModelIndex.statements`;
    nothing parsed)."""
    ix = pkg.index(model)
    m = ix.eager()
    plan = MemoryPlan(model=m.name, device=m.device or "")
    plan.symbols = sorted(m.symbols)
    arrays: dict[str, tuple[Expr, ...]] = {}
    owner: dict[str, int] = {}  # RAII name -> storage
    holders: dict[int, int] = {}  # storage -> RAII names holding it
    numel: dict[str, Expr] = {}  # kernel -> its latest xnumel expression
    pending: dict[str, int] = {}  # extern output buffer -> storage, size not known yet
    signature = {k: TRITON_DTYPES.get(t) for k, t in ix.first_pointer_types().items()}
    checked: dict[str, int] = {}  # extern output buffer -> storage, which a size check below it may size
    first_dtype: dict[int, str | None] = {}  # extern output storage -> the dtype of its op's first tensor input
    for name, e in (m.locals or {}).items():
        plan.locals.append((name, e))

    def take(name: str, storage: int) -> None:
        if name in owner:
            drop(name)
        owner[name] = storage
        holders[storage] = holders.get(storage, 0) + 1

    def drop(name: str, line: int | None = None) -> None:
        s = owner.pop(name, None)
        if s is None:
            return
        holders[s] -= 1
        if holders[s] == 0 and line is not None:
            plan.events.append(Event(line, "free", s))

    for r in ix.statements():
        kind = type(r)
        if kind is IntArray:
            arrays[r.name] = r.items
        elif kind is NumelLocal:
            if r.axis.startswith("x"):
                numel[r.kernel] = r.expr
        elif kind is Alloc:
            plan.allocations.append(Allocation(r.buf, r.line, r.dtype, list(r.sizes), list(r.strides), "alloc"))
            s = len(plan.allocations) - 1
            take(r.buf, s)
            plan.events.append(Event(r.line, "alloc", s))
        elif kind is Call:
            target = r.target
            if pending and not pending.keys().isdisjoint(r.names):  # a view an op or a kernel reads an extern
                for arg in r.args:  # output through says how big it is, at least
                    v = _view_strided(arg)
                    if v is None or v[0] not in pending or v[1] not in arrays or v[2] not in arrays:
                        continue
                    s = pending.pop(v[0])
                    a = plan.allocations[s]
                    a.sizes, a.strides, a.kind, a.offset = list(arrays[v[1]]), list(arrays[v[2]]), "viewed", v[3]
                    a.dtype, a.estimated_from = first_dtype.get(s), "a view of it"
                    plan.events.append(Event(a.line, "alloc", s))
            if calls_cublas(target):
                plan.events.append(Event(r.line, "cublas", -1))
            if target == PROXY_EXECUTOR_CALL:
                plan.custom_ops.append(r.line)
            if r.kind == "extern":  # an extern op that fills a handle allocates its output
                sized = _attention_outputs(r, arrays, owner, plan.allocations)
                dt = next((plan.allocations[owner[n]].dtype for n in r.arg_names if n in owner
                           and plan.allocations[owner[n]].dtype), None)
                for k, b in enumerate(r.outputs):
                    if b in owner:
                        continue
                    plan.allocations.append(Allocation(b, r.line, None, [], [], "extern_out"))
                    s = len(plan.allocations) - 1
                    take(b, s)
                    checked[b], first_dtype[s] = s, dt
                    if sized is not None and k < len(sized):  # the op's own contract says its size
                        a = plan.allocations[s]
                        a.sizes, a.dtype, a.estimated_from = [sized[k][0]], sized[k][1], target
                        plan.events.append(Event(r.line, "alloc", s))
                        continue
                    pending[b] = s
                if calls_convolution(target):
                    outs = [owner[b] for b in r.outputs if b in owner]
                    plan.events.append(Event(r.line, "conv", outs[0] if outs else -1))
            elif pending:  # a launch: it sizes the extern outputs it takes
                args = r.names
                for b in [b for b in pending if b in args or any(o in args for o, s in owner.items() if s == pending[b])]:
                    s = pending.pop(b)
                    a = plan.allocations[s]
                    size = numel.get(target) or _numel_argument(ix, r)
                    if size:
                        a.sizes, a.estimated_from = [size], target
                        a.dtype = signature.get(target)
                        plan.events.append(Event(a.line, "alloc", s))
                    else:  # read by a launch that says no size: left out, and said
                        plan.unsized.append(b)
        elif kind is SizeStride:  # the package's own statement of an extern output's sizes (torch 2.13)
            s = checked.pop(r.buf, None)
            if s is not None and r.buf in pending and r.sizes and len(r.sizes) == len(r.strides):
                pending.pop(r.buf)
                a = plan.allocations[s]
                a.sizes, a.strides, a.kind = list(r.sizes), list(r.strides), "checked"
                a.dtype, a.estimated_from = first_dtype.get(s), "assert_size_stride"
                plan.events.append(Event(a.line, "alloc", s))
        elif kind is Alias:
            if r.of in owner:
                s = owner[r.of]
                take(r.buf, s)
                if r.moved:
                    drop(r.of)
        elif kind is Release:
            drop(r.buf, r.line)
        elif kind is HandOut:
            s = owner.pop(r.buf, None)
            if s is not None:
                holders[s] = holders.get(s, 1) + 1  # the caller holds it from now on
                plan.outputs.add(s)
    plan.unsized = sorted({*plan.unsized, *pending})
    plan.events.sort(key=lambda e: (e.line, {"free": 0, "alloc": 1}.get(e.op, 2)))
    return plan


# efficient attention only: flash attention's outputs and arguments are laid out otherwise (left unsized)


def _view(arg: Expr) -> tuple[str, str] | None:
    """(base, size array) of the first ``reinterpret_tensor_wrapper(base, ndim, sizes, strides, offset)`` in an
    argument's tree."""
    for n in E.walk(arg.tree):
        if isinstance(n, E.Call) and E.dotted(n.func) == VIEW_FUNCTION and len(n.args) >= 4:
            base, ndim, sizes = n.args[0], n.args[1], n.args[2]
            if isinstance(base, E.Name) and isinstance(ndim, E.Int) and isinstance(sizes, E.Name):
                return base.id, sizes.id
            return None
    return None


def _view_strided(arg: Expr) -> tuple[str, str, str, Expr] | None:
    """(base, size array, stride array, offset) of the first ``reinterpret_tensor_wrapper(base, ndim, sizes,
    strides, offset)`` in an argument's tree."""
    for n in E.walk(arg.tree):
        if isinstance(n, E.Call) and E.dotted(n.func) == VIEW_FUNCTION and len(n.args) >= 5:
            base, sizes, strides = n.args[0], n.args[2], n.args[3]
            if isinstance(base, E.Name) and isinstance(sizes, E.Name) and isinstance(strides, E.Name):
                return base.id, sizes.id, strides.id, lexed_expr(E.unparse(n.args[4]))
            return None
    return None


def _is_zero(arg: Expr) -> bool:
    """``0``, ``0.0``, ``false``: an argument that turns an option off."""
    n = E.strip_parens(arg.tree)
    return (isinstance(n, (E.Int, E.Float)) and n.value == 0) or (isinstance(n, E.Name) and n.id == "false")


def _attention_outputs(call, arrays, owner, allocations) -> list[tuple[Expr, str | None]] | None:
    """(numel expression, dtype) of each output of an efficient attention call, from its contract: the
    output has the query's sizes and dtype; the logsumexp is float32 [B, H, ceil(S/32)*32] when asked for
    (compute_log_sumexp, the 5th argument) and empty otherwise; the philox seed and offset are empty without
    dropout (the 6th argument 0.0) and one int64 each with it."""
    if call.target not in (EFFICIENT_ATTENTION, FLASH_ATTENTION_CPU):
        return None
    args = call.args
    if len(args) < (6 if call.target == EFFICIENT_ATTENTION else 1):
        return None
    v = _view(args[0])
    base = v[0] if v else (args[0].names[0] if len(args[0].names) == 1 else None)
    sizes = arrays.get(v[1]) if v else (allocations[owner[base]].sizes if base in owner else None)
    if not sizes or len(sizes) != 4:
        return None
    dtype = allocations[owner[base]].dtype if base in owner else None
    b, h, sq, dq = (f"({x})" for x in sizes)
    if call.target == FLASH_ATTENTION_CPU:  # (output, logsumexp [B, H, L] float32)
        return [(lexed_expr(f"{b}*{h}*{sq}*{dq}"), dtype), (lexed_expr(f"{b}*{h}*{sq}"), "float32")]
    lse = f"{b}*{h}*((({sq})+31)//32)*32" if not _is_zero(args[4]) else "0"
    rng = "1" if not _is_zero(args[5]) else "0"
    return [(lexed_expr(f"{b}*{h}*{sq}*{dq}"), dtype), (lexed_expr(lse), "float32"), (lexed_expr(rng), "int64"),
            (lexed_expr(rng), "int64")]


def _numel_argument(ix, launch) -> Expr | None:
    """The argument a launch passes for its kernel's ``xnumel`` (a static package writes no ``<kernel>_xnumel``
    local: `call_triton_x(buf2, arg0_1, 802816L, …)`), found by the position of that parameter in the launcher's
    own parameter list."""
    names = ix.launcher_parameter_names(launch.target)
    if not names or "xnumel" not in names:
        return None
    args = launch.args
    i = names.index("xnumel")
    return args[i] if i < len(args) and str(args[i]) else None


def symbol_values(m, specs, ep=None) -> dict[str, int]:
    """Each dynamic symbol's value from input shapes (``check``'s ``InputSpec``s): a dim that is a symbol
    gives it its size (aliases included)."""
    from ..naming import root_symbol
    from .check import _resolve

    out: dict[str, int] = {}
    for spec in specs:
        if spec.shape is None:
            continue
        inp = m.inputs[_resolve(m, spec, ep)]
        for want, got in zip(inp.shape or (), spec.shape):
            sym = root_symbol(m.symbols, want)
            if sym is not None:
                out[sym.name] = got
        for sym in m.symbols.values():  # a size read into a symbol of its own (`arg32_1_size_2 = arg32_1_size[2]`)
            if sym.alias_of is None and sym.input == inp.index and sym.dim is not None and sym.dim < len(spec.shape):
                out.setdefault(sym.name, spec.shape[sym.dim])
    for name, sym in m.symbols.items():  # aliases (s23 = s2) take their root's value
        root = root_symbol(m.symbols, name)
        if root is not None and root.name in out:
            out[name] = out[root.name]
    return out


def human_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"

