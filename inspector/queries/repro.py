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
from dataclasses import asdict, dataclass, field

from ..errors import UsageError
from ..host import torch_python  # noqa: F401 - the host's torch, a host probe (sweep and the CLI import it here)
from ..model import Model
from ..naming import root_symbol
from ..package import Package
from ..parse.specs import InputSpec, device_type
from .check import check
from .repro_case import Case, expect_assert, make_case, sizes, violate
from .repro_checks import bounds_check_of, bounds_checks


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
    from ..logs import parse_log

    r = trace_assert(pkg, report=parse_log(log) if log is not None else None, line=line, kernel=kernel, model=model)
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
