"""Confirm the ranking: run one case per hypothesis and compare each run's failure with the log's.

`repro` plans one case per ranked hypothesis of the log's failing check (inspector.queries.repro); here every
case runs in a child process of the serving torch (`sweep.run_cases`: the runner, OMP_NUM_THREADS=1 on CPU, a
timeout, nothing of the package loaded in this process), each run's output is read into the same typed
`LogReport` the log went into (`inspector.logs.parse_log`) and classified by `diagnose`, as the log is, so that
the two failures compare field by field: category, kernel, assertion line and message (`Failure`).

Where hypotheses differ in what a runtime switch shows, every case runs again with it (`SWITCHES`): with
AOTI_RUNTIME_CHECK_INPUTS=1 a case that breaks the contract's shape or dtype is rejected by the input check, a
case of bad values still fails its assert; on CUDA every case already runs with CUDA_LAUNCH_BLOCKING=1, which
pins an asynchronous error to the kernel that made it.  The answer (`Confirmation`): the hypotheses re-ranked,
those whose case reproduced the log's failure first; which switch told which apart; the torch that ran them.
Nothing here words anything: inspector.explain.confirm does.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field

from ..errors import UsageError

CHECK_INPUTS = "AOTI_RUNTIME_CHECK_INPUTS"
LAUNCH_BLOCKING = "CUDA_LAUNCH_BLOCKING"
# The violations (repro_case.PLANNED's) the runtime input checks reject: they break a guard's range or the dtype.
CONTRACT_VIOLATIONS = ("empty", "dtype")
FIELDS = ("category", "kernel", "line", "message")  # what two failures must share to be the same


@dataclass
class Failure:
    """A failure as diagnose reads it: its category and, for a check, the kernel (or extern op), the assertion's
    line and message; ``input``: the input an input check rejected.  ``returned``: the call returned (no failure)."""

    category: str
    kernel: str | None = None
    line: int | None = None
    message: str | None = None
    input: int | None = None
    returned: bool = False
    limit: int | None = None  # an ATen op's error: the size its message names an index must stay under
    extern: bool = False  # the check is an extern ATen op's (its message names the failing element: not compared)

    def differs(self, other: Failure) -> list[str]:
        """The fields of `FIELDS` in which this failure is not ``other``; an ATen op's message names the element
        and value that failed (``Index 4 of input takes value 300``), so for it the limit is compared instead."""
        keys = [k if not (k == "message" and self.extern and other.extern) else "limit" for k in FIELDS]
        return [k if k != "limit" else "message" for k in keys if getattr(self, k) != getattr(other, k)]


@dataclass
class Outcome:
    """One case's run: the hypothesis it plans (1-based rank), the switch it ran with (None: as the log's run),
    what the child did (``what``: exit code, signal, time out), its failure, and how it differs from the log's."""

    hypothesis: int
    switch: str | None
    what: str
    seconds: float | None
    failure: Failure
    differs: list[str]
    first_error: str = ""
    output_tail: str = ""

    @property
    def reproduced(self) -> bool:
        return not self.differs and not self.failure.returned


@dataclass
class Confirmation:
    """The ranking run.  ``log``: the log's failure; ``outcomes``: every run; ``ranking``: the hypotheses
    (1-based), those that reproduced first, in their old order; ``reproduced``: which did; ``unplanned``: the
    hypotheses no case could be planned for; ``separated_by``: the switch whose reruns told apart hypotheses the
    plain runs did not (None: none ran, or it told none apart); ``torch``: the torch that ran them."""

    log: Failure
    outcomes: list[Outcome]
    ranking: list[int]
    reproduced: list[int]
    unplanned: list[int]
    switches: list[str]
    separated_by: str | None
    torch: dict
    device: str = "cpu"
    pinned_by: str | None = None  # CUDA: every case ran with CUDA_LAUNCH_BLOCKING=1 (an async error at its kernel)
    verdict: str = ""
    lines: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = asdict(self)
        for o, od in zip(self.outcomes, d["outcomes"], strict=True):
            od["reproduced"] = o.reproduced
        return d


def failure_of(pkg, model: str, text: str | None = None, report=None, returned: bool = False) -> Failure:
    """The failure a run's output (``text``) or a log's reading (``report``) shows, read into the typed LogReport
    and classified by diagnose, as the log is."""
    from ..logs import parse_log, read_op_error
    from .diagnose import diagnose

    if returned:
        return Failure("none", returned=True)
    try:
        d = diagnose(pkg, report if report is not None else parse_log(text or ""), model=model)
    except UsageError:  # an empty or unreadable capture
        return Failure("none")
    kernel = line = message = limit = None
    extern = False
    t = d.trace
    if t is not None and getattr(t, "matches", None):
        mt = t.matches[0]
        kernel, line, message = mt.kernel, mt.file_line, mt.assertion.message
        if mt.kernel_kind == "extern":
            extern, limit = True, read_op_error(message or "").limit
    elif d.fault_sites:
        kernel = d.fault_sites[0].get("target")
    inp = getattr(d.input_check, "input", None) if d.input_check is not None else None
    return Failure(d.category, kernel, line, message, inp, limit=limit, extern=extern)


def switches_for(planned, device: str) -> list[str]:
    """The switches whose reruns can tell the planned hypotheses apart: AOTI_RUNTIME_CHECK_INPUTS=1 when some
    case breaks the contract (a guard's range, the dtype) and some does not; none on CUDA for the launch blocking,
    which every CUDA case already runs with (repro_case.make_case)."""
    kinds = {p.violation["kind"] in CONTRACT_VIOLATIONS for p in planned}
    return [CHECK_INPUTS] if len(kinds) == 2 else []


def confirm(pkg, model: str, device: str, log_report, planned, unplanned: list[int], timeout: int = 120,
            expected: Failure | None = None) -> Confirmation:
    """Run every planned hypothesis's case (``planned``: repro's `Planned`, each with its ``case``), and with
    each switch of `switches_for`, and compare every run with the log's failure (``log_report``, read as the
    runs are; ``expected``: the failure to compare with when there is no log)."""
    from ..explain import confirm as say
    from ..explain import repro_script as words
    from ..host import torch_cuda_devices, torch_info, torch_python
    from .runner import run_cases

    if torch_python() is None:
        raise UsageError(words.NO_TORCH.format(python=sys.executable))
    if device.startswith("cuda") and torch_cuda_devices(sys.executable) == 0:
        raise UsageError(words.NO_CUDA.format(device=device, python=sys.executable))
    log = expected if expected is not None else failure_of(pkg, model, report=log_report)
    switches = switches_for(planned, device)
    runs = [(p, None) for p in planned] + [(p, s) for s in switches for p in planned]
    cases = []
    for p, s in runs:
        c = dict(p.case.__dict__) if not isinstance(p.case, dict) else dict(p.case)
        c["timeout"] = timeout
        if s is not None:
            c["env"] = dict(c["env"], **{s: "1"})
            c["unset_env"] = [k for k in c["unset_env"] if k != s]
        cases.append(_Case(c))
    results, err = run_cases(cases, str(pkg.path), device, timeout)
    outcomes = []
    for i, (p, s) in enumerate(runs):
        r = results.get(i)
        if r is None:
            f = Failure("none")
            outcomes.append(Outcome(p.n, s, "not run (the runner stopped)", None, f, ["category"],
                                    (err.strip().splitlines() or [""])[-1][:300]))
            continue
        returned = r["rc"] == 0 and r["returned"]
        f = failure_of(pkg, model, r.get("log", ""), returned=returned)
        outcomes.append(Outcome(p.n, s, r["what"], r.get("seconds"), f, f.differs(log), r.get("first_error", ""),
                                (r.get("log") or "")[-2000:]))
    plain = [o for o in outcomes if o.switch is None]
    reproduced = [o.hypothesis for o in plain if o.reproduced]
    order = [p.n for p in planned]
    ranking = [n for n in order if n in reproduced] + [n for n in order if n not in reproduced] + list(unplanned)
    separated = None
    for s in switches:  # hypotheses the plain runs could not tell apart, told apart by this switch's reruns
        with_s = {o.hypothesis: o for o in outcomes if o.switch == s}
        shown = {n: (with_s[n].failure.category, with_s[n].failure.kernel) for n in reproduced if n in with_s}
        if len(set(shown.values())) > 1:
            separated = s
            break
    res = Confirmation(log=log, outcomes=outcomes, ranking=ranking, reproduced=reproduced, unplanned=list(unplanned),
                       switches=switches, separated_by=separated, torch=torch_info(), device=device,
                       pinned_by=LAUNCH_BLOCKING if device.startswith("cuda") else None)
    res.verdict, res.lines = say.confirmation_words(res, {p.n: p for p in planned})
    return res


class _Case:
    """A case dict as `sweep.write_plan` takes cases (it calls ``to_json``)."""

    def __init__(self, d: dict):
        self.d = d

    def to_json(self) -> str:
        import json

        return json.dumps(self.d, sort_keys=True)
