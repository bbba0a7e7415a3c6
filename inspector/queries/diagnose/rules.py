"""The rules of `diagnose`, one per category, tried in the order of ``RULES``: the first that claims the log
answers it.  ``CATEGORIES`` (the same order) is the one list of categories: the JSON schema's enum, the module
docstring and the words (inspector.explain.diagnose.CATEGORY_DOC) are checked against it
(tests/test_diagnose_registry.py).

A rule reads ``Facts`` (the parsed log, the package's small facts) and fills a ``Diagnosis`` with typed parts.
It matches no text itself (the log's patterns are named in inspector.logs.patterns) and writes no sentence
(they are in inspector.explain.diagnose).

Adding a category: one ``Rule`` subclass here, placed in ``RULES``; its line patterns in
inspector/logs/patterns.py (``PATTERNS``, with the category's name); its words in inspector/explain/diagnose.py
(``CATEGORY_DOC`` and its verdict/steps); its name in the schema's enum (inspector/schemas/diagnose.schema.json).
"""

from __future__ import annotations

from functools import cached_property

import inspector.explain as words
from ...cpu_isa import isa_words_missing, isa_words_with_implied
from ...naming import C10_SCALAR_TYPES as SCALAR_TYPES
from ...explain import diagnose as say
from ...logs import LogEvent, LogReport, parse_log
from ...logs import patterns as P
from ...model import Model
from ...package import Package
from ..candidates import assert_candidates
from ..match import site_for_noticed
from ..kernel_binaries import cpp_build
from .results import Diagnosis, Evidence, InputCheck, IsaFinding, Step, step

# ---------------------------------------------------------------------------
# What every rule may read
# ---------------------------------------------------------------------------

# Extern calls that copy or allocate: never the failing op of a silent wrong result.
_NOT_OPS = ("aoti_torch_clone", "aoti_torch_copy", "aoti_torch_empty")

# A located check's evidence line, by ReportedAssert.kind: the pattern that found it.
_ASSERT_PATTERN = {"cuda": P.CUDA_ASSERT.name, "cpu": P.CPU_FROM.name, "aten": P.ATEN_ASSERT.name}


class Facts:
    """What the rules decide on: the log read once, the models' small facts (inputs, guards, symbols,
    metadata: ``ModelIndex.eager``; no kernel parsed), and the trace of a located check, made when first asked."""

    def __init__(self, pkg: Package, log: str, model: str | None, ep, against: str | None = None,
                 log_name: str | None = None):
        self.pkg, self.log, self.model, self.ep, self.against = pkg, log, model, ep, against
        self.log_name = log_name
        self.rep: LogReport = parse_log(log or "")
        names = [model] if model else pkg.model_names
        # A failed assert is traced through slices; only an illegal memory access or a device assert without its
        # line needs every kernel (the IMA rule and assert_candidates parse the whole model).
        self.models: list[Model] = [pkg.index(n).eager() for n in names]
        self.device = next((m.device for m in self.models if m.device), None)
        self.isa: list[IsaFinding] = [_with_tile_code(pkg, x) for x in isa_findings(self.rep, self.models)]
        # No line of torch's and no pattern but a crash line: another program's log (an npm run that segfaulted).
        # No rule may read a symptom in it as this package's: a bare "Segmentation fault" names no program.
        self.not_torch = (not self.rep.mentions("torch_said")
                          and all(e.pattern == "segfault" for e in self.rep.events))

    @cached_property
    def located(self):
        """The failing checks with their file and line (a Triton / CPU / ATen CUDA assert)."""
        return [r for r in self.rep.asserts if r.kind in ("cuda", "cpu", "aten")]

    @cached_property
    def trace(self):
        """The trace-assert answer, when the log holds a located check or an extern op's failure and it matched."""
        from ..trace import trace_assert

        rep = self.rep
        extern_text = rep.has("exception_in_aoti_torch") and not rep.has("cublas_error") and not rep.noticed
        cpu_extern = self.device == "cpu" and any(n.error for n in rep.noticed)
        if not (self.located or extern_text or cpu_extern):
            return None
        t = trace_assert(self.pkg, log=self.log, model=self.model, ep=self.ep, log_name=self.log_name)
        return t if t.matches else None

    @cached_property
    def weightless(self) -> list[tuple[str, int, int]]:
        """(model, constants, bytes) of each model built without its weights (a constants blob of at most 64 bytes
        in its .so): read once, by ranges of the .so, when a crash makes it matter."""
        from ..doctor import weights_blob_bytes

        out = []
        for m in self.models:
            blob = weights_blob_bytes(self.pkg, m.name)
            if blob is not None and blob <= 64:
                consts = self.pkg.index(m.name).constants()
                if consts:
                    out.append((m.name, len(consts), sum(c.nbytes or 0 for c in consts)))
        return out

    @cached_property
    def standalone(self) -> bool:
        """A model of the package is a compile_standalone CMake project (libtorch-free: no loader in Python runs it)."""
        from ..doctor import cmake_project

        return any(cmake_project(self.pkg, m.name) == "standalone" for m in self.models)

    @cached_property
    def crashed_at_load(self) -> bool:
        """A segfault whose stack shows the loader and not the model's run."""
        return self.rep.has("segfault") and self.rep.mentions("at_load") and not self.rep.mentions("at_run")

    def input_check(self) -> tuple[LogEvent, str] | None:
        """The first runtime input check in the log and its kind (``input_check_kind``)."""
        ev = self.rep.first("input_check")
        return (ev, input_check_kind(ev.fields.get("what", ""))) if ev is not None else None


def isa_findings(rep: LogReport, models: list[Model]) -> list[IsaFinding]:
    """The host's CPU features, from a /proc/cpuinfo flags line or torch's ISA warning, against each model's."""
    out = []
    ev = rep.first("cpuinfo_flags")
    if ev is not None:
        flags = set(ev.fields.get("flags", "").split())
        for m in models:
            need = tuple((m.metadata.get("AOTI_CPU_ISA") or "").split())
            missing = isa_words_missing(need, flags)  # the one table doctor reads too (inspector.cpu_isa)
            if missing:
                out.append(IsaFinding("cpuinfo_lacks", m.name, need, missing))
            elif need:
                out.append(IsaFinding("cpuinfo_covers", m.name, need))
    for e in rep.events:
        if e.pattern != "isa_mismatch":
            continue
        a, b = e.fields.get("package", ""), e.fields.get("host", "")
        for m in models:
            pkg_isa = (m.metadata.get("AOTI_CPU_ISA") or "").split()
            if not pkg_isa or e.fields.get("key") != "AOTI_CPU_ISA":
                continue
            host = b.split() if sorted(a.split()) == sorted(pkg_isa) else a.split()
            have = isa_words_with_implied(host)  # a host torch calls AVX512 runs AVX2 code too
            missing = tuple(x for x in pkg_isa if x not in have)
            out.append(IsaFinding("host_lacks" if missing else "host_covers", m.name, tuple(pkg_isa), missing,
                                  tuple(host), e.text))
            break
    return out


def _with_tile_code(pkg: Package, x: IsaFinding) -> IsaFinding:
    """A missing ISA that is only AMX, in a package whose kernels have no AMX tile code, does not stop it (AMX is
    reached only through tile intrinsics; seen: cpu/embedding ran correctly on a host without AMX)."""
    from dataclasses import replace

    from ..doctor import uses_amx

    if x.missing and all(m.startswith("AMX") for m in x.missing) and not uses_amx(pkg, x.model):
        return replace(x, harmless=True)
    return x


def input_check_kind(what: str) -> str:
    """What a runtime input check rejected: "range" | "dtype" | "device" | "size" | "stride" | "other"."""
    for kind, p in (("range", P.INPUT_RANGE), ("dtype", P.INPUT_DTYPE), ("device", P.INPUT_DEVICE),
                    ("size", P.INPUT_SIZE), ("stride", P.INPUT_STRIDE)):
        if p.search(what):
            return kind
    return "other"


def _ev(events, limit: int | None = None) -> list[Evidence]:
    return [Evidence(e.text, e.pattern) for e in events][:limit]


# ---------------------------------------------------------------------------
# The rules
# ---------------------------------------------------------------------------


class Rule:
    """One category: ``claims`` says whether the log is this rule's, ``answer`` fills the diagnosis.
    ``by_package``: claimed from what the package is (with a symptom such as a segfault), not from a line
    pattern of its own."""

    category: str = ""
    by_package: bool = False

    def claims(self, f: Facts) -> bool:
        raise NotImplementedError

    def answer(self, f: Facts, d: Diagnosis) -> None:
        raise NotImplementedError


def _checked(assertion) -> bool | None:
    return assertion.get("checked") if isinstance(assertion, dict) else getattr(assertion, "checked", None)


class _Traced(Rule):
    """A located failing check the trace found in the package: the full trace-assert answer."""

    def answer(self, f: Facts, d: Diagnosis) -> None:
        t, rep = f.trace, f.rep
        d.trace = t
        d.verdict = t.verdict
        for r in f.located[:3]:
            if r.kind == "cpu" and r.message:
                d.evidence.append(Evidence(r.message, P.CPU_MSG.name))
            d.evidence.append(Evidence(r.first_text, _ASSERT_PATTERN[r.kind]))
        d.evidence += [Evidence(n.text, P.NOTICED.name) for n in rep.noticed][:2]
        d.evidence += [Evidence(f"{n.error}", P.NOTICED_ERROR.name) for n in rep.noticed[:1] if n.error]
        self.more(f, d)
        d.steps = [step(say.TRACE_CHECK_INDEX)]
        # A device assert's own line (file, line, block, thread) already names the failing kernel: rerunning with
        # CUDA_LAUNCH_BLOCKING=1 would tell nothing new.
        if f.device == "cuda" and not any(r.kind == "cuda" for r in f.located):
            blocking = step(say.TRACE_LAUNCH_BLOCKING, {"CUDA_LAUNCH_BLOCKING": "1"})
            # several calls could have failed: the rerun that names the one comes first
            d.steps = [blocking] + d.steps if t.ambiguous else d.steps + [blocking]
        d.notes += t.hints + t.context

    def more(self, f: Facts, d: Diagnosis) -> None:
        pass


def _nan_check(f: Facts) -> bool:
    """The located, traced check is a Triton kernel's NaN/Inf assert (TORCHINDUCTOR_RUNTIME_TRITON_NAN_ASSERTS)."""
    return f.trace is not None and bool(P.REGISTRY["nan_inf_triton"].search(f.trace.matches[0].assertion.message or ""))


class ExternOp(_Traced):
    category = "extern_op"

    def claims(self, f: Facts) -> bool:
        # the proxy executor's call failing because the runtime has none, or a custom op missing, is custom_op's
        return (f.trace is not None and f.trace.matches[0].kernel_kind == "extern"
                and not f.rep.has("custom_op_missing", "no_proxy_executor"))

    def more(self, f: Facts, d: Diagnosis) -> None:
        ev = f.rep.first("exception_in_aoti_torch")
        if ev:
            d.evidence.append(Evidence(ev.text, ev.pattern))
        if any(m.kernel_kind == "extern" and _checked(m.assertion) is False for m in f.trace.matches):
            d.notes.append(say.UNCHECKED_EXTERN)


class IndexAssert(_Traced):
    category = "index_assert"

    def claims(self, f: Facts) -> bool:
        # a Triton kernel's NaN/Inf assert (TORCHINDUCTOR_RUNTIME_TRITON_NAN_ASSERTS) is located like an index
        # check, but it is nan_inf's
        return f.trace is not None and f.trace.matches[0].kernel_kind != "extern" and not _nan_check(f)


class ForeignLog(Rule):
    """The log names its failing check's file and line, and no assertion of this package is it: the log comes
    from another package or another build of the same model.  Never answered with this package's candidates."""

    category = "foreign_log"
    by_package = True

    def claims(self, f: Facts) -> bool:
        return bool([r for r in f.located if r.kind in ("cuda", "cpu")]) and f.trace is None

    def answer(self, f: Facts, d: Diagnosis) -> None:
        from ..trace import trace_assert

        t = trace_assert(f.pkg, log=f.log, model=f.model, ep=f.ep, log_name=f.log_name)
        d.verdict = t.verdict or say.FOREIGN_LOG
        d.evidence = [Evidence(r.first_text, _ASSERT_PATTERN[r.kind]) for r in f.located[:3]]
        d.notes += t.hints[-1:]
        d.steps = [step(say.FOREIGN_STEP)]


def _deprecated_apis(rep: LogReport) -> list[str]:
    """The deprecated entry points the log names (those a traceback shows called, when it shows any)."""
    ev = [e for e in rep.events if e.pattern == "deprecated_api"]
    called = [e for e in ev if e.fields.get("api3")]
    return sorted({e.fields.get("api") or e.fields.get("api2") or e.fields.get("api3") for e in (called or ev)} - {None})


class DeprecatedApi(Rule):
    """The deprecated torch._export.aot_compile / aot_load failed to load what it was given.  A run through them that
    fails for another reason (an input check, an index assert; torch prints the deprecation warning on every call) is
    that failure's, with the API in a note."""

    category = "deprecated_api"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("deprecated_api") and f.rep.has("load_failure")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        rep = f.rep
        ev = [e for e in rep.events if e.pattern == "deprecated_api"]
        apis = _deprecated_apis(rep)
        d.verdict = say.deprecated_verdict(apis)
        d.evidence = _ev(ev, 3) + _ev([e for e in rep.events if e.pattern == "load_failure"], 2)
        if rep.events_say(P.NOT_ELF.name):
            d.notes.append(say.NOT_ELF)
        d.steps = [step(say.DEPRECATED_COMPILE), step(say.DEPRECATED_LOAD)]


def _device_name(text: str) -> str:
    """``11(cuda)`` -> cuda; ``0`` -> cpu (the AOTI device-type code the check prints without a name)."""
    mm = P.DEVICE_CODE.search(text)
    if mm:
        return mm.group("name")
    return {"0": "cpu"}.get(text, text)


def _ep_for(f: Facts, m: Model):
    """The exported program to name inputs with: --ep when it fits the model, else the packaged one."""
    from ...parse.exported_program import packaged_ep

    ep = f.ep
    if ep is None and f.pkg is not None:
        ep = packaged_ep(f.pkg, m.name)
    if ep is not None and len(ep.user_inputs) != len(m.inputs):  # its inputs are not the model's
        return None
    return ep


def _answer_runtime_check(f: Facts, d: Diagnosis, ev: LogEvent, kind: str) -> None:
    """A runtime input check (AOTI_RUNTIME_CHECK_INPUTS=1) named the input: what it is, what it must be."""
    models = f.models
    m = models[0]
    idx = int(ev.fields["input"])
    what = ev.fields.get("what", "")
    if len(models) > 1:
        m = next((x for x in models if idx < len(x.inputs)), models[0])
    inp = next((i for i in m.inputs if i.index == idx), None)
    ic = InputCheck(input=idx, wrapper_name=inp.name if inp else None, message=what, kind=kind)
    d.evidence = [Evidence(ev.text, ev.pattern)]
    ep = _ep_for(f, m)
    if ep is not None:
        ic.user_name = ep.user_name(idx)
    label = say.input_label(idx, ic.wrapper_name, ic.user_name)
    if kind == "range":
        mm = P.INPUT_RANGE.search(what)
        dim, got = int(mm.group("dim")), int(mm.group("got"))
        sym = next((s for s in m.symbols.values() if s.input == idx and s.dim == dim and not s.alias_of), None)
        ic.dim, ic.got, ic.expected = dim, got, f"{mm.group('op')} {mm.group('limit')}"
        if sym:
            ic.symbol, ic.min, ic.max = sym.name, sym.min, sym.max
        rng = f"{ic.min}..{ic.max}" if sym else ic.expected
        ic.fix = say.range_fix(dim, got, rng, mm.group("dir") == "large", ic.max if sym else mm.group("limit"))
        d.verdict = say.range_verdict(label, dim, ic.symbol, got, rng)
    elif kind == "dtype":
        mm = P.INPUT_DTYPE.search(what)
        exp, got = int(mm.group("exp")), int(mm.group("got"))
        ic.expected, ic.got = SCALAR_TYPES.get(exp, str(exp)), SCALAR_TYPES.get(got, str(got))
        ic.fix = say.dtype_fix(ic.expected)
        d.verdict = say.dtype_verdict(label, ic.got, got, ic.expected, exp)
    elif kind == "device":
        mm = P.INPUT_DEVICE.search(what)
        ic.expected, ic.got = _device_name(mm.group("exp")), _device_name(mm.group("got"))
        ic.fix = say.device_fix(m.device)
        d.verdict = say.device_verdict(label, ic.got, mm.group("got"), ic.expected, mm.group("exp"), m.device)
    elif kind in ("size", "stride"):
        mm = (P.INPUT_SIZE if kind == "size" else P.INPUT_STRIDE).search(what)
        ic.dim, ic.expected, ic.got = int(mm.group("dim")), int(mm.group("exp")), int(mm.group("got"))
        ic.fix = say.static_fix(kind)
        d.verdict = say.static_verdict(label, kind, ic.dim, ic.got, ic.expected)
    else:
        d.verdict = say.other_check_verdict(label, what)
    d.input_check = ic
    d.steps = [step(ic.fix or say.FIX_INPUT), step(say.CHECK_ALL_INPUTS),
               step(say.KEEP_CHECKS_ON, {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]


def _answer_size_assert(f: Facts, d: Diagnosis, ev: LogEvent) -> None:
    """``expected size 3==4, stride 8==8 at dim=0`` names no input: the inputs whose dim shares a symbol
    (or a static size) with another input are the candidates."""
    dim, got, exp = int(ev.fields["dim"]), int(ev.fields["got"]), int(ev.fields["exp"])
    cands = []
    for m in f.models:
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
    d.evidence = [Evidence(ev.text, ev.pattern)]
    if cands:
        inp, sym = cands[0]
        other = say.equal_other(sym.input if sym else None, sym.dim if sym else None)
        d.input_check = InputCheck(
            input=inp.index, wrapper_name=inp.name, kind="equal", dim=dim, symbol=sym.name if sym else None,
            min=sym.min if sym else None, max=sym.max if sym else None, expected=exp, got=got, message=ev.text,
            fix=say.equal_fix(inp.index, dim, other, exp))
        d.verdict = say.equal_verdict(inp.index, inp.name, dim, got, other, exp, sym.name if sym else None)
    else:
        d.verdict = say.unnamed_size_verdict(dim, got, exp)
    d.steps = [step(d.input_check.fix if d.input_check else say.SIZES_AGREE), step(say.CHECK_ALL_INPUTS)]


class InputCheckRule(Rule):
    """The runtime input checks (or the wrapper's size assert) rejected an input; one on the wrong device is
    ``device_mismatch``'s."""

    category = "input_check"

    def claims(self, f: Facts) -> bool:
        check = f.input_check()
        return check[1] != "device" if check else f.rep.has("size_assert")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        check = f.input_check()
        if check:
            _answer_runtime_check(f, d, *check)
        else:
            _answer_size_assert(f, d, f.rep.first("size_assert"))


class DeviceMismatch(Rule):
    category = "device_mismatch"

    def claims(self, f: Facts) -> bool:
        check = f.input_check()
        return (check is not None and check[1] == "device") or f.rep.has("device_mismatch")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        check = f.input_check()
        if check is not None and check[1] == "device":
            return _answer_runtime_check(f, d, *check)
        key = next((m.device for m in f.models if m.device), "?")
        evs = [e for e in f.rep.events if e.pattern == "device_mismatch"]
        d.evidence = _ev(evs, 3)
        pair = _device_pair(evs)
        if pair is not None:  # two GPUs of one type in one call: the indices, and which to move
            first, second, arg, method = pair
            d.evidence = _ev([e for e in evs if P.DEVICE_PAIR.search(e.text)], 1)
            d.verdict = say.device_index_verdict(first, second, arg, method)
            d.steps = [step(say.device_index_move(first, second, arg)),
                       step(say.DEVICE_INDEX_CHECK)]
            return
        d.verdict = say.mismatch_verdict(key)
        d.steps = [step(say.mismatch_move(key, f.models[0])),
                   step(say.CONFIRM_WITH_CHECKS, {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]


def _device_pair(evs) -> tuple[str, str, str | None, str | None] | None:
    """(other tensors' device, the named argument's device, argument, method) from c10's "Expected all tensors to
    be on the same device" text, when both are GPUs of one type with different indices."""
    for e in evs:
        mm = P.DEVICE_PAIR.search(e.text)
        if not mm:
            continue
        g = mm.groupdict()
        first, second = g.get("first") or g.get("first2"), g.get("second") or g.get("second2")
        arg, method = g.get("arg") or g.get("arg2"), g.get("method") or g.get("method2")
        if first and second and first.split(":")[0] == second.split(":")[0] != "cpu" and first != second:
            return first, second, arg, method
    return None


class IllegalMemoryAccess(Rule):
    """An illegal memory access, or a crash while the model ran: the package's unchecked indirect accesses."""

    category = "illegal_memory_access"

    def claims(self, f: Facts) -> bool:
        if f.rep.has("segfault"):
            return not f.crashed_at_load
        return f.rep.has("illegal_memory_access")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        from ..suspects import first_kernel_names, model_suspects

        pkg = f.pkg
        d.evidence = _ev([e for e in f.rep.events
                          if e.pattern in ("illegal_memory_access", "runner_failed", "segfault")], 3)
        key = next((m.device for m in f.models if m.device), "cuda")
        steps: list[Step] = []
        if key == "cuda":
            said = f.rep.first("illegal_memory_access")  # quote only a text the log holds
            steps.append(step(say.ima_on_cuda(key, said.text.strip() if said else None),
                              {"AOTI_RUNTIME_CHECK_INPUTS": "1"}))
            steps.append(step(say.IMA_DETERMINISTIC, {"CUDA_LAUNCH_BLOCKING": "1", "PYTORCH_NO_CUDA_MEMORY_CACHING": "1"},
                              "run"))
        else:
            steps.append(step(say.IMA_GDB, {"OMP_NUM_THREADS": "1"}, "run"))
        steps.append(step(say.IMA_PRINTER, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "3"}, "compile"))
        d.suspects = []
        for m in f.models:  # any unchecked load may be the one: the kernels whose text may hold one, parsed
            for s in model_suspects(pkg, m.name):
                d.suspects.append(dict(s, model=m.name))
        names = list(dict.fromkeys(s["kernel"] for s in d.suspects)) or [
            k for m in f.models for k in first_kernel_names(pkg, m.name, 8)]
        steps.append(step(say.IMA_PRINT_SUSPECTS, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "3",
                                                   "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": ",".join(names)},
                          "compile"))
        if d.suspects:
            steps.append(step(say.IMA_ASSERTS_ON, None, "compile"))
        d.steps = steps
        if d.suspects:
            s = d.suspects[0]
            d.verdict = say.ima_verdict(len(d.suspects), s, words.table_words(s["table"]), key == "cuda")
        else:
            d.verdict = say.ima_no_suspect_verdict(key == "cuda")


class DeviceAssert(Rule):
    """A device-side assert (or its symptom: a cuBLAS error, a failed call) without its Assertion line."""

    category = "device_assert"

    def claims(self, f: Facts) -> bool:
        rep = f.rep
        return (f.device != "cpu" and not rep.has("segfault")
                and (rep.has("device_side_assert", "cublas_error") or bool(rep.noticed)))

    def answer(self, f: Facts, d: Diagnosis) -> None:
        rep = f.rep
        d.evidence = _ev([e for e in rep.events if e.pattern in ("device_side_assert", "cublas_error")], 3)
        d.evidence += [Evidence(n.text, P.NOTICED.name) for n in rep.noticed][:2]
        d.candidates = assert_candidates(f.pkg, rep, f.model)
        symptom = ("cublas_error" if rep.has("cublas_error") else
                   "device_side_assert" if rep.has("device_side_assert") else "noticed")
        target = line = None
        for n in rep.noticed:
            hit = site_for_noticed(f.pkg, n, f.model)
            if hit:
                target, line = hit[1].target, hit[1].line
                d.notes.append(say.noticed_symptom(n.call, n.line))
                break
        d.verdict = say.device_assert_verdict(symptom, target, line, len(d.candidates),
                                              d.candidates[0].kernel if d.candidates else None)
        d.steps = [step(say.RERUN_FOR_LINE, {"CUDA_LAUNCH_BLOCKING": "1"}), step(say.CHECK_NOW)]


class Load(Rule):
    """The package did not load: the host lacks its device or ISA, a symbol, a member; or it crashed loading."""

    category = "load"

    def claims(self, f: Facts) -> bool:
        rep = f.rep
        lacking = [x for x in f.isa if x.kind in ("cpuinfo_lacks", "host_lacks") and not x.harmless]
        return (f.crashed_at_load or rep.has("load_failure", "no_kernel_image", "sigill")
                or (rep.has("isa_mismatch") and not rep.mentions("python_traceback") and bool(lacking))
                or any(x.kind == "cpuinfo_lacks" and not x.harmless for x in f.isa))

    def answer(self, f: Facts, d: Diagnosis) -> None:
        rep = f.rep
        ev = [e for e in rep.events if e.category in ("load", "crash")]
        d.evidence = _ev(ev, 4)
        m = f.models[0]
        dev = m.device or "?"
        cc = m.metadata.get("AOTI_COMPUTE_CAPABILITY")
        isa = m.metadata.get("AOTI_CPU_ISA")
        lacking = [x for x in f.isa if x.kind in ("cpuinfo_lacks", "host_lacks") and not x.harmless]
        if rep.has("sigill"):  # SIGILL: the ISA the package needs and the host lacks comes first (issue 22 §2)
            x = lacking[0] if lacking else None
            from ..doctor import built_native

            native = built_native(f.pkg, m.name)
            d.verdict = say.sigill_verdict(isa, " ".join(x.missing) if x else None,
                                           " ".join(x.host) if x and x.host else None, native)
            d.evidence = _ev([e for e in rep.events if e.pattern in ("isa_mismatch", "cpuinfo_flags")], 2) + _ev(
                [e for e in rep.events if e.pattern == "sigill"], 2)
            d.steps = [step(say.SIGILL_REBUILD_PORTABLE, {"TORCHINDUCTOR_CPP_MARCH": "x86-64-v3",
                                                          "ATEN_CPU_CAPABILITY": "avx2"}, "compile"),
                       step(say.SIGILL_REBUILD_ON_HOST), step(say.SIGILL_DOCTOR)]
            return
        if any(e.pattern == "no_kernel_image" for e in ev):
            d.verdict = say.no_device_verdict(dev, cc, next(e.text for e in ev if e.pattern == "no_kernel_image"))
            d.steps = [step(say.no_device_step(dev, cc))]
        elif (any(e.pattern == "isa_mismatch" for e in ev) or any(x.kind == "cpuinfo_lacks" for x in f.isa)) \
                and not any(e.pattern in ("load_failure", "segfault") for e in ev) \
                and any(x.kind in ("cpuinfo_lacks", "host_lacks") and not x.harmless for x in f.isa):
            d.verdict = say.isa_verdict(isa)
            d.evidence += [Evidence(e.text[:200], e.pattern) for e in rep.events
                           if e.pattern in ("isa_mismatch", "cpuinfo_flags")][:2]
            d.steps = [step(say.RECOMPILE_ON_HOST)]
        elif (img := next((e for e in rep.events if e.pattern == "undefined_kernel_image"), None)) is not None \
                and (build := cpp_build(f.pkg, f.pkg.files(m.name))) is not None:
            d.verdict = say.cmake_package_verdict(img.fields.get("symbol") or img.text)
            d.evidence = _ev([img], 1)
            d.steps = [step(say.cmake_build_step(build.needs(), (build.library or "").split(" ")[0] or None))]
        else:
            err = [e for e in rep.events if e.pattern == "load_failure"]
            raised = rep.lines_saying(P.EXCEPTION_LINE.name)
            last = raised[-1].strip() if raised else None
            d.verdict = say.not_loaded_verdict(last or (err[0].text if err else None))
            if last and last not in [e.text for e in d.evidence]:
                d.evidence.append(Evidence(last, P.EXCEPTION_LINE.name))
            if last and P.MISSING_MEMBER.search(last):
                d.notes.append(say.MISSING_MEMBER)
            d.steps = [step(say.same_torch_step(dev)),
                       step(say.CPP_STACK_LOAD, {"TORCH_SHOW_CPP_STACKTRACES": "1"})]


class Unknown(Rule):
    """None of the above: the general first steps, and the extern calls that would fail silently."""

    category = "unknown"
    by_package = True

    def claims(self, f: Facts) -> bool:
        return True

    def answer(self, f: Facts, d: Diagnosis) -> None:
        if f.not_torch:
            d.verdict = say.NOT_TORCH_VERDICT
            d.evidence = _ev(f.rep.events, 3) + [Evidence(ln, P.ERROR_LINE.name)
                                                 for ln in f.rep.lines_saying(P.ERROR_LINE.name)[:3]]
            d.notes.append(say.not_torch_note(say.TORCH_SAID_WORDS))
            d.steps = [step(say.NOT_TORCH_STEP)] + general_steps(f.models)
            return
        d.verdict = say.UNKNOWN_VERDICT
        for m in f.models:
            bare = [(target, st.line) for st, target, kind in f.pkg.index(m.name).calls()
                    if kind == "extern" and st.kind != "checked_call" and not target.startswith(_NOT_OPS)]
            if bare:
                d.notes.append(say.bare_extern_note(m.name, bare))
        d.evidence = [Evidence(ln, P.ERROR_LINE.name) for ln in f.rep.lines_saying(P.ERROR_LINE.name)[:5]]
        d.steps = general_steps(f.models)


# ---------------------------------------------------------------------------
# issue 15: the guide's other failures
# ---------------------------------------------------------------------------


def _wrapper_line_saying(f: Facts, text: str) -> int | None:
    """The 1-based wrapper line that holds ``text`` (the runtime assertion's own message), in the first model."""
    for m in f.models:
        wm = f.pkg.index(m.name).wmap
        for i, line in enumerate(wm.lines):
            if text in line:
                return i + 1
    return None


class SymbolicAssert(Rule):
    """``Expected u0 >= 10 but received 2``: a runtime assertion the wrapper throws on a symbolic size."""

    category = "symbolic_assert"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("symbolic_assert")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        ev = f.rep.first("symbolic_assert")
        cond, got = ev.fields.get("cond", ""), ev.fields.get("got", "")
        d.evidence = [Evidence(ev.text, ev.pattern)]
        line = _wrapper_line_saying(f, f'"Expected {cond} ')
        syms = [m.group("symbol") for m in P.SYMBOL_NAME.regex.finditer(cond)]
        symbol = syms[0] if syms else None
        origin = None
        unbacked = bool(symbol and symbol.startswith("u"))
        if symbol and unbacked:
            for m in f.models:
                for st, target, _kind in f.pkg.index(m.name).calls():
                    if f"&{symbol}_raw" in st.text or f"&{symbol})" in st.text:
                        origin = say.unbacked_origin(target, st.line)
                        break
        elif symbol:
            for m in f.models:
                sym = m.symbols.get(symbol)
                if sym is not None and sym.input is not None:
                    inp = m.inputs[sym.input] if sym.input < len(m.inputs) else None
                    label = say.input_label(sym.input, inp.name if inp else None,
                                              f.ep.user_name(sym.input) if f.ep else None)
                    rng = f"{sym.min if sym.min is not None else '?'}..{sym.max if sym.max is not None else '?'}"
                    origin = say.backed_origin(label, sym.dim, rng)
                    break
        d.verdict = say.symbolic_verdict(cond, got, line, symbol, origin)
        d.steps = [step(say.SYMBOLIC_FIX_UNBACKED if unbacked else say.SYMBOLIC_FIX_BACKED)]
        if not unbacked:
            d.steps.append(step(say.SYMBOLIC_CHECK))


class NanInf(Rule):
    """``At least one NaN in buf3`` / ``aoti_torch_check_inf_and_nan("buf3", …) API call failed``."""

    category = "nan_inf"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("nan_inf_input", "nan_inf_call", "nan_inf_triton") or _nan_check(f)

    def answer(self, f: Facts, d: Diagnosis) -> None:
        rep = f.rep
        evs = [e for e in rep.events if e.pattern in ("nan_inf_input", "nan_inf_call", "nan_inf_triton")]
        d.evidence = _ev(evs, 3)
        buf = next((e.fields["buf"] for e in evs if e.fields.get("buf")), None)
        what = say.nan_word(next((e.fields["what"] for e in evs if e.fields.get("what")), None))
        m = f.models[0]
        inp = next((i for i in m.inputs if i.name == buf), None) if buf else None
        if f.trace is not None and not buf:  # a Triton kernel's own NaN/Inf assert: the trace names the kernel
            mt = f.trace.matches[0]
            d.trace = f.trace
            d.evidence = _ev(evs, 1) + [Evidence(r.first_text, _ASSERT_PATTERN[r.kind]) for r in f.located[:1]]
            # read straight from an input (no buffer on the way): that input held it
            direct = any(o.input and not o.through_buffer for o in mt.index_origin)
            d.verdict = say.nan_kernel_verdict(f.trace.verdict, mt.file_line, mt.call_sites, mt.source_nodes)
            d.steps = ([step(say.NAN_CHECK_INPUT)] if direct else []) + [
                       step(say.NAN_PRINTER, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "2",
                                              "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": mt.kernel}, "compile")]
            d.notes += [h.text for h in mt.hypotheses[:1]]
            return
        if inp is not None:
            label = say.input_label(inp.index, inp.name, f.ep.user_name(inp.index) if f.ep else None)
            d.verdict = say.nan_input_verdict(what, label)
            d.steps = [step(say.NAN_CHECK_INPUT)]
        else:
            writer = line = None
            nodes: list[str] = []
            check_line = next((int(e.fields["line"]) for e in evs if e.fields.get("line")), None)
            from ..locate import calls_naming

            for st, target in calls_naming(f.pkg.index(m.name), buf) if buf else []:
                if not target.startswith("aoti_torch_check") and (check_line is None or st.line < check_line):
                    writer, line = target, st.line
            if writer:
                from ..locate import locate

                try:
                    nodes = [n for x in locate(f.pkg, kernel=writer, model=m.name).found for n in x.nodes][:8]
                except Exception:  # noqa: BLE001 - FX nodes are a bonus; the writer stands without them
                    nodes = []
            d.verdict = say.nan_buffer_verdict(what, buf or "a buffer", writer, line, nodes)
            d.steps = [step(say.NAN_PRINTER, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "2",
                                              **({"AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": writer} if writer else {})},
                            "compile")]
        if f.device == "cpu":
            d.notes.append(say.NAN_CPU_NOTE)


# Tensors Inductor folds into kernel code when they are 0-d or at most 8 elements (a head's bias, a
# BatchNorm's num_batches_tracked): a key ending so, of a module whose other tensors are constants, was one.
INLINED_LEAVES = ("bias", "num_batches_tracked")


class Printer(Rule):
    """The intermediate value printer's output: the first kernel whose output holds NaN/Inf (judged after it ran:
    an output printed before_launch is uninitialised memory), or, given a good run (``against``), the first
    kernel whose output differs materially; at level 3 the last kernel that started."""

    category = "printer"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("printer_block", "printer_mark")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        from ...logs import printer_blocks

        blocks = printer_blocks(f.log)
        d.evidence = _ev([e for e in f.rep.events if e.category == "printer"], 2)
        if not any(b.stats for b in blocks):  # level 3: names only
            started = [b for b in blocks if b.when == "mark:before_launch"]
            ended = {(b.kernel, b.call) for b in blocks if b.when == "mark:after_launch"}
            open_ = [b for b in started if (b.kernel, b.call) not in ended]
            last = open_[-1] if open_ else (started[-1] if started else None)
            d.verdict = say.printer_level3_verdict(last.kernel if last else None, bool(open_), self._line(f, last))
            d.steps = [step(say.PRINTER_LEVEL2, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "2"}, "compile")]
            return
        from ..printer import printer_finding

        pf = printer_finding(f.pkg, f.model, blocks, printer_blocks(f.against) if f.against is not None else None)
        d.printer = pf
        d.evidence = [Evidence(x, "printer") for x in pf.evidence()] or d.evidence
        d.verdict = say.printer_verdict(pf)
        d.steps = [step(say.PRINTER_AGAINST)] if f.against is None else []
        d.steps.append(step(say.PRINTER_LOCATE))
        d.notes.append(say.PRINTER_BEFORE_LAUNCH)

    @staticmethod
    def _line(f: Facts, b) -> int | None:
        if b is None:
            return None
        lines = sorted(st.line for m in f.models for st, target, _k in f.pkg.index(m.name).calls() if target == b.kernel)
        return lines[b.call - 1] if 0 < b.call <= len(lines) else (lines[0] if lines else None)


class Constants(Rule):
    """load_constants / update_constant_buffer refused the map."""

    category = "constants"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("constant_not_found", "constants_map_missing", "constant_device", "weights_corrupt",
                         "constant_not_provided")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        rep = f.rep
        evs = [e for e in rep.events if e.category == "constants"]
        d.evidence = _ev(evs, 3)
        m = f.models[0]
        consts = f.pkg.index(m.name).constants()
        by_fqn = {c.fqn or c.name: c for c in consts}
        by_name = {c.name: c for c in consts}
        e = evs[0]
        if e.pattern == "constant_not_found":
            key = e.fields.get("fqn", "")
            owner = key.rsplit(".", 1)[0] if "." in key else ""
            if "." in key and key.split(".", 1)[1] in by_fqn:
                why = say.WHY_PREFIX
            elif key.rsplit(".", 1)[-1] in INLINED_LEAVES and any(c.startswith(owner + ".") for c in by_fqn):
                why = say.WHY_INLINED  # a module whose other tensors are constants: its small bias was folded
            else:
                why = say.WHY_UNKNOWN
            d.verdict = say.constant_not_found_verdict(key, why)
        elif e.pattern == "constants_map_missing":
            name = e.fields.get("name", "")
            c = by_name.get(name)
            d.verdict = say.constant_missing_verdict(name, c.fqn if c else None)
        elif e.pattern == "constant_not_provided":
            names = list(dict.fromkeys(x.fields.get("name", "") for x in evs if x.pattern == "constant_not_provided"))
            fqns = [by_name[n].fqn if n in by_name and by_name[n].fqn else n for n in names]
            kinds = {by_name[n].kind for n in names if n in by_name}
            d.verdict = say.constants_not_provided_verdict(names, fqns, "Buffer" in kinds,
                                                           f.rep.has("illegal_memory_access", "segfault", "cublas_error"))
        elif e.pattern == "constant_device":
            d.verdict = say.constant_device_verdict(e.fields.get("name", ""), e.fields.get("got", "?"),
                                                    e.fields.get("exp", "?"))
        else:
            d.verdict = say.CONSTANTS_CORRUPT
        d.steps = [step(say.CONSTANTS_DOCTOR)]


class OutOfMemory(Rule):
    """``CUDA out of memory. Tried to allocate 596.05 GiB``: the allocation the wrapper made (its line in the
    failed call), the buffer's size formula, and the package's constant bytes."""

    category = "out_of_memory"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("out_of_memory")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        from ..memory import human_bytes, memory_plan

        ev = f.rep.first("out_of_memory")
        d.evidence = [Evidence(ev.text, ev.pattern)] + [Evidence(n.text, P.NOTICED.name) for n in f.rep.noticed[:1]]
        size = ev.fields.get("size") or (human_bytes(int(ev.fields["bytes"])) if ev.fields.get("bytes") else "?")
        alloc = None
        consts = 0
        lines = {n.line for n in f.rep.noticed}  # the failed allocation's wrapper line
        for m in f.models:
            consts += f.pkg.index(m.name).constant_totals().get("nbytes") or 0
            if lines:
                try:
                    plan = memory_plan(f.pkg, m.name)
                except Exception:  # noqa: BLE001 - the verdict stands without the buffer's formula
                    continue
                alloc = next((a for a in plan.allocations if a.line in lines), alloc)
        # who refused: the caching allocator (names the size), the CPU allocator (bytes), or the CUDA runtime
        # (cache off) / driver (a kernel's module load or launch) with no size at all
        source = ("driver" if ev.fields.get("driver") else "runtime" if ev.fields.get("runtime") else
                  "cublas" if ev.fields.get("cublas") else "cpu" if ev.fields.get("bytes") else "allocator")
        if source in ("driver", "runtime", "cublas"):
            size = None
        if source == "cublas":  # cuBLAS's own handle / workspace: no buffer of the wrapper's
            lines = set()
            alloc = None
        d.verdict = say.oom_verdict(size, ev.fields.get("free"), ev.fields.get("total"),
                                    (alloc.buffer, alloc.line, alloc.formula()) if alloc else None,
                                    human_bytes(consts) if consts else None, source)
        d.steps = [step(say.OOM_SIZES), step(say.OOM_DOCTOR)]
        if source in ("driver", "cublas", "runtime"):  # no size named: the GPU may have been full before
            d.steps.insert(0 if source != "runtime" else 1, step(say.OOM_DRIVER))
        if ev.fields.get("free") and ev.fields.get("size"):
            d.steps.append(step(say.OOM_FRAGMENTATION, {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}))


class CustomOp(Rule):
    """``Could not find schema for mylib::op``: a custom op the serving process has not registered."""

    category = "custom_op"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("custom_op_missing", "no_proxy_executor")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        evs = [e for e in f.rep.events if e.category == "custom_op"]
        d.evidence = _ev(evs, 2)
        op = next((e.fields["op"].rstrip(".") for e in evs if e.fields.get("op")), None)
        calls = [st.line for m in f.models for st, target, _k in f.pkg.index(m.name).calls()
                 if target == "aoti_torch_proxy_executor_call_function"]
        if op:
            d.verdict = say.custom_op_verdict(op, calls)
            d.steps = [step(say.custom_op_step(op))]
        else:
            json_members = [x for m in f.models for x in f.pkg.files(m.name).other if x.endswith(".wrapper.json")]
            d.verdict = say.no_proxy_verdict(calls, bool(json_members))
            d.steps = [step(say.custom_op_step(None) if json_members else say.NO_PROXY_REBUILD)]


class TorchVersion(Rule):
    """The loading torch lacks a C-shim symbol the .so calls, or reads an older archive layout."""

    category = "torch_version"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("rootless_loader") or (f.rep.has("undefined_shim_symbol") and not f.standalone)

    def answer(self, f: Facts, d: Diagnosis) -> None:
        evs = [e for e in f.rep.events if e.category == "torch_version"]
        d.evidence = _ev(evs, 2)
        sym = next((e.fields["symbol"] for e in evs if e.fields.get("symbol")), None)
        if sym:
            from ..doctor import shim_table

            first = (shim_table()["symbols"].get(sym) or [None])[0]
            d.verdict = say.torch_symbol_verdict(sym, first)
            d.steps = [step(say.torch_symbol_step(first))]
        else:
            d.verdict = say.ROOTLESS_VERDICT
            d.steps = [step(say.ROOTLESS_STEP)]


class WrongArtifact(Rule):
    """An exported program given to aoti_load_package, or an AOTInductor package to torch.export.load."""

    category = "wrong_artifact"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("no_aoti_model", "export_load_failed") or (f.rep.has("undefined_shim_symbol") and f.standalone)

    def answer(self, f: Facts, d: Diagnosis) -> None:
        if f.standalone and not f.rep.has("no_aoti_model", "export_load_failed"):
            # compile_standalone: the loader compiled the libtorch-free library and dlopen could not bind the shim
            evs = [e for e in f.rep.events if e.pattern == "undefined_shim_symbol"]
            d.evidence = _ev(evs, 2)
            d.verdict = say.standalone_loaded_verdict(next((e.fields.get("symbol") for e in evs), None))
            d.steps = [step(say.STANDALONE_STEP)]
            # torch prints `Loading outdated pt2 file` before it tries the package (seen on this log): not its age
            d.notes = [n for n in d.notes if n != say.OLD_PACKAGE]
            return
        evs = [e for e in f.rep.events if e.category == "wrong_artifact"]
        d.evidence = _ev(evs, 2)
        d.verdict = say.WRONG_EXPORT_TO_AOTI if evs[0].pattern == "no_aoti_model" else say.WRONG_AOTI_TO_EXPORT
        d.steps = [step(say.WRONG_KIND_STEP)]


class WeightsNotLoaded(Rule):
    """A crash while running a package built without its weights (a segfault on CPU, an illegal memory access on
    CUDA): load_constants was never called."""

    category = "weights_not_loaded"
    by_package = True

    def claims(self, f: Facts) -> bool:
        crashed = (f.rep.has("segfault") and not f.crashed_at_load) or f.rep.has("illegal_memory_access")
        return crashed and bool(f.weightless)

    def answer(self, f: Facts, d: Diagnosis) -> None:
        from ..doctor import weights_blob_member, weights_on_disk

        d.evidence = _ev([e for e in f.rep.events if e.pattern in ("segfault", "illegal_memory_access")], 2)
        name, n, nbytes = f.weightless[0]
        blob = weights_blob_member(f.pkg, name)
        if blob:  # binary_blob: aoti_load_package loads the blob itself; a crash means the .so was loaded without it
            d.verdict = say.weights_blob_not_loaded_verdict(n, nbytes, blob[0].rsplit("/", 1)[-1], blob[1])
            d.steps = [step(say.WEIGHTS_BLOB_STEP), step(say.WEIGHTS_LOAD_STEP)]
            return
        disk = weights_on_disk(f.pkg, name)
        if disk:  # pickle_weights: the package carries them; only the loader that reads them loads them
            _, pickled, disk_bytes = disk
            d.verdict = say.weights_beside_not_loaded_verdict(n, nbytes, len(pickled), disk_bytes, name)
            d.steps = [step(say.weights_from_disk_step(name)), step(say.WEIGHTS_LOAD_STEP)]
            return
        d.verdict = say.weights_not_loaded_verdict(n, nbytes)
        d.steps = [step(say.WEIGHTS_LOAD_STEP)]


def general_steps(models: list[Model]) -> list[Step]:
    dev = next((m.device for m in models if m.device), "cpu")
    out = [step(say.GENERAL_COMPARE), step(say.GENERAL_CHECKS, {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]
    if dev == "cuda":
        out.append(step(say.GENERAL_SYNC, {"CUDA_LAUNCH_BLOCKING": "1"}))
    else:
        out.append(step(say.GENERAL_ONE_THREAD, {"OMP_NUM_THREADS": "1"}))
    out.append(step(say.GENERAL_CPP_STACK, {"TORCH_SHOW_CPP_STACKTRACES": "1"}))
    return out


# The order rules are tried in: a located, traced check first (index_assert and extern_op exclude each other); "unknown" last (it claims every log).
RULES: list[Rule] = [IndexAssert(), ExternOp(), ForeignLog(), DeprecatedApi(), SymbolicAssert(), NanInf(), Printer(), Constants(),
                     OutOfMemory(), CustomOp(),
                     TorchVersion(), WrongArtifact(), InputCheckRule(), DeviceMismatch(), WeightsNotLoaded(),
                     IllegalMemoryAccess(), DeviceAssert(), Load(), Unknown()]
CATEGORIES: tuple[str, ...] = tuple(r.category for r in RULES)


def _certainty(d: Diagnosis) -> str:
    """How sure the verdict is: a trace's own certainty (its hypotheses' evidence); a runtime check's or the
    runtime's own message about one input is certain; a category read from a log line, likely; none, possible."""
    if d.trace is not None and getattr(d.trace, "matches", None):
        return d.trace.certainty
    if d.category == "unknown" or not d.evidence:
        return "possible"
    if d.input_check is not None:
        return "certain"
    if d.category == "device_assert" and d.candidates:
        return "possible"  # the Assertion line is missing: which check fired is a ranked guess
    return "likely"


def diagnose(pkg: Package, log: str, model: str | None = None, ep=None, against: str | None = None,
             log_name: str | None = None) -> Diagnosis:
    """Classify ``log`` against ``pkg`` and say what to do next: the first rule of ``RULES`` that claims it answers.
    ``against``: the log of a good run (the printer's output is compared kernel by kernel)."""
    if model is not None:
        pkg.files(model)
    f = Facts(pkg, log, model, ep, against, log_name)
    d = Diagnosis(package=str(pkg.path), category="unknown", verdict="")
    d.notes += list(dict.fromkeys(say.isa_note(x) for x in f.isa))
    if f.rep.has("old_package"):
        d.notes.append(say.OLD_PACKAGE)
    for rule in (RULES if not f.not_torch else RULES[-1:]):  # another program's log: only "unknown" answers
        if rule.claims(f):
            d.category = rule.category
            rule.answer(f, d)
            break
    if d.category != DeprecatedApi.category and f.rep.has("deprecated_api"):
        d.notes.append(say.deprecated_note(_deprecated_apis(f.rep)))
    d.certainty = _certainty(d)
    if not any(i.guards for m in f.models for i in m.inputs):  # torch 2.6: no check_input_K compiled in
        d.steps = [Step(s.do + say.NO_GUARDS_COMPILED, s.env, "compile") if "AOTI_RUNTIME_CHECK_INPUTS" in s.env else s
                   for s in d.steps]
    return d
