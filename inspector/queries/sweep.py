"""sweep: the debugging guide's edge cases, planned from the contract, predicted, and (with ``run``) run one per
child process and diagnosed, so that prediction, observation and diagnosis can be compared row by row.

Cases (each with and without AOTI_RUNTIME_CHECK_INPUTS=1):
- every dynamic dim (root symbol) at 0, 1, its guard minimum and its guard maximum (capped so that every
  input stays under ``MAX_ELEMENTS``; the row says so), the other dims at ``repro_case.BASE_SIZE``;
- every input an index is read from unchanged at its largest valid value, at the bound, at -1 and below -N.

A dim case is predicted by `check` (guards, and bounds that become 0); a value case by the trace of the
assertion (its bound, and whether the kernel wraps negative indices).  Running needs torch in this Python:
the runner (inspector.explain.repro_script.SWEEP_MAIN) imports it once and forks one child per case.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field

from ..errors import UsageError
from ..naming import root_symbol
from ..package import Package
from ..parse.specs import InputSpec
from .check import check
from .loop_checks import loop_limits
from .repro import _device, loader_of, model_name
from .repro_case import Case, input_specs, shapes, sizes
from .repro_checks import bounds_checks
from .runner import run_cases, write_plan  # noqa: F401 - write_plan: the sweep tests' runner

MAX_ELEMENTS = 1 << 22  # a guard maximum is capped so that no input of a case holds more elements
CHECKS_ENV = "AOTI_RUNTIME_CHECK_INPUTS"


@dataclass
class Prediction:
    kind: str  # "fit" | "assert" | "guard" | "may_fail" (check: the sizes let an index's values reach the bound)
    source: str  # "check" (shapes) | "trace" (an index value against its bound)
    kernel: str | None = None
    message: str | None = None
    input: int | None = None
    words: str = ""


@dataclass
class Row:
    id: str
    case: str
    checks: bool  # run with AOTI_RUNTIME_CHECK_INPUTS=1
    prediction: Prediction
    note: str | None = None  # e.g. a maximum capped to fit memory
    observed: dict | None = None  # rc, what, returned, first_error, seconds, timed_out
    diagnosis: dict | None = None  # category, kernel, input, verdict
    agree: bool | None = None
    why: str | None = None  # what disagrees
    log: str | None = field(default=None, repr=False)  # the captured output (not in the JSON)


@dataclass
class SweepResult:
    package: str
    model: str
    device: str
    ran: bool
    verdict: str
    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    seconds: float | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        for r in d["rows"]:
            r.pop("log", None)
        return d

    @property
    def disagreements(self) -> list[Row]:
        return [r for r in self.rows if r.agree is False]


def _specs(m, dims, dtype_of) -> list[InputSpec]:
    return [InputSpec(who=str(i.index), dtype=dtype_of(i), shape=[dims[(i.index, d)] for d in range(len(i.shape))])
            for i in m.inputs]


def _predict_shapes(pkg, m, dims, checks: bool) -> Prediction:
    from ..explain import repro_script as say

    c = check(pkg, _specs(m, dims, lambda i: i.dtype), model=m.name)
    ranges = [v for v in c.violations if v["kind"] in ("range", "size", "equal", "rank", "dtype")]
    if checks and ranges:
        v = ranges[0]
        return Prediction("guard", "check", input=v["input"], words=say.guard_words(v["input"], v["kind"], v["detail"]))
    if c.predicted_assertions:
        pa = c.predicted_assertions[0]
        return Prediction("assert", "check", kernel=pa["kernel"], message=pa["message"],
                          words=say.expect_words("assert", message=pa["message"], kernel=pa["kernel"]))
    if c.may_fail:  # positions bounded by a size the table may be smaller than: the values decide
        mf = c.may_fail[0]
        return Prediction("may_fail", "check", kernel=mf["kernel"], message=mf["message"],
                          words=say.expect_words("may_fail", message=mf["message"], kernel=mf["kernel"]))
    return Prediction("fit", "check", words="fit")


def _cap(m, sym, syms) -> tuple[int, str | None]:
    """The symbol's maximum, lowered until every input holds at most MAX_ELEMENTS."""
    hi = sym.max if sym.max is not None else 1 << 16
    v = hi
    while v > 1:
        trial = dict(syms, **{sym.name: v})
        dims = shapes(m, trial)
        biggest = max((_numel([dims[(i.index, d)] for d in range(len(i.shape))]) for i in m.inputs), default=0)
        if biggest <= MAX_ELEMENTS:
            break
        v //= 2
    return v, (f"maximum {hi} capped to {v} so that no input holds more than {MAX_ELEMENTS:,} elements" if v != hi else None)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def plan(pkg: Package, model: str | None = None, device: str | None = None, weights: str | None = None):
    """(rows, cases, model, device, notes): every case, with its prediction, not run."""
    from ..explain import repro_script as say

    name = model_name(pkg, model)
    m = pkg.index(name).eager()
    dev = _device(m, device)
    loader, notes = loader_of(pkg, name, weights)
    asserts = [f for f in bounds_checks(pkg, name) if f.kernel_backend != "extern"]
    base = sizes(m)
    rows, cases = [], []

    def add(rid, words, syms, changes, pred, note=None):
        for checks in (False, True):
            dims = shapes(m, syms)
            specs = input_specs(m, dims, asserts, syms)
            for i, ch in changes.items():
                specs[i].update(ch)
            p = pred(dims, checks) if callable(pred) else pred
            env = {"OMP_NUM_THREADS": "1"} if dev == "cpu" else {"CUDA_LAUNCH_BLOCKING": "1"}
            if checks:
                env[CHECKS_ENV] = "1"
            cases.append(Case(title=words, device=dev, model=m.name if len(pkg.model_names) > 1 else None,
                              loader=loader, inputs=specs, env=env, unset_env=[] if checks else [CHECKS_ENV],
                              expect=None, expect_words=p.words))
            rows.append(Row(id=f"{rid}{'+checks' if checks else ''}", case=words, checks=checks, prediction=p, note=note))

    roots = []
    for s in m.symbols.values():
        r = root_symbol(m.symbols, s.name)
        if r is not None and r.input is not None and r.dim is not None and r not in roots:
            roots.append(r)
    limits = loop_limits(pkg, name) if roots else {}
    for r in roots:
        hi, capped = _cap(m, r, base)
        values = [("0", 0), ("1", 1), ("min", r.min if r.min is not None else 0), ("max", hi)]
        edge = limits.get((r.input, r.dim))
        if edge is not None and (r.min is None or r.min <= edge) and edge + 1 <= hi:
            # a loop-position check (an arange) that this dim runs past: the largest size it allows, and one more
            values[3:3] = [("loop-bound", edge), ("past-loop-bound", edge + 1)]
        done = set()
        for label, v in values:
            if v in done:
                continue
            done.add(v)
            add(f"{r.name}={label}", say.dim_case(r.input, r.dim, r.name, v, label, edge),
                dict(base, **{r.name: v}), {}, lambda dims, checks: _predict_shapes(pkg, m, dims, checks),
                capped if label == "max" else None)
    dims0 = shapes(m, base)
    seen = set()
    for f in sorted(asserts, key=lambda f: (f.bound(dims0) is None, f.bound(dims0) or 0)):
        i = f.direct_input
        b = f.bound(dims0)
        if i is None or b is None or i in seen or (m.inputs[i].dtype or "int64") in ("float16", "bfloat16", "float32",
                                                                                      "float64", "bool"):
            continue
        seen.add(i)
        hit = Prediction("assert", "trace", kernel=f.kernel, message=f.message,
                         words=say.expect_words("assert", message=f.message, kernel=f.kernel))
        fit = Prediction("fit", "trace", words="fit")
        minus1 = fit if f.wraps_negative else hit
        wrap_note = say.wrap_row_note(f.wraps_negative)
        for label, v, p, note in (("largest", b - 1, fit, None), ("bound", b, hit, None), ("-1", -1, minus1, wrap_note),
                                  ("below-N", -b - 1, hit, None)):
            add(f"input{i}={label}", say.value_case(i, v, label, b), base, {i: {"set": [[0, v]]}},
                p, note)
    if not asserts:
        notes.append(say.ONLY_DIMS_SWEPT)
    return rows, cases, m, dev, notes


def _diagnosis(pkg, m, text: str) -> dict:
    from ..logs import parse_log
    from .diagnose import diagnose

    try:
        d = diagnose(pkg, parse_log(text), model=m.name)
    except UsageError as e:  # an empty or unreadable capture
        return {"category": "none", "kernel": None, "input": None, "verdict": str(e)}
    kernel = None
    if d.trace is not None and getattr(d.trace, "matches", None):
        kernel = d.trace.matches[0].kernel
    elif d.fault_sites:  # arithmetic_fault: the place that divides, most likely first
        kernel = d.fault_sites[0].get("target")
    inp = getattr(d.input_check, "input", None) if d.input_check is not None else None
    return {"category": d.category, "kernel": kernel, "input": inp, "verdict": d.verdict}


def judge(row: Row) -> tuple[bool, str | None]:
    """Whether prediction, observation and diagnosis agree, and what disagrees when not."""
    p, o, d = row.prediction, row.observed or {}, row.diagnosis or {}
    clean = o.get("rc") == 0 and o.get("returned")
    if p.kind == "fit":
        return (True, None) if clean else (False, f"predicted fit; the call {o.get('what')}: {o.get('first_error') or ''}".strip())
    if p.kind == "may_fail":  # either outcome is what was said; a failure must be that check's
        if clean or (d.get("category") in ("index_assert", "device_assert", "arithmetic_fault", "extern_op")
                     and d.get("kernel") == p.kernel):  # a division by a size at 0 dies of SIGFPE in that kernel;
            # an extern op fed a size the package was not built for fails in that op (check's op "extern")
            return True, None
        return False, (f"predicted {p.words}; diagnose says {d.get('category')}"
                       + (f" in {d.get('kernel')}" if d.get("kernel") else "") + f" ({o.get('first_error') or o.get('what')})")
    if clean:
        return False, f"predicted {p.words}; the call returned"
    if p.kind == "assert":
        if d.get("category") in ("index_assert", "device_assert") and d.get("kernel") == p.kernel:
            return True, None
        return False, (f"predicted {p.words}; diagnose says {d.get('category')}"
                       + (f" in {d.get('kernel')}" if d.get("kernel") else "") + f" ({o.get('first_error') or o.get('what')})")
    if p.kind == "guard":
        if d.get("category") == "input_check" and (d.get("input") in (None, p.input)):
            return True, None
        return False, f"predicted {p.words}; diagnose says {d.get('category')} ({o.get('first_error') or o.get('what')})"
    return False, f"unknown prediction {p.kind}"


def ingest(pkg: Package, m, rows: list[Row], results: dict[int, dict], folder: str, err: str = "") -> None:
    """Fill each row from the runner's JSON lines and its captured log in ``folder``: observed, diagnosis, agree."""
    for i, row in enumerate(rows):
        r = results.get(i)
        if r is None:
            row.observed = {"rc": None, "what": "not run (the runner stopped)", "returned": False,
                            "first_error": (err.strip().splitlines() or [""])[-1][:300], "seconds": None,
                            "timed_out": False}
            row.agree, row.why = False, "the runner stopped before this case"
            continue
        with open(os.path.join(folder, f"case_{i:03d}.log"), errors="replace") as f:
            row.log = f.read()
        row.observed = {k: r[k] for k in ("rc", "what", "returned", "first_error", "seconds", "timed_out")}
        clean = r["rc"] == 0 and r["returned"]
        row.diagnosis = ({"category": "none", "kernel": None, "input": None, "verdict": "the call returned"}
                         if clean else _diagnosis(pkg, m, row.log))
        row.agree, row.why = judge(row)


def sweep(pkg: Package, model: str | None = None, device: str | None = None, weights: str | None = None,
          run: bool = False, timeout: int = 60, progress=None, jobs: int = 1,
          keep_logs: str | None = None) -> SweepResult:
    """Plan (and with ``run``, run and diagnose) every case of the package's contract."""
    from ..explain import repro_script as say
    from ..host import torch_cuda_devices
    from .repro import torch_python

    rows, cases, m, dev, notes = plan(pkg, model, device, weights)
    res = SweepResult(package=str(pkg.path), model=m.name, device=dev, ran=False, verdict="", rows=rows, notes=notes)
    if not run:
        n_fail = sum(r.prediction.kind != "fit" for r in rows)
        res.verdict = f"{len(rows)} cases planned for model {m.name!r}: {n_fail} predicted to fail, {len(rows) - n_fail} to fit"
        return res
    if torch_python() is None:
        raise UsageError(say.NO_TORCH.format(python=sys.executable))
    if dev.startswith("cuda") and torch_cuda_devices(sys.executable) == 0:
        # one probe instead of one fresh process per case that each finds no GPU (24 of them: minutes)
        raise UsageError(say.NO_CUDA.format(device=dev, python=sys.executable))
    t0 = time.time()

    def kept(tmp, results, err):  # each case's captured output, kept (the CUDA samples' real sweep logs are kept so)
        ingest(pkg, m, rows, results, tmp, err)
        if keep_logs:
            os.makedirs(keep_logs, exist_ok=True)
            for name in sorted(os.listdir(tmp)):
                if name.startswith("case_") and name.endswith(".log"):
                    shutil.copyfile(os.path.join(tmp, name), os.path.join(keep_logs, name))

    run_cases(cases, str(pkg.path), dev, timeout, jobs, progress=progress, then=kept)
    res.ran, res.seconds = True, round(time.time() - t0, 1)
    return ran_verdict(res)


def ran_verdict(res: SweepResult) -> SweepResult:
    bad = res.disagreements
    res.verdict = (f"{len(res.rows)} cases run on model {res.model!r}: " +
                   (f"{len(bad)} disagree (first: {bad[0].id}: {bad[0].why})" if bad else
                    "prediction, run and diagnosis agree on every one")
                   + (f" ({res.seconds} s)" if res.seconds is not None else ""))
    return res
