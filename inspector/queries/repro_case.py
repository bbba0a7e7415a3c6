"""A case: one run of the package, planned from its contract (every input's dtype, shape, stride and device, the
sizes of its symbols) and, for a `BoundsCheck`, the violation that makes it fail while every other check holds; and
what the run is expected to say."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from ..errors import UsageError
from ..model import Model
from ..naming import root_symbol
from ..package import Package
from .arith import evaluate
from .repro_checks import BoundsCheck


BASE_SIZE = 4  # a dynamic dim's value when a case does not set it (clamped into the symbol's range)


FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64"}


@dataclass
class Case:
    """What one run of the package is: the JSON the scripts read (``to_json``)."""

    title: str
    device: str
    model: str | None
    loader: dict
    inputs: list[dict]
    env: dict
    unset_env: list[str]
    expect: dict | None  # None: the call is expected to return
    expect_words: str
    timeout: int = 300

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)


def sizes(m: Model, fixed: dict[str, int] | None = None) -> dict[str, int]:
    """A value for every root symbol: ``fixed`` where given, else BASE_SIZE clamped into its range."""
    out = {}
    for s in m.symbols.values():
        r = root_symbol(m.symbols, s.name)
        if r is None or r.name in out:
            continue
        lo = r.min if r.min is not None else 0
        hi = r.max if r.max is not None else max(lo, BASE_SIZE)
        out[r.name] = min(max(BASE_SIZE, lo), hi)
    for k, v in (fixed or {}).items():
        out[k] = v
    return out


def _value(m: Model, want, syms: dict[str, int]) -> int | None:
    if isinstance(want, int):
        return want
    w = str(want)
    if w.lstrip("-").isdigit():
        return int(w)
    r = root_symbol(m.symbols, w)
    if r is not None:
        return syms.get(r.name)
    vals = dict(syms)
    for s in m.symbols.values():
        rr = root_symbol(m.symbols, s.name)
        if rr is not None and rr.name in syms:
            vals[s.name] = syms[rr.name]
    return evaluate(w, vals)


def _guarded_dim(inp, d: int) -> int | None:
    lo = next((int(g.value) for g in inp.guards if g.kind == "min" and g.dim == d), None)
    return min(max(BASE_SIZE, lo or 0), next((int(g.value) for g in inp.guards if g.kind == "max" and g.dim == d), 1 << 30))


def shapes(m: Model, syms: dict[str, int]) -> dict[tuple[int, int], int]:
    out = {}
    for inp in m.inputs:
        for d, want in enumerate(inp.shape):
            v = _value(m, want, syms) if str(want) != "?" else _guarded_dim(inp, d)
            if v is None:
                raise UsageError(f"input {inp.index} ({inp.name}) dim {d} is `{want}`: its size cannot be computed from "
                                 "the package; give the inputs with --input SPEC")
            out[(inp.index, d)] = v
    return out


def input_specs(m: Model, dims: dict[tuple[int, int], int], asserts: list[BoundsCheck], syms: dict[str, int]) -> list[dict]:
    """Every input as a case describes it; index inputs hold values inside every table they feed."""
    out = []
    for inp in m.inputs:
        shape = [dims[(inp.index, d)] for d in range(len(inp.shape))]
        dtype = inp.dtype or ("int64" if any(f.direct_input == inp.index for f in asserts) else "float32")
        spec = {"dtype": dtype, "shape": shape, "fill": "randn" if dtype in FLOAT_DTYPES else "zeros"}
        bounds = [b for f in asserts if f.direct_input == inp.index for b in [f.bound(dims)] if b is not None]
        if bounds and dtype not in FLOAT_DTYPES:
            spec["fill"], spec["bound"] = "range", max(1, min(bounds))
        if inp.stride:
            stride = [_value(m, s, syms) for s in inp.stride]
            contiguous = [1] * len(shape)
            for d in range(len(shape) - 2, -1, -1):
                contiguous[d] = contiguous[d + 1] * max(shape[d + 1], 1)
            if None not in stride and stride != contiguous and all(x > 1 for x in shape):
                spec["stride"] = stride
        out.append(spec)
    return out


def expect_assert(f: BoundsCheck, device: str) -> tuple[dict, str]:
    from ..explain import repro_script as say

    if f.kernel_backend == "extern":
        return ({"kind": "extern", "all_of": [], "any_of": [f.kernel, f.kernel.replace("aoti_torch_", "")]},
                say.expect_words("extern", op=f.kernel, message=f.message or "its check"))
    need = [f.message]
    if device == "cpu" and f.kernel_backend == "cpp":
        need.append(f.kernel)
    return {"kind": "assert", "all_of": need, "kernel": f.kernel}, say.expect_words("assert", message=f.message, kernel=f.kernel)


def violate(m: Model, f: BoundsCheck, device: str) -> tuple[dict, dict[str, int], dict]:
    """(violation, symbol values, per-input changes) that make ``f`` fail and keep every other check, when no
    ranked cause says which (a check whose trace gave no hypothesis): the first that applies of a value, an
    empty table, positions that reach a static bound."""
    for kind in ("bound_value", "empty_input", "position"):
        v = violate_cause(m, f, kind, None, device)
        if v is not None:
            return v
    raise UsageError(f"{f.kernel} line {f.line}: no input of the contract reaches this assertion's index or bound, so "
                     "no violation can be planned; give the inputs with --input SPEC")


# The cause kinds (inspector.queries.causes.CAUSE_KINDS) a case can be planned for, and the violation each plans.
PLANNED = {"bound_value": "value", "static_read_value": "value", "extern_index": "value", "empty_input": "empty",
           "position": "ramp", "input_dtype": "dtype"}
# The index dtype a dtype hypothesis passes instead of the compiled one (causes.INDEX_DTYPES).
OTHER_INDEX_DTYPE = {"int64": "int32", "int32": "int64"}


def violate_cause(m: Model, f: BoundsCheck, kind: str, position, device: str,
                  read_input: int | None = None) -> tuple[dict, dict[str, int], dict] | None:
    """(violation, symbol values, per-input changes) that make ``f`` fail the way cause ``kind`` says
    (`PLANNED`), every other check kept; None when the contract gives no such case.  ``position``: the match's
    `PositionBound` (a position cause); ``read_input``: the input the cause says the values are read from (a
    value or dtype cause) where the check's own walk found the index changed on its way (a wrap, a cast): the
    run tells whether the value reaches the check."""
    syms = sizes(m)
    dims = shapes(m, syms)
    read = f.direct_input if f.direct_input is not None else read_input
    if kind in ("bound_value", "static_read_value", "extern_index") and read is not None:
        b = f.bound(dims)
        if b is not None:
            return {"kind": "value", "input": read, "value": b, "bound": b}, syms, {read: {"set": [[0, b]]}}
        return None
    if kind == "input_dtype" and read is not None:
        dt = m.inputs[read].dtype
        if dt not in OTHER_INDEX_DTYPE:
            return None
        return ({"kind": "dtype", "input": read, "dtype": OTHER_INDEX_DTYPE[dt], "compiled": dt}, syms,
                {read: {"dtype": OTHER_INDEX_DTYPE[dt]}})
    if kind == "empty_input" and f.terms:
        names = []
        for _, i, d in f.terms:  # every term at 0: a sum of sizes is 0 only then, a product already with one
            sym = root_symbol(m.symbols, m.inputs[i].shape[d])
            if sym is None:
                return None
            syms[sym.name] = 0
            names.append(sym.name)
        _, i, d = f.terms[0]
        return {"kind": "empty", "input": i, "dim": d, "symbol": names[0]}, syms, {}
    if kind == "position":
        return _positions(m, f, position, syms, dims)
    return None


def _positions(m: Model, f: BoundsCheck, p, syms: dict[str, int], dims) -> tuple[dict, dict, dict] | None:
    """Positions that reach the bound: the length they run along made one longer than the bound and the input
    rising along it (top-k, sort and argmax positions are then the largest), or, for a bucketize along fixed
    boundaries, every value past the last one."""
    origin = f.computed_input if f.computed_input is not None else f.direct_input
    if p is not None and p.input is not None and p.dim is not None and p.op != "loop":
        sym = root_symbol(m.symbols, m.inputs[p.input].shape[p.dim])
        bound = f.bound(dims)
        if sym is None or bound is None:
            return None
        size = max(bound + 1, sym.min or 0)
        if sym.max is not None and sym.max < size:
            return None
        syms[sym.name] = size
        if f.bound(shapes(m, syms)) != bound:  # the length moves the bound too: no case of this kind
            return None
        return ({"kind": "ramp", "input": p.input, "dim": p.dim, "size": size, "bound": bound}, syms,
                {p.input: {"fill": "ramp", "dim": p.dim}})
    if p is not None and p.static is not None and p.past and origin is not None and f.terms:
        top = p.static + p.past - 1  # the largest position: one past the last boundary
        for _, i, d in f.terms:  # the table at most as long as that position (its guard minimum allows it)
            sym = root_symbol(m.symbols, m.inputs[i].shape[d])
            if sym is None or (sym.min or 0) > top:
                return None
            syms[sym.name] = min(syms[sym.name], top)
        bound = f.bound(shapes(m, syms))
        if bound is None or bound > top:
            return None
        return {"kind": "past", "input": origin, "bound": bound, "position": top}, syms, {origin: {"fill": "max"}}
    if f.static_bound is not None and origin is not None and m.inputs[origin].shape:
        last = m.inputs[origin].shape[-1]
        sym = root_symbol(m.symbols, last)
        size = f.static_bound + 1
        if sym is not None and (sym.max is None or sym.max >= size):
            syms[sym.name] = max(size, sym.min or 0)
            return {"kind": "ramp", "input": origin, "size": syms[sym.name], "bound": f.static_bound}, syms, {
                origin: {"fill": "ramp"}}
    return None


def make_case(pkg: Package, m: Model, f: BoundsCheck | None, device: str, loader: dict, *, syms=None, changes=None,
              violation=None, expect=None, words="", title="", asserts=None, env=None, unset=None) -> Case:
    dims = shapes(m, syms)
    specs = input_specs(m, dims, asserts or ([f] if f else []), syms)
    for i, ch in (changes or {}).items():
        specs[i].update(ch)
    env = dict(env or {})
    if device == "cpu":
        env.setdefault("OMP_NUM_THREADS", "1")
    else:
        env.setdefault("CUDA_LAUNCH_BLOCKING", "1")
    return Case(title=title, device=device, model=m.name if len(pkg.model_names) > 1 else None, loader=loader,
                inputs=specs, env=env, unset_env=list(unset or []), expect=expect, expect_words=words)
