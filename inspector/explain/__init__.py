"""The words people read: verdicts, hypotheses, next steps and environment variables.

Queries decide *what* is true (inspector.queries); this package only says it.  Every
function takes facts and returns plain strings; no code reads them back.  Per query:
this module (trace-assert, and what every query shares), ``diagnose`` (every verdict,
step and note of `diagnose`).
"""

from __future__ import annotations

import re

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

# What a recognised log line suggests (inspector.logs: LogReport.hints), by pattern name.
LOG_HINTS = {
    "terminate_recursive": "the log shows 'terminate called recursively': the error text was lost inside "
                           "OpenMP threads; rerun with OMP_NUM_THREADS=1 to see which check failed",
}

def who(inp) -> str:
    """``input 1 `item_ids``` / ``input 1 (arg1_1)``."""
    if inp is None:
        return "?"
    return f"input {inp.index} `{inp.user_name}`" if getattr(inp, "user_name", None) else f"input {inp.index} ({inp.name})"


def dim_words(inp) -> str:
    return f"{who(inp)} dim {inp.dim}"


def table_words(table: dict | None) -> str:
    if not table:
        return ""
    if table.get("kind") == "constant":
        shape = table.get("shape") or []
        along = next((d for d, n in enumerate(shape) if n != 1), None) if shape and shape[0] == 1 and len(shape) > 1 else None
        if along is not None:  # a [1, 512] buffer (position_ids, token_type_ids): its rows are 1, its length is dim 1's
            return f"`{table.get('fqn') or table['name']}` (shape {shape}: indexed along dim {along}, {shape[along]} long)"
        rows = f", {table['rows']} rows" if table.get("rows") is not None else ""
        return f"`{table.get('fqn') or table['name']}`{rows}"
    if table.get("kind") == "input":
        return f"input {table['index']} `{table['user_name']}`" if table.get("user_name") else \
            f"input {table['index']} ({table['name']})"
    made = table.get("from_inputs")
    return f"buffer {table['name']}" + (f" (made from input {', '.join(map(str, made))})" if made else "")


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
    var = t.assertion.get("index_var") or "a value"
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


def trace_verdict(t, first_thread_failed: bool | None = None) -> str:
    """One line: which input holds what, against which limit, checked where.  ``first_thread_failed``: whether the
    log shows thread [0,0,0] of block [0,0,0] failing (with a bound of 0 every index fails, that one too)."""
    a = t.assertion
    var = a.get("index_var") or "the index"
    inputs = [o.input for o in t.index_origin if o.input]
    consts = [o.constant for o in t.index_origin if o.constant]
    direct = [o for o in t.index_origin if o.input and not computed(o)]
    src = ", ".join(dict.fromkeys(who(i) for i in inputs)) if inputs else None
    if src and not direct:
        src = f"an index computed from {src}"
    elif not src and consts:
        src = f"values read from constant {consts[0]}"
    tbl = table_words(t.table)
    if a.get("checks") == "finite":
        return finite_verdict(t, src if direct else None, [who(i) for i in inputs])
    if a.get("checks") in LAYOUT_WORDS:
        feeds = f"; its tensors come from {src}" if src else ""
        return (f"{t.kernel} failed with an ATen {a['checks']} error, not an index out of range: "
                f"{LAYOUT_WORDS[a['checks']]}{feeds}")
    where = f"failed inside the extern op {t.kernel}" if t.kernel_kind == "extern" else f"checked in {t.kernel}"
    if t.static_bound is not None:
        limit = f"≥ {t.static_bound}" + (f", indexing {tbl}" if tbl else "")
        verb = "hold" if (src or "").startswith("values") else "holds"
        return f"{src or var} {verb} values {limit} (or < 0); {where}"
    if t.bound is not None and t.bound.terms and all(x.input for x in t.bound.terms):
        lim = t.bound.limit or t.bound.kernel_param
        empty = [x for x in t.bound.terms if x.min is not None and x.min >= 1]
        if src and direct:
            return f"{src} holds values ≥ {lim} (or < 0){', indexing ' + tbl if tbl else ''}; {where}"
        if empty:
            dims = " or ".join(dim_words(x.input) for x in empty)
            if first_thread_failed is False:
                return (f"{src or var} is ≥ {lim} (or < 0); not an empty input: were {dims} 0, every index would fail, the "
                        f"first thread of the first block too, and the log shows that one did not; {where}")
            return (f"{dims} is 0 (an empty input) or {src or var} is ≥ {lim}; the package was exported for "
                    f"{_rng(empty[0])}; {where}")
        return f"{src or var} is ≥ {lim} (or < 0); {where}"
    if t.kernel_kind == "extern":
        return f"{t.kernel} failed: {src or 'its index argument'} holds an index outside {tbl or 'its table'}"
    return f"{var} failed `{a.get('message')}` in {t.kernel}; the bound `{a.get('bound_expr')}` was not traced to an input"


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


def trace_hypotheses(t, n_sites: int, first_thread_failed: bool | None = None) -> list[str]:
    """Ranked causes, each stated once, then notes (intermediate buffers, several launches).  A log whose first
    thread did not fail puts a too-large index first: with a bound of 0 every thread fails."""
    out: list[str] = []
    a = t.assertion
    var = a.get("index_var") or "the index"
    inputs = [o.input for o in t.index_origin if o.input]
    src = ", ".join(dict.fromkeys(who(i) for i in inputs)) if inputs else None
    direct = any(o.input and not computed(o) for o in t.index_origin)
    consts = [o.constant for o in t.index_origin if o.constant]
    tbl = table_words(t.table)
    if a.get("checks") in LAYOUT_WORDS:
        out.append(LAYOUT_CAUSES[a["checks"]])
        return out
    if a.get("checks") == "finite":
        if src and direct:
            return [f"{src} holds a NaN or Inf: check it before calling the model (torch.isfinite(x).all())."]
        out.append(f"{var} is computed in {t.kernel}" + (f" from {src}" if src else "") + ": a NaN/Inf in "
                   + ("that input, or " if src else "") + "the computation itself (log of a negative, 0/0, an "
                   "overflow) made it; the intermediate value printer shows the values going in.")
        return out
    if t.static_bound is not None:
        if src and not direct:
            out.append(f"the index computed from {src} takes a value outside 0..{t.static_bound - 1}"
                       + (f" (indexing {tbl})" if tbl else "") + ": check the sizes and values of that input "
                       "against the table.")
        elif src:
            out.append(f"{src} holds a value outside 0..{t.static_bound - 1}"
                       + (f" (indexing {tbl})" if tbl else "") + f": check those values before calling the model "
                       f"(e.g. ids < {t.static_bound}), or grow the table.")
        elif consts:
            out.append(f"The values come from constant {consts[0]}: it holds such a "
                       "value only if it was never loaded (a buffer left out of load_constants, e.g. one "
                       "state_dict() lacks, holds uninitialised memory) or was replaced by other weights: check "
                       "the load_constants call (`pt2-inspect doctor PKG --weights FILE`).")
        else:
            out.append(f"{var} is computed inside {t.kernel} and must stay below {t.static_bound}.")
    elif t.bound is not None and t.bound.terms and all(x.input for x in t.bound.terms):
        lim = t.bound.limit
        value = ((f"{src} holds" if direct else f"the index computed from {src} takes")
                 + f" a value outside 0..({lim}) - 1: check those values against {lim} before calling the model."
                 ) if src else None
        empties = [x for x in t.bound.terms if x.min is not None and x.min >= 1]
        empty = None
        if empties:
            dims = " or ".join(dim_words(x.input) for x in empties)
            exported = "; ".join(f"{dim_words(x.input)} was exported for {_rng(x)}" for x in t.bound.terms)
            empty = (f"{dims} is 0 (an empty input), so `{var} < {a.get('bound_expr')}` fails for every index "
                     f"({exported}): handle empty inputs in forward() or export with size-0/1 samples. "
                     "AOTI_RUNTIME_CHECK_INPUTS=1 at run time turns this into a clear input error.")
        # A value read straight from an input is the likelier cause; an index computed from other inputs
        # (cumsum, arange) usually goes wrong because a size is 0.
        first, second = (value, empty) if direct or first_thread_failed is False else (empty, value)
        out += [x for x in (first, second) if x]
        if len(t.bound.terms) > 1:
            out.append(f"The limit is {lim}{_numel_words(t.bound.terms, a.get('bound_expr') or '')}: "
                       + ", ".join(_hops(x) for x in t.bound.terms) + ".")
    elif t.kernel_kind == "extern":
        if src:
            out.append(f"{src} holds an index outside {tbl or 'the table'} that {t.kernel} reads: check those values "
                       "before calling the model.")
    elif a.get("bound_expr"):
        out.append(f"The bound `{a['bound_expr']}` could not be traced to a model input.")
    for o in t.index_origin:
        if o.input and computed(o):
            hops = [p for p in o.path if p.startswith(("triton_", "cpp_", "aoti_"))]
            own = [p for p in o.path if re.fullmatch(r"(in_)?out_ptr\d+", p)]
            if hops:
                out.append(f"The index values are computed from {who(o.input)} through {' <- '.join(hops)} "
                           "(an intermediate buffer), not read from it directly.")
            elif own:
                out.append(f"The index values are computed from {who(o.input)} inside {t.kernel} itself (it stores "
                           f"{own[0]} and reads it back, e.g. an argmax or cumsum), not read from the input directly.")
    if n_sites > 1:
        out.append(f"{t.kernel} is launched {n_sites} times (wrapper lines {', '.join(str(s) for s in t.call_sites)}); "
                   "the chain above follows the first launch.")
    return list(dict.fromkeys(out))


def user_code(t) -> str:
    """Where the user's own code does it: ``the index comes from `ids`, used at build.py:138 `…` in `tok```."""
    loc = t.source_locations[0]
    names = [o.input.user_name for o in t.index_origin if o.input and o.input.user_name]
    where = f"{loc['file'].rsplit('/', 1)[-1]}:{loc['line']}  `{loc['code']}`" + (f" in `{loc['module']}`" if loc.get("module") else "")
    return (f"In your code: the index comes from `{names[0]}`, used at {where}." if names
            else f"In your code: {where}.")


def reduction_position_hypothesis(kernel: str, length: str, rows) -> str:
    """The index is a position an argmax-like reduction found (``tmpN_idx`` of ``max_with_index``)."""
    table = f"; the table has {rows} rows, so {length} above {rows} runs it past the end" if rows is not None else ""
    return (f"the index is a position {kernel} found (an argmax/argmin over {length}): its values reach "
            f"0..{length} - 1{table}. Check that size against the table, not the values of the input.")


def reduction_position_note(length: str) -> str:
    return f"; the index is a position along {length} (an argmax/argmin)"
