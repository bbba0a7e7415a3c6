"""Why a traced check failed, decided: the verdict's case, the causes in rank order with their certainty and
evidence, and the notes beside them, from a `TraceMatch`'s typed facts and the log's thread evidence.

`decide` returns a `Decision`; inspector.explain words each part of it and decides nothing (`reason` in
inspector.queries.explanation joins the two).  Every record holds codes and typed facts, never a sentence (the one
exception: the log's own thread line, which `Evidence` "log_line" carries as the log said it).

The rules, in one place:

* What kind of check failed picks the family: a NaN/Inf check ("finite"), an ATen layout error (`LAYOUT_CHECKS`), a
  bound the package fixes (a number: "static"), a bound made of model input dims ("bound"), an extern op's index,
  or a bound not traced to an input.
* Rank.  A cause is ranked above another only on evidence, never by a fixed rule: the log's thread [0,0,0] of
  block [0,0,0] (it passing excludes a bound of 0; it failing is what a bound of 0 does), a value the package
  fixes (a static bound is never 0), a position whose length can exceed the bound (`position_exceeds`) or stays
  below it.  Without evidence both alternatives are "possible", the value first only because the check's own
  text names it.
* Certainty of a cause: what it rests on, one `BASES` code per cause (`Cause.basis`; the level follows from it,
  docs/certainty.md words each): "certain" when the evidence excludes every alternative (a fixed bound, a thread
  that passed, the log's verbatim check message matched to exactly one check on a value an input carries
  unchanged), "likely" when it points one way but excludes nothing (a thread that failed, a position that can
  exceed, an input read into a NaN check through ops that can make one, a constant's values, an extern op's index
  input, a value with a dtype rival), "possible" otherwise.
* Certainty of the verdict (`verdict_certainty`): its first cause's when that one is certain or has no
  uncertain rival; with rivals, no surer than the first ("possible" when the first rival is as sure).  The
  commands that tell causes apart are offered (`needs_confirming`) when the verdict is not certain and there
  are several causes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..parse import expr_tree as E

CERTAIN, LIKELY, POSSIBLE = "certain", "likely", "possible"
CERTAINTY = (CERTAIN, LIKELY, POSSIBLE)

# What each certainty rests on: one code per kind of evidence, and the level it gives (the one place the levels are
# defined; docs/certainty.md words each code, and bench/certainty.py measures each level on the real logs).
BASES: dict[str, str] = {
    # certain: the evidence excludes every alternative
    "fixed_bound": CERTAIN,  # the package fixes the bound (a number, never 0): only a value outside it fails
    "thread_passed": CERTAIN,  # thread [0,0,0] of block [0,0,0] passed: the bound is not 0, a value failed
    "own_message": CERTAIN,  # the log's verbatim check message matches exactly one check, on a value an input
    #                          carries unchanged (read as it is, or through |x|, -x): that input held it
    "input_check": CERTAIN,  # the runtime's own input check names the input and what it wanted
    "printed_writer": CERTAIN,  # the printer shows a launch's output holding it, that launch writing it
    # likely: the evidence points one way and excludes nothing
    "thread_failed": LIKELY,  # thread [0,0,0] failed, as every thread does with a bound of 0; a value can too
    "position_exceeds": LIKELY,  # a position whose length can exceed the bound; an empty input can fail it too
    "position_below": LIKELY,  # a position along a length that stays below the bound: only an empty input fails
    "read_into_check": LIKELY,  # an input read into a NaN/Inf check through ops that can make one (log, /)
    "constant_values": LIKELY,  # the index is read from a constant: never loaded, or replaced
    "extern_index": LIKELY,  # an extern op's index input, the op's own check not seen
    "dtype_rival": LIKELY,  # a value outside a fixed bound, or an input of the other integer dtype read as the
    #                         compiled one: nothing in a log tells them apart
    "log_line": LIKELY,  # a category read from the log's line, its cause not traced to one check
    "ranked": LIKELY,  # the first of places ranked by the evidence (a backtrace, a launch order)
    # possible: nothing excludes the alternatives
    "no_evidence": POSSIBLE,  # nothing in the log or the package tells the causes apart
    "rival": POSSIBLE,  # an equally sure rival stands beside the first cause
}


def level_of(basis: str) -> str:
    """The certainty a basis gives (`BASES`)."""
    return BASES[basis]

# The checks an extern ATen op's layout error makes (`Assertion.checks`; the names of
# inspector.logs.patterns.ATEN_LAYOUT_ERRORS without their ``aten_``): about a tensor's layout, not an index's value.
LAYOUT_CHECKS = ("storage", "shape", "dtype")


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where the checked value comes from.  ``kind``: "read" (some model input is read directly), "computed"
    (every input reaches it through a computation: a buffer, a store), "constant" (no input: a constant's
    values), "none" (nothing traced).  ``inputs``: the inputs' `InputRef`s in origin order (repeats kept);
    ``constant``: the first constant an origin reads."""

    kind: str
    inputs: tuple = ()
    constant: str | None = None

    @property
    def has_inputs(self) -> bool:
        return self.kind in ("read", "computed")


@dataclass(frozen=True)
class Limit:
    """What a value is checked against: ``number`` (a static bound), else ``words`` (the bound's words,
    `BoundChain.limit`, or its kernel parameter when those are empty), else nothing known (written ``N``).
    ``one_operand``: written without parentheses after a minus sign and before `` - 1`` (`one_operand`)."""

    number: int | None = None
    words: str | None = None
    one_operand: bool = True


@dataclass(frozen=True)
class Range:
    """The values a check lets through: 0..limit-1, or -limit..limit-1 when the kernel ``wraps`` negative indices;
    ``last``: the range's last value when it is a number (a static bound's N - 1)."""

    limit: Limit
    wraps: bool
    last: int | None = None


@dataclass(frozen=True)
class Verdict:
    """The verdict's case (`VERDICT_CASES`) and the facts its words need beyond the match.  ``range``: the limit
    and the wrap a "≥ N (or < …)" clause names; ``lower``: the check has a lower side (a static bound's verdict
    then names the negative side too); ``extern``: the check fails inside an extern op; ``position_note``: the
    index is an argmax's position the case does not name (a note is added)."""

    case: str
    source: Source
    range: Range | None = None
    lower: bool = False
    extern: bool = False
    position_note: bool = False


VERDICT_CASES = (
    "finite_read",  # a NaN/Inf check on a value read straight from an input
    "finite_computed",  # … on a value computed from inputs
    "finite_inside",  # … on a value no input carries in
    "layout",  # an extern op's layout error (LAYOUT_CHECKS), no index
    "static",  # a fixed bound: the source holds values ≥ N
    "static_position",  # … and the index is a position whose length can exceed N
    "loop_position",  # … and the index is a loop position (an arange) whose dim runs past N
    "not_empty",  # a bound of input dims; thread [0,0,0] passed: a value, not an empty input
    "position_or_empty",  # a position whose length can exceed the bound, or an empty input
    "empty_position_below",  # an empty input: the position stays below the bound
    "empty_as_thread",  # an empty input, as thread [0,0,0] failing suggests, or a value
    "value_or_empty",  # a value or an empty input, the log does not say which
    "extern_index",  # an extern op's index outside its table
    "untraced",  # the bound was not traced to an input
)


@dataclass(frozen=True)
class Evidence:
    """What a cause rests on, by ``kind`` (`EVIDENCE_KINDS`), with the facts its words need beyond the match:
    ``limit`` (what a position is bounded by instead), ``term`` (a bound's `BoundTerm`, for a guard),
    ``source`` (the inputs a value is read from), ``number`` (a fixed bound), ``constant``, ``quote`` (the log's
    own line)."""

    kind: str
    limit: Limit | None = None
    term: object = None
    source: Source | None = None
    number: int | None = None
    constant: str | None = None
    quote: str | None = None
    dtype: str | None = None


EVIDENCE_KINDS = (
    "failing_check",  # the failing check's kernel and line
    "failing_call",  # the failing extern call's wrapper line
    "read_straight",  # the checked value is read straight from the inputs
    "fixed_bound",  # the bound is a constant the package fixes
    "fixed_bound_not_zero",  # … so it is never 0: only a value fails
    "loop_index",  # the index is a loop position: only its dim moves it
    "position_fixed",  # the index is a position op's output, bounded by its length
    "position_below",  # the index is a position along a length that stays below the bound
    "read_from_constant",  # the index is read from a constant, not an input
    "no_guard",  # a bound's input dim has no guard compiled in
    "guard",  # a bound's input dim has a range whose guards run only when asked
    "log_line",  # the log's thread line
    "thread_passed",  # thread [0,0,0] of block [0,0,0] did not fail: the bound is not 0
    "thread_failed",  # it failed, as every thread does with a bound of 0
    "compiled_dtype",  # the kernel reads the input as the dtype it was compiled for, whatever the tensor holds
)


@dataclass(frozen=True)
class Cause:
    """One cause (`CAUSE_KINDS`), what its certainty rests on (``basis``, `BASES`) and its evidence, with the facts its words need beyond
    the match: ``source``, ``range`` (the values the check lets through), ``limit`` (the bound a position or a
    value is compared to), ``position`` (`position_kind` of the index's position)."""

    kind: str
    basis: str  # what its certainty rests on (`BASES`)
    evidence: tuple[Evidence, ...] = ()
    source: Source | None = None
    range: Range | None = None
    limit: Limit | None = None
    position: str | None = None
    dtype: str | None = None

    @property
    def certainty(self) -> str:
        return BASES[self.basis]


CAUSE_KINDS = (
    "layout",  # an extern op's layout error: what to check
    "finite_input",  # an input holds the NaN/Inf
    "finite_computed",  # the kernel computed it
    "position",  # the index is a position whose length can exceed the bound
    "static_read_value",  # an input holds a value outside a fixed bound's range
    "static_computed_value",  # an index computed from an input takes such a value
    "constant_values",  # the index is read from a constant: never loaded, or replaced
    "computed_inside",  # the index is computed inside the kernel and must stay below the bound
    "bound_value",  # a value outside a bound of input dims
    "empty_input",  # an input dim is 0
    "extern_index",  # an extern op's index input holds an index outside its table
    "untraced_bound",  # the bound could not be traced to an input
    "input_dtype",  # the input read straight into the index is not of the dtype compiled (int32 read as int64)
)

POSITION_KINDS = (
    "loop",  # the kernel's own loop position (an arange)
    "reduction",  # a position an argmax-like reduction found
    "fixed",  # a position along a length the package fixes (no input)
    "sized",  # a position along an input's dim
)


@dataclass(frozen=True)
class Note:
    """A fact beside the causes, by ``kind`` (`NOTE_KINDS`): ``limit`` (the limit a wrap or a sum of terms
    names), ``wraps`` (the kernel wraps negative indices), ``terms`` (a bound's `BoundTerm`s), ``numel_of`` (the
    input whose elements the bound counts, when it multiplies one input's dims), ``input`` (whose values are
    computed), ``through`` (the kernels and ops they pass through), ``store`` (the buffer a kernel stores and
    reads back), ``count``/``lines`` (a kernel's launches), ``location``/``name`` (the user's line and the input
    name it uses)."""

    kind: str
    limit: Limit | None = None
    wraps: bool | None = None
    terms: tuple = ()
    numel_of: object = None
    input: object = None
    through: tuple[str, ...] = ()
    store: str | None = None
    count: int = 0
    lines: tuple[int, ...] = ()
    location: object = None
    name: str | None = None


NOTE_KINDS = (
    "limit_terms",  # a bound of several terms: each term's hops
    "wrap",  # whether the kernel wraps negative indices
    "computed_through",  # the index values pass through intermediate buffers
    "computed_inside",  # the kernel stores them and reads them back
    "launches",  # the kernel is launched several times: the chain follows the first
    "user_code",  # where the user's own code does it
)


@dataclass
class Decision:
    """Everything `reason` words for one match: the verdict, the causes likeliest first, the notes, the
    verdict's certainty and whether the commands that tell the causes apart are offered."""

    verdict: Verdict
    causes: list[Cause] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    certainty: str = POSSIBLE
    confirm: bool = False
    basis: str = "no_evidence"  # what the verdict's certainty rests on (`BASES`)


# ---------------------------------------------------------------------------
# Facts the decisions read
# ---------------------------------------------------------------------------


def source_of(t) -> Source:
    """Where the checked value of ``t`` comes from (`Source`)."""
    inputs = tuple(o.input for o in t.index_origin if o.input)
    if inputs:
        direct = any(o.input and not o.through_buffer for o in t.index_origin)
        return Source("read" if direct else "computed", inputs)
    consts = [o.constant for o in t.index_origin if o.constant]
    return Source("constant", (), consts[0]) if consts else Source("none")


def one_operand(tree, terms) -> bool:
    """Whether the bound ``tree`` (`inspector.parse.expr_tree`), as its words write it, is one operand, negated
    and offset without parentheses (``-64``, ``ks0 - 1``): a number, or a name left as it is (a term with no
    input keeps its name).  A term traced to an input is a phrase (``input 0's dim 0``), and a sum, a product or
    a call is an expression: those need parentheses (``-(input 0's dim 0)``)."""
    if isinstance(tree, E.Paren):
        return one_operand(tree.inner, terms)
    if isinstance(tree, E.Int):
        return tree.value >= 0
    if isinstance(tree, E.Name):
        return not any(x.kernel_param == tree.id and x.input is not None for x in terms)
    return False


def limit_of(t) -> Limit:
    """The limit of check ``t``: the static bound, else the bound's words (its kernel parameter when the bound
    has no words), else nothing known.  Typed facts only: the number, the bound's tree and its terms."""
    if t.static_bound is not None:
        return Limit(number=t.static_bound, one_operand=t.static_bound >= 0)
    if t.bound is None:
        return Limit()
    if not t.bound.limit:
        return Limit(words=t.bound.kernel_param)  # a parameter's name
    return Limit(words=t.bound.limit, one_operand=one_operand(t.assertion.bound_tree, t.bound.terms))


def position_exceeds(t) -> bool | None:
    """Whether the length of the index's position can exceed the bound (None: there is no position, or the
    package does not say).  A position along the very dim the index is checked against stays below it."""
    p = t.position
    terms = t.bound.terms if t.bound is not None else []
    if p is None:
        return None
    if len(terms) == 1 and p.symbol is not None and terms[0].symbol == p.symbol:
        return False
    if t.static_bound is not None:
        top = p.static if p.static is not None else p.max
        return None if top is None else top + p.past > t.static_bound
    return True


def position_kind(p) -> str:
    """Which `POSITION_KINDS` a `PositionBound` is."""
    if p.op in ("loop", "reduction"):
        return p.op
    return "fixed" if p.input is None and p.static is not None else "sized"


def _bound_of_inputs(t) -> bool:
    """The bound is made of model input dims, every term traced."""
    return t.bound is not None and bool(t.bound.terms) and all(x.input for x in t.bound.terms)


def counts_elements(tree) -> bool:
    """The bound multiplies sizes and neither adds nor subtracts (``ks0*ks1``): an element count."""
    if tree is None or E.has_opaque(tree):
        return False
    nodes = list(E.walk(tree))
    ops = {n.op for n in nodes if isinstance(n, (E.BinOp, E.UnaryOp))}
    negative = any(isinstance(n, E.Int) and n.value < 0 for n in nodes)
    return "*" in ops and not ops & {"+", "-"} and not negative


# ---------------------------------------------------------------------------
# The verdict
# ---------------------------------------------------------------------------


def verdict_of(t, first_thread_failed: bool | None = None) -> Verdict:
    """The verdict's case for check ``t``.  ``first_thread_failed``: whether the log shows thread [0,0,0] of
    block [0,0,0] failing (None: no thread evidence)."""
    a = t.assertion
    src = source_of(t)
    extern = t.kernel_kind == "extern"
    wraps = bool(t.negative_wrap)
    position_named = False
    if a.checks == "finite":
        v = Verdict({"read": "finite_read", "computed": "finite_computed"}.get(src.kind, "finite_inside"), src)
    elif a.checks in LAYOUT_CHECKS:
        v = Verdict("layout", src)
    elif t.static_bound is not None:
        rng = Range(limit_of(t), wraps)
        case = "static"
        if position_exceeds(t):
            case = "loop_position" if t.position.op == "loop" else "static_position"
            position_named = case == "static_position"
        v = Verdict(case, src, rng, lower=a.lower_bound is not None, extern=extern)
    elif _bound_of_inputs(t):
        exceeds = position_exceeds(t)
        if first_thread_failed is False:
            case = "not_empty"
        elif exceeds:
            case = "position_or_empty"
        elif exceeds is False:
            case = "empty_position_below"
        elif first_thread_failed is True:
            case = "empty_as_thread"
        else:
            case = "value_or_empty"
        position_named = case in ("position_or_empty", "empty_position_below")
        v = Verdict(case, src, Range(limit_of(t), wraps), extern=extern)
    elif extern:
        v = Verdict("extern_index", src)
    else:
        v = Verdict("untraced", src)
    if t.position is not None and t.position.op == "reduction" and not position_named:
        v = replace(v, position_note=True)
    return v


# ---------------------------------------------------------------------------
# The causes
# ---------------------------------------------------------------------------


def _guards(t) -> list[Evidence]:
    return [Evidence("no_guard" if x.min is None and x.max is None else "guard", term=x) for x in t.bound.terms]


def _thread(kind: str, thread_line: str | None) -> list[Evidence]:
    return ([Evidence("log_line", quote=thread_line)] if thread_line else []) + [Evidence(kind)]


def causes_of(t, first_thread_failed: bool | None = None, thread_line: str | None = None) -> list[Cause]:
    """The causes of check ``t``'s failure, likeliest first, each once (the module's rules).  ``thread_line``:
    the log's line about thread [0,0,0], cited as evidence when there is thread evidence."""
    a = t.assertion
    src = source_of(t)
    at = Evidence("failing_check")
    if a.checks in LAYOUT_CHECKS:
        return [Cause("layout", "no_evidence", (at,))]
    if a.checks == "finite":
        if src.kind == "read":
            basis = "own_message" if own_message(t) else "read_into_check"
            return [Cause("finite_input", basis, (at, Evidence("read_straight", source=src)), source=src)]
        return [Cause("finite_computed", "no_evidence", (at,), source=src)]
    exceeds = position_exceeds(t)
    if t.static_bound is not None:
        n = t.static_bound
        limit = Limit(number=n)
        fixed = Evidence("fixed_bound_not_zero", number=n)
        rng = Range(limit_of(t), bool(t.negative_wrap), last=n - 1)
        if exceeds and t.position.op == "loop":
            return [Cause("position", "fixed_bound", (Evidence("fixed_bound", number=n), Evidence("loop_index")),
                          limit=limit, position=position_kind(t.position))]
        if exceeds:
            return [Cause("position", "fixed_bound", (fixed, Evidence("position_fixed", limit=limit)), limit=limit,
                          position=position_kind(t.position))]
        if src.kind == "computed":
            return [Cause("static_computed_value", "fixed_bound", (fixed,), source=src, range=rng)]
        if src.kind == "read":
            return [Cause("static_read_value", "fixed_bound", (fixed,), source=src, range=rng, limit=limit)]
        if src.kind == "constant":
            return [Cause("constant_values", "constant_values", (fixed, Evidence("read_from_constant", constant=src.constant)),
                          source=src)]
        return [Cause("computed_inside", "fixed_bound", (fixed,), limit=limit)]
    if _bound_of_inputs(t):
        limit = Limit(words=t.bound.limit)
        guards = _guards(t)
        value = (Cause("bound_value", "no_evidence", source=src, range=Range(limit_of(t), bool(t.negative_wrap)),
                       limit=limit) if src.has_inputs else None)
        empty = Cause("empty_input", "no_evidence", tuple(guards))
        position = Cause("position", "no_evidence", limit=limit, position=position_kind(t.position)) if exceeds else None
        if first_thread_failed is False:
            thread = _thread("thread_passed", thread_line)
            if exceeds:
                return [_as(position, "thread_passed", thread + [Evidence("position_fixed", limit=limit)])]
            return [_as(value, "thread_passed", thread)] if value else []
        if exceeds:
            return [_as(position, "position_exceeds", [Evidence("position_fixed", limit=limit)] + guards), empty]
        if exceeds is False:
            return [_as(empty, "position_below", [Evidence("position_below", limit=limit)] + guards)]
        if first_thread_failed is True:
            thread = _thread("thread_failed", thread_line)
            return [_as(empty, "thread_failed", thread + guards)] + ([_as(value, "no_evidence", thread)] if value else [])
        # No evidence tells them apart (a CPU check prints no value and no thread): both, equally possible; the
        # value first only because the check's own text names it.
        return ([_as(value, "no_evidence", [at])] if value else []) + [empty]
    if t.kernel_kind == "extern":
        return [Cause("extern_index", "extern_index", (Evidence("failing_call"),), source=src)] if src.has_inputs else []
    if a.bound_expr:
        return [Cause("untraced_bound", "no_evidence", (at,))]
    return []


def _as(c: Cause, basis: str, evidence) -> Cause:
    return replace(c, basis=basis, evidence=tuple(evidence))


# The ops that keep a value finite exactly when its operand was (|x|, -x, a copy): a NaN/Inf check on such a value
# fails only where the input it is read from held the NaN/Inf (`TraceMatch.value_ops` names them as written).
FINITE_KEEPING = frozenset({"load", "abs", "tl_math.abs", "tl.abs", "libdevice.abs", "std::abs", "neg", "copy"})


def own_message(t) -> bool:
    """Whether the log's check message settles a NaN/Inf check's cause: it names exactly one check of the
    package (its file and line: an exact match), and the value checked is an input's, unchanged on the way."""
    ops = getattr(t, "value_ops", None)
    return bool(getattr(t, "exact", False)) and ops is not None and all(o in FINITE_KEEPING for o in ops)


# The integer dtypes a generated kernel reads an index input as (its data pointer cast to ``int64_t*`` /
# ``int32_t*``): a tensor of the other one is read as this one, since only AOTI_RUNTIME_CHECK_INPUTS=1 checks it.
INDEX_DTYPES = ("int64", "int32")


def dtype_cause(t, dtypes: dict | None) -> Cause | None:
    """An input read straight into a generated kernel's index, compiled as int64 (or int32): a tensor of the other
    dtype reaches the kernel unchecked and is read as the compiled one (int32 ids read as int64 pair up into huge
    values), which fails the check as a bad value does.  ``dtypes``: the model's input dtypes by position.  An extern
    op is handed the tensor itself, dtype and all: not for it."""
    if not dtypes or t.kernel_kind == "extern":
        return None
    for o in t.index_origin:
        if o.input and not o.through_buffer and dtypes.get(o.input.index) in INDEX_DTYPES:
            src = Source("read", (o.input,))
            dt = dtypes[o.input.index]
            return Cause("input_dtype", "no_evidence", (Evidence("compiled_dtype", source=src, dtype=dt),), source=src,
                         dtype=dt)
    return None


def with_dtype(causes: list[Cause], dt: Cause | None) -> list[Cause]:
    """The causes with the dtype hypothesis: a value cause is then no longer certain (a wrong dtype makes the same
    failure, and nothing in a log tells them apart), and the dtype comes last, possible."""
    if dt is None or not any(c.kind in ("static_read_value", "bound_value") for c in causes):
        return causes
    out = [replace(c, basis="dtype_rival") if c.kind in ("static_read_value", "bound_value") and c.certainty == CERTAIN
           else c for c in causes]
    return out + [dt]


# ---------------------------------------------------------------------------
# The notes
# ---------------------------------------------------------------------------


def wrap_note(t) -> Note | None:
    """Whether the checked kernel wraps negative indices, said once; none for a check with no lower side (Inductor
    writes one where it proved the index never negative: ``tmp6 < 32L``) or a kernel not known either way."""
    if t.assertion.lower_bound is None and t.assertion.checks == "index":
        return None
    if t.negative_wrap is None:
        return None
    limit = limit_of(t) if t.static_bound is not None or (t.bound and t.bound.limit) else Limit()
    return Note("wrap", limit=limit, wraps=t.negative_wrap is True)


def _input_key(inp) -> tuple:
    """What names an input in words (`inspector.explain.who`): two refs with one key read the same."""
    return (inp.index, "user", inp.user_name) if getattr(inp, "user_name", None) else (inp.index, "name", inp.name)


def notes_of(t, n_sites: int) -> list[Note]:
    """The facts beside the causes of check ``t`` (launched ``n_sites`` times), each once, and last the user's
    line when the exported program names one.  A NaN check or a layout error has only that one: its causes say
    all there is."""
    a = t.assertion
    notes = [] if a.checks in LAYOUT_CHECKS or a.checks == "finite" else _check_notes(t, n_sites)
    if t.source_locations:
        names = [o.input.user_name for o in t.index_origin if o.input and o.input.user_name]
        notes.append(Note("user_code", location=t.source_locations[0], name=names[0] if names else None))
    return notes


def _check_notes(t, n_sites: int) -> list[Note]:
    """The notes of a range check: the bound's terms, the wrap, the computed values' paths, the launches."""
    a = t.assertion
    notes: list[Note] = []
    if t.static_bound is None and _bound_of_inputs(t) and len(t.bound.terms) > 1:
        ins = {x.input.index for x in t.bound.terms if x.input}
        numel = len(ins) == 1 and counts_elements(a.bound_tree)
        notes.append(Note("limit_terms", limit=Limit(words=t.bound.limit), terms=tuple(t.bound.terms),
                          numel_of=t.bound.terms[0].input if numel else None))
    w = wrap_note(t)
    if w:
        notes.append(w)
    seen: set[tuple] = set()
    for o in t.index_origin:
        if not (o.input and o.through_buffer):
            continue
        hops = tuple(s.name for s in o.path if s.kind in ("kernel", "extern_op"))
        own = [s.name for s in o.path if s.kind in ("store", "kernel_param") and s.role in ("out", "inout")]
        if hops:
            note, key = Note("computed_through", input=o.input, through=hops), ("through", _input_key(o.input), hops)
        elif own:
            note, key = Note("computed_inside", input=o.input, store=own[0]), ("inside", _input_key(o.input), own[0])
        else:
            continue
        if key not in seen:
            seen.add(key)
            notes.append(note)
    if n_sites > 1:
        notes.append(Note("launches", count=n_sites, lines=tuple(t.call_sites)))
    return notes


# ---------------------------------------------------------------------------
# The verdict's certainty, and the whole decision
# ---------------------------------------------------------------------------


def verdict_basis(causes: list[Cause]) -> str:
    """What the verdict's certainty rests on (`BASES`; the module's rule): the first cause's basis, when it is
    certain or no rival is uncertain, or when the first rival is less sure; "rival" when the first rival is as sure."""
    if not causes:
        return "no_evidence"
    top = causes[0]
    rivals = [c for c in causes[1:] if c.certainty != CERTAIN]
    if top.certainty == CERTAIN or not rivals:
        return top.basis
    return "rival" if top.certainty == rivals[0].certainty else top.basis


def verdict_certainty(causes: list[Cause]) -> str:
    """The verdict's certainty from its causes: the level of `verdict_basis`."""
    return BASES[verdict_basis(causes)]


def needs_confirming(certainty: str, causes: list[Cause]) -> bool:
    """Whether a run should tell the causes apart: the verdict is not certain and there is more than one."""
    return certainty != CERTAIN and len(causes) > 1


def decide(t, n_sites: int, first_thread_failed: bool | None = None, thread_line: str | None = None,
           dtypes: dict | None = None) -> Decision:
    """Every decision about match ``t``: its verdict, causes, notes, the verdict's certainty and whether to offer
    the commands that tell the causes apart.  ``dtypes``: the model's input dtypes by position (the dtype
    hypothesis of an index read straight from an input: `dtype_cause`)."""
    causes = with_dtype(causes_of(t, first_thread_failed, thread_line), dtype_cause(t, dtypes))
    basis = verdict_basis(causes)
    certainty = BASES[basis]
    return Decision(verdict_of(t, first_thread_failed), causes, notes_of(t, n_sites), certainty,
                    needs_confirming(certainty, causes), basis)
