"""check: do these inputs fit the package?  Device, dtype, rank, static sizes, symbol ranges, strides and
shared symbols, each against the package's own evidence; then which assertions cannot hold with these
sizes and which unchecked indirect loads read a table they make empty."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..errors import UsageError
from ..explain import check as say
from ..explain import headline
from ..model import Model
from ..naming import root_symbol
from ..package import Package
from ..parse.specs import (  # noqa: F401 - the user-typed specs' one home, re-exported for callers of check
    InputSpec, device_index, device_type, is_int, parse_device, parse_inputs_json, parse_spec)
from .arith import evaluate
from .loop_checks import _loop_overruns
from .size_failures import _may_fail, _predict, _unvouched_externs, _zero_divisors


@dataclass
class CheckResult:
    package: str
    model: str
    ok: bool
    verdict: str  # in full
    violations: list[dict] = field(default_factory=list)
    predicted_assertions: list[dict] = field(default_factory=list)
    # checks these sizes let fail: an index bounded by one size (a top-k/sort/argmax position) reads a table
    # sized by another that may be smaller; each names both sizes
    may_fail: list[dict] = field(default_factory=list)
    certainty: str = "certain"  # of the verdict: "certain" | "likely" | "possible"
    checked: list[dict] = field(default_factory=list)  # what each given input was matched to
    notes: list[str] = field(default_factory=list)
    # the ops the package calls whose arguments' values must meet a contract nothing checks (roi_align's batch
    # index): `inspector.queries.op_calls`; in the JSON only when there is one
    value_contracts: list[dict] = field(default_factory=list)
    headline: str = ""  # the first line: the verdict in plain words, ≤ 120 with its mark (explain.headline)

    def to_dict(self) -> dict:
        d = asdict(self)
        if not d["value_contracts"]:
            del d["value_contracts"]
        return d


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


def _contracts_of_sizes(pkg: Package, m: Model, res: CheckResult, dims: dict[tuple[int, int], int],
                        values: dict[str, tuple[int, int, int]], ep) -> None:
    """What the runtime checks do not compare: a dim the package computes from sizes (``16L*s45``: a multiple of 16)
    that the given size is not, and a range-only dim the kernels read by other inputs' sizes (a shared `Dim`)."""
    from math import prod

    from .shared_dims import derived_mismatches, read_as, reads_past

    def label(i):
        return say.label(i, m.inputs[i].name, ep.user_name(i) if ep else None)

    for x in derived_mismatches(m, dims):
        res.violations.append({"input": x.input, "kind": "divisible", "detail": say.detail(label(x.input), say.derived_dim(
            x.dim, x.given, x.expr, x.value, x.multiple_of, x.shape, m.inputs[x.input].size_stride_line))})
    partial = {i for (i, _) in dims if m.inputs[i].shape and any(str(s) == "?" for s in m.inputs[i].shape)}
    if not partial:
        return
    said = {v["input"] for v in res.violations if v["kind"] == "equal"}  # the exported program said it already
    shared: set[int] = set()  # one input's dims may each be read as another's (a mask's batch and sequence)
    for r in read_as(pkg, m.name):
        if (r.input not in partial or r.input in said or (r.input, r.dim) not in dims
                or any(s not in values for s in r.symbols)):
            continue
        v, got = prod(values[s][0] for s in r.symbols), dims[(r.input, r.dim)]
        if v != got:
            res.violations.append({"input": r.input, "kind": "shared", "detail": say.detail(label(r.input), say.read_as_other(
                r.dim, got, r.symbols, r.owners, v, r.kernel, r.line)),
                "must_equal": [{"input": i, "dim": d} for i, d in r.owners], "symbols": list(r.symbols), "size": v,
                "fix": say.pass_equal(r.input, r.dim, r.owners, r.symbols, v)})
            shared.add(r.input)
    said |= shared
    shapes = {i: [dims[(i, d)] for d in range(len(m.inputs[i].shape))] for i in partial
              if all((i, d) in dims for d in range(len(m.inputs[i].shape)))}
    for r in reads_past(pkg, m.name, dims):
        if r.input in said or r.input not in shapes or r.last < prod(shapes[r.input]):
            continue
        said.add(r.input)
        res.violations.append({"input": r.input, "kind": "shared", "detail": say.detail(label(r.input), say.reads_past_end(
            prod(shapes[r.input]), r.last, r.kernel, r.line, r.address))})


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

        def bad(kind, detail, summary):
            res.violations.append({"input": idx, "kind": kind, "detail": say.detail(label, detail),
                                   "summary": f"{headline.short_label(idx, ep.user_name(idx) if ep else None)} {summary}"})

        want_dev = device_type(inp.device or pkg_dev)
        if spec.device and want_dev and device_type(spec.device) != want_dev:
            bad("device", say.wrong_device(spec.device, want_dev, m.device, _cite(inp, 'device')),
                headline.on_device(spec.device, want_dev))
        if spec.dtype and inp.dtype and spec.dtype != inp.dtype:
            use = None
            if inp.dtype == "bool" and spec.dtype.startswith(("float", "bfloat")):  # a float mask: how the kernels read it
                from .mask_reading import mask_reading

                use = mask_reading(pkg, m.name, idx)
            bad("dtype", say.wrong_dtype(spec.dtype, inp.dtype, _cite(inp, 'dtype'), use),
                headline.dtype(spec.dtype, inp.dtype))
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
                bad("rank", say.wrong_rank(spec.shape, list(inp.shape)), headline.rank(len(spec.shape), len(inp.shape)))
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
                            bad("range", say.out_of_guards(d, got, idx, lo, hi, glines), headline.out_of(d, got, lo, hi))
                        continue
                    if is_int(want):
                        if got != int(want):
                            bad("size", say.not_static(d, got, want, _cite(inp, 'eq', d)), headline.not_size(d, got, want))
                        continue
                    sym = _root(m, want)
                    if sym is None:
                        v = evaluate(str(want), {k: x[0] for k, x in values.items()})
                        if v is not None and v != got:
                            bad("size", say.not_formula(d, got, want, v), headline.not_size(d, got, v))
                        continue
                    lo, hi = sym.min, sym.max
                    if (lo is not None and got < lo) or (hi is not None and got > hi):
                        owner = m.inputs[sym.input] if sym.input is not None and sym.input < len(m.inputs) else inp
                        glines = [g.line for g in owner.guards if g.kind in ("min", "max") and g.dim == sym.dim]
                        bad("range", say.out_of_range(d, got, sym.name, lo, hi, sym.input, glines), headline.out_of(d, got, lo, hi))
                    if sym.name in values and values[sym.name][0] != got:
                        v, oi, od = values[sym.name]
                        bad("equal", say.unequal(d, got, oi, od, v, sym.name) + say.unequal_caught(inp.size_stride_line),
                            headline.unequal(d, got, oi, od, v))
                        res.violations[-1].update({"must_equal": [{"input": oi, "dim": od}], "symbols": [sym.name],
                                                   "size": v, "fix": say.pass_equal(idx, d, [(oi, od)], [sym.name], v)})
                    values.setdefault(sym.name, (got, idx, d))
        if spec.stride is not None and inp.stride:
            if len(spec.stride) == len(inp.stride):
                for d, (got, want) in enumerate(zip(spec.stride, inp.stride)):
                    w = int(want) if is_int(want) else evaluate(
                        str(want), {k: x[0] for k, x in values.items()})
                    if w is not None and got != w and not (spec.shape and spec.shape[d] <= 1):
                        bad("stride", say.wrong_stride(d, got, want, w), headline.stride(d, got, w))
    _contracts_of_sizes(pkg, m, res, dims, values, ep)
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
    from .op_calls import op_calls

    calls = op_calls(pkg, m.name, ep)
    res.value_contracts = [dict(c.to_dict(), unchecked=[u.to_dict() for u in c.unchecked]) for c in calls if c.unchecked]
    for c in calls:
        for u in c.unchecked:
            args = "; ".join(say.arg_words(a.name, a.inputs, a.direct, a.value) for a in c.args
                             if a.name in (u.arg, u.against) or (a.inputs and a.name == u.arg))
            res.notes.append(say.op_contract_note(c.op, c.line, u.condition, args, u.effect))
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
        res.headline = headline.may_fail(x["kernel"], None, len(res.may_fail) - 1)
    elif res.may_fail and not res.violations:
        x = res.may_fail[0]
        res.verdict = say.may_fail_verdict(x["kernel"], x["message"], x["why"], len(res.may_fail) - 1)
        res.headline = headline.may_fail(x["kernel"], x["message"], len(res.may_fail) - 1)
    elif res.ok and (unchecked or unshaped):
        res.verdict = say.unchecked_verdict(m.name, unchecked, unshaped)
        res.headline = headline.CHECK_UNCHECKED
    elif res.ok and res.value_contracts:
        res.verdict = say.contracts_verdict(len(given), m.name, [c["op"] for c in res.value_contracts])
        res.certainty = "likely"
    elif res.ok:
        res.verdict = say.fit_verdict(len(given), m.name)
    else:
        first = (res.violations[0]["detail"] if res.violations else
                 say.would_fail(res.predicted_assertions[0]["kernel"], res.predicted_assertions[0]["message"]))
        res.verdict = say.violations_verdict(len(res.violations), len(res.predicted_assertions), first)
        res.headline = headline.check_violations(
            len(res.violations), len(res.predicted_assertions),
            res.violations[0].get("summary") or headline.violation_kind(res.violations[0]["kind"], res.violations[0]["input"])
            if res.violations else f"{res.predicted_assertions[0]['kernel']} would fail")
    res.headline = res.headline or headline.check_other(res.verdict)
    return res
