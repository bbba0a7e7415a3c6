"""Wrong values: a NaN/Inf check fired (``nan_inf``), or the intermediate value printer's output (``printer``)."""

from __future__ import annotations

from ....explain import diagnose as say
from ....explain import headline
from ..results import Diagnosis, Evidence, step
from .base import Observations, Rule, _ev
from .traced import _nan_check


class NanInf(Rule):
    """``At least one NaN in buf3`` / ``aoti_torch_check_inf_and_nan("buf3", …) API call failed``."""

    category = "nan_inf"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("nan_inf_input", "nan_inf_call", "nan_inf_triton") or _nan_check(obs)

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        rep = obs.rep
        evs = [e for e in rep.events if e.pattern in ("nan_inf_input", "nan_inf_call", "nan_inf_triton")]
        d.evidence = _ev(evs, 3)
        buf = next((e.buf for e in evs if e.buf), None)
        what = say.nan_word(next((e.what for e in evs if e.what), None))
        m = obs.models[0]
        inp = next((i for i in m.inputs if i.name == buf), None) if buf else None
        if obs.trace is not None and not buf:  # a Triton kernel's own NaN/Inf assert: the trace names the kernel
            mt = obs.trace.matches[0]
            d.trace = obs.trace
            d.evidence = _ev(evs, 1) + [Evidence(r.first_text, r.pattern) for r in obs.located[:1]]
            # read straight from an input (no buffer on the way): that input held it
            direct = any(o.input and not o.through_buffer for o in mt.index_origin)
            d.verdict = say.nan_kernel_verdict(obs.trace.verdict, mt.file_line, mt.call_sites, mt.source_nodes)
            d.headline = mt.headline
            d.steps = ([step(say.NAN_CHECK_INPUT)] if direct else []) + [
                       step(say.NAN_PRINTER, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "2",
                                              "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": mt.kernel}, "compile")]
            d.notes += [h.sentence for h in mt.hypotheses[:1]]
            return
        if inp is not None:
            label = say.input_label(inp.index, inp.name, obs.ep.user_name(inp.index) if obs.ep else None)
            d.verdict = say.nan_input_verdict(what, label)
            d.headline = headline.nan_in_input(what, label)
            d.steps = [step(say.NAN_CHECK_INPUT)]
            d.own_check = _one_check_of(obs, m, buf, evs)
            d.nan_input = inp.index
        else:
            writer = line = None
            nodes: list[str] = []
            check_line = next((e.line for e in evs if e.line is not None), None)
            from ...locate import calls_naming

            for c in calls_naming(obs.pkg.index(m.name), buf) if buf else []:
                if not c.target.startswith("aoti_torch_check") and (check_line is None or c.line < check_line):
                    writer, line = c.target, c.line
            if writer:
                from ...locate import locate

                try:
                    nodes = [n for x in locate(obs.pkg, kernel=writer, model=m.name).found for n in x.nodes][:8]
                except Exception:  # noqa: BLE001 - FX nodes are a bonus; the writer stands without them
                    nodes = []
            d.verdict = say.nan_buffer_verdict(what, buf or "a buffer", writer, line, nodes)
            d.headline = headline.nan_in_buffer(what, buf or "a buffer", writer)
            d.steps = [step(say.NAN_PRINTER, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "2",
                                              **({"AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": writer} if writer else {})},
                            "compile")]
        if obs.device == "cpu":
            d.notes.append(say.NAN_CPU_NOTE)


class Printer(Rule):
    """The intermediate value printer's output: the first kernel whose output holds NaN/Inf (judged after it ran:
    an output printed before_launch is uninitialised memory), or, given a good run (``against``), the first
    kernel whose output differs materially; at level 3 the last kernel that started."""

    category = "printer"

    def claims(self, obs: Observations) -> bool:
        return obs.rep.has("printer_block", "printer_mark")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        blocks = obs.rep.printer_blocks
        d.evidence = _ev([e for e in obs.rep.events if e.category == "printer"], 2)
        if not any(b.stats for b in blocks):  # level 3: names only
            started = [b for b in blocks if b.when == "mark:before_launch"]
            ended = {(b.kernel, b.call) for b in blocks if b.when == "mark:after_launch"}
            open_ = [b for b in started if (b.kernel, b.call) not in ended]
            last = open_[-1] if open_ else (started[-1] if started else None)
            d.verdict = say.printer_level3_verdict(last.kernel if last else None, bool(open_), self._line(obs, last))
            d.steps = [step(say.PRINTER_LEVEL2, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "2"}, "compile")]
            return
        from ...printer import printer_finding

        pf = printer_finding(obs.pkg, obs.model, blocks, obs.against.printer_blocks if obs.against is not None else None)
        d.printer = pf
        d.evidence = [Evidence(x, "printer") for x in pf.evidence()] or d.evidence
        d.verdict = say.printer_verdict(pf)
        d.steps = [step(say.PRINTER_AGAINST)] if obs.against is None else []
        d.steps.append(step(say.PRINTER_LOCATE))
        d.notes.append(say.PRINTER_BEFORE_LAUNCH)

    @staticmethod
    def _line(obs: Observations, b) -> int | None:
        if b is None:
            return None
        lines = sorted(c.line for m in obs.models for c in obs.pkg.index(m.name).calls() if c.target == b.kernel)
        return lines[b.call - 1] if 0 < b.call <= len(lines) else (lines[0] if lines else None)


def _one_check_of(obs: Observations, m, buf: str, evs) -> bool:
    """Whether the log's NaN/Inf check message is the package's own, about exactly one check: the wrapper holds
    one ``aoti_torch_check_inf_and_nan`` call on ``buf`` (a model input: the check reads it as handed in), at the
    line the log names (a log that names no line: the one check on ``buf``)."""
    from ....parse.message import nan_checks

    member = obs.pkg.files(m.name).wrapper
    if not member:
        return False
    checks = [line for line, b in nan_checks(obs.pkg.member_lines(member)) if b == buf]
    lines = {e.line for e in evs if getattr(e, "line", None) is not None}
    files = {e.file.rsplit("/", 1)[-1] for e in evs if getattr(e, "file", None)}
    return len(checks) == 1 and lines <= {checks[0]} and files <= {member.rsplit("/", 1)[-1]}
