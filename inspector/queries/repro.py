"""repro: one standalone script that reproduces a failure with the smallest inputs the package's contract allows.

From the contract (inputs, guards, symbols: the eager index) and the traces of the package's assertions
(`trace_assert`, which knows each bound and where each index comes from), a `Case` is planned: every
input's dtype, shape, stride and device, each index input filled with values inside its table, and one
violation (an index equal to its bound, the empty dim of a table, or positions that reach a static bound).
`inspector.explain.repro_script` turns a case into the script; nothing here imports torch.  `sweep`
(inspector.queries.sweep) plans many cases with the same helpers.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field

from ..errors import UsageError
from ..host import torch_python  # noqa: F401 - the host's torch, a host probe (sweep and the CLI import it here)
from ..model import Model
from ..naming import root_symbol
from ..package import Package
from ..parse import expr_tree as E
from ..parse.specs import InputSpec, device_type
from .arith import evaluate
from .check import check
from .wraps import wrap_in

BASE_SIZE = 4  # a dynamic dim's value when a case does not set it (clamped into the symbol's range)
FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64"}
ARITH_OPS = ("+", "-", "*", "/", "//", "%", "**")  # the operators that change an index on its way from the load


@dataclass
class BoundsCheck:
    """One assertion of the package, as its trace explains it: what a case needs to fill or violate it."""

    model: str
    kernel: str
    kernel_backend: str  # TraceMatch.kernel_kind: "triton" | "cpp" | "extern"
    line: int
    message: str
    bound_expr: str | None
    static_bound: int | None
    terms: list[tuple[str, int, int]]  # (kernel param, input, dim) of a bound made of input dims
    direct_input: int | None  # the input the index values are read from, unchanged (None: computed, or unknown)
    computed_input: int | None  # the input a computed index (top-k, argmax, cumsum…) is made from
    wraps_negative: bool | None  # the kernel adds the bound to negative values first (Python indexing)

    def bound(self, dims: dict[tuple[int, int], int]) -> int | None:
        if self.static_bound is not None:
            return self.static_bound
        if not self.bound_expr or not self.terms:
            return None
        return evaluate(self.bound_expr, {p: dims[(i, d)] for p, i, d in self.terms if (i, d) in dims})


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


@dataclass
class ReproResult:
    package: str
    model: str
    device: str
    verdict: str
    violation: dict
    expect: dict | None
    loader: str
    script: str = field(repr=False, default="")
    notes: list[str] = field(default_factory=list)
    case: dict = field(default_factory=dict)
    run: dict | None = None  # with --run: rc, reproduced, output tail

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("script")
        return d


# ---------------------------------------------------------------------------------------------------
# The contract and the bounds checks
# ---------------------------------------------------------------------------------------------------


def model_name(pkg: Package, model: str | None) -> str:
    if model is not None:
        pkg.files(model)  # raises a UsageError naming the models when it is not there
        return model
    return pkg.index(None).eager().name


def _tmps(defs, t) -> list[str]:
    return [n for n in t.expr.names if n in defs and n.startswith("tmp")]


def _func(n) -> str:
    """The name a call calls (``tl.full``, ``at::vec::Vectorized<int64_t>::loadu``); "" for any other node."""
    return (E.dotted(n.func) or "") if isinstance(n, E.Call) else ""


def _loads(tree) -> bool:
    """A load: ``in_ptr0[x0]``, ``tl.load(in_ptr0 + x0, xmask)``, ``Vectorized<int64_t>::loadu(in_ptr0 + x0, 16)``
    (a constant such as ``tl.full([1], 4, tl.int64)`` is none)."""
    return any(isinstance(n, E.Index) or "load" in _func(n) for n in E.walk(tree))


def _computes(tree) -> bool:
    """Arithmetic on the way (a binary or unary arithmetic operator; a string's "-inf" is none)."""
    return any((isinstance(n, E.BinOp) and n.op in ARITH_OPS) or (isinstance(n, E.UnaryOp) and n.op in ("+", "-"))
               for n in E.walk(tree))


def _unwrap(defs, t) -> tuple[bool, str | None]:
    """(whether ``t`` is the wrap of negatives ``c ? x + N : x`` / ``tl.where(c, x + N, x)`` / ``blendv(x, x + N, c)``
    with a cast mask, in every form `inspector.queries.wraps` reads, the unwrapped ``x``)."""
    raw = wrap_in(defs, t.expr.tree)
    if raw is None:
        return False, None
    return True, raw.id if isinstance(raw, E.Name) else next((n for n in E.names(raw) if n in defs), None)


def _defs(k, a) -> dict:
    """The tmp definitions the assertion ``a`` sees: in its scope (or an enclosing one), the last before it."""
    out = {}
    for t in sorted(k.tmps, key=lambda t: t.line):
        if a is not None and (t.line > a.line or tuple(a.scope[:len(t.scope)]) != tuple(t.scope)):
            continue
        out[t.name] = t
    return out


def _wraps(k, var: str | None, a=None) -> bool | None:
    """Whether the index variable wraps negative values (``x < 0 ? x + N : x``) on its way from the load."""
    if k is None or not var:
        return None
    defs = _defs(k, a)
    seen, todo = set(), [var]
    while todo:
        v = todo.pop()
        if v in seen or v not in defs:
            continue
        seen.add(v)
        wrapped, _ = _unwrap(defs, defs[v])
        if wrapped:
            return True
        todo += _tmps(defs, defs[v])
    return False


def _unchanged(k, var: str | None, a=None) -> bool | None:
    """Whether the index variable holds the loaded input values themselves (casts, copies and the wrap of
    negatives on the way, no arithmetic): then a value of the input equal to the bound reaches the check."""
    if k is None or not var:
        return None
    defs = _defs(k, a)
    v, seen = var, set()
    while v in defs and v not in seen:
        seen.add(v)
        t = defs[v]
        tmps = _tmps(defs, t)
        if not tmps:  # the load (in_ptr0[...], tl.load(in_ptr0 + ...), loadu(in_ptr0 + ...)): reached
            return _loads(t.expr.tree)
        wrapped, inner = _unwrap(defs, t)
        if wrapped:
            v = inner
            continue
        if len(tmps) == 1 and not _computes(t.expr.tree):
            v = tmps[0]
            continue
        return False
    return None


def bounds_checks(pkg: Package, name: str) -> list[BoundsCheck]:
    """Every range assertion of model ``name``, traced (bound, index origin, wrap-around)."""
    from .trace import trace_assert

    ix = pkg.index(name)
    out = []
    seen = set()
    for s in ix.assert_sites():
        if (s.kernel, s.line) in seen:
            continue
        seen.add((s.kernel, s.line))
        r = trace_assert(pkg, kernel=s.kernel, line=s.line, model=name)
        for mt in r.matches:
            if mt.assertion.checks != "index" or (mt.kernel, mt.file_line) in {(f.kernel, f.line) for f in out}:
                continue
            out.append(bounds_check_of(pkg, mt))
    return out


def bounds_check_of(pkg: Package, mt) -> BoundsCheck:
    terms = []
    if mt.bound is not None:
        for t in mt.bound.terms or [mt.bound]:
            if t.input is not None and t.input.dim is not None:
                terms.append((t.kernel_param, t.input.index, t.input.dim))
    direct = computed = None
    for o in mt.index_origin:
        if o.input is None:
            continue
        if o.through_buffer:
            computed = o.input.index if computed is None else computed
        elif direct is None:
            direct = o.input.index
    k = a = None
    if mt.kernel_kind != "extern":
        k = pkg.index(mt.model).slice(kernels=[mt.kernel]).kernels.get(mt.kernel)
        a = next((x for x in (k.assertions if k else []) if x.line == mt.file_line), None)
        if direct is not None and _unchanged(k, mt.assertion.index_var, a) is not True:
            computed, direct = direct, None  # read from the input, then changed (key // 4): a computed index
    return BoundsCheck(model=mt.model, kernel=mt.kernel, kernel_backend=mt.kernel_kind, line=mt.file_line,
                     message=(mt.assertion.message or ""), bound_expr=mt.assertion.bound_expr,
                     static_bound=mt.static_bound, terms=terms, direct_input=direct, computed_input=computed,
                     wraps_negative=_wraps(k, mt.assertion.index_var, a))


def loader_of(pkg: Package, name: str, weights: str | None) -> tuple[dict, list[str]]:
    """How the package must be loaded, and what the script says about it."""
    from ..explain import repro_script as say
    from .doctor import weights_blob_bytes, weights_on_disk

    notes = []
    disk = weights_on_disk(pkg, name)
    blob = weights_blob_bytes(pkg, name)
    consts = pkg.index(name).constants()
    need = sum(c.nbytes or 0 for c in consts)
    if disk and (blob is None or blob <= 64):
        notes.append(say.LOADER_WORDS["load_pt2_disk"])
        return {"kind": "load_pt2_disk"}, notes
    loader = {"kind": "aoti_load_package"}
    notes.append(say.LOADER_WORDS["aoti_load_package"])
    if blob is not None and blob <= 64 and need:
        if weights:
            loader["constants"] = {"file": os.path.basename(weights)}
            notes.append(say.FILE_CONSTANTS.format(file=os.path.basename(weights)))
        else:
            loader["constants"] = {"specs": [{"name": c.fqn or c.name, "dtype": c.dtype or "float32",
                                              "shape": list(c.shape)} for c in consts]}
            notes.append(say.RANDOM_CONSTANTS)
    return loader, notes


def _device(m: Model, device: str | None) -> str:
    dev = device or (m.device or "cpu")
    base = device_type(dev)
    if base not in ("cpu", "cuda"):
        raise UsageError(f"--device {dev}: cpu, cuda or cuda:N")
    want = device_type(m.device or "cpu")
    if base != want:
        raise UsageError(f"--device {dev}: model {m.name!r} was compiled for {want}")
    return dev if ":" in dev or base == "cpu" else "cuda:0"


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


# ---------------------------------------------------------------------------------------------------
# The violation a trace names
# ---------------------------------------------------------------------------------------------------


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
    """(violation, symbol values, per-input changes) that make ``f`` fail and keep every other check."""
    syms = sizes(m)
    dims = shapes(m, syms)
    if f.direct_input is not None:
        b = f.bound(dims)
        if b is not None:
            return {"kind": "value", "input": f.direct_input, "value": b, "bound": b}, syms, {
                f.direct_input: {"set": [[0, b]]}}
    if f.terms:
        _, i, d = f.terms[0]
        sym = root_symbol(m.symbols, m.inputs[i].shape[d])
        if sym is not None:
            syms[sym.name] = 0
            return {"kind": "empty", "input": i, "dim": d, "symbol": sym.name}, syms, {}
    origin = f.computed_input if f.computed_input is not None else f.direct_input
    if f.static_bound is not None and origin is not None and m.inputs[origin].shape:
        last = m.inputs[origin].shape[-1]
        sym = root_symbol(m.symbols, last)
        size = f.static_bound + 1
        if sym is not None and (sym.max is None or sym.max >= size):
            syms[sym.name] = max(size, sym.min or 0)
            return {"kind": "ramp", "input": origin, "size": syms[sym.name], "bound": f.static_bound}, syms, {
                origin: {"fill": "ramp"}}
    raise UsageError(f"{f.kernel} line {f.line}: no input of the contract reaches this assertion's index or bound, so "
                     "no violation can be planned; give the inputs with --input SPEC")


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


def repro(pkg: Package, *, log: str | None = None, line: int | None = None, kernel: str | None = None,
          inputs: list[InputSpec] | None = None, model: str | None = None, device: str | None = None,
          weights: str | None = None) -> ReproResult:
    """Plan the reproducing case and write its script (``result.script``)."""
    from .._version import __version__
    from ..explain import repro_script as say
    from .trace import trace_assert

    if not (log or line or kernel or inputs):
        raise UsageError("say what to reproduce: --log FILE, --line N, --kernel K or --input SPEC")
    if inputs:
        name = model_name(pkg, model)
        m = pkg.index(name).eager()
        dev = _device(m, device)
        loader, notes = loader_of(pkg, name, weights)
        return _repro_given(pkg, m, dev, loader, notes, inputs)
    r = trace_assert(pkg, log=log, line=line, kernel=kernel, model=model)
    if not r.matches:
        raise UsageError(f"nothing to reproduce: {r.verdict or r.looked_for}")
    name = r.matches[0].model
    m = pkg.index(name).eager()
    dev = _device(m, device)
    loader, notes = loader_of(pkg, name, weights)
    if len(r.matches) > 1 and not r.matches[0].exact:
        notes.append(f"{len(r.matches)} assertions match; the script reproduces the first ({r.matches[0].kernel} "
                     f"line {r.matches[0].file_line}); --line N picks another")
    f = bounds_check_of(pkg, r.matches[0])
    violation, syms, changes = violate(m, f, dev)
    expect, words = expect_assert(f, dev)
    title = say.title_words(violation["kind"], expect=words, **{k: v for k, v in violation.items() if k != "kind"})
    case = make_case(pkg, m, f, dev, loader, syms=syms, changes=changes, expect=expect, words=words, title=title,
                     asserts=bounds_checks(pkg, name), unset=["AOTI_RUNTIME_CHECK_INPUTS"])
    return _result(pkg, m, dev, case, violation, notes, __version__)


def _repro_given(pkg, m, dev, loader, notes, specs) -> ReproResult:
    """--input: the user's shapes; the expected failure is what `check` predicts for them."""
    from .._version import __version__
    from ..explain import repro_script as say

    c = check(pkg, specs, model=m.name)
    syms = sizes(m)
    for ch in c.checked:
        sp = ch["spec"]
        inp = m.inputs[ch["input"]]
        for d, v in enumerate(sp.get("shape") or []):
            if d < len(inp.shape):
                sym = root_symbol(m.symbols, inp.shape[d])
                if sym is not None:
                    syms[sym.name] = v
    asserts = bounds_checks(pkg, m.name)
    env, unset = {}, ["AOTI_RUNTIME_CHECK_INPUTS"]
    if c.predicted_assertions:
        pa = c.predicted_assertions[0]
        expect = {"kind": "assert", "all_of": [pa["message"]] + ([pa["kernel"]] if dev == "cpu" else []), "kernel": pa["kernel"]}
        words = say.expect_words("assert", message=pa["message"], kernel=pa["kernel"])
    elif c.violations:
        v = c.violations[0]
        env, unset = {"AOTI_RUNTIME_CHECK_INPUTS": "1"}, []
        expect = {"kind": "check_inputs", "all_of": [f"input_handles[{v['input']}]"]}
        words = say.expect_words("check_inputs", input=v["input"], what=v["kind"])
    else:
        raise UsageError(f"nothing to reproduce: `check` predicts these inputs fit ({c.verdict})")
    case = make_case(pkg, m, None, dev, loader, syms=syms, expect=expect, words=words,
                     title=say.title_words("given", expect=words), asserts=asserts, env=env, unset=unset)
    for ch in c.checked:  # the user's dtypes where they differ from the contract (a dtype violation)
        if ch["spec"].get("dtype"):
            case.inputs[ch["input"]]["dtype"] = ch["spec"]["dtype"]
    return _result(pkg, m, dev, case, {"kind": "given", "check": c.verdict}, notes, __version__)


def _result(pkg, m, dev, case: Case, violation, notes, version) -> ReproResult:
    from ..explain import repro_script as say

    pkg_name = os.path.basename(str(pkg.path).rstrip("/"))
    loader_words = " ".join(notes)
    script = say.repro_script(case.to_json(), pkg_name, say.repro_header(case.title, pkg_name, loader_words, version))
    return ReproResult(package=str(pkg.path), model=m.name, device=dev, verdict=case.title, violation=violation,
                       expect=case.expect, loader=case.loader["kind"], script=script, notes=notes, case=asdict(case))


def run_script(script_path: str, package_path: str, timeout: int = 600) -> dict:
    """Run a written script with this Python (a child process); its verdict line and exit code."""
    import subprocess
    import sys

    from ..explain import repro_script as say

    if torch_python() is None:
        raise UsageError(say.NO_TORCH.format(python=sys.executable))
    p = subprocess.run([sys.executable, script_path, package_path], capture_output=True, text=True, errors="replace",
                       timeout=timeout)
    text = (p.stdout or "") + (p.stderr or "")
    last = next((ln for ln in reversed(text.splitlines()) if ln.startswith((say.REPRODUCED, say.NOT_REPRODUCED))), "")
    return {"rc": p.returncode, "reproduced": p.returncode == 0 and last.startswith(say.REPRODUCED), "verdict": last,
            "output_tail": text[-2000:]}
