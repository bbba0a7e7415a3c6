"""check: do these inputs fit the package?  Device, dtype, rank, static sizes, symbol ranges, strides and
shared symbols, each against the package's own evidence; then which assertions cannot hold with these
sizes and which unchecked indirect loads read a table they make empty."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import inspector.graph.ids as ids
from ..errors import UsageError
from ..explain import check as say
from ..model import Model
from ..naming import root_symbol
from ..package import Package
from ..parse import expr_tree as E
from ..parse.message import static_bound
from ..parse.specs import (  # noqa: F401 - the user-typed specs' one home, re-exported for callers of check
    InputSpec, device_index, device_type, is_int, parse_device, parse_inputs_json, parse_spec)
from ..parse.tokens import identifiers


@dataclass
class CheckResult:
    package: str
    model: str
    ok: bool
    verdict: str
    violations: list[dict] = field(default_factory=list)
    predicted_assertions: list[dict] = field(default_factory=list)
    # checks these sizes let fail: an index bounded by one size (a top-k/sort/argmax position) reads a table
    # sized by another that may be smaller; each names both sizes
    may_fail: list[dict] = field(default_factory=list)
    certainty: str = "certain"  # of the verdict: "certain" | "likely" | "possible"
    checked: list[dict] = field(default_factory=list)  # what each given input was matched to
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# The arithmetic of a size or bound that `evaluate` takes: anything else (a call such as c10::div_floor_integer, a
# comparison, a ternary, a float) is not plain arithmetic and has no value here, as before the trees
ARITH = frozenset({"+", "-", "*", "//", "%"})


def _plain(tree, ops: frozenset, casts: bool) -> bool:
    """Whether ``tree`` is integer arithmetic of names and literals with the operators ``ops`` (and casts)."""
    for n in E.walk(tree):
        if isinstance(n, (E.Int, E.Name)) or (isinstance(n, E.Paren) and not isinstance(n.inner, E.Tuple)):
            continue
        if (isinstance(n, E.BinOp) and n.op in ops) or (isinstance(n, E.UnaryOp) and n.op == "-"):
            continue
        if casts and isinstance(n, E.Cast):  # `static_cast<int64_t>(s70*s70)`: `E.evaluate` takes integer casts only
            continue
        return False
    return True


def evaluate(expr, values: dict[str, int], ops: frozenset = ARITH, casts: bool = False) -> int | None:
    """An integer size expression (``ks0 + ks1``, ``(-1) + ks0``, ``ks1*ks2``, ``64L``; text or a typed tree) with
    ``values``; None when a name is unknown or the expression is not plain arithmetic (``ops``: the binary
    operators taken; ``casts``: integer casts too).  The typed tree's evaluation: C's ``/`` and ``%``."""
    tree = expr if isinstance(expr, E.Node) else E.parse_expr((expr or "").strip())
    if not _plain(tree, ops, casts):
        return None
    try:
        return E.evaluate(tree, values)
    except E.EvalError:
        return None


def _root(m: Model, name):
    return root_symbol(m.symbols, name)


def _cite(inp, kind: str, dim: int | None = None) -> str:
    """``; wrapper.cpp line 742`` for the guard of check_input_K that says so (the package's own evidence)."""
    lines = [g.line for g in inp.guards if g.kind == kind and (dim is None or g.dim == dim)]
    return say.cite(lines)


def _resolve(m: Model, spec: InputSpec, ep) -> int:
    who = spec.who
    if spec.position is not None:
        idx = spec.position
        if idx >= len(m.inputs):
            raise UsageError(say.no_such_position(who, m.name, len(m.inputs)))
        return idx
    inp = m.input_by_name(who)
    if inp is not None:
        return inp.index
    if ep is not None:
        for e in ep.user_inputs:
            if e.name == who and e.position < len(m.inputs):
                return e.position
    names = [i.name for i in m.inputs] + ([e.name for e in ep.user_inputs] if ep else [])
    raise UsageError(say.no_such_input(who, len(m.inputs), names, ep is not None))


def check(pkg: Package, specs: list[InputSpec], model: str | None = None, ep=None, device: str | None = None
          ) -> CheckResult:
    """``device``: where the package is loaded (``cuda:1`` = ``aoti_load_package(path, device_index=1)``);
    inputs on another GPU are said as such."""
    from ..parse.exported_program import differences, disagreement_text, packaged_ep

    ix = pkg.index(model)
    m = ix.eager()  # the contract: inputs, guards, symbols (no kernel parsed)
    if ep is None:
        ep = packaged_ep(pkg, m.name)
    notes = []
    if ep is not None:
        dis = differences(ep, m, ix.constants())
        notes += [disagreement_text(d) for d in dis]
        if any(d.names_unusable for d in dis):
            ep = None
    if not specs:
        raise UsageError(say.NO_INPUTS)
    res = CheckResult(package=str(pkg.path), model=m.name, ok=True, verdict="")
    values: dict[str, tuple[int, int, int]] = {}  # root symbol -> (value, input, dim) of its first use
    dims: dict[tuple[int, int], int] = {}
    pkg_dev = device_type(m.device)
    given = set()
    unchecked: list[str] = []  # what the package does not record, so could not be checked: never "fits"
    unshaped: list[int] = []  # inputs given without a shape (`0=float32`): their sizes were not checked
    on_device: dict[int, str] = {}
    for spec in specs:
        idx = _resolve(m, spec, ep)
        if idx in given:
            raise UsageError(say.given_twice(spec.who, idx))
        given.add(idx)
        if spec.device:
            on_device[idx] = spec.device
        inp = m.inputs[idx]
        label = say.label(idx, inp.name, ep.user_name(idx) if ep else None)
        res.checked.append({"input": idx, "name": inp.name, "user_name": ep.user_name(idx) if ep else None,
                            "spec": asdict(spec)})

        def bad(kind, detail):
            res.violations.append({"input": idx, "kind": kind, "detail": say.detail(label, detail)})

        want_dev = device_type(inp.device or pkg_dev)
        if spec.device and want_dev and device_type(spec.device) != want_dev:
            bad("device", say.wrong_device(spec.device, want_dev, m.device, _cite(inp, 'device')))
        if spec.dtype and inp.dtype and spec.dtype != inp.dtype:
            bad("dtype", say.wrong_dtype(spec.dtype, inp.dtype, _cite(inp, 'dtype')))
        # A package with no input guards (torch 2.6) records only the dims run_impl reads (`s0 = arg0_1_size[0]`):
        # its rank is unknown, so only those dims are checked, never the rank.
        rank_known = bool(inp.guards) or inp.dtype is not None
        if spec.shape is None and inp.shape:  # `0=float32`: nothing said about its sizes, so nothing checked
            unshaped.append(idx)
        if spec.shape is not None and inp.shape and not rank_known:
            res.notes.append(say.no_rank_note(idx, len(inp.shape)))
            unchecked.append(say.rank_unchecked(idx))
        if spec.shape is not None and inp.shape:
            if len(spec.shape) != len(inp.shape) and (rank_known or len(spec.shape) < len(inp.shape)):
                bad("rank", say.wrong_rank(spec.shape, list(inp.shape)))
            else:
                for d, (got, want) in enumerate(zip(spec.shape, inp.shape)):  # zip: the dims both sides know
                    dims[(idx, d)] = got
                    if str(want) == "?" and ep is not None and d < len(ep.user_inputs[idx].shape):
                        want = ep.user_inputs[idx].shape[d]  # the wrapper does not say; the exported program does
                        if str(want) not in m.symbols and not is_int(want):
                            continue
                        res.notes.append(say.size_from_ep(idx, d, want))
                    if str(want) == "?":  # no symbol names this dim: the input's own guards still bound it
                        lo = next((int(g.value) for g in inp.guards if g.kind == "min" and g.dim == d), None)
                        hi = next((int(g.value) for g in inp.guards if g.kind == "max" and g.dim == d), None)
                        if lo is None and hi is None:
                            res.notes.append(say.dim_unnamed(idx, d))
                            unchecked.append(say.dim_unchecked(idx, d))
                        elif (lo is not None and got < lo) or (hi is not None and got > hi):
                            glines = [g.line for g in inp.guards if g.kind in ("min", "max") and g.dim == d]
                            bad("range", say.out_of_guards(d, got, idx, lo, hi, glines))
                        continue
                    if is_int(want):
                        if got != int(want):
                            bad("size", say.not_static(d, got, want, _cite(inp, 'eq', d)))
                        continue
                    sym = _root(m, want)
                    if sym is None:
                        v = evaluate(str(want), {k: x[0] for k, x in values.items()})
                        if v is not None and v != got:
                            bad("size", say.not_formula(d, got, want, v))
                        continue
                    lo, hi = sym.min, sym.max
                    if (lo is not None and got < lo) or (hi is not None and got > hi):
                        owner = m.inputs[sym.input] if sym.input is not None and sym.input < len(m.inputs) else inp
                        glines = [g.line for g in owner.guards if g.kind in ("min", "max") and g.dim == sym.dim]
                        bad("range", say.out_of_range(d, got, sym.name, lo, hi, sym.input, glines))
                    if sym.name in values and values[sym.name][0] != got:
                        v, oi, od = values[sym.name]
                        bad("equal", say.unequal(d, got, oi, od, v, sym.name))
                    values.setdefault(sym.name, (got, idx, d))
        if spec.stride is not None and inp.stride:
            if len(spec.stride) == len(inp.stride):
                for d, (got, want) in enumerate(zip(spec.stride, inp.stride)):
                    w = int(want) if is_int(want) else evaluate(
                        str(want), {k: x[0] for k, x in values.items()})
                    if w is not None and got != w and not (spec.shape and spec.shape[d] <= 1):
                        bad("stride", say.wrong_stride(d, got, want, w))
    devs: dict[str, list[int]] = {}
    for i, dev in on_device.items():
        if device_type(dev) == "cuda":
            devs.setdefault(f"cuda:{device_index(dev)}", []).append(i)
    loaded = device_index(device) if device_type(device) == "cuda" else None
    if device and pkg_dev and device_type(device) != pkg_dev:
        res.violations.append({"input": None, "kind": "device",
                               "detail": say.loaded_on_other_type(device, pkg_dev, m.device)})
    elif loaded is not None:
        for d, idxs in devs.items():
            if device_index(d) != loaded:
                alt = (say.load_there(device_index(d)) if len(devs) == 1 else say.others_on([x for x in devs if x != d]))
                for i in idxs:
                    res.violations.append({"input": i, "kind": "device",
                                           "detail": say.not_on_loaded(i, m.inputs[i].name, d, loaded, alt)})
    elif len(devs) > 1:
        first, *others = devs
        for d in others:
            for i in devs[d]:
                res.violations.append({"input": i, "kind": "device",
                                       "detail": say.split_devices(i, m.inputs[i].name, d, devs[first][0], first)})
    if loaded is None and len(devs) == 1 and next(iter(devs)) != "cuda:0":
        d = next(iter(devs))
        res.notes.append(say.all_on(d, device_index(d)))
    missing = [i for i in range(len(m.inputs)) if i not in given]
    if missing:
        res.notes.append(say.not_given(missing))
    res.notes += notes
    res.predicted_assertions = _predict(pkg, m, {k: x[0] for k, x in values.items()}, dims)
    res.predicted_assertions += _loop_overruns(pkg, m.name, dims)
    res.may_fail = _may_fail(pkg, m.name, dims) if not res.predicted_assertions else []
    zero: list[dict] = []
    if 0 in dims.values():  # a kernel that divides by a size given as 0: SIGFPE, before any check of that kernel
        zero = _zero_divisors(pkg, m.name, dims)
        res.notes += [say.zero_divisor_first(x["kernel"], x["message"]) for x in zero
                      if any(a["kernel"] == x["kernel"] for a in res.predicted_assertions)]
    # an extern ATen op fed a size the package was not built for (0, or outside the symbol's range): its
    # behaviour there is not in the package, so not a flat "fit" (cpu/transformer s27=0: SIGFPE in sdpa)
    extern = _unvouched_externs(pkg, m, values)
    res.may_fail += sorted(zero + extern, key=lambda x: x["line"])  # the first to run first (as diagnose ranks)
    if extern:
        res.notes.append(say.EXTERN_SIZES)
    res.ok = not res.violations and not res.predicted_assertions and not res.may_fail
    if unshaped:
        res.notes.append(say.no_shape(unshaped))
    if (res.ok and (unchecked or unshaped)) or (res.may_fail and not res.violations):
        res.certainty = "possible"
    elif res.ok and any(True for _ in pkg.index(m.name).assert_sites()):
        res.certainty = "likely"  # the sizes fit; the index values, which `check` is not given, may still fail a check
        res.notes.append(say.VALUES_UNCHECKED)
    else:
        res.certainty = "certain"
    if res.may_fail and not res.violations and res.may_fail[0]["op"] == "extern":
        x = res.may_fail[0]
        res.verdict = say.extern_size_verdict(x["kernel"], x["why"], len(res.may_fail) - 1)
    elif res.may_fail and not res.violations:
        x = res.may_fail[0]
        res.verdict = say.may_fail_verdict(x["kernel"], x["message"], x["why"], len(res.may_fail) - 1)
    elif res.ok and (unchecked or unshaped):
        res.verdict = say.unchecked_verdict(m.name, unchecked, unshaped)
    elif res.ok:
        res.verdict = say.fit_verdict(len(given), m.name)
    else:
        first = (res.violations[0]["detail"] if res.violations else
                 say.would_fail(res.predicted_assertions[0]["kernel"], res.predicted_assertions[0]["message"]))
        res.verdict = say.violations_verdict(len(res.violations), len(res.predicted_assertions), first)
    return res


def _zero_divisors(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[dict]:
    """CPU kernels whose integer division or modulo divides by a size these dims make 0 (the expression trees of
    their statements, inspector.queries.divisions): the process dies of SIGFPE when the kernel runs
    that statement, which a loop over an empty range may skip, so "may"."""
    from .divisions import zero_divisions

    out = []
    for s in zero_divisions(pkg, name, dims):
        refs = [(r.input, r.dim) for r in s.symbols if dims.get((r.input, r.dim)) == 0]
        out.append({"kernel": s.target, "message": s.divisor, "line": s.line, "op": "division", "index_size": 0,
                    "bound": 0, "why": say.zero_divisor_why(s.divisor, refs)})
    return out


def _unvouched(m: Model, values: dict[str, tuple[int, int, int]]) -> dict[str, tuple[int, int, int, int]]:
    """root symbol -> (value, input, dim, the nearest size the package was built for) for each given size that is
    0 or outside its symbol's range (the input guards': with AOTI_RUNTIME_CHECK_INPUTS unset nothing stops it)."""
    out = {}
    for name, (v, i, d) in values.items():
        sym = m.symbols.get(name)
        lo, hi = (sym.min, sym.max) if sym is not None else (None, None)
        if v <= 0 or (lo is not None and v < lo):
            out[name] = (v, i, d, lo if lo is not None else 1)
        elif hi is not None and v > hi:
            out[name] = (v, i, d, hi)
    return out


def _unvouched_externs(pkg: Package, m: Model, values: dict[str, tuple[int, int, int]]) -> list[dict]:
    """Extern ATen ops whose inputs' shapes hold a size these inputs set to a value the package was not built for
    (inspector.queries.divisions): the generated code fits, but whether ATen's kernel takes that size (an empty
    sequence kills cpu_flash_attention with SIGFPE) is not in the package, so "may"."""
    from .divisions import unvouched_externs_read
    from .fused import extern_op_name

    bad = _unvouched(m, values)
    by_op: dict[str, list] = {}  # one entry per op, at its first call (later calls of it counted)
    sites, stopped = unvouched_externs_read(pkg, m.name, bad)
    for s in sites:
        by_op.setdefault(s.target, []).append(s)
    out = []
    for target, sites in by_op.items():
        first = min(sites, key=lambda s: s.line)
        syms = list(dict.fromkeys(r.symbol for s in sites for r in s.symbols if r.symbol in bad))
        sizes = [{"symbol": x, "input": bad[x][1], "dim": bad[x][2], "value": bad[x][0],
                  "min": m.symbols[x].min if x in m.symbols else None,
                  "max": m.symbols[x].max if x in m.symbols else None} for x in syms]
        op = extern_op_name(target)
        out.append({"kernel": target, "message": op, "line": first.line, "op": "extern",
                    "index_size": sizes[0]["value"], "bound": bad[syms[0]][3], "sizes": sizes,
                    "why": say.extern_size_why(op, first.line, len(sites) - 1, sizes)})
    if stopped is not None and out:
        out[-1]["why"] += say.externs_unread(stopped)
    return out


def _may_fail(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[dict]:
    """Checks whose index is a position a top-k/sort/argmax/bucketize returns (its values reach a length the
    package names) where these sizes make that length larger than the check's bound: the shapes alone let the
    index run past the table.  Whether it does depends on the values (which positions top-k picks), so "may"."""
    from .positions import _op_name, index_position, reduction_position
    from .bound_walk import bound_chain
    from .index_walk import index_origins

    ix = pkg.index(name)
    if not any(kind == "extern" and _op_name(target) for _, target, kind in ix.calls()) and not any(
            w in k for k in ix.kernel_names() for w in ("argmax", "argmin", "sort", "topk", "bucketize")):
        return []
    asserting = list(dict.fromkeys(s.kernel for s in ix.assert_sites()))
    if not asserting:
        return []
    m = ix.slice(kernels=asserting)
    g = pkg.graph_of(m)
    first = _first_launches(m)
    out = []
    for k in m.kernels.values():
        site = first.get(k.name)
        for a in k.assertions:
            if not a.index_var or a.checks != "index":
                continue
            origins = index_origins(m, g, k, a, site)
            pos = index_position(m, origins, lambda: ix.wmap.lines) or reduction_position(m, origins)
            if pos is None:
                continue
            length = dims.get((pos.input, pos.dim)) if pos.input is not None else pos.static
            bound = static_bound(a.bound_expr) if a.bound_expr else None
            table = str(bound) if bound is not None else None
            if bound is None and a.bound_expr:
                chain = bound_chain(m, g, k, a, ids.call(site.line) if site else None)
                terms = [t for t in (chain.terms if chain else []) if t.input is not None]
                vals = {t.kernel_param: dims[(t.input.index, t.input.dim)] for t in terms
                        if (t.input.index, t.input.dim) in dims}
                bound = evaluate(a.bound_expr, vals)
                table = say.table_terms(terms) or a.bound_expr
            if length is None or bound is None or length - 1 + pos.past < bound:
                continue
            top = length - 1 + pos.past
            out.append({"kernel": k.name, "message": a.message, "line": a.line, "op": pos.op,
                        "index_size": length, "bound": bound,
                        "why": say.may_fail_why(pos, length, top, table, bound)})
    return out


def loop_checks(pkg: Package, name: str) -> list[tuple]:
    """(kernel, assertion, `PositionBound`, static bound) of every check of model ``name`` whose index is one of
    its kernel's own loop positions (an arange: GPT-2's position ids; a CPU loop variable or a Triton grid index,
    ``queries.bound_walk.loop_position``), in launch order, one per kernel and message.  The loop visits every position 0 … L-1, so the check fails for
    every L past its bound, whatever the values."""
    from ..parse.message import parse_check_message
    from .bound_walk import loop_position

    ix = pkg.index(name)
    # Only a one-sided check against a number can be one: Inductor drops the lower side where it proved the index
    # never negative, as it does for a loop position (``tmp6 < 32L``, ``y0 < 128``).  Read from the scan's texts,
    # so that only those kernels are parsed (10,000 asserting kernels of `0 <= tmp4 < 120` need none).
    messages: dict[str, object] = {}
    asserting: dict[str, None] = {}  # in scan order, each once
    for site in ix.assert_sites():
        quoted = site.text.split('"')
        text = quoted[-2] if len(quoted) >= 3 else ""
        if text not in messages:
            messages[text] = parse_check_message(text) if text else None
        msg = messages[text]
        if msg is not None and msg.lower is None and msg.static_bound is not None:
            asserting[site.kernel] = None
    if not asserting:
        return []
    m = ix.slice(kernels=list(asserting))
    g = None
    first = _first_launches(m)
    out, seen = [], set()
    for k in sorted(m.kernels.values(), key=lambda k: first[k.name].line if k.name in first else 1 << 60):
        for a in k.assertions:
            bound = static_bound(a.bound_expr) if a.checks == "index" and a.bound_expr else None
            if bound is None or (k.name, a.message) in seen:
                continue
            if g is None:
                g = pkg.graph_of(m)
            pos = loop_position(m, g, k, a, first.get(k.name))
            if pos is not None:
                seen.add((k.name, a.message))
                out.append((k, a, pos, bound))
    return out


def loop_limits(pkg: Package, name: str) -> dict[tuple[int, int], int]:
    """(input, dim) -> the largest size its loop-position checks allow (the smallest bound among them)."""
    out: dict[tuple[int, int], int] = {}
    for _, _, pos, bound in loop_checks(pkg, name):
        if pos.input is not None:
            out[(pos.input, pos.dim)] = min(bound, out.get((pos.input, pos.dim), bound))
    return out


def _loop_overruns(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[dict]:
    """The `loop_checks` these sizes push to or past their bound: each fails on every run."""
    out = []
    for k, a, pos, bound in (loop_checks(pkg, name) if dims else []):
        length = dims.get((pos.input, pos.dim)) if pos.input is not None else pos.static
        if length is not None and length - 1 >= bound:
            out.append({"kernel": k.name, "message": a.message, "line": a.line,
                        "why": say.loop_overrun_why(pos, length, bound, a.index_var)})
    return out


def _first_launches(m: Model) -> dict:
    """kernel -> its first launch in run_impl (a `CallSite`)."""
    first = {}
    for c in m.calls:
        if c.kind == "kernel":
            first.setdefault(c.target, c)
    return first


def _names(expr: str) -> tuple[str, ...] | list[str]:
    """The names a bound reads: its tree's, or its words when the grammar does not read it."""
    tree = E.parse_expr(expr)
    return identifiers(expr) if E.has_opaque(tree) else E.names(tree)


def _holds_bound_args(m: Model) -> bool:
    """Whether every argument a non-constant bound reads at a kernel's first launch is a value ``m`` holds
    (a `bounds_model` holds scalars, not buffers: a bound on a buffer argument needs the slice)."""
    from ..graph.build import call_params, value_node

    first = _first_launches(m)
    for k in m.kernels.values():
        bounds = [a.bound_expr for a in k.assertions if a.bound_expr and static_bound(a.bound_expr) is None]
        site = first.get(k.name)
        if not bounds or site is None:
            continue
        args = dict(zip(call_params(m, site), site.args))
        for n in {n for b in bounds for n in _names(b)}:
            arg = args.get(n) if k.param(n) else None
            if arg is not None and arg.base and value_node(m, arg.base) is None:
                return False
    return True


def _predict(pkg: Package, m: Model, sym_values: dict[str, int], dims: dict[tuple[int, int], int]) -> list[dict]:
    """Assertions whose bound these sizes make 0 or negative, and unchecked indirect loads from an empty table.

    The asserts are read in a slice of the kernels that hold one (the scan knows which); the unchecked
    loads need every kernel, so the whole model is parsed only when a given dim is 0."""
    from ..index.closure import bounds_model
    from .suspects import model_suspects
    from .bound_walk import bound_chain

    ix = pkg.index(m.name)
    asserting = list(dict.fromkeys(s.kernel for s in ix.assert_sites()))
    if asserting:
        light = None if m.name in pkg._models or ix.parsed_whole else bounds_model(ix, asserting)
        m = light if light is not None and _holds_bound_args(light) else ix.slice(kernels=asserting)
    g = pkg.graph_of(m)
    out = []
    first = _first_launches(m)
    for k in m.kernels.values():
        site = first.get(k.name)
        for a in k.assertions:
            if not a.bound_expr or static_bound(a.bound_expr) is not None:
                continue
            chain = bound_chain(m, g, k, a, ids.call(site.line) if site else None)
            if chain is None:
                continue
            vals = {}
            for t in chain.terms:
                if t.input is not None and (t.input.index, t.input.dim) in dims:
                    vals[t.kernel_param] = dims[(t.input.index, t.input.dim)]
            v = evaluate(a.bound_expr, vals)
            if v is not None and v <= 0:
                parts = say.bound_terms([t for t in chain.terms if t.input and (t.input.index, t.input.dim) in dims],
                                        dims)
                out.append({"kernel": k.name, "message": a.message, "line": a.line,
                            "why": say.empty_bound_why(a.bound_expr, v, parts, a.index_var, k.name)})
    if not any(v == 0 for v in dims.values()):
        return out
    for s in model_suspects(pkg, m.name):
        t = s.get("table") or {}
        empty = [d for (i, d), v in dims.items() if i == t.get("index") and v == 0] if t.get("kind") == "input" else []
        if empty:
            out.append({"kernel": s["kernel"], "message": say.unchecked_load(s["access"], s["pointer"], s["address"]),
                        "line": s["line"], "why": say.empty_table_why(t["index"], t["name"], empty[0])})
    return out
