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
    """``input 1 `item_ids``` / ``input 1 (arg1_1)``."""
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


def computed(o) -> bool:
    """The index values are computed from the input, not read from it (`IndexOrigin.through_buffer`)."""
    return o.through_buffer


# An extern op's error about a tensor's layout (inspector.logs.patterns.ATEN_LAYOUT_ERRORS): what it means.
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


def finite_verdict(t, direct: str | None, inputs: list[str]) -> str:
    """A Triton kernel's own NaN/Inf check failed: the value it checks, and whether it came in with an input."""
    var = t.assertion.index_var or "a value"
    head = f"{var} holds a NaN or Inf in {t.kernel}"
    if direct:
        return f"{head}: it is read from {direct}, so that input already held it; check that input"
    if inputs:
        return (f"{head}: computed there from {', '.join(dict.fromkeys(inputs))}; a NaN/Inf in that input, or the "
                "computation, made it")
    return f"{head}: computed inside the kernel (no input carries it in)"


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


def _bare(tree, terms) -> bool:
    """Whether a limit, as `limit_words` writes the bound ``tree`` (`inspector.parse.expr_tree`), is one operand in
    one word, negated and offset without parentheses (``-64``, ``ks0 - 1``): a number, or a name left as it is (a
    term with no input keeps its name).  A term traced to an input is a phrase (``input 0's dim 0``), and a sum, a
    product or a call is an expression: those are put in parentheses (``-(input 0's dim 0)``)."""
    from ..parse import expr_tree as E

    if isinstance(tree, E.Paren):
        return _bare(tree.inner, terms)
    if isinstance(tree, E.Int):
        return tree.value >= 0
    if isinstance(tree, E.Name):
        return not any(x.kernel_param == tree.id and x.input is not None for x in terms)
    return False


def _limit(t) -> tuple[str, bool]:
    """The limit of check ``t`` in words and whether it is `_bare`: the static bound, else the bound's limit (its
    kernel parameter when the bound has no words), else ``N``.  Typed facts only: the number, the bound's tree
    (``Assertion.bound_tree``) and its terms."""
    if t.static_bound is not None:
        return str(t.static_bound), t.static_bound >= 0
    if t.bound is None:
        return "N", True
    if not t.bound.limit:
        return t.bound.kernel_param, True  # a parameter's name
    return t.bound.limit, _bare(t.assertion.bound_tree, t.bound.terms)


def _neg(limit: str, bare: bool) -> str:
    return f"-{limit}" if bare else f"-({limit})"


def _below(t, limit: str, bare: bool) -> str:
    """What a negative index does at this check: ``< 0`` fails it, or (a kernel that wraps) only ``< -N``."""
    return f"< {_neg(limit, bare)}" if t.negative_wrap else "< 0"


def _outside(t, limit: str, bare: bool, last: int | None = None) -> str:
    """The range a value must stay in: ``0..N-1``, or ``-N..N-1`` where the kernel wraps negatives; ``last``: the
    range's last value when it is a number (a static bound's ``N - 1``)."""
    top = str(last) if last is not None else f"{limit if bare else f'({limit})'} - 1"
    return f"{_neg(limit, bare)}..{top}" if t.negative_wrap else f"0..{top}"


def _position_exceeds(t) -> bool | None:
    """Whether the position's length can exceed the bound (None: the package does not say)."""
    p = t.position
    terms = t.bound.terms if t.bound is not None else []
    if p is None:
        return None
    if len(terms) == 1 and p.symbol is not None and terms[0].symbol == p.symbol:
        return False  # positions along the very dim the index is checked against stay below it
    if t.static_bound is not None:
        top = p.static if p.static is not None else p.max
        return None if top is None else top + p.past > t.static_bound
    return True


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


def position_hypothesis(t, limit: str) -> str:
    p = t.position
    if p.op == "loop":
        return (f"{p.length} is larger than {limit}: the index is a loop position ({loop_where(p)} runs 0 … "
                f"{p.length} - 1, an arange such as position ids), so every size past {limit} fails, whatever the "
                f"values" + (f"; the package was exported for sizes up to {p.max}" if p.max is not None else "")
                + f". Keep {p.length} ≤ {limit} (truncate or chunk the input), or grow what is indexed (e.g. "
                "max_position_embeddings) and export with that dim's max at most the table's size; "
                "`pt2-inspect check` says which sizes fail.")
    if p.op == "reduction":
        rows = t.table.rows if t.table is not None else None
        return reduction_position_hypothesis(p.where, p.length, rows)
    if p.input is None and p.static is not None:
        top_v = p.static - 1 + p.past
        return (f"the index is a position {p.name} returns along {p.length} ({p.where}): its values reach {top_v}"
                + (" (one past the last boundary)" if p.past else "") + f", and {limit} is the limit: whenever {limit} "
                f"is {top_v} or less, the largest positions fail. Compare those two sizes (`pt2-inspect check` says "
                "'may fail' for them), not the input's values.")
    top = f"{p.length}" + (" (one past the last boundary)" if p.past else " - 1")
    rng = f"; the package allows {p.length} up to {p.max}" if p.max is not None else ""
    return (f"the index is a position {p.name} returns along {p.length} ({p.where}): its values reach {top}, and "
            f"{limit} is the limit{rng}: whenever {p.length} is larger than {limit}, positions past it fail. Compare "
            f"those two sizes (`pt2-inspect check` says 'may fail' for them), not the input's values.")


def position_evidence(t, limit: str) -> str:
    p = t.position
    return (f"the package fixes it: the index is the output of {p.name} ({p.where}), bounded by {p.length}, not by "
            f"{limit}")


def _guard_evidence(x) -> str:
    if x.min is None and x.max is None:
        return (f"{dim_words(x.input)} has no guard compiled in (torch 2.6 writes none unless AOTI_RUNTIME_CHECK_INPUTS=1 "
                "is set when compiling): any size, 0 too, reaches the kernel")
    return (f"{dim_words(x.input)} was exported for {_rng(x)}; its guards run only with AOTI_RUNTIME_CHECK_INPUTS=1, "
            "so a size outside it (0 too) reaches the kernel")


THREAD_PASSED = ("thread [0,0,0] of block [0,0,0] did not fail (the log lists the threads that did): with a bound of 0 "
                 "every index fails, that thread's too, so the bound is not 0")
THREAD_FAILED = ("thread [0,0,0] of block [0,0,0] failed (the log): as every thread does when the bound is 0; a bad "
                 "value at the first position does the same")


def confirm_commands(pkg: str, log: str | None = None) -> list[str]:
    """The commands that tell a trace's alternatives apart by running the package (the `repro`/`sweep` commands);
    ``log``: the file the error was read from (else a placeholder the user fills in)."""
    import shlex

    return [f"pt2-inspect repro {shlex.quote(pkg)} --log {shlex.quote(log) if log else 'ERROR_LOG'}",
            f"pt2-inspect sweep {shlex.quote(pkg)} --run"]


CONFIRM_WHY = "nothing in the log excludes the other causes; a run tells them apart"


def wrap_note(t) -> str | None:
    """Whether the checked kernel wraps negative indices, said once (not for a check with no lower side, which
    Inductor writes where it proved the index never negative: ``tmp6 < 32L``)."""
    if t.assertion.lower_bound is None and t.assertion.checks == "index":
        return None
    lim, bare = _limit(t) if t.static_bound is not None or (t.bound and t.bound.limit) else ("N", True)
    if t.negative_wrap is True:
        return (f"{t.kernel} wraps negative indices before its check (`idx < 0 ? idx + {lim} : idx`, Python's "
                f"indexing): -1..{_neg(lim, bare)} pass silently and read rows counted from the end (a wrong row, no "
                f"error); only values below {_neg(lim, bare)} fail the check.")
    if t.negative_wrap is False:
        return (f"{t.kernel} does not wrap negative indices: -1 already fails its check (as an embedding's does).")
    return None


def trace_verdict(t, first_thread_failed: bool | None = None) -> str:
    """One line: which input holds what, against which limit, checked where.  ``first_thread_failed``: whether the
    log shows thread [0,0,0] of block [0,0,0] failing (with a bound of 0 every index fails, that one too).
    Without such evidence every cause the package allows is named, none ranked by a fixed rule."""
    a = t.assertion
    var = a.index_var or "the index"
    inputs = [o.input for o in t.index_origin if o.input]
    consts = [o.constant for o in t.index_origin if o.constant]
    direct = [o for o in t.index_origin if o.input and not computed(o)]
    src = ", ".join(dict.fromkeys(who(i) for i in inputs)) if inputs else None
    if src and not direct:
        src = f"an index computed from {src}"
    elif not src and consts:
        src = f"values read from constant {consts[0]}"
    tbl = table_words(t.table)
    if a.checks == "finite":
        return finite_verdict(t, src if direct else None, [who(i) for i in inputs])
    if a.checks in LAYOUT_WORDS:
        feeds = f"; its tensors come from {src}" if src else ""
        return (f"{t.kernel} failed with an ATen {a.checks} error, not an index out of range: "
                f"{LAYOUT_WORDS[a.checks]}{feeds}")
    where = f"failed inside the extern op {t.kernel}" if t.kernel_kind == "extern" else f"checked in {t.kernel}"
    if t.static_bound is not None:
        n = str(t.static_bound)
        limit = f"≥ {n}" + (f", indexing {tbl}" if tbl else "")
        verb = "hold" if (src or "").startswith("values") else "holds"
        pos = ""
        if _position_exceeds(t):
            if t.position.op == "loop":
                return f"{loop_position_words(t, n)}; {where}"
            pos = f"; it is a position {t.position.name} returns along {t.position.length}, which can exceed {n}"
        below = f" (or {_below(t, *_limit(t))})" if a.lower_bound is not None else ""
        return f"{src or var} {verb} values {limit}{below}{pos}; {where}"
    if t.bound is not None and t.bound.terms and all(x.input for x in t.bound.terms):
        lim, bare = _limit(t)
        dims = " or ".join(dim_words(x.input) for x in t.bound.terms)
        what = (f"{src} holds values ≥ {lim} (or {_below(t, lim, bare)}){', indexing ' + tbl if tbl else ''}"
                if src and direct else f"{src or var} is ≥ {lim} (or {_below(t, lim, bare)})")
        if first_thread_failed is False:
            return (f"{what}; not an empty input: were {dims} 0, every index would fail, the first thread of the "
                    f"first block too, and the log shows that one did not; {where}")
        exceeds = _position_exceeds(t)
        if exceeds:
            return (f"{what}: it is a position {t.position.name} returns along {t.position.length}, and that size can "
                    f"exceed {lim}; or {dims} is 0 (an empty input); {where}")
        if exceeds is False:
            return (f"{dims} is 0 (an empty input): {src or var} is a position along {t.position.length}, which "
                    f"stays below {lim}; {where}")
        if first_thread_failed is True:
            return (f"{dims} is 0 (an empty input), as thread [0,0,0] failing suggests, or {what}; {where}")
        return f"{what}, or {dims} is 0 (an empty input); the log does not say which; {where}"
    if t.kernel_kind == "extern":
        return f"{t.kernel} failed: {src or 'its index argument'} holds an index outside {tbl or 'its table'}"
    return f"{var} failed `{a.message}` in {t.kernel}; the bound `{a.bound_expr}` was not traced to an input"


def _hops(x) -> str:
    """``ks1 = s27 = input 0 (arg0_1) dim 1``: each name once."""
    parts = [x.kernel_param, x.call_arg, x.symbol or "?", dim_words(x.input)]
    return " = ".join(dict.fromkeys(p for p in parts if p))


def _numel_words(terms, expr: str) -> str:
    """`` (the number of elements of input 0)`` when the bound multiplies every dim of one input."""
    ins = {x.input.index for x in terms if x.input}
    if len(ins) == 1 and "+" not in expr and "-" not in expr and "*" in expr:
        inp = terms[0].input
        return f" (the number of elements of {who(inp)}, when these are all its dims)"
    return ""


def _rng(x) -> str:
    return f"{x.min if x.min is not None else '?'}..{x.max if x.max is not None else '?'}"



def trace_hypotheses(t, n_sites: int, first_thread_failed: bool | None = None, thread_line: str | None = None
                     ) -> tuple[list[tuple[str, str, list[str]]], list[str]]:
    """(causes, notes).  Causes: ``(text, certainty, evidence)``, likeliest first, each stated once; a cause is
    ranked above another only on evidence (the log's threads, a value the package fixes), never by a fixed
    rule.  Notes: facts beside them (intermediate buffers, several launches, negative wrap-around)."""
    causes: list[tuple[str, str, list[str]]] = []
    notes: list[str] = []
    a = t.assertion
    var = a.index_var or "the index"
    inputs = [o.input for o in t.index_origin if o.input]
    src = ", ".join(dict.fromkeys(who(i) for i in inputs)) if inputs else None
    direct = any(o.input and not computed(o) for o in t.index_origin)
    consts = [o.constant for o in t.index_origin if o.constant]
    tbl = table_words(t.table)
    at = f"the failing check, {t.kernel} line {t.file_line}"
    if a.checks in LAYOUT_WORDS:
        return [(LAYOUT_CAUSES[a.checks], "possible", [at])], notes
    if a.checks == "finite":
        if src and direct:
            return [(f"{src} holds a NaN or Inf: check it before calling the model (torch.isfinite(x).all()).",
                     "likely", [at, f"the checked value is read straight from {src}"])], notes
        causes.append((f"{var} is computed in {t.kernel}" + (f" from {src}" if src else "") + ": a NaN/Inf in "
                       + ("that input, or " if src else "") + "the computation itself (log of a negative, 0/0, an "
                       "overflow) made it; the intermediate value printer shows the values going in.", "possible", [at]))
        return causes, notes
    if t.static_bound is not None:
        n = t.static_bound
        fixed = f"the bound is the constant {n}, a value the package fixes ({at}): it is never 0, so only a value fails"
        rng = _outside(t, *_limit(t), last=n - 1)
        if _position_exceeds(t) and t.position.op == "loop":
            causes.append((position_hypothesis(t, str(n)), "certain", [
                f"the bound is the constant {n}, a value the package fixes ({at})",
                f"the index is a loop position ({loop_where(t.position)}), not a value read from a tensor: only "
                f"{t.position.length} moves it"]))
        elif _position_exceeds(t):
            causes.append((position_hypothesis(t, str(n)), "certain", [fixed, position_evidence(t, str(n))]))
        elif src and not direct:
            causes.append((f"the index computed from {src} takes a value outside {rng}"
                           + (f" (indexing {tbl})" if tbl else "") + ": check the sizes and values of that input "
                           "against the table.", "certain", [fixed]))
        elif src:
            causes.append((f"{src} holds a value outside {rng}"
                           + (f" (indexing {tbl})" if tbl else "") + f": check those values before calling the model "
                           f"(e.g. ids < {n}), or grow the table.", "certain", [fixed]))
        elif consts:
            causes.append((f"The values come from constant {consts[0]}: it holds such a "
                           "value only if it was never loaded (a buffer left out of load_constants, e.g. one "
                           "state_dict() lacks, holds uninitialised memory) or was replaced by other weights: check "
                           "the load_constants call (`pt2-inspect doctor PKG --weights FILE`).", "likely",
                           [fixed, f"the index is read from constant {consts[0]}, not from an input"]))
        else:
            causes.append((f"{var} is computed inside {t.kernel} and must stay below {n}.", "certain", [fixed]))
    elif t.bound is not None and t.bound.terms and all(x.input for x in t.bound.terms):
        lim = t.bound.limit
        guards = [_guard_evidence(x) for x in t.bound.terms]
        value = ((f"{src} holds" if direct else f"the index computed from {src} takes")
                 + f" a value outside {_outside(t, *_limit(t))}: check those values against {lim} before calling the "
                 "model.") if src else None
        dims = " or ".join(dim_words(x.input) for x in t.bound.terms)
        exported = "; ".join(f"{dim_words(x.input)} was exported for {_rng(x)}" for x in t.bound.terms)
        empty = (f"{dims} is 0 (an empty input), so `{var} < {a.bound_expr}` fails for every index "
                 f"({exported}): handle empty inputs in forward() or export with size-0/1 samples. "
                 "AOTI_RUNTIME_CHECK_INPUTS=1 at run time turns this into a clear input error.")
        exceeds = _position_exceeds(t)
        if first_thread_failed is False:
            thread = [x for x in (thread_line, THREAD_PASSED) if x]
            if exceeds:
                causes.append((position_hypothesis(t, lim), "certain", thread + [position_evidence(t, lim)]))
            elif value:
                causes.append((value, "certain", thread))
        elif exceeds:
            causes.append((position_hypothesis(t, lim), "likely", [position_evidence(t, lim)] + guards))
            causes.append((empty, "possible", guards))
        elif exceeds is False:
            causes.append((empty, "likely", [f"the index is a position along {t.position.length} "
                                             f"({loop_where(t.position) if t.position.op == 'loop' else t.position.where}), "
                                             f"which stays below {lim}: no value can fail"]
                           + guards))
        elif first_thread_failed is True:
            causes.append((empty, "likely", [x for x in (thread_line, THREAD_FAILED) if x] + guards))
            if value:
                causes.append((value, "possible", [x for x in (thread_line, THREAD_FAILED) if x]))
        else:
            # No evidence tells them apart (a CPU check prints no value and no thread): both, equally possible;
            # the value first only because it is named by the check's own text.
            if value:
                causes.append((value, "possible", [at]))
            causes.append((empty, "possible", guards))
        if len(t.bound.terms) > 1:
            notes.append(f"The limit is {lim}{_numel_words(t.bound.terms, a.bound_expr or '')}: "
                         + ", ".join(_hops(x) for x in t.bound.terms) + ".")
    elif t.kernel_kind == "extern":
        if src:
            causes.append((f"{src} holds an index outside {tbl or 'the table'} that {t.kernel} reads: check those "
                           "values before calling the model.", "likely", [f"the failing call, wrapper.cpp line {t.file_line}"]))
    elif a.bound_expr:
        causes.append((f"The bound `{a.bound_expr}` could not be traced to a model input.", "possible", [at]))
    w = wrap_note(t)
    if w:
        notes.append(w)
    for o in t.index_origin:
        if o.input and computed(o):
            hops = [s.name for s in o.path if s.kind in ("kernel", "extern_op")]
            own = [s.name for s in o.path if s.kind in ("store", "kernel_param") and s.role in ("out", "inout")]
            if hops:
                notes.append(f"The index values are computed from {who(o.input)} through {' <- '.join(hops)} "
                             "(an intermediate buffer), not read from it directly.")
            elif own:
                notes.append(f"The index values are computed from {who(o.input)} inside {t.kernel} itself (it stores "
                             f"{own[0]} and reads it back, e.g. an argmax or cumsum), not read from the input directly.")
    if n_sites > 1:
        notes.append(f"{t.kernel} is launched {n_sites} times (wrapper lines {', '.join(str(s) for s in t.call_sites)}); "
                     "the chain above follows the first launch.")
    seen: set[str] = set()
    causes = [c for c in causes if not (c[0] in seen or seen.add(c[0]))]
    return causes, list(dict.fromkeys(notes))

def user_code(t) -> str:
    """Where the user's own code does it: ``the index comes from `ids`, used at build.py:138 `…` in `tok```."""
    loc = t.source_locations[0]
    names = [o.input.user_name for o in t.index_origin if o.input and o.input.user_name]
    where = f"{loc.file.rsplit('/', 1)[-1]}:{loc.line}  `{loc.code}`" + (f" in `{loc.module}`" if loc.module else "")
    return (f"In your code: the index comes from `{names[0]}`, used at {where}." if names
            else f"In your code: {where}.")


def reduction_position_hypothesis(kernel: str, length: str, rows) -> str:
    """The index is a position an argmax-like reduction found (``tmpN_idx`` of ``max_with_index``)."""
    table = f"; the table has {rows} rows, so {length} above {rows} runs it past the end" if rows is not None else ""
    return (f"the index is a position {kernel} found (an argmax/argmin over {length}): its values reach "
            f"0..{length} - 1{table}. Check that size against the table, not the values of the input.")


def reduction_position_note(length: str) -> str:
    return f"; the index is a position along {length} (an argmax/argmin)"
