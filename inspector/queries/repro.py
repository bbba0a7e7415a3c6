"""repro: one standalone script that reproduces a failure with the smallest inputs the package's contract allows.

From the contract (inputs, guards, symbols: the eager index) and the traces of the package's assertions
(`trace_assert`, which knows each bound and where each index comes from: `repro_checks`), a `Case` is planned
(`repro_case`): every input's dtype, shape, stride and device, each index input filled with values inside its
table, and one violation (an index equal to its bound, the empty dim of a table, or positions that reach a static
bound).  `inspector.explain.repro_script` turns a case into the script; nothing here imports torch.  `sweep`
(inspector.queries.sweep) plans many cases with the same helpers.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields

from ..errors import UsageError
from ..host import torch_python  # noqa: F401 - the host's torch, a host probe (sweep and the CLI import it here)
from ..model import Model
from ..naming import root_symbol
from ..package import Package
from ..parse.specs import InputSpec, device_type
from .check import check
from .repro_case import Case, expect_assert, make_case, sizes, violate, violate_cause
from .repro_checks import BoundsCheck, bounds_check_of, bounds_checks


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
    hypothesis: int | None = None  # the rank of the hypothesis the script reproduces (None: --all, or --input)
    hypotheses: list[dict] = field(default_factory=list)  # every ranked hypothesis: its case's violation, or why none
    confirmation: object | None = None  # with --run on a traced failure: inspector.queries.confirm.Confirmation
    _planned: list = field(default_factory=list, repr=False)
    _report: object = field(default=None, repr=False)
    _match: object = field(default=None, repr=False)

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_") and f.name != "script"}
        d["confirmation"] = self.confirmation.to_dict() if self.confirmation is not None else None
        return d


def model_name(pkg: Package, model: str | None) -> str:
    if model is not None:
        pkg.files(model)  # raises a UsageError naming the models when it is not there
        return model
    return pkg.index(None).eager().name


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


@dataclass
class Planned:
    """The case of one ranked hypothesis (``n``: its rank, 1-based; ``kind``: its cause, causes.CAUSE_KINDS), or
    why none could be planned (``case`` None, ``why``)."""

    n: int
    kind: str | None
    certainty: str | None
    sentence: str  # the hypothesis in words (JSON "text")
    violation: dict | None = None
    case: Case | None = None
    why: str | None = None

    def to_dict(self) -> dict:
        return {"n": self.n, "kind": self.kind, "certainty": self.certainty, "text": self.sentence,
                "violation": self.violation, "planned": self.case is not None, "why": self.why}


def plan_hypotheses(pkg: Package, mt, f: BoundsCheck, m: Model, dev: str, loader: dict) -> list[Planned]:
    """One case per ranked hypothesis of match ``mt`` (its typed causes: the one ranking diagnose and trace
    print), each planned from its cause; a match with no hypothesis gets the one case its check allows."""
    from ..explain import repro_script as say

    expect, words = expect_assert(f, dev)
    asserts = bounds_checks(pkg, m.name)
    out = []
    hyps = [h for h in mt.hypotheses if h.cause is not None] or [None]
    for n, h in enumerate(hyps, 1):
        kind = h.cause.kind if h else None
        p = Planned(n, kind, h.certainty if h else None, h.sentence if h else "")
        try:
            src = h.cause.source if h else None
            read = src.inputs[0].index if src is not None and src.kind == "read" and src.inputs else None
            v = violate_cause(m, f, kind, mt.position, dev, read_input=read) if h else violate(m, f, dev)
        except UsageError as e:
            v, p.why = None, str(e)
        if v is None:
            p.why = p.why or say.unplanned(kind)
            out.append(p)
            continue
        violation, syms, changes = v
        title = say.title_words(violation["kind"], expect=words, **{k: x for k, x in violation.items() if k != "kind"})
        p.violation = violation
        p.case = make_case(pkg, m, f, dev, loader, syms=syms, changes=changes, expect=expect, words=words,
                           title=title, asserts=asserts, unset=["AOTI_RUNTIME_CHECK_INPUTS"])
        out.append(p)
    return out


def repro(pkg: Package, *, log: str | None = None, line: int | None = None, kernel: str | None = None,
          inputs: list[InputSpec] | None = None, model: str | None = None, device: str | None = None,
          weights: str | None = None, hypothesis: int | None = None, every: bool = False) -> ReproResult:
    """Plan the reproducing case and write its script (``result.script``): the top-ranked hypothesis's case by
    default, hypothesis ``hypothesis`` (1-based), or with ``every`` one case per hypothesis in one script."""
    from .._version import __version__
    from ..explain import repro_script as say
    from .trace import trace_assert

    if not (log or line or kernel or inputs):
        raise UsageError("say what to reproduce: --log FILE, --line N, --kernel K or --input SPEC")
    if inputs:
        if hypothesis or every:
            raise UsageError("--hypothesis and --all pick among the hypotheses of a traced failure: not with --input")
        name = model_name(pkg, model)
        m = pkg.index(name).eager()
        dev = _device(m, device)
        loader, notes = loader_of(pkg, name, weights)
        return _repro_given(pkg, m, dev, loader, notes, inputs)
    from ..logs import parse_log

    report = parse_log(log) if log is not None else None
    r = trace_assert(pkg, report=report, line=line, kernel=kernel, model=model)
    if not r.matches:
        raise UsageError(f"nothing to reproduce: {r.verdict or r.looked_for}")
    mt = r.matches[0]
    name = mt.model
    m = pkg.index(name).eager()
    dev = _device(m, device)
    loader, notes = loader_of(pkg, name, weights)
    if len(r.matches) > 1 and not mt.exact:
        notes.append(f"{len(r.matches)} assertions match; the script reproduces the first ({mt.kernel} "
                     f"line {mt.file_line}); --line N picks another")
    f = bounds_check_of(pkg, mt)
    planned = plan_hypotheses(pkg, mt, f, m, dev, loader)
    ok = [p for p in planned if p.case is not None]
    if hypothesis is not None:
        if not 1 <= hypothesis <= len(planned):
            raise UsageError(say.no_such_hypothesis(hypothesis, len(planned)))
        chosen = [planned[hypothesis - 1]]
        if chosen[0].case is None:
            raise UsageError(say.cannot_plan(chosen[0].n, chosen[0].sentence, chosen[0].why))
    elif every:
        chosen = ok
    else:
        chosen = ok[:1]
    if not chosen:
        first = planned[0]
        raise UsageError(say.cannot_plan(first.n, first.sentence, first.why))
    for p in planned:
        if p.case is None and (every or (hypothesis is None and p.n < chosen[0].n)):
            notes.append(say.skipped(p.n, p.why))
    res = _result(pkg, m, dev, [p.case for p in chosen], chosen[0].violation, notes, __version__,
                  numbers=[p.n for p in chosen])
    res.hypothesis = None if every else chosen[0].n
    res.hypotheses = [p.to_dict() for p in planned]
    res._planned, res._report, res._match = planned, report, mt
    return res


def confirm_ranking(pkg: Package, res: ReproResult, timeout: int = 120):
    """Run the case of every planned hypothesis of ``res`` (a traced failure's) and compare each with the log's
    failure (with no log: the traced assertion's); ``res.confirmation`` and ``res.run`` (the written case's
    run) are filled.  Needs torch in this Python (a UsageError otherwise)."""
    from .confirm import Failure, confirm

    planned = [p for p in res._planned if p.case is not None]
    unplanned = [p.n for p in res._planned if p.case is None]
    mt = res._match
    expected = None
    if res._report is None:
        expected = Failure("extern_op" if mt.kernel_kind == "extern" else "index_assert", mt.kernel, mt.file_line,
                           mt.assertion.message)
    c = confirm(pkg, res.model, res.device, res._report, planned, unplanned, timeout=timeout, expected=expected)
    res.confirmation = c
    mine = [o for o in c.outcomes if o.switch is None and (res.hypothesis is None or o.hypothesis == res.hypothesis)]
    ok = any(o.reproduced for o in mine)
    res.run = {"rc": 0 if ok else 1, "reproduced": ok, "verdict": c.verdict,
               "output_tail": next((o.output_tail for o in mine), "")}
    return c


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
    return _result(pkg, m, dev, [case], {"kind": "given", "check": c.verdict}, notes, __version__)


def _result(pkg, m, dev, cases, violation, notes, version, numbers=None) -> ReproResult:
    from ..explain import repro_script as say

    if isinstance(cases, Case):
        cases = [cases]
    pkg_name = os.path.basename(str(pkg.path).rstrip("/"))
    loader_words = " ".join(notes)
    numbers = numbers or [None] * len(cases)
    title = cases[0].title if len(cases) == 1 else say.all_title(len(cases))
    script = say.repro_script([c.to_json() for c in cases], numbers, pkg_name,
                              say.repro_header(title, pkg_name, loader_words, version, n_cases=len(cases)))
    return ReproResult(package=str(pkg.path), model=m.name, device=dev, verdict=title, violation=violation,
                       expect=cases[0].expect, loader=cases[0].loader["kind"], script=script, notes=notes,
                       case=asdict(cases[0]))


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
