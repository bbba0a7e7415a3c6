"""The element that held the bad value (issue 35 §1): from a device assert's printed ``block: […], thread: […]`` to
the indices each thread held, the load that read the asserted value, and the element of the model input it read.

What the package fixes, and this reads: the kernel's index arithmetic (its ``x0 = xindex``, ``y1 = yindex // 32``
definitions and the ``tl.load(in_ptrN + (…))`` the asserted tmp comes from), the block sizes and num_warps autotune
chose (the launcher's grid and ``launchKernel``: `inspector.parse.launch`), the pointer's element type, and the
input's sizes.  What it assumes, and says: Triton's default blocked layout for the loaded tensor (Triton 3.x's
``BlockedEncodingAttr`` rule, with the coalescing pass's vector width ``min(128 bits / element bits, elements per
thread)`` along the dimension the load reads contiguously, 1 where another term may misalign it), and contiguous
strides for the input.  Verified on the H200 runs of ``sample_packages/harvest/issue35_gpu`` (one bad id planted
per run: pointwise 1-D and tiled 2-D grids, persistent and looped reductions, a dynamic shape).

A thread that holds several elements (a vector of 2 int64, a row replicated over warps) names them all; one bad
value is the element every printed thread holds (``candidates``), several are their union.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import inspector.explain.element as say
from ..naming import NO_KERNEL_SHIMS
from ..parse import expr_tree as E

_RANGES = {"x": "xindex", "y": "yindex", "r": "r0_index"}
_BITS = {"i1": 8, "i8": 8, "u8": 8, "i16": 16, "fp16": 16, "bf16": 16, "i32": 32, "u32": 32, "fp32": 32, "i64": 64,
         "u64": 64, "fp64": 64}
# the shims that copy or alias a tensor whole (the element keeps its position): clone, copy_, assign_tensors
_COPIES = tuple(x for x in NO_KERNEL_SHIMS if x != "aoti_torch_empty")


@dataclass
class ThreadElements:
    """One printed thread: ``block``/``thread`` as printed, the range indices it held (``{"x": [40, 41]}``), and the
    offsets into the loaded tensor they read (``offsets``; an offset with a size symbol in it is written
    ``ks0 + 7``)."""

    block: list[int]
    thread: list[int]
    indices: dict = field(default_factory=dict)
    offsets: list = field(default_factory=list)


@dataclass
class ElementAnswer:
    """The element(s) the failing threads held.  ``named`` False: none could be named (``why`` says why; a CPU check
    prints no thread).  ``tensor``: "input" (``input``, ``input_name``: the model input the load reads, copies
    followed) or "buffer" (``buffer``: an intermediate the walk names, ``from_input`` the input it comes from; its
    offsets are given, its element is not followed back).  ``candidates``: the offsets every printed thread holds
    (one bad value is one of them); ``elements``: each unravelled with ``sizes`` (contiguous strides assumed), None
    where a size is a symbol nothing fixes.  ``config``: what the launcher fixed and the layout assumed."""

    named: bool
    kernel: str = ""
    index_var: str = ""
    pointer: str | None = None
    load_index: str | None = None
    tensor: str | None = None
    input: int | None = None
    input_name: str | None = None
    buffer: str | None = None
    from_input: int | None = None
    sizes: list = field(default_factory=list)
    config: dict = field(default_factory=dict)
    threads: list = field(default_factory=list)  # ThreadElements, the distinct ones, at most MAX_THREADS
    threads_printed: int = 0
    candidates: list = field(default_factory=list)
    elements: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)
    unknown: list = field(default_factory=list)
    too_few_threads: str | None = None
    why: str | None = None
    line: str = ""  # the answer's one body line


MAX_THREADS = 64


def no_element_cpu() -> ElementAnswer:
    a = ElementAnswer(named=False, why=say.CPU_NO_THREAD)
    a.line = say.cpu_line()
    return a


def _ints(s: str) -> list[int]:
    return [int(x) for x in s.split(",") if x.strip().lstrip("-").isdigit()]


def _defs(k) -> dict:
    return {t.name: t.expr.tree for t in k.tmps}


def _load_of(defs: dict, var: str, seen=None):
    """The ``tl.load(in_ptrN + (index), …)`` calls the value ``var`` is made from: [(pointer, index tree)]."""
    seen = set() if seen is None else seen
    if var in seen or var not in defs:
        return []
    seen.add(var)
    t = defs[var]
    out = []
    for n in E.walk(t):
        if isinstance(n, E.Call) and E.dotted(n.func) == "tl.load" and n.args:
            p = E.strip_parens(n.args[0])
            if isinstance(p, E.BinOp) and p.op == "+" and isinstance(p.left, E.Name):
                out.append((p.left.id, p.right, var))
            elif isinstance(p, E.Name):
                out.append((p.id, E.Int(0, "0"), var))
            return out
    for name in E.names(t):
        if name.startswith("tmp"):
            out += _load_of(defs, name, seen)
    return out


def _index_env(defs: dict, ranges: dict, sym: dict) -> dict:
    """The kernel's index definitions (``x0 = xindex``, ``y1 = yindex // 32``, ``xnumel = 1200``) evaluated at the
    range values ``ranges``; names it cannot evaluate are left out."""
    env = dict(sym)
    env.update(ranges)
    for name, t in defs.items():
        if name in env or name.startswith("tmp") or name.endswith(("offset", "mask")) or name in _RANGES.values():
            continue
        try:
            env[name] = E.evaluate(t, env)
        except E.EvalError:
            pass
    return env


def _depends(defs: dict, tree, rng: str, seen=None) -> bool:
    seen = set() if seen is None else seen
    for name in E.names(tree):
        if name == rng:
            return True
        if name in defs and name not in seen and not name.startswith("tmp") and name not in _RANGES.values():
            seen.add(name)
            if _depends(defs, defs[name], rng, seen):
                return True
    return False


def _blocked(shape: list[int], spt: list[int], order: list[int], warps: int) -> tuple[list[int], list[int]]:
    """threadsPerWarp, warpsPerCTA of Triton's BlockedEncodingAttr for ``shape`` (per dim), ``spt``, ``order``."""
    rank = len(shape)
    tpw, wpc = [1] * rank, [1] * rank
    lanes, threads, rw = 32, 32 * warps, warps
    prev_l = prev_w = 1
    for d in order[:-1]:
        per_cta = min(max(threads, 1), max(1, shape[d] // spt[d]))
        tpw[d] = min(max(per_cta, 1), lanes)
        wpc[d] = min(max(per_cta // tpw[d], 1), rw)
        rw //= wpc[d]
        lanes //= tpw[d]
        threads //= per_cta
        prev_l *= tpw[d]
        prev_w *= wpc[d]
    tpw[order[-1]] = 32 // prev_l
    wpc[order[-1]] = warps // prev_w
    return tpw, wpc


def _held(t: int, shape, spt, tpw, wpc, order) -> list[list[int]]:
    """Per dim, the tile coordinates thread ``t`` holds (a layout larger than the tile wraps: replication)."""
    lane, warp = t % 32, t // 32
    lc, wc = [0] * len(shape), [0] * len(shape)
    for d in order:
        lc[d], lane = lane % tpw[d], lane // tpw[d]
        wc[d], warp = warp % wpc[d], warp // wpc[d]
    out = []
    for d in range(len(shape)):
        tile = spt[d] * tpw[d] * wpc[d]
        base = (wc[d] * tpw[d] + lc[d]) * spt[d]
        reps = max(1, -(-shape[d] // tile))
        out.append(sorted({(base + j + r * tile) % shape[d] for r in range(reps) for j in range(spt[d])}))
    return out


def _linear(tree, env: dict, syms: list[str]):
    """The offset as (constant, {symbol: coefficient}) when it is linear in the size symbols ``syms`` (checked at
    three points); None when it cannot be evaluated."""
    try:
        base = E.evaluate(tree, {**env, **{s: 0 for s in syms}})
        coef = {}
        for s in syms:
            one = E.evaluate(tree, {**env, **{x: (1 if x == s else 0) for x in syms}}) - base
            two = E.evaluate(tree, {**env, **{x: (2 if x == s else 0) for x in syms}}) - base
            if two != 2 * one:
                return None
            if one:
                coef[s] = one
        return base, coef
    except E.EvalError:
        return None


def _show(off) -> str | int:
    base, coef = off
    if not coef:
        return base
    parts = [(s if c == 1 else f"{c}*{s}") for s, c in sorted(coef.items())]
    return " + ".join(parts + ([str(base)] if base else []))


def _unravel(off, sizes: list, sym_of_dim: dict) -> list[int] | None:
    """Row-major position of offset ``off`` (constant, {symbol: coefficient}) in a tensor of ``sizes`` (ints or
    symbol names: ``sym_of_dim`` maps a kernel's size symbol to the dim it is).  None where a size nothing fixes
    is needed."""
    base, coef = off
    if not sizes:
        return [] if base == 0 and not coef else None
    if not coef and all(isinstance(s, int) for s in sizes[1:]):
        out, rest = [], base
        for s in reversed(sizes[1:]):
            out.append(rest % s)
            rest //= s
        return [rest] + out[::-1]
    # 2-D with the inner dim a symbol: offset = row*ks + col
    if len(sizes) == 2 and len(coef) == 1:
        (s, c), = coef.items()
        if sym_of_dim.get(s) == 1:
            return [c, base]
    return None


def name_elements(m, ix, k, a, report_assert, origin=None, bound=None,
                  sizes_override: dict | None = None) -> ElementAnswer:
    """The element(s) the printed threads of ``report_assert`` (a `ReportedAssert`) held, for kernel ``k``'s
    assertion ``a``; ``m`` the model slice (inputs), ``ix`` its index (the launcher), ``origin`` the match's first
    `IndexOrigin` (which input the load reads), ``sizes_override`` input index -> sizes the user gave."""
    ans = ElementAnswer(named=False, kernel=k.name, index_var=a.index_var or "")
    if report_assert is None or report_assert.kind != "cuda":
        return no_element_cpu() if report_assert is not None and report_assert.kind == "cpu" else ans
    printed = [(_ints(b), _ints(t)) for b, t in report_assert.threads]
    ans.threads_printed = len(printed)
    if not printed:
        ans.why = say.NO_THREADS
        ans.line = say.no_threads_line()
        return ans
    lc = ix.launch_config(k.name) if hasattr(ix, "launch_config") else None
    if lc is None:
        ans.why = say.NO_LAUNCH
        ans.line = say.unknown_line(ans.why)
        return ans
    defs = _defs(k)
    loads = _load_of(defs, a.index_var or "")
    if len(loads) != 1:
        ans.why = say.no_load(a.index_var, len(loads))
        ans.line = say.unknown_line(ans.why)
        return ans
    ptr, idx, _ = loads[0]
    ans.pointer, ans.load_index = ptr, E.unparse(idx)
    dims = ["y", "x"] if "y" in lc.blocks and "YBLOCK" in " ".join(defs) + " ".join(p.name for p in k.params) else ["x"]
    if k.heuristic in ("reduction", "persistent_reduction") or "r0_index" in defs:
        dims = ["x", "r"]
    blocks = {d: lc.blocks.get(d, 1) for d in dims}
    if "r" in dims:
        rb = defs.get("R0_BLOCK")
        blocks["r"] = rb.value if isinstance(rb, E.Int) else None
    uses = {d: _depends(defs, idx, _RANGES[d]) for d in dims}
    if any(uses[d] and blocks[d] is None for d in dims):
        ans.why = say.NO_RBLOCK
        ans.line = say.unknown_line(ans.why)
        return ans
    shape = [blocks[d] if uses[d] else 1 for d in dims]
    syms = sorted({n for n in E.names(idx) if n.startswith("ks")} |
                  {n for d in defs.values() for n in E.names(d) if n.startswith("ks")})
    # the contiguous dim: the range whose step moves the offset by 1
    contig = None
    for i, d in enumerate(dims):
        if not uses[d]:
            continue
        zero = {r: 0 for r in _RANGES.values()}
        e0 = _linear(idx, _index_env(defs, zero, {}), syms)
        e1 = _linear(idx, _index_env(defs, {**zero, _RANGES[d]: 1}, {}), syms)
        if e0 and e1 and e1[0] - e0[0] == 1 and e1[1] == e0[1]:
            contig = i
    order = ([contig] + [i for i in reversed(range(len(dims))) if i != contig]) if contig is not None \
        else list(reversed(range(len(dims))))
    warps = lc.num_warps
    bits = _BITS.get(lc.pointer_types.get(ptr, ""), 32)
    vec = 128 // bits if contig is not None else 1
    aligned = True
    if contig is not None:  # a symbol or an odd constant beside the contiguous term may misalign the vector
        zero = _linear(idx, _index_env(defs, {r: 0 for r in _RANGES.values()}, {}), syms)
        if zero is None or zero[1] or (zero[0] * bits // 8) % 16:
            aligned = False
    n_el = 1
    for s in shape:
        n_el *= s
    spt = [1] * len(shape)
    if contig is not None and aligned:
        spt[contig] = max(1, min(vec, max(n_el // (32 * warps), 1), shape[contig]))
    tpw, wpc = _blocked(shape, spt, order, warps)
    ans.config = {"blocks": {d.upper() + "BLOCK": blocks[d] for d in dims if blocks[d] is not None},
                  "num_warps": warps, "launch_lines": list(lc.lines), "tensor_shape": shape,
                  "size_per_thread": spt, "threads_per_warp": tpw, "warps_per_cta": wpc,
                  "order": order, "dims": dims, "element_type": lc.pointer_types.get(ptr)}
    ans.assumptions.append(say.assume_layout(spt, tpw, wpc, dims, aligned, contig is not None))
    ans.assumptions.append(say.assume_config(blocks, warps))
    # which tensor the load reads
    steps = list(origin.path) if origin is not None else []
    at = next((i for i, s in enumerate(steps) if s.kind == "kernel_param" and s.name == ptr), None)
    inp = None
    if at is not None:
        rest = steps[at + 1:]
        inter = [s for s in rest if s.kind not in ("input", "handle") and not (s.kind == "extern_op" and s.name.startswith(_COPIES))]
        if not inter and origin.input is not None:
            inp = origin.input
            ans.tensor, ans.input, ans.input_name = "input", inp.index, inp.user_name or inp.name
        else:
            buf = next((s.name for s in rest if s.kind == "buffer"), None)
            ans.tensor, ans.buffer = "buffer", buf
            ans.from_input = origin.input.index if origin.input is not None else None
    numels = {}
    for d in dims:
        v = defs.get(f"{'r0_' if d == 'r' else d}numel")
        if isinstance(v, E.Int):
            numels[d] = v.value
    per_thread = []
    offsets_of = []
    for block, thread in printed:
        t = thread[0] if thread else 0
        held = _held(t, shape, spt, tpw, wpc, order)
        bidx = {"x": block[0] if block else 0, "y": (block[1] if len(block) > 1 else 0), "r": 0}
        rng = {}
        for i, d in enumerate(dims):
            if d == "r":
                rng[d] = held[i]  # r offsets of the first loop step (the index load does not use r)
            else:
                vals = [bidx[d] * blocks[d] + c for c in held[i]]
                rng[d] = [v for v in vals if d not in numels or v < numels[d]]
        offs = set()
        combos = [{}]
        for i, d in enumerate(dims):
            if uses[d]:
                combos = [{**c, _RANGES[d]: v} for c in combos for v in rng[d]]
        for c in combos[:4096]:
            env = _index_env(defs, {**{r: 0 for r in _RANGES.values()}, **c}, {})
            lin = _linear(idx, env, syms)
            if lin is not None:
                offs.add((lin[0], tuple(sorted(lin[1].items()))))
        offsets_of.append(offs)
        per_thread.append(ThreadElements(block=block, thread=thread,
                                         indices={d: rng[d] for d in dims if uses[d]},
                                         offsets=[_show((b, dict(c))) for b, c in sorted(offs)]))
    common = set.intersection(*offsets_of) if offsets_of else set()
    cands = sorted(common) if common else sorted(set().union(*offsets_of))
    ans.candidates = [_show((b, dict(c))) for b, c in cands]
    distinct, seen = [], set()
    for te in per_thread:
        key = (tuple(te.offsets),)
        if key not in seen:
            seen.add(key)
            distinct.append(te)
    ans.threads = distinct[:MAX_THREADS]
    if not common and len(offsets_of) > 1:
        ans.unknown.append(say.SEVERAL_VALUES)
    # sizes and the element
    if ans.tensor == "input":
        mi = next((x for x in m.inputs if x.index == ans.input), None)
        sizes = list(sizes_override.get(ans.input)) if sizes_override and ans.input in sizes_override else \
            (list(mi.shape) if mi is not None else [])
        ans.sizes = sizes
        if mi is not None and mi.stride and not _contiguous(mi.shape, mi.stride):
            ans.unknown.append(say.NOT_CONTIGUOUS)
        ans.assumptions.append(say.ASSUME_CONTIGUOUS)
        sym_dim = _symbol_dims(bound, ans.input, m, k, syms)
        for b, c in cands:
            ans.elements.append(_unravel((b, dict(c)), [s if isinstance(s, int) else str(s) for s in sizes], sym_dim))
        if any(c for _, c in cands) and any(e is not None for e in ans.elements):
            ans.assumptions.append(say.ASSUME_INSIDE)
        if any(e is None for e in ans.elements):
            ans.unknown.append(say.symbolic_sizes(sizes))
    ans.too_few_threads = _too_few(printed, cands, shape, spt, tpw, wpc, order, warps, dims, blocks, uses, defs, idx,
                                   syms, report_assert)
    ans.named = bool(ans.candidates)
    ans.line = say.element_line(ans)
    return ans


def _contiguous(shape, stride) -> bool:
    exp = 1
    for s, st in zip(reversed(shape), reversed(stride)):
        if isinstance(s, int) and isinstance(st, int):
            if s != 1 and st != exp:
                return False
            exp *= s
        else:
            return True  # symbolic: not known otherwise
    return True


def _symbol_dims(bound, input_index: int, m=None, k=None, syms=()) -> dict:
    """Kernel size symbol -> the dim of input ``input_index`` it is: where the bound walk bound it to that input's
    size (``ks0`` <- ``s44 = arg1_1_size[1]``), else where the launch passes the symbol the input's shape names
    (``ks0`` is launch argument ``s93``, and the input is ``[2, s93]``)."""
    out = {}
    for t in (bound.terms if bound is not None else []):
        if t.input is not None and t.input.index == input_index and t.input.dim is not None:
            out[t.kernel_param] = t.input.dim
    mi = next((x for x in m.inputs if x.index == input_index), None) if m is not None else None
    if mi is None or k is None:
        return out
    pos = {p.name: p.position for p in k.params}
    for site in (c for c in m.calls if c.target == k.name):
        for ks in syms:
            i = pos.get(ks)
            if ks in out or i is None or i >= len(site.args):
                continue
            names = site.args[i].names or ((site.args[i].base,) if site.args[i].base else ())
            dims = [d for d, s in enumerate(mi.shape) if isinstance(s, str) and s in names]
            if len(names) == 1 and len(dims) == 1:
                out[ks] = dims[0]
    return out


def _too_few(printed, cands, shape, spt, tpw, wpc, order, warps, dims, blocks, uses, defs, idx, syms, rep):
    """Where the candidate element is held by more threads of a printed block than the log shows: the words."""
    if len(cands) != 1:
        return None
    want = cands[0]
    blocks_seen = {}
    for b, t in printed:
        blocks_seen.setdefault(tuple(b), set()).add(t[0] if t else 0)
    for b, got in list(blocks_seen.items())[:4]:
        holders = 0
        for t in range(32 * warps):
            held = _held(t, shape, spt, tpw, wpc, order)
            bidx = {"x": b[0] if b else 0, "y": (b[1] if len(b) > 1 else 0)}
            combos = [{}]
            for i, d in enumerate(dims):
                if uses[d]:
                    combos = [{**c, _RANGES[d]: bidx.get(d, 0) * blocks[d] + v} for c in combos for v in held[i]]
            hit = False
            for c in combos:
                lin = _linear(idx, _index_env(defs, {**{r: 0 for r in _RANGES.values()}, **c}, {}), syms)
                if lin is not None and (lin[0], tuple(sorted(lin[1].items()))) == want:
                    hit = True
                    break
            holders += hit
        if holders > len(got):
            return say.too_few(len(got), holders, list(b), rep.occurrences)
    return None
