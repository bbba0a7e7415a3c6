"""The words of a confirmation run (inspector.queries.confirm): the re-ranked verdict, one line per run, the
switch that told hypotheses apart, and the torch that ran them."""

from __future__ import annotations


def failure_words(f) -> str:
    """A `Failure` in words: where a check failed, what an input check rejected, or that the call returned."""
    if f.returned:
        return "the call returned"
    if f.category == "input_check":
        return "the input check rejected " + (f"input {f.input}" if f.input is not None else "an input")
    if f.kernel and f.message:
        return f"`{f.message}` in {f.kernel}" + (f" line {f.line}" if f.line is not None else "")
    if f.kernel:
        return f"{f.category} in {f.kernel}"
    return f.category if f.category != "none" else "no failure diagnose can read"


def _what(f) -> str:
    return "assert" if f.category == "index_assert" else "failure"


def _names(ns) -> str:
    ns = [str(n) for n in ns]
    if len(ns) == 1:
        return f"hypothesis {ns[0]}"
    return "hypotheses " + ", ".join(ns[:-1]) + " and " + ns[-1]


def _elsewhere(o) -> str:
    if o.failure.returned:
        return f"hypothesis {o.hypothesis}'s call returned"
    if o.failure.category == "input_check":
        return f"hypothesis {o.hypothesis} is rejected by the input check"
    return f"hypothesis {o.hypothesis} fails elsewhere ({failure_words(o.failure)})"


def switch_words(c, planned) -> str | None:
    """What the switch's reruns told apart, said once."""
    s = c.separated_by
    if s is None:
        return None
    parts = []
    for o in c.outcomes:
        if o.switch == s and o.hypothesis in c.reproduced:
            parts.append(f"hypothesis {o.hypothesis}'s case {_with(o)}")
    return f"{s}=1 tells them apart: with it " + "; ".join(parts) + f": rerun the failing call with {s}=1"


def _with(o) -> str:
    if o.failure.category == "input_check":
        return "is rejected by the input check" + (f" (input {o.failure.input})" if o.failure.input is not None else "")
    if o.reproduced:
        return "still fails the assert"
    return failure_words(o.failure)


def confirmation_words(c, planned: dict) -> tuple[str, list[str]]:
    """(the verdict, one line per run and the torch that ran them)."""
    plain = {o.hypothesis: o for o in c.outcomes if o.switch is None}
    what = _what(c.log)
    rest = [plain[n] for n in c.ranking if n in plain and n not in c.reproduced]
    if len(c.reproduced) == 1:
        n = c.reproduced[0]
        head = "confirmed" if n == min(plain) else "re-ranked"
        verdict = f"{head}: hypothesis {n} reproduces the log's {what}"
        if rest:
            verdict += "; " + "; ".join(_elsewhere(o) for o in rest)
    elif c.reproduced:
        verdict = f"not settled: {_names(c.reproduced)} all reproduce the log's {what}"
        if len(c.reproduced) == 2:
            verdict = verdict.replace(" all ", " both ")
        sw = switch_words(c, planned)
        verdict += f"; {sw}" if sw else "; no switch tells them apart"
        if rest:
            verdict += "; " + "; ".join(_elsewhere(o) for o in rest)
    else:
        verdict = (f"not confirmed: no hypothesis's case reproduces the log's {what} ({failure_words(c.log)}); "
                   + "; ".join(_elsewhere(o) for o in rest))
    lines = []
    for o in c.outcomes:
        p = planned.get(o.hypothesis)
        label = f"hypothesis {o.hypothesis}" + (f" with {o.switch}=1" if o.switch else "")
        said = "reproduced" if o.reproduced else (
            "differs in " + ", ".join(o.differs) if o.differs else "not reproduced")
        lines.append(f"{label} ({p.violation['kind'] if p and p.violation else '?'} case): {failure_words(o.failure)}"
                     f" [{o.what}]: {said}")
    for n in c.unplanned:
        lines.append(f"hypothesis {n}: no case (not run)")
    if c.pinned_by:
        lines.append(f"every case ran with {c.pinned_by}=1: each device assert is reported by the kernel that made it, "
                     "not by a later call")
    t = c.torch
    lines.append(f"ran with torch {t.get('version') or '?'} ({t.get('path') or '?'}), python {t.get('python')}")
    return verdict, lines


def nothing_to_confirm(category: str) -> str:
    return (f"--confirm: nothing to run: the log's failure ({category}) has no ranked hypotheses a case can be "
            "planned for")
