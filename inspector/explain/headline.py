"""The first line of every answer: the verdict in plain words, at most `WIDTH` characters (issue 35 §7).

A headline is made from the same typed records as the full verdict (`inspector.queries.causes`' `Verdict` and the
match it words), never by cutting a sentence: each case has a short form, and `fit` picks the first of a few
forms, longest first, that fits.  The full sentence, the alternatives, the evidence and the internals (`ks0`,
`s59`, `arg0_1`) stay below the first line, each named once."""

from __future__ import annotations

WIDTH = 120  # the first line's budget, its mark and label included
# A trace's headline is also diagnose's (``✗ index_assert: …``, its longest label): it fits under either.
MATCH_BUDGET = WIDTH - len("✗ index_assert: ")


def fit(budget: int, *forms: str | None) -> str:
    """The first of ``forms`` (longest first) that fits ``budget`` characters; the last one otherwise (each caller
    ends with a form that always fits)."""
    usable = [f for f in forms if f]
    for f in usable:
        if len(f) <= budget:
            return f
    return usable[-1]


def short_input(inp) -> str:
    """``input 0 `ids``` or ``input 0``: a model input without its wrapper name (that is named below)."""
    if inp is None:
        return "an input"
    user = getattr(inp, "user_name", None)
    return f"input {inp.index} `{user}`" if user else f"input {inp.index}"


def short_dim(inp) -> str:
    return f"{short_input(inp)} dim {inp.dim}"


def short_inputs(source) -> str:
    return ", ".join(dict.fromkeys(short_input(i) for i in source.inputs))


def element_words(element) -> str | None:
    """The one element of a model input the failing threads held (`queries.element.ElementAnswer`), short:
    ``input 1[2, 1]`` / ``input 1 `ids`[2, 1]``; None unless exactly one is named."""
    if element is None or not element.named or element.tensor != "input" or element.input is None:
        return None
    named = [e for e in element.elements if e is not None]
    if len(named) != 1 or len(element.elements) != 1:
        return None
    user = getattr(element, "user_name", None)
    who = f"input {element.input} `{user}`" if user else f"input {element.input}"
    return f"{who}[{', '.join(map(str, named[0]))}]"


def short_source(source, var: str, element=None) -> str:
    """What holds the bad value, short: ``input 1[2, 1]`` (the element, when the log's threads name one),
    ``input 1 `ids```, ``an index from input 1``, ``constant c0``."""
    if source.kind == "read":
        return element_words(element) or short_inputs(source)
    if source.kind == "computed":
        return f"an index from {short_inputs(source)}"
    if source.kind == "constant":
        return f"constant {source.constant}"
    return var


def short_table(table) -> str:
    """What is indexed, short: ```tab`` (100 rows)``, ``input 2 `emb```, or "" (a buffer: named below)."""
    if table is None:
        return ""
    kind = getattr(table, "kind", None)
    if kind == "constant":
        rows = f" ({table.rows} rows)" if table.rows is not None else ""
        return f"`{table.fqn or table.name}`{rows}"
    if kind == "input":
        return f"input {table.index} `{table.user_name}`" if table.user_name else f"input {table.index}"
    return ""


def _limit(v) -> str:
    lim = v.range.limit
    if lim.number is not None:
        return str(lim.number)
    return lim.words if lim.words is not None else "its bound"


def _dims(t) -> str:
    terms = t.bound.terms if t.bound is not None else []
    return " or ".join(short_dim(x.input) for x in terms if x.input is not None) or "a size"


def _index_past(src: str, lim: str, tbl: str, computed: bool = False) -> list[str]:
    """``input 1 `ids` holds an index ≥ 100, past `tab` (100 rows)`` (an index computed from an input: ``an index
    from input 1 is ≥ …``) and shorter forms."""
    verb = "is" if computed else "holds an index"
    return [f"{src} {verb} ≥ {lim}, past {tbl}" if tbl else "", f"{src} {verb} ≥ {lim}"]


def trace_headline(v, t, budget: int = WIDTH) -> str:
    """The first line of a trace's verdict (`causes.Verdict` ``v`` of match ``t``), within ``budget``; where the
    kernel runs in a torch.cond branch or a while_loop body, which one (`queries.branches.BranchContext`)."""
    base = _verdict_headline(v, t, budget)
    where = branch_words(getattr(t, "branch", None))
    return fit(budget, f"{base} ({where})" if where else "", base)


def branch_words(b) -> str | None:
    """``false branch of torch.cond`` / ``a while_loop body``: where the failing kernel runs, short."""
    if b is None:
        return None
    if b.op == "cond" and b.role in ("true", "false"):
        return f"{b.role} branch of torch.cond"
    if b.op == "while_loop":
        return "a while_loop body" if b.role == "body" else "a while_loop condition"
    return None


def _verdict_headline(v, t, budget: int) -> str:
    var = t.assertion.index_var or "the index"
    src = short_source(v.source, var, getattr(t, "element", None))
    tbl = short_table(t.table)
    case = v.case
    if case in ("finite_read", "finite_computed", "finite_inside"):
        ins = short_inputs(v.source)
        forms = {"finite_read": [f"a NaN or Inf comes in with {ins}: that input held it"],
                 "finite_computed": [f"a NaN or Inf computed from {ins}"],
                 "finite_inside": ["a NaN or Inf made inside a kernel (no input carries it in)"]}[case]
        return fit(budget, *forms, "a NaN or Inf check fired")
    if case == "layout":
        return fit(budget, f"{t.kernel} failed on a tensor's layout ({t.assertion.checks}), not on an index",
                   "an extern op failed on a tensor's layout")
    if case == "extern_index":
        return fit(budget, f"{src} holds an index outside {tbl or 'the table'} of {t.kernel}",
                   f"{src} holds an index outside {tbl or 'the table'}", "an extern op got an index outside its table")
    if case == "untraced":
        return fit(budget, f"{var} failed `{t.assertion.message}`; its bound was not traced to an input",
                   "an index check failed; its bound was not traced to an input")
    lim = _limit(v)
    past = _index_past(src, lim, tbl, v.source.kind == "computed")
    if case in ("static", "not_empty"):
        return fit(budget, *past, f"an index ≥ {lim}", "an index past its bound")
    if case == "static_position":
        p = t.position
        return fit(budget, f"{p.name} positions can reach past {lim}" + (f", {tbl}" if tbl else ""),
                   f"{p.name} positions can reach past {lim}", "positions past the bound")
    if case == "loop_position":
        p = t.position
        return fit(budget, f"{_short_length(p)} is larger than {lim}" + (f", the length of {tbl}" if tbl else ""),
                   f"{_short_length(p)} is larger than {lim}", "a position runs past its bound")
    if case == "position_or_empty":
        p = t.position
        return fit(budget, f"{p.name} positions along {_short_length(p)} can exceed {lim} (or {_dims(t)} is 0)",
                   f"{p.name} positions along {_short_length(p)} can exceed {lim}",
                   f"{p.name} positions can exceed {lim}", "positions past the bound")
    if case == "empty_position_below":
        return fit(budget, f"{_dims(t)} is 0: an empty input", "an empty input")
    if case == "empty_as_thread":
        return fit(budget, f"{_dims(t)} is 0 (an empty input), or {past[-1]}",
                   f"{_dims(t)} is 0 (an empty input)", "an empty input, or an index past its bound")
    if case == "value_or_empty":
        return fit(budget, f"{past[-1]}, or {_dims(t)} is 0", *past,
                   "an index past its bound, or an empty input")
    raise KeyError(case)


def _short_length(p) -> str:
    """A position's length, short: ``input 0 dim 1``, ``a fixed length of 8``."""
    if p.input is not None:
        return f"input {p.input} dim {p.dim}"
    return p.length


def not_an_assert(verdict: str, category: str) -> str:
    """trace-assert's first line on a log with no check in it: the verdict where it fits, else what the log is."""
    return fit(MATCH_BUDGET, verdict, f"no assert fired: this log is {category} (diagnose's category)",
               "no assert fired in this log")


def ambiguous_aten(kernel: str, n: int, op: str) -> str:
    return fit(MATCH_BUDGET, f"ambiguous: ATen's {kernel} asserted, and {n} calls of {op} can launch it",
               f"ambiguous: {n} calls of {op} can launch the ATen kernel that asserted")


def candidates(n: int) -> str:
    return f"a device-side assert fired, but its Assertion line is not in the log: {n} candidate(s) below"


FOREIGN = "the log's check is not in this package: the log comes from another package or build"
FOREIGN_NUMBERING = "the log comes from another build of this model: its check is here only up to numbering"


# --- diagnose ---------------------------------------------------------------------------------------------------

def diagnosis_budget(category: str) -> int:
    """What a headline may hold after diagnose's ``✗ <category>: ``."""
    return WIDTH - len(f"✗ {category}: ")


# A category's headline where its verdict does not fit and no rule made a shorter one: what the category is, in
# plain words (the verdict in full is the answer's next line).
CATEGORY_HEADLINES = {
    "index_assert": "an index check failed (below: which input, and the bound)",
    "extern_op": "an ATen op called by the wrapper failed (below: its inputs)",
    "foreign_log": "the log's check is not in this package: the log comes from another package or build",
    "deprecated_api": "the code uses a deprecated API: use aoti_compile_and_package / aoti_load_package",
    "symbolic_assert": "a size assert compiled into the package failed (below: its symbols)",
    "nan_inf": "the NaN/Inf check compiled into the package fired",
    "printer": "the intermediate value printer shows where a NaN/Inf first appears",
    "constants": "load_constants refused a key or missed a constant",
    "out_of_memory": "out of memory",
    "custom_op": "a custom op the package calls is not registered in the serving process",
    "torch_version": "the loading torch does not match the torch that built the package",
    "wrong_artifact": "the loader was given another kind of artifact than it loads",
    "input_check": "AOTI_RUNTIME_CHECK_INPUTS=1 rejected an input",
    "device_mismatch": "an input is on another device than the package expects",
    "arithmetic_fault": "SIGFPE: an integer division by zero in native code (most often a size that was 0)",
    "weights_not_loaded": "the package ran without its weights: they were never loaded",
    "illegal_memory_access": "an illegal memory access (asynchronous: reported later than it was made)",
    "device_assert": "a device-side assert fired, but its Assertion line is not in the log",
    "load": "the package did not load",
    "unknown": "no failure this tool knows is in the log",
    "no_failure": "no failure in this log",
}


def diagnosis(category: str, verdict: str) -> str:
    """A diagnosis' headline when its rule made none: the verdict where it fits, else its category's words."""
    return fit(diagnosis_budget(category), verdict, CATEGORY_HEADLINES.get(category, "see below"))


def fpe(n: int, first_place: str | None, named: bool) -> str:
    head = "SIGFPE: a division by a size that was 0"
    return fit(WIDTH - len("✗ arithmetic_fault: "),
               f"{head}, in {first_place}" + ("" if named or n <= 1 else f" (1 of {n} places)") if first_place else "",
               f"{head} ({n} places can divide by a dynamic size)" if n else "",
               head)


def oom(who: str, buf: str | None, formula: str | None) -> str:
    budget = WIDTH - len("✗ out_of_memory: ")
    return fit(budget, f"out of memory: {who} allocating {buf} ({formula} bytes)" if buf else "",
               f"out of memory allocating {buf}" if buf else "", f"out of memory: {who}", "out of memory")


def ima(place: str | None, reported_by: str | None) -> str:
    budget = WIDTH - len("✗ illegal_memory_access: ")
    at = f" (reported at {reported_by})" if reported_by else ""
    return fit(budget, f"an illegal memory access, most likely {place}{at}" if place else "",
               f"an illegal memory access, most likely {place}" if place else "",
               f"an illegal memory access{at}", "an illegal memory access")


def async_place(h) -> str:
    """One place that could have made an asynchronous CUDA error (``AsyncHypothesis``), short."""
    if h.kind == "host_input":
        return "an input on the CPU"
    if h.kind in ("named_custom_op", "custom_op"):
        return f"custom op {h.target}"
    if h.kind == "unchecked_access":
        return f"{h.target}'s unchecked {(h.suspect or {}).get('access', 'read')}"
    if h.kind == "assert_candidate":
        return f"a device assert of {h.target}"
    return h.target


OOM_WHO = {"allocator": "the device", "cpu": "the host", "runtime": "the GPU (cudaMalloc)",
           "driver": "the GPU (the CUDA driver)", "cublas": "the GPU (cuBLAS's handle)"}


# --- check ------------------------------------------------------------------------------------------------------

CHECK_BUDGET = WIDTH - len("✗ ")
CHECK_UNCHECKED = "no violation in what the package records; some of it was not checked (below)"


def short_label(index: int | None, user_name: str | None) -> str:
    if index is None:
        return "the package"
    return f"input {index} `{user_name}`" if user_name else f"input {index}"


def on_device(got: str, want: str) -> str:
    return f"is on {got}; the package runs on {want}"


def dtype(got: str, want: str) -> str:
    return f"is {got}; it was compiled for {want}"


def rank(got: int, want: int) -> str:
    return f"has {got} dims; it was exported with {want}"


def out_of(dim: int, got: int, lo, hi) -> str:
    empty = " (an empty input)" if got == 0 else ""
    return f"dim {dim} is {got}{empty}, outside {lo if lo is not None else '?'}..{hi if hi is not None else '?'}"


def not_size(dim: int, got: int, want) -> str:
    return f"dim {dim} is {got}, not {want}"


def unequal(dim: int, got: int, other_input: int, other_dim: int, other: int) -> str:
    return f"dim {dim} is {got}, but input {other_input} dim {other_dim} is {other}: they must be equal"


def stride(dim: int, got: int, want) -> str:
    return f"stride {dim} is {got}, not {want}"


_VIOLATION_KIND = {"divisible": "has a dim that is not a multiple its export needs",
                   "shared": "has dims that must share one size and do not",
                   "device": "is on another device than the package runs on",
                   "derived": "has a dim its export derives from another, and it differs"}


def violation_kind(kind: str, index: int | None) -> str:
    return f"{short_label(index, None)} {_VIOLATION_KIND.get(kind, 'breaks the contract')}"


def check_violations(n: int, predicted: int, first: str) -> str:
    head = f"{n} violation(s), {predicted} predicted failure(s)" if n else f"{predicted} predicted failure(s)"
    return fit(CHECK_BUDGET, f"{head}: {first}", head)


def may_fail(kernel: str, message: str | None, more: int) -> str:
    tail = f" (+{more} more)" if more else ""
    return fit(CHECK_BUDGET, f"may fail: {kernel} `{message}`{tail}" if message else "",
               f"may fail: {kernel}{tail}", "may fail (below: which check, and why)")


def check_other(verdict: str) -> str:
    return fit(CHECK_BUDGET, verdict, "see below")


_WEIGHTS_WHERE = {"blob": " (the .so loaded without its weights blob)", "beside": " (they are beside the .so)", None: ""}


def weights_not_loaded(n: int, kept: str | None = None) -> str:
    """A crash of a package built without its weights: what to call (doctor's words for the same fix).  ``kept``:
    where the package keeps them ("blob": a binary blob, "beside": pickled beside the .so; None: not in it)."""
    budget = WIDTH - len("✗ weights_not_loaded: ")
    where = _WEIGHTS_WHERE[kept]
    return fit(budget, f"run without its {n} constant(s){where}: call load_constants(…) before the first run",
               "run without its weights: call load_constants(…) before the first run")


def nan_in_buffer(what: str, buf: str, writer: str | None) -> str:
    budget = WIDTH - len("✗ nan_inf: ")
    return fit(budget, f"{buf} holds {what}, written by {writer}" if writer else "", f"{buf} holds {what}",
               "the NaN/Inf check compiled into the package fired")


def nan_in_input(what: str, label: str) -> str:
    budget = WIDTH - len("✗ nan_inf: ")
    return fit(budget, f"{label} holds {what}: the input came in with it", f"an input holds {what}")
