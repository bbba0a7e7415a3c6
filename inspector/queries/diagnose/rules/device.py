"""The device: an input on the wrong one (``device_mismatch``), an illegal memory access or a crash while the model
ran (``illegal_memory_access``), a device-side assert without its line (``device_assert``)."""

from __future__ import annotations

import inspector.explain as words

from ....explain import diagnose as say
from ....explain import headline
from ....parse.specs import Device
from ...candidates import assert_candidates
from ...match import site_for_noticed
from ..results import Diagnosis, Evidence, Step, step
from .base import Observations, Rule, _ev
from .inputs import _answer_runtime_check


class DeviceMismatch(Rule):
    """An input on the wrong device, where the log shows it: the runtime input check's device failure, or a
    message that names the devices (`Expected all tensors to be on the same device`, a `cpu` tensor, host memory).
    An illegal memory access that names no device is ``illegal_memory_access``'s, with "an input on the CPU" among
    its hypotheses."""

    category = "device_mismatch"

    def claims(self, obs: Observations) -> bool:
        check = obs.input_check()
        return (check is not None and check.kind == "device") or obs.rep.has("device_mismatch")

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        check = obs.input_check()
        if check is not None and check.kind == "device":
            return _answer_runtime_check(obs, d, check)
        key = next((m.device for m in obs.models if m.device), "?")
        evs = [e for e in obs.rep.events if e.pattern == "device_mismatch"]
        d.evidence = _ev(evs, 3)
        pair = _device_pair(evs)
        if pair is not None:  # two GPUs of one type in one call: the indices, and which to move
            first, second, arg, method = pair
            d.evidence = _ev([e for e in evs if e.first is not None], 1)
            d.verdict = say.device_index_verdict(first, second, arg, method)
            d.steps = [step(say.device_index_move(first, second, arg)),
                       step(say.DEVICE_INDEX_CHECK)]
            return
        d.verdict = say.mismatch_verdict(key)
        d.steps = [step(say.mismatch_move(key, obs.models[0])),
                   step(say.CONFIRM_WITH_CHECKS, {"AOTI_RUNTIME_CHECK_INPUTS": "1"})]


def _async_symptom(obs: Observations) -> bool:
    """A CUDA package's log whose only failure is one a later call reports: a cuBLAS error that is no allocation
    failure, or a failed call that printed no error of its own, with no device-side assert shown (that one is
    ``device_assert``'s)."""
    rep = obs.rep
    # a failed call that printed an error of its own and no CUDA error anywhere (`selected index k out of range`,
    # checked before any launch) failed there: no asynchronous error
    own = not rep.has("illegal_memory_access") and any(n.error for n in rep.noticed)
    return (obs.device == "cuda" and not rep.has("device_side_assert") and not rep.events_say("device_assert_said")
            and (rep.has("cublas_error") or (bool(rep.noticed) and not own)))


def _device_pair(evs) -> tuple[str, str, str | None, str | None] | None:
    """(other tensors' device, the named argument's device, argument, method) from c10's "Expected all tensors to
    be on the same device" text, when both are GPUs of one type with different indices."""
    for e in evs:
        if e.first is None:
            continue
        first, second, arg, method = e.first, e.second, e.arg, e.method
        a, b = Device.of(first), Device.of(second)
        if a and b and a.type == b.type != "cpu" and first != second:
            return first, second, arg, method
    return None


class IllegalMemoryAccess(Rule):
    """An illegal memory access, an asynchronous CUDA error reported by a later call, or a crash while the model
    ran: what could have made it, ranked by evidence (`inspector.queries.async_error`), and the package's unchecked
    indirect accesses."""

    category = "illegal_memory_access"

    def claims(self, obs: Observations) -> bool:
        if obs.rep.has("segfault"):
            return not obs.crashed_at_load
        return obs.rep.has("illegal_memory_access") or _async_symptom(obs)

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        from ...async_error import async_error
        from ...suspects import first_kernel_names, model_suspects

        pkg = obs.pkg
        d.evidence = _ev([e for e in obs.rep.events
                          if e.pattern in ("cublas_error", "illegal_memory_access", "runner_failed", "segfault")], 3)
        d.evidence += [Evidence(n.printed, n.pattern) for n in obs.rep.noticed[:1]]
        key = next((m.device for m in obs.models if m.device), "cuda")
        d.suspects = []
        for m in obs.models:  # any unchecked load may be the one: the kernels whose text may hold one, parsed
            for s in model_suspects(pkg, m.name):
                d.suspects.append(dict(s, model=m.name))
        steps: list[Step] = []
        found = None
        if key == "cuda":
            found = async_error(pkg, obs.rep, obs.models, obs.model, bool(obs.weightless), d.suspects)
            d.async_error = found
            d.candidates = list(found.candidates)  # a cuBLAS error alone: the assertions it may hide
            said = obs.rep.first("illegal_memory_access")  # quote only a text the log holds
            # the device question first (CPU tensors print the same text), then the reruns that pin the launch
            steps.append(step(say.ima_on_cuda(key, said.printed.strip() if said else None),
                              {"AOTI_RUNTIME_CHECK_INPUTS": "1"}))
            if not found.blocking:
                steps.append(step(say.ASYNC_BLOCKING, {"CUDA_LAUNCH_BLOCKING": "1", "PYTORCH_NO_CUDA_MEMORY_CACHING": "1"},
                                  "run"))
            steps.append(step(say.ASYNC_SANITIZER, None, "run"))
        else:
            steps.append(step(say.IMA_GDB, {"OMP_NUM_THREADS": "1"}, "run"))
        steps.append(step(say.IMA_PRINTER, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "3"}, "compile"))
        names = list(dict.fromkeys(s["kernel"] for s in d.suspects)) or [
            k for m in obs.models for k in first_kernel_names(pkg, m.name, 8)]
        steps.append(step(say.IMA_PRINT_SUSPECTS, {"AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "3",
                                                   "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": ",".join(names)},
                          "compile"))
        if d.suspects:
            steps.append(step(say.IMA_ASSERTS_ON, None, "compile"))
        d.steps = steps
        top = found.hypotheses[0] if found is not None and found.hypotheses else None
        if found is not None and top is not None and (top.kind != "unchecked_access" or found.custom_ops):
            d.verdict = say.async_verdict(found, top)
            d.headline = headline.ima(headline.async_place(top), found.reported_by)
            if top.kind == "host_input" and top.certainty == "likely":
                d.notes.append(say.HOST_POINTER_RESTS_ON)
        elif d.suspects:
            s = d.suspects[0]
            d.verdict = say.ima_verdict(len(d.suspects), s, words.table_words(s["table"]), key == "cuda")
            d.headline = headline.ima(f"{s['kernel']}'s unchecked {s['access']}", None)
        else:
            d.verdict = say.ima_no_suspect_verdict(key == "cuda")
        if found is not None and found.reported_by and not found.blocking:
            d.notes.append(say.async_reported_note(found.reported_by, found.reported_line))


class DeviceAssert(Rule):
    """A device-side assert (or its symptom: a cuBLAS error, a failed call) without its Assertion line."""

    category = "device_assert"

    def claims(self, obs: Observations) -> bool:
        rep = obs.rep  # only where the log shows one: `device-side assert triggered`
        return (obs.device != "cpu" and not rep.has("segfault")
                and (rep.has("device_side_assert") or rep.events_say("device_assert_said")))

    def answer(self, obs: Observations, d: Diagnosis) -> None:
        rep = obs.rep
        d.evidence = _ev([e for e in rep.events if e.pattern in ("device_side_assert", "cublas_error")], 3)
        d.evidence += [Evidence(n.printed, n.pattern) for n in rep.noticed][:2]
        d.candidates = assert_candidates(obs.pkg, rep, obs.model)
        symptom = ("cublas_error" if rep.has("cublas_error") else
                   "device_side_assert" if rep.has("device_side_assert") else "noticed")
        target = line = None
        for n in rep.noticed:
            hit = site_for_noticed(obs.pkg, n, obs.model)
            if hit:
                target, line = hit[1].target, hit[1].line
                d.notes.append(say.noticed_symptom(n.call, n.line))
                break
        d.verdict = say.device_assert_verdict(symptom, target, line, len(d.candidates),
                                              d.candidates[0].kernel if d.candidates else None)
        d.steps = [step(say.RERUN_FOR_LINE, {"CUDA_LAUNCH_BLOCKING": "1"}), step(say.CHECK_NOW)]
