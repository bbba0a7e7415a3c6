"""The intermediate value printer's blocks (AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER=2) mapped to the calls of
run_impl that printed them (issue 22 §1).

A block is mapped to its call by its position in the launch sequence, never by name alone: an extern op
(`aoti_torch_cpu_addmm_out`) prints the same name at every call, so the k-th launch of a kernel in the log is the
k-th call of it in run_impl, checked against the arguments the launch printed (each one must appear in that call's
statement).  A view (`auto buf3 = …reinterpret_tensor_wrapper(buf4, …, 32L)`, an ``Alias`` of the typed tier) is
resolved to the storage it shares: a NaN written through buf3 is in buf4 from then on, so a later launch that
reads buf4 (and prints it, NaN and all) did not make it.  The writer named is the launch that wrote the bad bytes:
the first launch whose printed block is bad where no earlier launch left that storage bad, preferring an argument
the call writes (its statement's ``Call.writes``) over one it only reads.  How sure (``certainty``): "certain" when
the call writes that argument by its statement; "likely" when the launch could not be mapped to its call, or is an
extern op whose writes its statement does not show; "possible" when the bad values were first seen in a buffer the
launch only reads: the launch that wrote them printed nothing, and the writer named is the wrapper's last call
before it that writes that storage, through any of its views (``wrapper_writer``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..naming import dispatcher_name
from ..errors import InspectorError
from ..index.records import Alias
from ..logs import PrinterBlock
from ..parse import expr_tree as E

STATS = ("Mean value", "Min value", "Max value")


@dataclass
class PrintedCall:
    """One launch of the log, mapped to its run_impl call."""

    kernel: str
    call: int  # the how-manieth launch of this kernel (1-based)
    calls: int  # how many calls of it run_impl makes
    launch: int  # the position of the launch in the log (1-based)
    wrapper_line: int | None  # None: the printed arguments name no call of that position (said, not guessed)
    args: list[str]  # the arguments the launch printed, in order
    nodes: list[str] = field(default_factory=list)  # this call's FX nodes (its Source Nodes comment / provenance)
    frames: list[str] = field(default_factory=list)  # this call's user lines (kernel_information.json)

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "call": self.call, "calls": self.calls, "launch": self.launch,
                "wrapper_line": self.wrapper_line, "args": list(self.args), "nodes": list(self.nodes),
                "frames": list(self.frames)}


@dataclass
class PrinterFinding:
    """What the printer's log shows: ``kind`` "nan" (the first launch that wrote NaN/Inf), "diff" (the first
    launch whose output differs from the good run's; ``input_differs`` when an input differs too), "input" (a
    model input already NaN/Inf), "input_diff" (an input differs from the good run's and no kernel output does),
    "clean", "no_diff"."""

    kind: str
    call: PrintedCall | None = None
    arg: str | None = None  # the argument whose values prove it
    what: str | None = None  # "NaN" | "Inf" (nan, input)
    view_of: str | None = None  # the buffer ``arg`` views, for its storage's life ("buf4 at offset 32")
    block: PrinterBlock | None = None
    good: PrinterBlock | None = None  # the good run's block (diff, input_diff)
    input_differs: "PrinterFinding | None" = None  # diff: a model input that differs from the good run's too
    certainty: str | None = None  # nan, diff: "certain" | "likely" | "possible" (the module's rule)
    reads_only: bool = False  # the call only reads ``arg``: the values were made by a launch that printed nothing
    wrapper_writer: tuple[str, int] | None = None  # reads_only: the wrapper's last earlier writer (kernel, line)
    bad_rows: list[int] | None = None  # nan: the rows (dim 0) of ``arg`` that hold it, when its values were printed
    inf_before: "PrinterFinding | None" = None  # nan (NaN): an earlier launch's Inf (a mask's -inf, an overflow)

    def stats(self, b: PrinterBlock | None = None) -> tuple:
        b = b or self.block
        return tuple(b.stats.get(k) for k in STATS) if b else ()

    def evidence(self) -> list[str]:
        """The block header and the statistics lines that prove the finding (the good run's marked as such)."""
        out = _proof(self.block)
        if self.good is not None:
            out += [f"(good run) {x}" for x in _proof(self.good)]
        if self.input_differs is not None:
            out += self.input_differs.evidence()
        return out

    def to_dict(self) -> dict:
        return {"kind": self.kind, "call": self.call.to_dict() if self.call else None, "arg": self.arg,
                "what": self.what, "view_of": self.view_of,
                "block_line": self.block.line_no if self.block else None,
                "good_block_line": self.good.line_no if self.good else None,
                "input_differs": self.input_differs.to_dict() if self.input_differs else None,
                "certainty": self.certainty, "reads_only": self.reads_only,
                "wrapper_writer": ({"kernel": self.wrapper_writer[0], "wrapper_line": self.wrapper_writer[1]}
                                   if self.wrapper_writer else None),
                "bad_rows": self.bad_rows,
                "inf_before": self.inf_before.to_dict() if self.inf_before else None}


def _proof(b: PrinterBlock | None) -> list[str]:
    if b is None:
        return []
    return b.lines[:1] + [x for x in b.lines[1:] if x.split(":", 1)[0] in STATS]


def _differs(a: PrinterBlock, b: PrinterBlock, rel: float = 1e-3) -> bool:
    for k in STATS:
        x, y = a.number(k), b.number(k)
        if x is None or y is None:
            continue
        if (x != x) != (y != y):
            return True
        if x == x and y == y and abs(x - y) > rel * max(1.0, abs(x), abs(y)):
            return True
    return False


class _Run:
    """run_impl's calls and storages, read once per answer."""

    def __init__(self, pkg, model: str | None):
        ix = pkg.index(model)
        self.pkg, self.model, self.ix = pkg, ix.eager().name, ix
        self.by_kernel: dict[str, list] = {}  # kernel -> its calls (`records.Call`), in wrapper order
        self.ordered = sorted(ix.calls(), key=lambda c: c.line)
        for c in self.ordered:
            self.by_kernel.setdefault(c.target, []).append(c)
            alt = dispatcher_name(c.target)
            if alt is not None:  # the printer may name an extern call by its dispatcher entry (torch 2.14)
                self.by_kernel.setdefault(alt, []).append(c)
        self.root: dict[str, Alias] = {}  # name -> the storage it shares (a view's offset with it)
        for r in ix.statements():
            if type(r) is Alias:
                self.root[r.buf] = r
        self._sites = None

    def storage(self, name: str) -> str:
        seen = set()
        while name in self.root and name not in seen:
            seen.add(name)
            name = self.root[name].of
        return name

    def view_of(self, name: str) -> str | None:
        r = self.root.get(name)
        if r is None or r.offset is None:
            return None
        off = E.strip_parens(r.offset.tree)
        return f"{r.of} at offset {off.value if isinstance(off, E.Int) else r.offset}"

    def record(self, kernel: str, call: int):
        """The run_impl call (`records.Call`) of the ``call``-th launch of ``kernel``, None when there is none."""
        sts = self.by_kernel.get(kernel, [])
        return sts[call - 1] if 0 < call <= len(sts) else None

    def writes(self, kernel: str, call: int, arg: str | None) -> bool | None:
        """Whether that call writes ``arg`` by its statement (through a view of it or not); None: unknown (no call
        mapped, or an extern call whose statement names no output)."""
        c = self.record(kernel, call)
        if c is None or arg is None:
            return None
        if arg in c.writes:
            return True
        return False if c.writes else None

    def writer_before(self, line: int, name: str) -> tuple[str, int] | None:
        """The wrapper's last call before ``line`` that writes the storage ``name`` lives in, through any name that
        shares it (a view written by a fused kernel counts as the viewed buffer's writer)."""
        s = self.storage(name)
        for c in reversed([c for c in self.ordered if c.line < line]):
            if any(self.storage(w) == s for w in c.writes):
                return c.target, c.line
        return None

    def call_of(self, kernel: str, call: int, args: list[str], launch: int) -> PrintedCall:
        sts = self.by_kernel.get(kernel, [])
        pc = PrintedCall(kernel, call, len(sts), launch, None, args)

        def fits(c) -> bool:  # every argument the launch printed is one the call names
            return set(args) <= c.names

        if 0 < call <= len(sts) and fits(sts[call - 1]):
            pc.wrapper_line = sts[call - 1].line
        self._site(pc)
        return pc

    def _site(self, pc: PrintedCall) -> None:
        """The FX nodes and user lines of exactly this call (none when the package cannot tell them apart)."""
        if pc.wrapper_line is None:
            return
        from .locate import locate

        try:
            found = locate(self.pkg, kernel=pc.kernel, model=self.model).found
        except InspectorError:  # nothing located, a member unreadable: FX nodes and user lines are a bonus; the call
            # stands without them
            return
        mine = [x for x in found if x.wrapper_lines == [pc.wrapper_line]]
        if not mine and len(found) == 1 and pc.calls == 1:
            mine = found
        if len(mine) == 1:
            pc.nodes, pc.frames = list(mine[0].nodes), list(mine[0].frames)


def _launches(blocks: list[PrinterBlock]) -> dict[int, list[PrinterBlock]]:
    out: dict[int, list[PrinterBlock]] = {}
    for b in blocks:
        if b.launch:
            out.setdefault(b.launch, []).append(b)
    return out


def _args(bs: list[PrinterBlock]) -> list[str]:
    return list(dict.fromkeys(b.arg for b in bs if b.arg))


def _first_bad(run: _Run, blocks: list[PrinterBlock], nan_only: bool = False) -> PrinterFinding | None:
    """The first launch that made a NaN/Inf: a block bad after it ran whose storage no earlier launch left bad (a
    buffer it only read, or the base a view of it was written through, holds an earlier launch's NaN).  Within a
    launch: an argument it only reads, bad before it ran, says the values were there already (made by a launch
    that printed nothing); else an argument the call writes comes before one whose writes are unknown, and that
    before one it only reads.  ``nan_only``: NaN alone counts as bad (not Inf)."""
    bad: set[str] = set()  # storages holding NaN/Inf after the launches so far
    for n, bs in sorted(_launches(blocks).items()):
        found = []  # (rank, block, writes)
        def is_bad(b: PrinterBlock) -> bool:
            return b.bad == "NaN" if nan_only else b.bad is not None

        clean_before = {b.arg for b in bs if b.when == "before_launch" and not is_bad(b)}
        for b in bs:
            if b.when not in ("after_launch", "before_launch"):
                continue
            w = run.writes(b.kernel, b.call, b.arg)
            if b.when == "before_launch" and w is not False:
                continue  # what an output holds before its launch is whatever memory it got
            s = run.storage(b.arg or "")
            if is_bad(b):
                if s not in bad:
                    if b.when == "before_launch":
                        rank = 0  # handed in bad: made before this launch
                    elif w is False and b.arg not in clean_before:
                        rank = 0  # only read, and not printed clean before: the same
                    else:
                        rank = 1 if w else 2
                    found.append((rank, b, w))
            elif b.when == "after_launch" and b.arg and run.view_of(b.arg) is None:
                bad.discard(s)  # the whole buffer printed clean: whatever it held was overwritten
        for b in bs:
            if b.when == "after_launch" and is_bad(b):
                bad.add(run.storage(b.arg or ""))
        if found:
            rank, made, w = min(found, key=lambda x: (x[0], x[1].line_no))
            pc = run.call_of(made.kernel, made.call, _args(bs), n)
            what = "NaN" if nan_only else made.bad
            f = PrinterFinding("nan", pc, made.arg, what, run.view_of(made.arg or ""), made)
            f.bad_rows = made.rows_holding(what)
            if rank == 0 and pc.wrapper_line is not None:
                f.certainty, f.reads_only = "possible", True
                f.wrapper_writer = run.writer_before(pc.wrapper_line, made.arg or "")
            elif rank == 1 and pc.wrapper_line is not None:
                f.certainty = "certain"
            else:
                f.certainty = "likely"
            return f
    return None


def _first_diff(run: _Run, blocks: list[PrinterBlock], good_blocks: list[PrinterBlock]) -> PrinterFinding | None:
    """The first launch whose printed output differs from the good run's same launch (same kernel, same
    how-manieth call, same argument)."""
    good = {(b.kernel, b.call, b.arg): b for b in good_blocks if b.when == "after_launch"}
    launches = _launches(blocks)
    for n, bs in sorted(launches.items()):
        for b in bs:
            g = good.get((b.kernel, b.call, b.arg))
            if b.when == "after_launch" and g is not None and _differs(b, g):
                # an argument that differed before the launch too was handed in, not made here
                before = next((x for x in bs if x.when == "before_launch" and x.arg == b.arg), None)
                gb = next((x for x in good_blocks if x.when == "before_launch" and x.kernel == b.kernel
                           and x.call == b.call and x.arg == b.arg), None)
                if before is not None and gb is not None and _differs(before, gb) and run.view_of(b.arg or "") is None \
                        and not _is_output(run, b):
                    continue
                pc = run.call_of(b.kernel, b.call, _args(bs), n)
                f = PrinterFinding("diff", pc, b.arg, None, run.view_of(b.arg or ""), b, g)
                w = run.writes(b.kernel, b.call, b.arg)
                f.certainty = "certain" if w and pc.wrapper_line is not None else "likely"
                return f
    return None


def _is_output(run: _Run, b: PrinterBlock) -> bool:
    """Whether ``b.arg`` is what its launch writes: the first argument of an extern `_out` op, a kernel's
    non-const pointer (what the dialect reads from the call's text)."""
    return bool(run.writes(b.kernel, b.call, b.arg))


def printer_finding(pkg, model: str | None, blocks: list[PrinterBlock],
                    good_blocks: list[PrinterBlock] | None = None) -> PrinterFinding:
    run = _Run(pkg, model)
    inputs = [b for b in blocks if b.when == "aoti_model_inputs"]
    if good_blocks is not None:
        good_in = {b.kernel: b for b in good_blocks if b.when == "aoti_model_inputs"}
        first = _first_diff(run, blocks, good_blocks)
        moved = next((b for b in inputs if b.kernel in good_in and _differs(b, good_in[b.kernel])), None)
        moved_f = None if moved is None else PrinterFinding("input_diff", None, moved.kernel, None, None, moved,
                                                            good_in[moved.kernel])
        if first is not None:
            first.input_differs = moved_f
            return first
        return moved_f or PrinterFinding("no_diff")
    bad_in = next((b for b in inputs if b.bad), None)
    if bad_in is not None:
        return PrinterFinding("input", None, bad_in.kernel, bad_in.bad, None, bad_in)
    first = _first_bad(run, blocks)
    if first is not None and first.what == "Inf":
        # an Inf first (an attention mask's -inf, an overflow): the first NaN, if any, is what a person looks for;
        # the Inf launch is said beside it
        nan = _first_bad(run, blocks, nan_only=True)
        if nan is not None:
            nan.inf_before = first
            return nan
    return first or PrinterFinding("clean")
