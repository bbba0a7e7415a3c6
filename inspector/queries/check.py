"""check: do these inputs fit the package?  Device, dtype, rank, static sizes, symbol ranges, strides and
shared symbols, each against the package's own evidence; then which assertions cannot hold with these
sizes and which unchecked indirect loads read a table they make empty."""

from __future__ import annotations

import ast
import json
import operator
import re
from dataclasses import asdict, dataclass, field

import inspector.graph.ids as ids
from ..errors import UsageError
from ..model import Model
from ..naming import dtype_name, root_symbol
from ..package import Package
from ..parse.message import static_bound

_SPEC = re.compile(r"^\s*(?P<who>[^=\s]+)\s*=\s*(?P<dtype>[A-Za-z][\w.]*)?\s*(?:\[(?P<shape>[^\]]*)\])?"
                   r"\s*(?:stride\s*\[(?P<stride>[^\]]*)\])?\s*(?:@\s*(?P<device>[\w:]+))?\s*$")


@dataclass
class InputSpec:
    who: str  # position, wrapper name or user name, as given
    dtype: str | None = None
    shape: list[int] | None = None
    stride: list[int] | None = None
    device: str | None = None


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


# The devices a tensor of a package can be on (torch.device's types an AOTI package is built for); anything else
# (`@tpu`, `@gpu`) is a typo, refused as a usage error rather than checked as a device mismatch.


def _ints(text: str | None, what: str, spec: str) -> list[int] | None:
    if text is None:
        return None
    try:
        vals = [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise UsageError(f"--input {spec!r}: {what} must be integers, e.g. [0,32]") from None
    _non_negative(vals, what, f"--input {spec!r}")
    return vals


def _non_negative(vals, what: str, where: str) -> None:
    neg = [v for v in vals if v < 0]
    if neg:
        raise UsageError(f"{where}: {what} cannot be negative ({neg[0]}): a tensor's {what} are 0 or more")


_DEVICE = re.compile(r"^(?P<type>cpu|cuda|xpu|mps|meta)(?::(?P<index>\d+))?$")


def parse_device(text: str | None, where: str) -> str | None:
    """``cuda`` / ``cuda:1`` / ``cpu``, checked; a device index only on a GPU type."""
    if text is None:
        return None
    m = _DEVICE.match(text.strip())
    if not m or (m.group("index") is not None and m.group("type") in ("cpu", "meta")):
        raise UsageError(f"{where}: unknown device {text!r}; one of cpu, cuda, cuda:N (N a device index, e.g. cuda:1), "
                         "xpu, xpu:N, mps, meta")
    return text.strip()


def device_index(dev: str | None) -> int | None:
    """The GPU index a device names: ``cuda:1`` -> 1, ``cuda`` -> 0 (the current device, 0 unless set), cpu -> None."""
    if not dev or not dev.startswith(("cuda", "xpu")):
        return None
    return int(dev.split(":", 1)[1]) if ":" in dev else 0


def parse_spec(text: str) -> InputSpec:
    """``POSITION_OR_NAME=DTYPE[d0,d1,…]stride[s0,…]@DEVICE``; every part after ``=`` is optional."""
    m = _SPEC.match(text)
    if not m:
        raise UsageError(f"--input {text!r}: expected POSITION_OR_NAME=DTYPE[d0,d1,...]@DEVICE, e.g. 1=float32[0,32]@cuda")
    dtype = m.group("dtype")
    dtype = dtype_name(dtype)
    _known(dtype, f"--input {text!r}")
    return InputSpec(who=m.group("who"), dtype=dtype, shape=_ints(m.group("shape"), "sizes", text),
                     stride=_ints(m.group("stride"), "strides", text),
                     device=parse_device(m.group("device"), f"--input {text!r}"))


def _known(dtype: str | None, where: str) -> None:
    from ..naming import TORCH_DTYPES, known_dtype

    if not known_dtype(dtype):
        raise UsageError(f"{where}: unknown dtype {dtype!r}; one of {', '.join(TORCH_DTYPES)} (torch.int64, long, half… "
                         "are accepted too)")


def parse_inputs_json(text: str) -> list[InputSpec]:
    """``[{"input": 1 | "name", "dtype": "float32", "shape": [0, 32], "stride": [...], "device": "cuda"}, …]``
    or ``{"name": {...}, …}``."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"--inputs-json: not JSON ({e.msg} at line {e.lineno})") from None
    items = [dict(v, input=k) for k, v in doc.items()] if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise UsageError("--inputs-json: expected a list of {input, dtype, shape, stride, device} objects")
    out = []
    for i, x in enumerate(items):
        if not isinstance(x, dict):
            raise UsageError(f"--inputs-json: item {i} is not an object")
        _known(dtype_name(x.get("dtype")), f"--inputs-json: item {i}")
        who = str(x.get("input", x.get("name", i)))
        if who in [o.who for o in out]:
            raise UsageError(f"--inputs-json: input {who} is given twice (items {[o.who for o in out].index(who)} and {i})")
        try:
            out.append(InputSpec(who=who,
                                 dtype=dtype_name(x.get("dtype")),
                                 shape=[int(v) for v in x["shape"]] if x.get("shape") is not None else None,
                                 stride=[int(v) for v in x["stride"]] if x.get("stride") is not None else None,
                                 device=parse_device(x.get("device"), f"--inputs-json: item {i}")))
        except (TypeError, ValueError):
            raise UsageError(f"--inputs-json: item {i}: shape and stride must be lists of integers") from None
        _non_negative(out[-1].shape or [], "sizes", f"--inputs-json: item {i}")
        _non_negative(out[-1].stride or [], "strides", f"--inputs-json: item {i}")
    return out


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod}


def evaluate(expr: str, values: dict[str, int]) -> int | None:
    """An integer size expression (``ks0 + ks1``, ``(-1) + ks0``, ``ks1*ks2``, ``64L``) with ``values``; None
    when a name is unknown or the expression is not plain arithmetic."""
    text = re.sub(r"(\d+)L\b", r"\1", expr or "").strip()
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in values:
                raise KeyError(n.id)
            return values[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](ev(n.left), ev(n.right))
        raise ValueError(ast.dump(n))

    try:
        return ev(tree)
    except (KeyError, ValueError, ZeroDivisionError):
        return None


def _root(m: Model, name):
    return root_symbol(m.symbols, name)


def _cite(inp, kind: str, dim: int | None = None) -> str:
    """``; wrapper.cpp line 742`` for the guard of check_input_K that says so (the package's own evidence)."""
    lines = [g.line for g in inp.guards if g.kind == kind and (dim is None or g.dim == dim)]
    return f"; wrapper.cpp line {', '.join(map(str, lines))}" if lines else ""


def _resolve(m: Model, spec: InputSpec, ep) -> int:
    who = spec.who
    if re.fullmatch(r"\d+", who):
        idx = int(who)
        if idx >= len(m.inputs):
            raise UsageError(f"--input {who}: model {m.name!r} has {len(m.inputs)} inputs (0..{len(m.inputs) - 1})")
        return idx
    inp = m.input_by_name(who)
    if inp is not None:
        return inp.index
    if ep is not None:
        for e in ep.user_inputs:
            if e.name == who and e.position < len(m.inputs):
                return e.position
    names = [i.name for i in m.inputs] + ([e.name for e in ep.user_inputs] if ep else [])
    raise UsageError(f"--input {who}: no such input; use a position (0..{len(m.inputs) - 1}) or one of: {', '.join(names)}"
                     + ("" if ep else " (user names need an exported program: --ep FILE)"))


def check(pkg: Package, specs: list[InputSpec], model: str | None = None, ep=None, device: str | None = None
          ) -> CheckResult:
    """``device``: where the package is loaded (``cuda:1`` = ``aoti_load_package(path, device_index=1)``);
    inputs on another GPU are said as such."""
    from ..parse.exported_program import disagreements, packaged_ep

    ix = pkg.index(model)
    m = ix.eager()  # the contract: inputs, guards, symbols (no kernel parsed)
    if ep is None:
        ep = packaged_ep(pkg, m.name)
    notes = []
    if ep is not None:
        dis = disagreements(ep, m, ix.constants())
        notes += dis
        if any("user inputs" in d for d in dis):
            ep = None
    if not specs:
        raise UsageError("give the inputs to check: --input POSITION=DTYPE[d0,...]@DEVICE (repeat) or --inputs-json FILE")
    res = CheckResult(package=str(pkg.path), model=m.name, ok=True, verdict="")
    values: dict[str, tuple[int, int, int]] = {}  # root symbol -> (value, input, dim) of its first use
    dims: dict[tuple[int, int], int] = {}
    pkg_dev = (m.device or "").split(":")[0]
    given = set()
    unchecked: list[str] = []  # what the package does not record, so could not be checked: never "fits"
    unshaped: list[int] = []  # inputs given without a shape (`0=float32`): their sizes were not checked
    on_device: dict[int, str] = {}
    for spec in specs:
        idx = _resolve(m, spec, ep)
        if idx in given:
            raise UsageError(f"--input {spec.who}: input {idx} is given twice")
        given.add(idx)
        if spec.device:
            on_device[idx] = spec.device
        inp = m.inputs[idx]
        label = f"input {idx} ({inp.name}" + (f", `{ep.user_name(idx)}`" if ep and ep.user_name(idx) else "") + ")"
        res.checked.append({"input": idx, "name": inp.name, "user_name": ep.user_name(idx) if ep else None,
                            "spec": asdict(spec)})

        def bad(kind, detail):
            res.violations.append({"input": idx, "kind": kind, "detail": f"{label}: {detail}"})

        want_dev = (inp.device or pkg_dev or "").split(":")[0]
        if spec.device and want_dev and spec.device.split(":")[0] != want_dev:
            bad("device", f"is on {spec.device}; the package was compiled for {want_dev} (AOTI_DEVICE_KEY "
                          f"{m.device!r}{_cite(inp, 'device')}): move it with .to('{want_dev}')")
        if spec.dtype and inp.dtype and spec.dtype != inp.dtype:
            bad("dtype", f"is {spec.dtype}; the package expects {inp.dtype}{_cite(inp, 'dtype')}")
        # A package with no input guards (torch 2.6) records only the dims run_impl reads (`s0 = arg0_1_size[0]`):
        # its rank is unknown, so only those dims are checked, never the rank.
        rank_known = bool(inp.guards) or inp.dtype is not None
        if spec.shape is None and inp.shape:  # `0=float32`: nothing said about its sizes, so nothing checked
            unshaped.append(idx)
        if spec.shape is not None and inp.shape and not rank_known:
            res.notes.append(f"input {idx}: the package records no rank or dtype for it (no input guards: torch 2.6); "
                             f"only dims 0..{len(inp.shape) - 1} are checked")
            unchecked.append(f"input {idx}'s rank and dtype")
        if spec.shape is not None and inp.shape:
            if len(spec.shape) != len(inp.shape) and (rank_known or len(spec.shape) < len(inp.shape)):
                bad("rank", f"has {len(spec.shape)} dims {spec.shape}; the package expects {len(inp.shape)} "
                            f"{list(inp.shape)}")
            else:
                for d, (got, want) in enumerate(zip(spec.shape, inp.shape)):  # zip: the dims both sides know
                    dims[(idx, d)] = got
                    if str(want) == "?" and ep is not None and d < len(ep.user_inputs[idx].shape):
                        want = ep.user_inputs[idx].shape[d]  # the wrapper does not say; the exported program does
                        if str(want) not in m.symbols and not re.fullmatch(r"-?\d+", str(want)):
                            continue
                        res.notes.append(f"input {idx} dim {d}: size {want} taken from the exported program")
                    if str(want) == "?":  # no symbol names this dim: the input's own guards still bound it
                        lo = next((int(g.value) for g in inp.guards if g.kind == "min" and g.dim == d), None)
                        hi = next((int(g.value) for g in inp.guards if g.kind == "max" and g.dim == d), None)
                        if lo is None and hi is None:
                            res.notes.append(f"input {idx} dim {d}: no symbol and no guard names it: not checked")
                            unchecked.append(f"input {idx} dim {d}")
                        elif (lo is not None and got < lo) or (hi is not None and got > hi):
                            glines = [g.line for g in inp.guards if g.kind in ("min", "max") and g.dim == d]
                            empty = " (an empty input)" if got == 0 else ""
                            bad("range", f"dim {d} is {got}{empty}; the guards of check_input_{idx} allow {lo}..{hi} "
                                         f"(wrapper.cpp lines {', '.join(map(str, glines))}, which run only with "
                                         "AOTI_RUNTIME_CHECK_INPUTS=1)")
                        continue
                    if isinstance(want, int) or re.fullmatch(r"-?\d+", str(want)):
                        if got != int(want):
                            bad("size", f"dim {d} is {got}; the package was compiled for a static {want}{_cite(inp, 'eq', d)}")
                        continue
                    sym = _root(m, want)
                    if sym is None:
                        v = evaluate(str(want), {k: x[0] for k, x in values.items()})
                        if v is not None and v != got:
                            bad("size", f"dim {d} is {got}; the package expects {want} = {v}")
                        continue
                    lo, hi = sym.min, sym.max
                    if (lo is not None and got < lo) or (hi is not None and got > hi):
                        empty = " (an empty input)" if got == 0 else (
                            " (export specializes sizes 0 and 1: even a Dim with min=1 compiles to >= 2)"
                            if got == 1 and lo == 2 else "")
                        owner = m.inputs[sym.input] if sym.input is not None and sym.input < len(m.inputs) else inp
                        glines = [g.line for g in owner.guards if g.kind in ("min", "max") and g.dim == sym.dim]
                        cites = f", wrapper.cpp lines {', '.join(map(str, glines))}" if glines else ""
                        bad("range", f"dim {d} is {got}{empty}; symbol {sym.name} allows {lo}..{hi} (the guards of "
                                     f"check_input_{sym.input}{cites}, which run only with AOTI_RUNTIME_CHECK_INPUTS=1)")
                    if sym.name in values and values[sym.name][0] != got:
                        v, oi, od = values[sym.name]
                        bad("equal", f"dim {d} is {got} but input {oi} dim {od} is {v}: both are symbol {sym.name}, so "
                                     "they must be equal")
                    values.setdefault(sym.name, (got, idx, d))
        if spec.stride is not None and inp.stride:
            if len(spec.stride) == len(inp.stride):
                for d, (got, want) in enumerate(zip(spec.stride, inp.stride)):
                    w = int(want) if re.fullmatch(r"-?\d+", str(want)) else evaluate(
                        str(want), {k: x[0] for k, x in values.items()})
                    if w is not None and got != w and not (spec.shape and spec.shape[d] <= 1):
                        bad("stride", f"stride {d} is {got}; the package expects {want}"
                                      + (f" = {w}" if str(w) != str(want) else "") + ": pass x.contiguous()")
    devs: dict[str, list[int]] = {}
    for i, dev in on_device.items():
        if dev.startswith("cuda"):
            devs.setdefault(f"cuda:{device_index(dev)}", []).append(i)
    loaded = device_index(device) if device and device.startswith("cuda") else None
    if device and pkg_dev and device.split(":")[0] != pkg_dev:
        res.violations.append({"input": None, "kind": "device", "detail": (
            f"the package is loaded on {device}, but it was compiled for {pkg_dev} (AOTI_DEVICE_KEY {m.device!r}): "
            "changing the device type is not supported; load it on a " + pkg_dev + " device")})
    elif loaded is not None:
        for d, idxs in devs.items():
            if device_index(d) != loaded:
                alt = (f", or load the package with device_index={device_index(d)}" if len(devs) == 1 else
                       "; the other inputs are on " + ", ".join(x for x in devs if x != d))
                for i in idxs:
                    res.violations.append({"input": i, "kind": "device", "detail": (
                        f"input {i} ({m.inputs[i].name}): is on {d}, but the package is loaded on cuda:{loaded} "
                        f"(aoti_load_package(path, device_index={loaded})): move the input with .to('cuda:{loaded}')"
                        + alt)})
    elif len(devs) > 1:
        first, *others = devs
        for d in others:
            for i in devs[d]:
                res.violations.append({"input": i, "kind": "device", "detail": (
                    f"input {i} ({m.inputs[i].name}): is on {d} while input {devs[first][0]} is on {first}: one run "
                    "of the model uses one device; move every input to the same GPU")})
    if loaded is None and len(devs) == 1 and next(iter(devs)) != "cuda:0":
        d = next(iter(devs))
        res.notes.append(f"every given input is on {d}: load the package there, aoti_load_package(path, "
                         f"device_index={device_index(d)}) (a runner on another GPU rejects them)")
    missing = [i for i in range(len(m.inputs)) if i not in given]
    if missing:
        res.notes.append(f"not given, so not checked: inputs {', '.join(map(str, missing))}")
    res.notes += notes
    res.predicted_assertions = _predict(pkg, m, {k: x[0] for k, x in values.items()}, dims)
    res.may_fail = _may_fail(pkg, m.name, dims) if not res.predicted_assertions else []
    res.ok = not res.violations and not res.predicted_assertions and not res.may_fail
    if unshaped:
        res.notes.append(f"no shape given for input(s) {', '.join(map(str, unshaped))}: their sizes were not checked")
    if (res.ok and (unchecked or unshaped)) or (res.may_fail and not res.violations):
        res.certainty = "possible"
    elif res.ok and any(True for _ in pkg.index(m.name).assert_sites()):
        res.certainty = "likely"  # the sizes fit; the index values, which `check` is not given, may still fail a check
        res.notes.append("the sizes fit; the values of index inputs are not checked (the package's index checks "
                         "still test them at run time)")
    else:
        res.certainty = "certain"
    if res.may_fail and not res.violations:
        x = res.may_fail[0]
        res.verdict = (f"may fail: {x['kernel']} `{x['message']}`: {x['why']}"
                       + (f" (and {len(res.may_fail) - 1} more)" if len(res.may_fail) > 1 else ""))
    elif res.ok and (unchecked or unshaped):
        parts = ([f"not checked (the package does not say): {', '.join(unchecked)}"] if unchecked else []) + (
            [f"the shape of input(s) {', '.join(map(str, unshaped))} was not checked (none given)"] if unshaped else [])
        res.verdict = f"no violation in what model {m.name!r} records; " + "; ".join(parts)
    elif res.ok:
        res.verdict = f"the {len(given)} given input(s) fit model {m.name!r}"
    else:
        first = (res.violations[0]["detail"] if res.violations else
                 f"{res.predicted_assertions[0]['kernel']} would fail `{res.predicted_assertions[0]['message']}`")
        res.verdict = (f"{len(res.violations)} violation(s), {len(res.predicted_assertions)} predicted failure(s): "
                       f"{first}")
    return res


def _may_fail(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[dict]:
    """Checks whose index is a position a top-k/sort/argmax/bucketize returns (its values reach a length the
    package names) where these sizes make that length larger than the check's bound: the shapes alone let the
    index run past the table.  Whether it does depends on the values (which positions top-k picks), so "may"."""
    from .positions import _op_name, index_position, reduction_position
    from .walk import bound_chain, index_origins

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
                table = " * ".join(f"input {t.input.index} dim {t.input.dim}" for t in terms) or a.bound_expr
            if length is None or bound is None or length - 1 + pos.past < bound:
                continue
            top = length - 1 + pos.past
            out.append({"kernel": k.name, "message": a.message, "line": a.line, "op": pos.op,
                        "index_size": length, "bound": bound,
                        "why": (f"its index is a position {pos.name} returns along {pos.length} ({pos.where})"
                                + (f", which is {length} here" if pos.input is not None else "")
                                + f", so it can reach {top}; the bound is "
                                + (f"{table} = {bound}" if table != str(bound) else table)
                                + f": any position ≥ {bound} "
                                f"fails the check (sizes {length} vs {bound})")})
    return out


def _first_launches(m: Model) -> dict:
    """kernel -> its first launch in run_impl (a `CallSite`)."""
    first = {}
    for c in m.calls:
        if c.kind == "kernel":
            first.setdefault(c.target, c)
    return first


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
        for n in {n for b in bounds for n in re.findall(r"[A-Za-z_]\w*", b)}:
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
    from .walk import bound_chain

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
                parts = ", ".join(f"{t.kernel_param} = input {t.input.index} dim {t.input.dim} = "
                                  f"{dims[(t.input.index, t.input.dim)]}" for t in chain.terms if t.input and
                                  (t.input.index, t.input.dim) in dims)
                out.append({"kernel": k.name, "message": a.message, "line": a.line,
                            "why": f"the bound `{a.bound_expr}` is {v} with these sizes ({parts}): every index "
                                   f"fails `0 <= {a.index_var} < {v}` once {k.name} runs a non-empty grid"})
    if not any(v == 0 for v in dims.values()):
        return out
    for s in model_suspects(pkg, m.name):
        t = s.get("table") or {}
        empty = [d for (i, d), v in dims.items() if i == t.get("index") and v == 0] if t.get("kind") == "input" else []
        if empty:
            out.append({"kernel": s["kernel"], "message": f"unchecked {s['access']} {s['pointer']}[{s['address']}]",
                        "line": s["line"], "why": f"it reads input {t['index']} ({t['name']}), empty with these sizes "
                                                  f"(dim {empty[0]} is 0), "
                                                  "through a data-dependent index with no bounds check: an "
                                                  "out-of-bounds access (illegal memory access on CUDA)"})
    return out
