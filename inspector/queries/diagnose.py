"""diagnose: classify a failure from the real log text and answer with next steps that fit this package.

Categories (``Diagnosis.category``):

``index_assert``          a device assert / CPU check with its line: the full trace-assert answer;
``extern_op``             an ATen op called by the wrapper failed (CPU exception at the call, ATen CUDA
                          kernel assert, a swallowed ``Exception in aoti_torch``): a trace with kind extern;
``device_assert``         a device-side assert whose ``Assertion`` line is missing: candidates;
``illegal_memory_access`` IMA / unspecified launch failure: steps and unchecked-indirect-access suspects;
``device_mismatch``       the text names an input on the wrong device;
``input_check``           AOTI_RUNTIME_CHECK_INPUTS=1 (or the wrapper's size/stride assert) rejected an input;
``load``                  the package did not load (host lacks the device, ISA, symbols…);
``deprecated_api``        torch._export.aot_compile / aot_load;
``unknown``               none of the above: general first steps.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from .. import explain as words
from ..explain import SCALAR_TYPES, step
from ..logparse import LogReport, parse_log
from ..model import Model
from ..package import Package
from .fused import extern_op_name
from .match import site_for_noticed


@dataclass
class Diagnosis:
    package: str
    category: str
    verdict: str
    evidence: list[str] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)
    trace: dict | None = None
    candidates: list[dict] = field(default_factory=list)
    input_check: dict | None = None
    suspects: list[dict] = field(default_factory=list)  # IMA: unchecked indirect accesses
    notes: list[str] = field(default_factory=list)
    trace_result: object = field(default=None, repr=False, compare=False)  # the TraceResult behind `trace`

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("trace_result")
        return d


def diagnose(pkg: Package, log: str, model: str | None = None, ep=None) -> Diagnosis:
    """Classify ``log`` against ``pkg`` and say what to do next."""
    from .trace import trace_assert

    if model is not None:
        pkg.files(model)
    rep = parse_log(log or "")
    names = [model] if model else pkg.model_names
    # The small facts (inputs, guards, symbols, metadata: `ModelIndex.eager`), no kernel parsed: a failed
    # assert is traced through slices; only an illegal memory access or a device assert without its line
    # needs every kernel (`_ima`, `assert_candidates` parse the whole model).
    models = [pkg.index(n).eager() for n in names]
    device = next((m.device for m in models if m.device), None)
    d = Diagnosis(package=str(pkg.path), category="unknown", verdict="")
    d.notes += _isa_notes(rep, models)
    if rep.has("old_package"):
        d.notes.append("torch warned that the package comes from an older torch (outdated pt2 / missing AOTInductor "
                       "entry points): rebuild it with the serving torch if anything else fails")
    located = [r for r in rep.asserts if r.kind in ("cuda", "cpu", "aten")]
    extern_text = rep.has("exception_in_aoti_torch") and not rep.has("cublas_error") and not rep.noticed
    cpu_extern = device == "cpu" and any(n.error for n in rep.noticed)
    if located or extern_text or cpu_extern:
        t = trace_assert(pkg, log=log, model=model, ep=ep)
        if t.matches:
            d.trace = t.to_dict()
            d.trace_result = t
            kind = t.matches[0].kernel_kind
            d.category = "extern_op" if kind == "extern" else "index_assert"
            d.verdict = t.verdict
            d.evidence = [x for r in located[:3] for x in ([r.message] if r.kind == "cpu" and r.message else []) + [r.first_text]]
            d.evidence += [n.text for n in rep.noticed][:2] + [f"{n.error}" for n in rep.noticed[:1] if n.error]
            if d.category == "extern_op":
                ev = rep.first("exception_in_aoti_torch")
                if ev:
                    d.evidence.append(ev.text)
                if any(m.kernel_kind == "extern" and m.assertion.get("checked") is False for m in t.matches):
                    d.notes.append("the failing extern call runs without AOTI_TORCH_ERROR_CODE_CHECK: the error is "
                                   "printed and the run goes on, returning garbage with exit code 0")
            d.steps = [step("Check the index values named in the verdict before calling the model; the trace "
                            "shows which input they come from.")]
            if device == "cuda":
                d.steps.append(step("Rerun with CUDA_LAUNCH_BLOCKING=1 so the failing kernel reports where it fails.",
                                    {"CUDA_LAUNCH_BLOCKING": "1"}))
            d.notes += t.hints + t.context
            return d
    if rep.has("deprecated_api"):
        return _deprecated(d, rep)
    if rep.has("input_check") or _size_assert(rep):
        return _input_check(d, rep, models, (ep, pkg))
    if rep.has("device_mismatch"):
        return _device_mismatch(d, rep, models)
    if rep.has("segfault"):
        at_load = re.search(r"load_package|_load_aoti|AOTIModelPackageLoader|aoti_load_package|load_pt2", log or "")
        at_run = re.search(r"in __call__|boxed_run|run_impl|\bforward\b", log or "")
        if at_load and not at_run:
            return _load(d, rep, models, (log or "").splitlines())
        return _ima(pkg, d, rep, models, model)
    if rep.has("illegal_memory_access"):
        return _ima(pkg, d, rep, models, model)
    if device != "cpu" and (rep.has("device_side_assert", "cublas_error") or rep.noticed):
        return _device_assert(pkg, d, rep, model)
    if rep.has("load_failure", "no_kernel_image") or (rep.has("isa_mismatch") and "Traceback" not in log) or \
            any("lack" in n and "cpuinfo" in n for n in d.notes):
        return _load(d, rep, models, (log or "").splitlines())
    d.verdict = "no failure this version knows was found in the log; start with the input contract"
    for m in models:
        bare = [(target, st.line) for st, target, kind in pkg.index(m.name).calls()
                if kind == "extern" and st.kind != "checked_call"
                and not target.startswith(("aoti_torch_clone", "aoti_torch_copy", "aoti_torch_empty"))]
        if bare:
            d.notes.append(f"model {m.name!r} calls {len(bare)} extern op(s) without an error check ("
                           + ", ".join(f"{target} at wrapper.cpp line {line}" for target, line in bare[:5])
                           + "): a failure inside them prints `Exception in aoti_torch: …` at most and the run "
                             "returns garbage with exit code 0; check their index inputs first")
    d.evidence = [ln for ln in (log or "").splitlines() if re.search(r"Error|error:|Exception|failed", ln)][:5]
    d.steps = _general_steps(models)
    return d


# ---------------------------------------------------------------------------


def _general_steps(models: list[Model]) -> list[dict]:
    dev = next((m.device for m in models if m.device), "cpu")
    out = [step("Compare the inputs with what the package was compiled for: `pt2-inspect check PKG --input …` "
                "(devices, dtypes, shapes, ranges)."),
           step("Rerun with the runtime input checks on: they name the first input that breaks the contract.",
                {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]
    if dev == "cuda":
        out.append(step("Make CUDA errors synchronous so the failing call is the one reported.",
                        {"CUDA_LAUNCH_BLOCKING": "1"}))
    else:
        out.append(step("Run with one OpenMP thread so a failing check prints its message.", {"OMP_NUM_THREADS": "1"}))
    out.append(step("Get the C++ stack of the error.", {"TORCH_SHOW_CPP_STACKTRACES": "1"}))
    return out


# /proc/cpuinfo flags -> the names AOTI_CPU_ISA uses.
_ISA_FLAGS = {"AVX2": "avx2", "AVX512": "avx512f", "AVX512_VNNI": "avx512_vnni", "AMX_TILE": "amx_tile",
              "AVX512_BF16": "avx512_bf16", "AMX_BF16": "amx_bf16", "AMX_INT8": "amx_int8", "NEON": "asimd",
              "SVE": "sve"}


def _isa_notes(rep: LogReport, models: list[Model]) -> list[str]:
    out = []
    ev = rep.first("cpuinfo_flags")
    if ev is not None:
        flags = set(ev.fields.get("flags", "").split())
        for m in models:
            need = (m.metadata.get("AOTI_CPU_ISA") or "").split()
            missing = [x for x in need if x in _ISA_FLAGS and _ISA_FLAGS[x] not in flags]
            if missing:
                out.append(f"the /proc/cpuinfo flags in the log lack {' '.join(missing)}, which model {m.name!r} was "
                           f"compiled for (AOTI_CPU_ISA {' '.join(need)}): its kernels can die with 'Illegal "
                           "instruction'; recompile on (or for) this host")
            elif need:
                out.append(f"the host's /proc/cpuinfo flags cover the package's CPU ISA ({' '.join(need)})")
    for e in rep.events:
        if e.pattern != "isa_mismatch":
            continue
        a, b = e.fields.get("package", ""), e.fields.get("host", "")
        for m in models:
            pkg_isa = (m.metadata.get("AOTI_CPU_ISA") or "").split()
            if not pkg_isa or e.fields.get("key") != "AOTI_CPU_ISA":
                continue
            host = b.split() if sorted(a.split()) == sorted(pkg_isa) else a.split()
            missing = [x for x in pkg_isa if x not in host]
            if missing:
                out.append(f"the package was compiled for CPU ISA {' '.join(pkg_isa)}; this host has {' '.join(host)} "
                           f"and lacks {' '.join(missing)}: kernels using it may crash with 'Illegal instruction' "
                           "(recompile on this host or with a lower ISA)")
            else:
                out.append(f"torch warned about a CPU ISA difference ({e.text[:160]}); the host has every ISA the "
                           "package needs")
            break
    return list(dict.fromkeys(out))


def _deprecated(d: Diagnosis, rep: LogReport) -> Diagnosis:
    d.category = "deprecated_api"
    ev = [e for e in rep.events if e.pattern == "deprecated_api"]
    called = [e for e in ev if e.fields.get("api3")]
    apis = sorted({e.fields.get("api") or e.fields.get("api2") or e.fields.get("api3") for e in (called or ev)} - {None})
    d.verdict = (f"the code uses the deprecated {', '.join('torch._export.' + a for a in apis)}: switch to "
                 "torch._inductor.aoti_compile_and_package / aoti_load_package")
    d.evidence = [e.text for e in ev][:3] + [e.text for e in rep.events if e.pattern == "load_failure"][:2]
    if any("invalid ELF header" in e.text for e in rep.events):
        d.notes.append("aot_load expects the compiled .so, not a .pt2 package: a .pt2 is loaded with "
                       "torch._inductor.aoti_load_package(path)")
    d.steps = [step("Compile with torch._inductor.aoti_compile_and_package(torch.export.export(model, args), "
                    "package_path='model.pt2')."),
               step("Load with torch._inductor.aoti_load_package('model.pt2') and call it with the same inputs.")]
    return d


_DIM = re.compile(r"dim value is too (?P<dir>small|large) at (?P<dim>\d+), expected(?: it)? to be (?P<op>[<>]=) "
                  r"(?P<limit>-?\d+), but got: (?P<got>-?\d+)")
_DTYPE = re.compile(r"unmatched dtype, expected: (?P<exp>\d+)(?:\((?P<expname>[^)]*)\))?, but got: (?P<got>\d+)")
_DEVICE = re.compile(r"unmatched device type, expected: (?P<exp>\S+?),? but got: (?P<got>\S+)")
_STATIC = re.compile(r"unmatched dim value at (?P<dim>\d+), expected: (?P<exp>-?\d+), but got: (?P<got>-?\d+)")
_STRIDE = re.compile(r"unmatched stride value at (?P<dim>\d+), expected: (?P<exp>-?\d+), but got: (?P<got>-?\d+)")
_SIZE_ASSERT = re.compile(r"expected size (?P<got>\d+)==(?P<exp>\d+), stride (?P<sgot>\d+)==(?P<sexp>\d+) at dim=(?P<dim>\d+)")


def _size_assert(rep: LogReport):
    return rep.first("size_assert")


def _size_assert_check(d: Diagnosis, ev, models: list[Model]) -> Diagnosis:
    """``expected size 3==4, stride 8==8 at dim=0`` names no input: the inputs whose dim shares a symbol
    (or a static size) with another input are the candidates."""
    dim, got, exp = int(ev.fields["dim"]), int(ev.fields["got"]), int(ev.fields["exp"])
    cands = []
    for m in models:
        for inp in m.inputs:
            if dim >= len(inp.shape):
                continue
            s = inp.shape[dim]
            sym = m.symbols.get(str(s))
            while sym is not None and sym.alias_of:
                sym = m.symbols.get(sym.alias_of)
            if sym is not None and sym.input is not None and sym.input != inp.index:
                cands.append((inp, sym))
            elif isinstance(s, int) and s == exp:
                cands.append((inp, None))
    d.evidence = [ev.text]
    if cands:
        inp, sym = cands[0]
        other = f"input {sym.input} dim {sym.dim}" if sym else "the compiled size"
        d.input_check = {"input": inp.index, "wrapper_name": inp.name, "user_name": None, "kind": "equal", "dim": dim,
                         "symbol": sym.name if sym else None, "min": sym.min if sym else None,
                         "max": sym.max if sym else None, "expected": exp, "got": got, "message": ev.text,
                         "fix": f"make input {inp.index} dim {dim} equal to {other} ({exp})"}
        d.verdict = (f"input {inp.index} ({inp.name}) dim {dim} is {got} but must equal {other} ({exp})"
                     + (f": both are symbol {sym.name}" if sym else ""))
    else:
        d.verdict = f"an input's dim {dim} is {got} where the package expects {exp}"
    d.steps = [step(d.input_check["fix"] if d.input_check else "Make the sizes agree."),
               step("Check every input at once against the package: `pt2-inspect check PKG --input …`.")]
    return d


def _ep_for(ep_or_pkg, m: Model):
    """The exported program to name inputs with: --ep when it fits the model, else the packaged one."""
    from ..exported_program import disagreements, packaged_ep

    ep, pkg = ep_or_pkg
    if ep is None and pkg is not None:
        ep = packaged_ep(pkg, m.name)
    if ep is not None and any("user inputs" in x for x in disagreements(ep, m)):
        return None
    return ep


def _input_check(d: Diagnosis, rep: LogReport, models: list[Model], pkg_ep=(None, None)) -> Diagnosis:
    d.category = "input_check"
    m = models[0]
    ev = rep.first("input_check")
    if ev is None:
        return _size_assert_check(d, rep.first("size_assert"), models)
    idx = int(ev.fields["input"])
    what = ev.fields.get("what", "")
    if len(models) > 1:
        m = next((x for x in models if idx < len(x.inputs)), models[0])
    inp = next((i for i in m.inputs if i.index == idx), None)
    ic = {"input": idx, "wrapper_name": inp.name if inp else None, "user_name": None, "kind": None, "dim": None,
          "symbol": None, "min": None, "max": None, "expected": None, "got": None, "message": what, "fix": ""}
    d.evidence = [ev.text]
    label = f"input {idx}" + (f" ({inp.name})" if inp else "")
    mm = _DIM.search(what)
    if mm:
        dim, got = int(mm.group("dim")), int(mm.group("got"))
        sym = next((s for s in m.symbols.values() if s.input == idx and s.dim == dim and not s.alias_of), None)
        ic.update(kind="range", dim=dim, got=got, expected=f"{mm.group('op')} {mm.group('limit')}",
                  symbol=sym.name if sym else None, min=sym.min if sym else None, max=sym.max if sym else None)
        rng = f"{ic['min']}..{ic['max']}" if sym else f"{mm.group('op')} {mm.group('limit')}"
        if got == 0:
            fix = (f"an empty input: dim {dim} is 0, the package was exported for {rng}. Skip the call for empty "
                   "batches, or export with a size-0/1 sample (and Dim min=0) so the package handles them.")
        elif mm.group("dir") == "large":
            fix = (f"dim {dim} is {got}, over the {ic['max'] if sym else mm.group('limit')} the package was exported "
                   f"for: split the input into chunks, or re-export with a larger max for this Dim.")
        else:
            fix = f"dim {dim} is {got}, under the {rng} the package was exported for: pad the input or re-export."
        ic["fix"] = fix
        d.verdict = (f"{label} dim {dim}" + (f" (symbol {sym.name})" if sym else "") + f" is {got}; the package "
                     f"accepts {rng}")
    elif _DTYPE.search(what):
        mm = _DTYPE.search(what)
        exp, got = int(mm.group("exp")), int(mm.group("got"))
        ic.update(kind="dtype", expected=SCALAR_TYPES.get(exp, str(exp)), got=SCALAR_TYPES.get(got, str(got)))
        ic["fix"] = f"convert it before the call: x.to(torch.{ic['expected']})"
        d.verdict = f"{label} is {ic['got']} (code {got}); the package expects {ic['expected']} (code {exp})"
    elif _DEVICE.search(what):
        mm = _DEVICE.search(what)
        exp, got = _device_name(mm.group("exp")), _device_name(mm.group("got"))
        ic.update(kind="device", expected=exp, got=got)
        ic["fix"] = f"move it to the package's device ({m.device}) before the call: x.to('{m.device}')"
        d.category = "device_mismatch"
        d.verdict = (f"{label} is on {got} ({mm.group('got')}); the package expects {exp} ({mm.group('exp')}, "
                     f"AOTI_DEVICE_KEY {m.device!r})")
    elif _STATIC.search(what) or _STRIDE.search(what):
        mm = _STATIC.search(what) or _STRIDE.search(what)
        kind = "size" if _STATIC.search(what) else "stride"
        ic.update(kind=kind, dim=int(mm.group("dim")), expected=int(mm.group("exp")), got=int(mm.group("got")))
        ic["fix"] = ("the package was compiled for a static size here: pass that size or re-export with a Dim"
                     if kind == "size" else "pass a contiguous tensor (x.contiguous()) or the layout it was compiled for")
        d.verdict = f"{label} {kind} at dim {ic['dim']} is {ic['got']}; the package expects {ic['expected']}"
    else:
        ic["kind"] = "other"
        d.verdict = f"{label} was rejected by the runtime input check: {what}"
    ep = _ep_for(pkg_ep, m)
    if ep is not None:
        ic["user_name"] = ep.user_name(idx)
        if ic["user_name"]:
            d.verdict = d.verdict.replace(label, f"{label} `{ic['user_name']}`", 1)
    d.input_check = ic
    d.steps = [step(ic["fix"] or "Fix the input named above."),
               step("Check every input at once against the package: `pt2-inspect check PKG --input …`."),
               step("Keep the runtime checks on while testing: they name the input instead of failing inside a kernel.",
                    {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]
    return d


def _device_name(text: str) -> str:
    """``11(cuda)`` -> cuda; ``0`` -> cpu (the AOTI device-type code the check prints without a name)."""
    mm = re.match(r"(\d+)\((\w+)\)", text)
    if mm:
        return mm.group(2)
    return {"0": "cpu"}.get(text, text)


def _device_mismatch(d: Diagnosis, rep: LogReport, models: list[Model]) -> Diagnosis:
    d.category = "device_mismatch"
    key = next((m.device for m in models if m.device), "?")
    d.evidence = [e.text for e in rep.events if e.pattern == "device_mismatch"][:3]
    d.verdict = f"an input is not on the package's device: the package was compiled for {key} (AOTI_DEVICE_KEY)"
    d.steps = [step(f"Move every input to {key} before the call: [x.to('{key}') for x in inputs] "
                    f"(the package's inputs: {_inputs_words(models[0])})."),
               step("Confirm with the runtime checks, which name the input.", {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]
    return d


def _inputs_words(m: Model) -> str:
    return ", ".join(f"{i.index} {i.name} {i.dtype or '?'}[{', '.join(map(str, i.shape))}]" for i in m.inputs)


def _ima(pkg: Package, d: Diagnosis, rep: LogReport, models: list[Model], model) -> Diagnosis:
    from .suspects import first_kernel_names, model_suspects

    d.category = "illegal_memory_access"
    d.evidence = [e.text for e in rep.events if e.pattern in ("illegal_memory_access", "runner_failed", "segfault")][:3]
    key = next((m.device for m in models if m.device), "cuda")
    steps = []
    if key == "cuda":
        steps.append(step("Check that every input is on cuda:N: CPU tensors fed to a CUDA package print exactly this "
                          f"text (the package's AOTI_DEVICE_KEY is {key}). `pt2-inspect check PKG --input …@cuda` "
                          "or AOTI_RUNTIME_CHECK_INPUTS=1 confirms it.", {"AOTI_RUNTIME_CHECK_INPUTS": "1"}))
    if key == "cuda":
        steps.append(step("Make the failure deterministic and reported at the failing kernel.",
                          {"CUDA_LAUNCH_BLOCKING": "1", "PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}, "run"))
    else:
        steps.append(step("Run with one thread under gdb (`gdb -ex run --args python …`): the backtrace names the "
                          "crashing cpp_fused_* kernel.", {"OMP_NUM_THREADS": "1"}, "run"))
    steps.append(step("Find the kernel: recompile the package with the intermediate value printer, then rerun.",
                      {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "3"}, "compile"))
    d.suspects = []
    for m in models:  # any unchecked load may be the one: the kernels whose text may hold one, parsed
        for s in model_suspects(pkg, m.name):
            d.suspects.append(dict(s, model=m.name))
    names = list(dict.fromkeys(s["kernel"] for s in d.suspects)) or [
        k for m in models for k in first_kernel_names(pkg, m.name, 8)]
    steps.append(step("Print only the suspect kernels' inputs and outputs (recompile).",
                      {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "3",
                       "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": ",".join(names)}, "compile"))
    if d.suspects:
        steps.append(step("Recompile with index asserts on (the default), so a bad index fails with its message "
                          "instead of an illegal access: inductor_configs={'assert_indirect_indexing': True}.",
                          None, "compile"))
    d.steps = steps
    if d.suspects:
        s = d.suspects[0]
        src = next((o for o in s["index_origin"] if o["input"] is not None), None)
        tbl = words.table_words(s["table"])
        d.verdict = (f"illegal memory access: {len(d.suspects)} unchecked indirect access(es) in the package; most "
                     f"likely {s['kernel']} {s['access']}s {tbl or s['pointer']} at an index "
                     + (f"read from input {src['input']} ({src['input_name']})" if src else "read from a tensor")
                     + " with no bounds check")
        if key == "cuda":
            d.verdict += "; or an input is not on cuda"
    else:
        d.verdict = ("illegal memory access; the package has no unchecked indirect access"
                     + (": check first that every input is on cuda" if key == "cuda" else ""))
    return d


# Kernels (and extern indexing ops) a missing Assertion line is looked for in, at most: the nearest launched
# before the call that noticed the error (or the first ones of the package).  Each is a slice and a walk.
MAX_CANDIDATE_KERNELS = 64


def _candidates_slice(pkg: Package, name: str, limit: int | None) -> Model:
    """The slice of model ``name`` holding the launches of every kernel with an assert launched before ``limit``
    and the extern ops that index a tensor (found by the scan; when there are more than `MAX_CANDIDATE_KERNELS`, the
    nearest before ``limit``, or the earliest launched without one)."""
    from .match import INDEXING_OPS

    ix = pkg.index(name)
    asserting = {s.kernel for s in ix.assert_sites()}
    last: dict[str, int] = {}
    for st, target, kind in ix.calls():
        if limit is not None and st.line >= limit:
            continue
        if kind == "kernel" and target in asserting:
            last[target] = st.line
        elif kind == "extern":
            op = re.sub(r"_(out|two_out|two|default)$", "", extern_op_name(target))
            if op in INDEXING_OPS or op.lstrip("_") in INDEXING_OPS:
                last[f"{target}@{st.line}"] = st.line
    chosen = sorted(last, key=lambda t: -last[t] if limit is not None else last[t])[:MAX_CANDIDATE_KERNELS]
    kernels = [k for k in ix.kernel_names() if k in set(chosen)]
    return ix.slice(kernels=kernels, call_lines=[last[t] for t in chosen if "@" in t])


def assert_candidates(pkg: Package, rep: LogReport, model: str | None) -> list[dict]:
    """Assertions that may have fired when the ``Assertion`` line is missing, most likely first.

    With a ``… API call failed at …wrapper.cpp, line N`` in the log: the assertions of kernels launched
    before line N, nearest first (CUDA reports at a later call).  Otherwise every assertion, input-fed first."""
    from .trace import explain

    limit = None
    noticed_model = None
    for n in rep.noticed:
        hit = site_for_noticed(pkg, n, model)
        if hit:
            noticed_model, site = hit
            limit = site.line
            break
    out = []
    for name in [noticed_model.name] if noticed_model else ([model] if model else pkg.model_names):
        m = _candidates_slice(pkg, name, limit)
        launches = {}
        for c in m.calls:
            if c.kind == "kernel" and (limit is None or c.line < limit):
                launches.setdefault(c.target, []).append(c.line)
        for k in m.kernels.values():
            if not k.assertions or k.name not in launches:
                continue
            last = max(launches[k.name])
            for a in k.assertions:
                t = explain(pkg, m, k, a, exact=False, how="candidate")
                fed = [o.input for o in t.index_origin if o.input]
                out.append({
                    "model": m.name, "kernel": k.name, "message": a.message, "line": a.line, "launched_at": last,
                    "reason": (f"launched at wrapper.cpp line {last}, before the call that reported the error (line {limit})"
                               if limit else f"launched at wrapper.cpp line {last}"),
                    "bound": t.bound.limit if t.bound else (str(t.static_bound) if t.static_bound is not None else None),
                    "bound_input": asdict(t.bound.input) if t.bound and t.bound.input else None,
                    "index_origin": [words.who(i) for i in fed] or [o.constant or o.computed or o.unresolved or "?"
                                                                   for o in t.index_origin],
                    "verdict": t.verdict,
                    "_fed": bool(fed),
                })
        # Extern ATen ops that index a tensor assert on their own (EmbeddingBag.cu, IndexKernel.cu …).
        from .match import INDEXING_OPS, index_args
        from .trace import explain_extern

        for c in m.calls:
            if c.kind != "extern" or (limit is not None and c.line >= limit) or m.device != "cuda":
                continue
            op = re.sub(r"_(out|two_out|two|default)$", "", extern_op_name(c.target))
            if op not in INDEXING_OPS and op.lstrip("_") not in INDEXING_OPS or not index_args(c)[1]:
                continue
            t = explain_extern(pkg, m, c, "candidate", "an ATen kernel assert (its line is missing)")
            fed = [o.input for o in t.index_origin if o.input]
            out.append({
                "model": m.name, "kernel": c.target, "message": f"ATen {op}: index out of range", "line": c.line,
                "launched_at": c.line,
                "reason": f"extern ATen op {op} called at wrapper.cpp line {c.line}"
                          + (f", before the call that reported the error (line {limit})" if limit else "")
                          + "; its CUDA kernel asserts on a bad index",
                "bound": t.bound.limit if t.bound else (str(t.static_bound) if t.static_bound is not None else None),
                "bound_input": asdict(t.bound.input) if t.bound and t.bound.input else None,
                "index_origin": [words.who(i) for i in fed] or ["?"], "verdict": t.verdict, "_fed": bool(fed),
            })
    if limit is not None:
        out.sort(key=lambda c: (-c["launched_at"], not c["_fed"]))
    else:
        out.sort(key=lambda c: (not c["_fed"], c["launched_at"]))
    for c in out:
        c.pop("_fed")
    return out


def _device_assert(pkg: Package, d: Diagnosis, rep: LogReport, model) -> Diagnosis:
    d.category = "device_assert"
    symptoms = [e.text for e in rep.events if e.pattern in ("device_side_assert", "cublas_error")]
    d.evidence = symptoms[:3] + [n.text for n in rep.noticed][:2]
    d.candidates = assert_candidates(pkg, rep, model)
    sym = ("a cuBLAS error" if rep.has("cublas_error") else
           "`device-side assert triggered`" if rep.has("device_side_assert") else "a failed API call")
    where = ""
    for n in rep.noticed:
        hit = site_for_noticed(pkg, n, model)
        if hit:
            where = f" at {hit[1].target} (wrapper.cpp line {hit[1].line})"
            d.notes.append(f"{n.call} at wrapper.cpp line {n.line} is where the error was noticed: a symptom, not "
                           "the failing kernel")
            break
    d.verdict = (f"a device-side assert fired; the log shows only its symptom, {sym}{where}. "
                 + (f"{len(d.candidates)} candidate assertions, most likely {d.candidates[0]['kernel']}"
                    if d.candidates else "no assertion in the package was launched before it"))
    d.steps = [step("Rerun with CUDA_LAUNCH_BLOCKING=1: the kernel's own `Assertion … failed` line is then printed "
                    "before the error; pass that log to `pt2-inspect diagnose` again.", {"CUDA_LAUNCH_BLOCKING": "1"}),
               step("Or check the inputs against the package now: `pt2-inspect check PKG --input …`.")]
    return d


def _load(d: Diagnosis, rep: LogReport, models: list[Model], log_lines: list[str] = ()) -> Diagnosis:
    d.category = "load"
    ev = [e for e in rep.events if e.category in ("load", "crash")]
    d.evidence = [e.text for e in ev][:4]
    m = models[0]
    dev = m.device or "?"
    cc = m.metadata.get("AOTI_COMPUTE_CAPABILITY")
    isa = m.metadata.get("AOTI_CPU_ISA")
    if any(e.pattern == "no_kernel_image" for e in ev):
        d.verdict = (f"the host cannot run this package: it was compiled for {dev}"
                     + (f" (compute capability {cc})" if cc else "") + "; the log says "
                     + next(e.text for e in ev if e.pattern == "no_kernel_image").strip()[:120])
        d.steps = [step(f"Load it on a host with {dev}" + (f" and a GPU of compute capability {cc}" if cc else "")
                        + " and a CUDA build of torch, or recompile the model for this host's device.")]
    elif (any(e.pattern == "isa_mismatch" for e in ev) or any("lack" in n and "cpuinfo" in n for n in d.notes)) \
            and not any(e.pattern in ("load_failure", "segfault") for e in ev):
        d.verdict = f"the package was compiled for CPU ISA {isa}, which this host does not fully have"
        d.evidence += [e.text[:200] for e in rep.events if e.pattern in ("isa_mismatch", "cpuinfo_flags")][:2]
        d.steps = [step("Recompile on the serving host (or a host with the same ISA).")]
    else:
        err = [e for e in rep.events if e.pattern == "load_failure"]
        last = next((ln.strip() for ln in reversed(log_lines) if re.match(r"\s*\w*(Error|Exception)\b.*:", ln)), None)
        d.verdict = "the package did not load: " + (last or (err[0].text if err else "see the log"))[:200]
        if last and last not in d.evidence:
            d.evidence.append(last)
        if last and "File not found" in last:
            d.notes.append("a member the loader needs is missing from the archive: the file was truncated or "
                           "repacked; `pt2-inspect show PKG` lists what it holds")
        d.steps = [step("Load it with the same torch version it was built with (`pt2-inspect show PKG`), on its "
                        f"device ({dev}); a missing symbol means a torch version mismatch."),
                   step("Get the C++ stack of the failure.", {"TORCH_SHOW_CPP_STACKTRACES": "1"})]
    return d
