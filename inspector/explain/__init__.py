"""The words people read: verdicts, hypotheses, next steps and environment variables.

Queries decide *what* is true (inspector.queries); this package only says it.  Every
function takes facts and returns plain strings; no code reads them back.  Per query:
this module (trace-assert, and what every query shares), ``diagnose`` (every verdict,
step and note of `diagnose`).
"""

from __future__ import annotations


GUARD_NOTE = "input guards run only when AOTI_RUNTIME_CHECK_INPUTS=1 is set at run time"

# Environment variables a step may name, and when each acts.
ENV_WHEN = {
    "AOTI_RUNTIME_CHECK_INPUTS": "run",
    "CUDA_LAUNCH_BLOCKING": "run",
    "PYTORCH_NO_CUDA_MEMORY_CACHING": "run",
    "OMP_NUM_THREADS": "run",
    "TORCH_SHOW_CPP_STACKTRACES": "run",
    "AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER": "compile",
    "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT": "compile",
    "TORCH_USE_CUDA_DSA": "compile",
    "TORCH_LOGS": "compile",
    "TORCHINDUCTOR_CPP_MARCH": "compile",
    "ATEN_CPU_CAPABILITY": "compile",
}

# What a recognised log line suggests (inspector.logs: LogReport.hint_codes), by pattern name.
LOG_HINTS = {
    "terminate_recursive": "the log shows 'terminate called recursively': the error text was lost inside "
                           "OpenMP threads; rerun with OMP_NUM_THREADS=1 to see which check failed",
}


def log_hints(codes: list[str]) -> list[str]:
    """The words of a log's hint codes (``LogReport.hint_codes``) that have any, each once, in order."""
    return list(dict.fromkeys(LOG_HINTS[c] for c in codes if c in LOG_HINTS))


def log_reading(name: str, lines: int, facts: int, unread: int, first: list[tuple[int, str]]) -> list[str]:
    """--debug's lines on how a log was read: its lines, the facts found, the lines not understood (the first few)."""
    out = [f"pt2-inspect: log {name}: {lines} lines, {facts} facts, {unread} non-blank lines not understood"]
    out += [f"pt2-inspect:   not understood, line {n}: {t[:160]}" for n, t in first]
    return out

def who(inp) -> str:
    """``input 1 `item_ids``` / ``input 1``: an input as the sentences name it.  Its wrapper name (``arg1_1``) is an
    internal, named once where the trace shows the input (`who_named`), not in every sentence (issue 35 §7)."""
    if inp is None:
        return "?"
    return f"input {inp.index} `{inp.user_name}`" if getattr(inp, "user_name", None) else f"input {inp.index}"


def who_named(inp) -> str:
    """``input 1 `item_ids``` / ``input 1 (arg1_1)``: an input with the wrapper name that the package calls it."""
    if inp is None:
        return "?"
    return f"input {inp.index} `{inp.user_name}`" if getattr(inp, "user_name", None) else f"input {inp.index} ({inp.name})"


def dim_words(inp) -> str:
    return f"{who(inp)} dim {inp.dim}"


def table_words(table) -> str:
    """What an index reads, in words: a trace's `TableRef` (inspector.queries.walk), or its JSON form (a suspect's)."""
    if not table:
        return ""
    f = table.get if isinstance(table, dict) else (lambda key: getattr(table, key, None))
    if f("kind") == "constant":
        shape = f("shape") or []
        along = next((d for d, n in enumerate(shape) if n != 1), None) if shape and shape[0] == 1 and len(shape) > 1 else None
        if along is not None:  # a [1, 512] buffer (position_ids, token_type_ids): its rows are 1, its length is dim 1's
            return f"`{f('fqn') or f('name')}` (shape {shape}: indexed along dim {along}, {shape[along]} long)"
        rows = f", {f('rows')} rows" if f("rows") is not None else ""
        return f"`{f('fqn') or f('name')}`{rows}"
    if f("kind") == "input":
        return f"input {f('index')} `{f('user_name')}`" if f("user_name") else f"input {f('index')} ({f('name')})"
    made = f("from_inputs")
    return f"buffer {f('name')}" + (f" (made from input {', '.join(map(str, made))})" if made else "")


# ---------------------------------------------------------------------------
# trace-assert
# ---------------------------------------------------------------------------


# The words of inspector.queries.causes' decisions: each function below words one record (a `Verdict`, `Cause`,
# `Evidence` or `Note`) of a match ``t``, whose names and limits it quotes; which record applies, its certainty
# and its rank are decided there.


# An extern op's error about a tensor's layout (`causes.LAYOUT_CHECKS`): what it means, and what to check.
LAYOUT_WORDS = {
    "storage": "a view of a tensor needs more memory than the tensor holds",
    "shape": "the shapes it was given do not fit together",
    "dtype": "a tensor it was given has another dtype than it needs",
}
LAYOUT_CAUSES = {
    "storage": ("A size is 0 in this run (an empty input: no rows, no edges) while the view keeps another size, or an "
                "op (a custom op) returned a tensor smaller than its meta/fake function said: check the inputs' sizes "
                "for 0 against what the package was exported with, and the op's fake function."),
    "shape": "Check the inputs' sizes against the package's symbolic shapes (`pt2-inspect check PKG --input …`).",
    "dtype": "Check the inputs' and the new weights' dtypes (`pt2-inspect check`, `pt2-inspect doctor --weights`).",
}


def ambiguous_aten_verdict(kernel: str, calls) -> str:
    """An ATen CUDA kernel asserted and several extern calls can launch it: each, with its index input and table."""
    each = []
    for t in calls:
        inputs = list(dict.fromkeys(who(o.input) for o in t.index_origin if o.input))
        tbl = table_words(t.table)
        each.append(f"wrapper.cpp line {t.file_line}: {', '.join(inputs) or 'its index'}"
                    + (f" into {tbl}" if tbl else ""))
    op = calls[0].kernel
    return (f"ambiguous: the ATen kernel {kernel} asserted, and {len(calls)} calls of {op} can launch it ("
            + "; ".join(each) + "); the log does not say which: rerun with CUDA_LAUNCH_BLOCKING=1 and the failing "
            "call reports itself")


# --- the small parts: a source, a limit, a range ---------------------------


def inputs_words(source) -> str:
    """The inputs a `causes.Source` names, each once: ``input 1 `ids`, input 2 (arg2_1)`` ("" for none)."""
    return ", ".join(dict.fromkeys(who(i) for i in source.inputs))


_SOURCE_WORDS = {
    "read": inputs_words,
    "computed": lambda s: f"an index computed from {inputs_words(s)}",
    "constant": lambda s: f"values read from constant {s.constant}",
    "none": lambda s: None,
}
# The verb after a source's words: a constant's values are plural.
_SOURCE_VERB = {"constant": "hold"}


def source_words(source) -> str | None:
    """What a verdict says the checked value comes from (None: nothing traced)."""
    return _SOURCE_WORDS[source.kind](source)


def limit_text(limit) -> str:
    """A `causes.Limit` in words: its number, its words, or ``N``."""
    if limit.number is not None:
        return str(limit.number)
    return limit.words if limit.words is not None else "N"


def _neg(limit) -> str:
    return f"-{limit_text(limit)}" if limit.one_operand else f"-({limit_text(limit)})"


def below_words(rng) -> str:
    """What a negative index does at a check (a `causes.Range`): ``< 0`` fails it, or (a kernel that wraps) only
    ``< -N``."""
    return f"< {_neg(rng.limit)}" if rng.wraps else "< 0"


def outside_words(rng) -> str:
    """The values a check lets through (a `causes.Range`): ``0..N-1``, or ``-N..N-1`` where the kernel wraps
    negatives; a number's last value written as the number."""
    lim = limit_text(rng.limit)
    top = str(rng.last) if rng.last is not None else f"{lim if rng.limit.one_operand else f'({lim})'} - 1"
    return f"{_neg(rng.limit)}..{top}" if rng.wraps else f"0..{top}"


def _var(t, default: str = "the index") -> str:
    return t.assertion.index_var or default


def _where(v, t) -> str:
    return f"failed inside the extern op {t.kernel}" if v.extern else f"checked in {t.kernel}"


def _dims(t) -> str:
    return " or ".join(dim_words(x.input) for x in t.bound.terms)


# --- positions ---------------------------------------------------------------


def loop_where(p) -> str:
    """``the loop over x1 of K`` / ``the grid index y0 of K``: what a loop position (`PositionBound` op "loop") runs."""
    return f"the {'grid index' if p.grid else 'loop over'} {p.loop_index} of {p.where}"


def loop_position_words(t, limit: str) -> str:
    """The verdict's words for a check whose index is a loop position (an arange) that its dim runs past."""
    p = t.position
    rng = f", and the package allows it up to {p.max}" if p.max is not None else ""
    tbl = table_words(t.table)
    return (f"{p.length} is larger than {limit}: {t.assertion.index_var} is a loop position (an arange: {loop_where(p)} "
            f"runs 0 … that dim - 1), checked against {limit}" + (f" (indexing {tbl})" if tbl else "") + rng)


def _loop_position_cause(t, limit: str) -> str:
    p = t.position
    return (f"{p.length} is larger than {limit}: the index is a loop position ({loop_where(p)} runs 0 … "
            f"{p.length} - 1, an arange such as position ids), so every size past {limit} fails, whatever the "
            f"values" + (f"; the package was exported for sizes up to {p.max}" if p.max is not None else "")
            + f". Keep {p.length} ≤ {limit} (truncate or chunk the input), or grow what is indexed (e.g. "
            "max_position_embeddings) and export with that dim's max at most the table's size; "
            "`pt2-inspect check` says which sizes fail.")


def _reduction_position_cause(t, limit: str) -> str:
    rows = t.table.rows if t.table is not None else None
    return reduction_position_hypothesis(t.position.where, t.position.length, rows)


def _fixed_position_cause(t, limit: str) -> str:
    p = t.position
    top_v = p.static - 1 + p.past
    return (f"the index is a position {p.name} returns along {p.length} ({p.where}): its values reach {top_v}"
            + (" (one past the last boundary)" if p.past else "") + f", and {limit} is the limit: whenever {limit} "
            f"is {top_v} or less, the largest positions fail. Compare those two sizes (`pt2-inspect check` says "
            "'may fail' for them), not the input's values.")


def _sized_position_cause(t, limit: str) -> str:
    p = t.position
    top = f"{p.length}" + (" (one past the last boundary)" if p.past else " - 1")
    rng = f"; the package allows {p.length} up to {p.max}" if p.max is not None else ""
    return (f"the index is a position {p.name} returns along {p.length} ({p.where}): its values reach {top}, and "
            f"{limit} is the limit{rng}: whenever {p.length} is larger than {limit}, positions past it fail. Compare "
            f"those two sizes (`pt2-inspect check` says 'may fail' for them), not the input's values.")


# `causes.POSITION_KINDS` -> the cause's words for an index that is such a position.
_POSITION_CAUSES = {"loop": _loop_position_cause, "reduction": _reduction_position_cause,
                    "fixed": _fixed_position_cause, "sized": _sized_position_cause}


def position_evidence(t, limit: str) -> str:
    p = t.position
    return (f"the package fixes it: the index is the output of {p.name} ({p.where}), bounded by {p.length}, not by "
            f"{limit}")


# --- the verdict -------------------------------------------------------------


def _finite_head(t) -> str:
    return f"{_var(t, 'a value')} holds a NaN or Inf in {t.kernel}"


def _static_verdict(v, t, pos: str = "") -> str:
    tbl = table_words(t.table)
    n = limit_text(v.range.limit)
    limit = f"≥ {n}" + (f", indexing {tbl}" if tbl else "")
    verb = _SOURCE_VERB.get(v.source.kind, "holds")
    below = f" (or {below_words(v.range)})" if v.lower else ""
    return f"{source_words(v.source) or _var(t)} {verb} values {limit}{below}{pos}; {_where(v, t)}"


def _static_position_verdict(v, t) -> str:
    p = t.position
    return _static_verdict(v, t, f"; it is a position {p.name} returns along {p.length}, which can exceed "
                                 f"{limit_text(v.range.limit)}")


def _value_words(v, t) -> str:
    """A bound of input dims: ``X holds values ≥ N (or < 0)``, the start of each of its verdicts."""
    lim, src, tbl = limit_text(v.range.limit), source_words(v.source), table_words(t.table)
    if v.source.kind == "read":
        return f"{src} holds values ≥ {lim} (or {below_words(v.range)}){', indexing ' + tbl if tbl else ''}"
    return f"{src or _var(t)} is ≥ {lim} (or {below_words(v.range)})"


def _position_or_empty_verdict(v, t) -> str:
    return (f"{_value_words(v, t)}: it is a position {t.position.name} returns along {t.position.length}, and that "
            f"size can exceed {limit_text(v.range.limit)}; or {_dims(t)} is 0 (an empty input); {_where(v, t)}")


def _empty_position_below_verdict(v, t) -> str:
    return (f"{_dims(t)} is 0 (an empty input): {source_words(v.source) or _var(t)} is a position along "
            f"{t.position.length}, which stays below {limit_text(v.range.limit)}; {_where(v, t)}")


def _layout_verdict(v, t) -> str:
    src = source_words(v.source)
    feeds = f"; its tensors come from {src}" if src else ""
    return (f"{t.kernel} failed with an ATen {t.assertion.checks} error, not an index out of range: "
            f"{LAYOUT_WORDS[t.assertion.checks]}{feeds}")


# `causes.VERDICT_CASES` -> the verdict's words.
_VERDICTS = {
    "finite_read": lambda v, t: (f"{_finite_head(t)}: it is read from {inputs_words(v.source)}, so that input already "
                                 "held it; check that input"),
    "finite_computed": lambda v, t: (f"{_finite_head(t)}: computed there from {inputs_words(v.source)}; a NaN/Inf in "
                                     "that input, or the computation, made it"),
    "finite_inside": lambda v, t: f"{_finite_head(t)}: computed inside the kernel (no input carries it in)",
    "layout": _layout_verdict,
    "static": _static_verdict,
    "static_position": _static_position_verdict,
    "loop_position": lambda v, t: f"{loop_position_words(t, limit_text(v.range.limit))}; {_where(v, t)}",
    "not_empty": lambda v, t: (f"{_value_words(v, t)}; not an empty input: were {_dims(t)} 0, every index would fail, "
                               f"the first thread of the first block too, and the log shows that one did not; "
                               f"{_where(v, t)}"),
    "position_or_empty": _position_or_empty_verdict,
    "empty_position_below": _empty_position_below_verdict,
    "empty_as_thread": lambda v, t: (f"{_dims(t)} is 0 (an empty input), as thread [0,0,0] failing suggests, or "
                                     f"{_value_words(v, t)}; {_where(v, t)}"),
    "value_or_empty": lambda v, t: (f"{_value_words(v, t)}, or {_dims(t)} is 0 (an empty input); the log does not say "
                                    f"which; {_where(v, t)}"),
    "extern_index": lambda v, t: (f"{t.kernel} failed: {source_words(v.source) or 'its index argument'} holds an index "
                                  f"outside {table_words(t.table) or 'its table'}"),
    "untraced": lambda v, t: (f"{_var(t)} failed `{t.assertion.message}` in {t.kernel}; the bound "
                              f"`{t.assertion.bound_expr}` was not traced to an input"),
}


def verdict_words(v, t) -> str:
    """One line for a `causes.Verdict` of match ``t``: which input holds what, against which limit, checked where
    (and, when ``position_note``, that the index is an argmax's position)."""
    text = _VERDICTS[v.case](v, t)
    return text + (reduction_position_note(t.position.length) if v.position_note else "")


# --- the causes --------------------------------------------------------------


def _finite_computed_cause(c, t) -> str:
    src = inputs_words(c.source)
    return (f"{_var(t)} is computed in {t.kernel}" + (f" from {src}" if src else "") + ": a NaN/Inf in "
            + ("that input, or " if src else "") + "the computation itself (log of a negative, 0/0, an "
            "overflow) made it; the intermediate value printer shows the values going in.")


def _static_computed_value_cause(c, t) -> str:
    tbl = table_words(t.table)
    return (f"the index computed from {inputs_words(c.source)} takes a value outside {outside_words(c.range)}"
            + (f" (indexing {tbl})" if tbl else "") + ": check the sizes and values of that input against the table.")


def _static_read_value_cause(c, t) -> str:
    tbl = table_words(t.table)
    return (f"{inputs_words(c.source)} holds a value outside {outside_words(c.range)}"
            + (f" (indexing {tbl})" if tbl else "") + f": check those values before calling the model "
            f"(e.g. ids < {limit_text(c.limit)}), or grow the table.")


def _bound_value_cause(c, t) -> str:
    src = inputs_words(c.source)
    return ((f"{src} holds" if c.source.kind == "read" else f"the index computed from {src} takes")
            + f" a value outside {outside_words(c.range)}: check those values against {limit_text(c.limit)} before "
            "calling the model.")


def _empty_input_cause(c, t) -> str:
    exported = "; ".join(f"{dim_words(x.input)} was exported for {_rng(x)}" for x in t.bound.terms)
    return (f"{_dims(t)} is 0 (an empty input), so `{_var(t)} < {t.assertion.bound_expr}` fails for every index "
            f"({exported}): handle empty inputs in forward() or export with size-0/1 samples. "
            "AOTI_RUNTIME_CHECK_INPUTS=1 at run time turns this into a clear input error.")


# `causes.CAUSE_KINDS` -> the cause's words.
_CAUSES = {
    "layout": lambda c, t: LAYOUT_CAUSES[t.assertion.checks],
    "finite_input": lambda c, t: (f"{inputs_words(c.source)} holds a NaN or Inf: check it before calling the model "
                                  "(torch.isfinite(x).all())."),
    "finite_computed": _finite_computed_cause,
    "position": lambda c, t: _POSITION_CAUSES[c.position](t, limit_text(c.limit)),
    "static_read_value": _static_read_value_cause,
    "static_computed_value": _static_computed_value_cause,
    "constant_values": lambda c, t: (f"The values come from constant {c.source.constant}: it holds such a "
                                     "value only if it was never loaded (a buffer left out of load_constants, e.g. one "
                                     "state_dict() lacks, holds uninitialised memory) or was replaced by other weights: "
                                     "check the load_constants call (`pt2-inspect doctor PKG --weights FILE`)."),
    "computed_inside": lambda c, t: f"{_var(t)} is computed inside {t.kernel} and must stay below {limit_text(c.limit)}.",
    "bound_value": _bound_value_cause,
    "empty_input": _empty_input_cause,
    "extern_index": lambda c, t: (f"{inputs_words(c.source)} holds an index outside {table_words(t.table) or 'the table'} "
                                  f"that {t.kernel} reads: check those values before calling the model."),
    "untraced_bound": lambda c, t: f"The bound `{t.assertion.bound_expr}` could not be traced to a model input.",
    "input_dtype": lambda c, t: _input_dtype_cause(c, t),
}


def _input_dtype_cause(c, t) -> str:
    other = "int32" if c.dtype == "int64" else "int64"
    how = ("int32 values read as int64 pair up into huge ones, and half the read runs past the tensor"
           if c.dtype == "int64" else "int64 values read as int32 give their low and high halves")
    return (f"{inputs_words(c.source)} is not of the dtype the package was compiled for: an {other} tensor passed "
            f"where {c.dtype} was compiled is read as {c.dtype} ({how}), and nothing checks the dtype without the "
            f"runtime checks. Check x.dtype before the call (x.to(torch.{c.dtype})), or rerun with "
            "AOTI_RUNTIME_CHECK_INPUTS=1: a wrong dtype then fails as `unmatched dtype`, a bad value passes it and "
            "fails this check again.")


def cause_words(c, t) -> str:
    """A `causes.Cause` of match ``t`` in words: what went wrong and what to check."""
    return _CAUSES[c.kind](c, t)


# --- the evidence ------------------------------------------------------------

THREAD_PASSED = ("thread [0,0,0] of block [0,0,0] did not fail (the log lists the threads that did): with a bound of 0 "
                 "every index fails, that thread's too, so the bound is not 0")
THREAD_FAILED = ("thread [0,0,0] of block [0,0,0] failed (the log): as every thread does when the bound is 0; a bad "
                 "value at the first position does the same")


def _fixed_bound(e, t) -> str:
    return f"the bound is the constant {e.number}, a value the package fixes (the failing check, {t.kernel} line {t.file_line})"


def _position_below(e, t) -> str:
    p = t.position
    return (f"the index is a position along {p.length} ({loop_where(p) if p.op == 'loop' else p.where}), which stays "
            f"below {limit_text(e.limit)}: no value can fail")


def _guard_evidence(e, t) -> str:
    return (f"{dim_words(e.term.input)} was exported for {_rng(e.term)}; its guards run only with "
            "AOTI_RUNTIME_CHECK_INPUTS=1, so a size outside it (0 too) reaches the kernel")


def _no_guard_evidence(e, t) -> str:
    return (f"{dim_words(e.term.input)} has no guard compiled in (torch 2.6 writes none unless "
            "AOTI_RUNTIME_CHECK_INPUTS=1 is set when compiling): any size, 0 too, reaches the kernel")


# `causes.EVIDENCE_KINDS` -> the evidence's words.
_EVIDENCE = {
    "failing_check": lambda e, t: f"the failing check, {t.kernel} line {t.file_line}",
    "failing_call": lambda e, t: f"the failing call, wrapper.cpp line {t.file_line}",
    "read_straight": lambda e, t: f"the checked value is read straight from {inputs_words(e.source)}",
    "fixed_bound": _fixed_bound,
    "fixed_bound_not_zero": lambda e, t: f"{_fixed_bound(e, t)}: it is never 0, so only a value fails",
    "loop_index": lambda e, t: (f"the index is a loop position ({loop_where(t.position)}), not a value read from a "
                                f"tensor: only {t.position.length} moves it"),
    "position_fixed": lambda e, t: position_evidence(t, limit_text(e.limit)),
    "position_below": _position_below,
    "read_from_constant": lambda e, t: f"the index is read from constant {e.constant}, not from an input",
    "no_guard": _no_guard_evidence,
    "guard": _guard_evidence,
    "log_line": lambda e, t: e.quote,
    "thread_passed": lambda e, t: THREAD_PASSED,
    "thread_failed": lambda e, t: THREAD_FAILED,
    "compiled_dtype": lambda e, t: (f"{t.kernel} reads {inputs_words(e.source)} as {e.dtype}, the dtype it was "
                                    "compiled for, whatever the tensor holds"),
}


def evidence_words(e, t) -> str:
    """A `causes.Evidence` of match ``t`` in words."""
    return _EVIDENCE[e.kind](e, t)


# --- the notes ---------------------------------------------------------------


def _hops(x) -> str:
    """``ks1 = s27 = input 0 (arg0_1) dim 1``: each name once."""
    parts = [x.kernel_param, x.call_arg, x.symbol or "?", dim_words(x.input)]
    return " = ".join(dict.fromkeys(p for p in parts if p))


def _rng(x) -> str:
    return f"{x.min if x.min is not None else '?'}..{x.max if x.max is not None else '?'}"


def _limit_terms_note(n, t) -> str:
    numel = f" (the number of elements of {who(n.numel_of)}, when these are all its dims)" if n.numel_of else ""
    return f"The limit is {limit_text(n.limit)}{numel}: " + ", ".join(_hops(x) for x in n.terms) + "."


def _wrap_note(n, t) -> str:
    if n.wraps:
        return (f"{t.kernel} wraps negative indices before its check (`idx < 0 ? idx + {limit_text(n.limit)} : idx`, "
                f"Python's indexing): -1..{_neg(n.limit)} pass silently and read rows counted from the end (a wrong "
                f"row, no error); only values below {_neg(n.limit)} fail the check.")
    return f"{t.kernel} does not wrap negative indices: -1 already fails its check (as an embedding's does)."


def user_code(location, name: str | None) -> str:
    """Where the user's own code does it: ``the index comes from `ids`, used at build.py:138 `…` in `tok```."""
    where = (f"{location.file.rsplit('/', 1)[-1]}:{location.line}  `{location.code}`"
             + (f" in `{location.module}`" if location.module else ""))
    return f"In your code: the index comes from `{name}`, used at {where}." if name else f"In your code: {where}."


# `causes.NOTE_KINDS` -> the note's words.
_NOTES = {
    "limit_terms": _limit_terms_note,
    "wrap": _wrap_note,
    "computed_through": lambda n, t: (f"The index values are computed from {who(n.input)} through "
                                      f"{' <- '.join(n.through)} (an intermediate buffer), not read from it directly."),
    "computed_inside": lambda n, t: (f"The index values are computed from {who(n.input)} inside {t.kernel} itself (it "
                                     f"stores {n.store} and reads it back, e.g. an argmax or cumsum), not read from the "
                                     "input directly."),
    "launches": lambda n, t: (f"{t.kernel} is launched {n.count} times (wrapper lines "
                              f"{', '.join(str(s) for s in n.lines)}); the chain above follows the first launch."),
    "user_code": lambda n, t: user_code(n.location, n.name),
}


def note_words(n, t) -> str:
    """A `causes.Note` of match ``t`` in words."""
    return _NOTES[n.kind](n, t)


# --- the commands that tell causes apart ------------------------------------


def confirm_commands(pkg: str, log: str | None = None) -> list[str]:
    """The commands that tell a trace's alternatives apart by running the package (the `repro`/`sweep` commands);
    ``log``: the file the error was read from (else a placeholder the user fills in)."""
    import shlex

    return [f"pt2-inspect repro {shlex.quote(pkg)} --log {shlex.quote(log) if log else 'ERROR_LOG'}",
            f"pt2-inspect sweep {shlex.quote(pkg)} --run"]


CONFIRM_WHY = "nothing in the log excludes the other causes; a run tells them apart"


def reduction_position_hypothesis(kernel: str, length: str, rows) -> str:
    """The index is a position an argmax-like reduction found (``tmpN_idx`` of ``max_with_index``)."""
    table = f"; the table has {rows} rows, so {length} above {rows} runs it past the end" if rows is not None else ""
    return (f"the index is a position {kernel} found (an argmax/argmin over {length}): its values reach "
            f"0..{length} - 1{table}. Check that size against the table, not the values of the input.")


def reduction_position_note(length: str) -> str:
    return f"; the index is a position along {length} (an argmax/argmin)"


# What each certainty rests on (inspector.queries.causes.BASES), in the words the certainty line says after the level
BASIS_WORDS = {
    "fixed_bound": "the package fixes the bound: only a value outside it fails",
    "thread_passed": "thread [0,0,0] passed: the bound is not 0",
    "own_message": "the log holds the package's own check message, matched to its one check",
    "input_check": "the runtime's own input check names the input",
    "printed_writer": "the printed values show the launch that made them",
    "thread_failed": "thread [0,0,0] failed, as with a bound of 0; a value can fail it too",
    "position_exceeds": "a position that can exceed the bound; an empty input fails it too",
    "position_below": "the position stays below the bound: only an empty input fails it",
    "read_into_check": "an input read into the check through ops that can make a NaN/Inf themselves",
    "constant_values": "the index is read from a constant",
    "extern_index": "the extern op's index input; its own check was not seen",
    "dtype_rival": "a value, or an input of the other integer dtype: no log tells them apart",
    "log_line": "read from the log's own line, not traced to one check",
    "ranked": "ranked by the evidence; none excluded",
    "no_evidence": "nothing tells the causes apart",
    "rival": "a rival as sure stands beside it",
}


def certainty_words(level: str, basis: str | None) -> str:
    """``certain (the log holds the package's own check message, …)``: the level and what it rests on."""
    why = BASIS_WORDS.get(basis or "")
    return f"{level} ({why})" if why else level
