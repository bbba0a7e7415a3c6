"""What the inputs were checked against: the runtime input checks and the wrapper's size assert (``input_check``),
and the wrapper's runtime assertions on symbolic sizes (``symbolic_assert``)."""

from __future__ import annotations

from ....explain import diagnose as say
from ....index.records import RuntimeAssert
from ....logs import facts as logged
from ....model import Model
from ....naming import C10_SCALAR_TYPES
from ..results import Diagnosis, Evidence, InputCheck, step
from .base import Observations, Rule


def _ep_for(obs: Observations, m: Model):
    """The exported program to name inputs with: --ep when it fits the model, else the packaged one."""
    from ....parse.exported_program import packaged_ep

    ep = obs.ep
    if ep is None and obs.pkg is not None:
        ep = packaged_ep(obs.pkg, m.name)
    if ep is not None and len(ep.user_inputs) != len(m.inputs):  # its inputs are not the model's
        return None
    return ep


def _answer_runtime_check(obs: Observations, d: Diagnosis, ev: logged.InputCheck) -> None:
    """A runtime input check (AOTI_RUNTIME_CHECK_INPUTS=1) named the input: what it is, what it must be."""
    models = obs.models
    m = models[0]
    idx, what, kind = ev.input, ev.what, ev.kind
    if len(models) > 1:
        m = next((x for x in models if idx < len(x.inputs)), models[0])
    inp = next((i for i in m.inputs if i.index == idx), None)
    ic = InputCheck(input=idx, wrapper_name=inp.name if inp else None, message=what, kind=kind)
    d.evidence = [Evidence(ev.printed, ev.pattern)]
    ep = _ep_for(obs, m)
    if ep is not None:
        ic.user_name = ep.user_name(idx)
    label = say.input_label(idx, ic.wrapper_name, ic.user_name)
    if kind == "range":
        dim, got = ev.dim, ev.got
        sym = next((s for s in m.symbols.values() if s.input == idx and s.dim == dim and not s.alias_of), None)
        ic.dim, ic.got, ic.expected = dim, got, f"{ev.bound} {ev.limit}"
        if sym:
            ic.symbol, ic.min, ic.max = sym.name, sym.min, sym.max
        rng = f"{ic.min}..{ic.max}" if sym else ic.expected
        ic.fix = say.range_fix(dim, got, rng, ev.too == "large", ic.max if sym else ev.limit)
        d.verdict = say.range_verdict(label, dim, ic.symbol, got, rng)
    elif kind == "dtype":
        exp, got = ev.expected, ev.got
        ic.expected, ic.got = C10_SCALAR_TYPES.get(exp, str(exp)), C10_SCALAR_TYPES.get(got, str(got))
        use = None
        if ic.expected == "bool" and ic.got.startswith(("float", "bfloat")) and obs.pkg is not None:
            from ...mask_reading import mask_reading

            use = mask_reading(obs.pkg, m.name, idx)
            if use is not None:
                ic.mask_keeps, ic.mask_kernel, ic.mask_line = use.keeps, use.kernel, use.line
        ic.fix = say.dtype_fix(ic.expected, ic.got, use)
        d.verdict = say.dtype_verdict(label, ic.got, got, ic.expected, exp)
    elif kind == "device":
        ic.expected, ic.got = ev.expected_device_name, ev.got_device_name
        ic.fix = say.device_fix(m.device)
        d.verdict = say.device_verdict(label, ic.got, ev.got_device, ic.expected, ev.expected_device, m.device)
    elif kind in ("size", "stride"):
        ic.dim, ic.expected, ic.got = ev.dim, ev.expected, ev.got
        ic.fix = say.static_fix(kind)
        d.verdict = say.static_verdict(label, kind, ic.dim, ic.got, ic.expected)
    else:
        d.verdict = say.other_check_verdict(label, what)
    d.input_check = ic
    d.steps = [step(ic.fix or say.FIX_INPUT), step(say.CHECK_ALL_INPUTS),
               step(say.KEEP_CHECKS_ON, {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]


def _answer_size_assert(obs: Observations, d: Diagnosis, ev: logged.SizeAssert) -> None:
    """``expected size 3==4, stride 8==8 at dim=0`` names no input: the inputs whose dim shares a symbol
    (or a static size) with another input are the candidates."""
    dim, got, exp = ev.dim, ev.got, ev.expected
    cands = []
    for m in obs.models:
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
    d.evidence = [Evidence(ev.printed, ev.pattern)]
    if cands:
        inp, sym = cands[0]
        other = say.equal_other(sym.input if sym else None, sym.dim if sym else None)
        d.input_check = InputCheck(
            input=inp.index, wrapper_name=inp.name, kind="equal", dim=dim, symbol=sym.name if sym else None,
            min=sym.min if sym else None, max=sym.max if sym else None, expected=exp, got=got, message=ev.printed,
            fix=say.equal_fix(inp.index, dim, other, exp))
        d.verdict = say.equal_verdict(inp.index, inp.name, dim, got, other, exp, sym.name if sym else None)
    else:
        d.verdict = say.unnamed_size_verdict(dim, got, exp)
    d.steps = [step(d.input_check.fix if d.input_check else say.SIZES_AGREE), step(say.CHECK_ALL_INPUTS)]


class InputCheckRule(Rule):
    """The runtime input checks (or the wrapper's size assert) rejected an input; one on the wrong device is
    ``device_mismatch``'s."""

    category = "input_check"

    def claims(self, obs: Observations) -> bool:
        check = obs.input_check()
        return check.kind != "device" if check else obs.rep.has("size_assert")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        check = obs.input_check()
        if check:
            _answer_runtime_check(obs, d, check)
        else:
            _answer_size_assert(obs, d, obs.rep.first("size_assert"))


def _runtime_assert_line(obs: Observations, condition: str) -> int | None:
    """The wrapper line of the first runtime assertion on ``condition`` (`records.RuntimeAssert`), in the first
    model that has one."""
    for m in obs.models:
        for r in obs.pkg.index(m.name).statements():
            if type(r) is RuntimeAssert and r.condition == condition:
                return r.line
    return None


class SymbolicAssert(Rule):
    """``Expected u0 >= 10 but received 2``: a runtime assertion the wrapper throws on a symbolic size."""

    category = "symbolic_assert"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("symbolic_assert")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        ev: logged.SymbolicAssert = obs.rep.first("symbolic_assert")
        cond, got = ev.cond, ev.got
        d.evidence = [Evidence(ev.printed, ev.pattern)]
        line = _runtime_assert_line(obs, cond)
        symbol = ev.symbols[0] if ev.symbols else None
        origin = None
        unbacked = bool(symbol and symbol.startswith("u"))
        if symbol and unbacked:
            for m in obs.models:
                for c in obs.pkg.index(m.name).calls():
                    if f"{symbol}_raw" in c.fills or symbol in c.fills:
                        origin = say.unbacked_origin(c.target, c.line)
                        break
        elif symbol:
            for m in obs.models:
                sym = m.symbols.get(symbol)
                if sym is not None and sym.input is not None:
                    inp = m.inputs[sym.input] if sym.input < len(m.inputs) else None
                    label = say.input_label(sym.input, inp.name if inp else None,
                                              obs.ep.user_name(sym.input) if obs.ep else None)
                    rng = f"{sym.min if sym.min is not None else '?'}..{sym.max if sym.max is not None else '?'}"
                    origin = say.backed_origin(label, sym.dim, rng)
                    break
        d.verdict = say.symbolic_verdict(cond, got, line, symbol, origin)
        d.steps = [step(say.SYMBOLIC_FIX_UNBACKED if unbacked else say.SYMBOLIC_FIX_BACKED)]
        if not unbacked:
            d.steps.append(step(say.SYMBOLIC_CHECK))
