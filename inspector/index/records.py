"""The typed statement tier: what queries read of run_impl, one record per fact a statement states.

A query never reads a statement's text.  The index reads it once, here, with the dialect's own patterns
(`inspector.parse.buffers`, `inspector.parse.comments`, `inspector.parse.tokens`: the torch-format facts live
there), and hands out these records instead:

* `Call` — a kernel launch or an extern op call (`ModelIndex.calls`: the scan's call list, cached): its target,
  whether it is checked, the names its statement mentions, the names it writes and fills by address, its
  positional arguments as expressions, the FX nodes and provenance key of the comment above it;
* `IntArray`, `NumelLocal`, `Alloc`, `Alias`, `Release`, `HandOut`, `RuntimeAssert`, `SizeStride`, and `Call` again, in
  statement order (`ModelIndex.statements`: the buffer life cycle doctor's memory estimate walks, the views the
  printer follows, the runtime assertions a symbolic failure names);
* `AssertSite` — a kernel's assert as the scan found it, with its message (`ModelIndex.assert_sites`).

Every record is frozen and carries the 1-based wrapper line of the statement it came from.  Expressions are
`inspector.model.Expr` (their meaning is ``expr.tree``; ``str(expr)`` is for display only).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from itertools import compress, count

from ..model import Expr
from ..parse.buffers import (allocation, extern_outputs, handed_out, int_arrays, numel_local, releases,
                             size_stride_check, storage_share, view_of)
from ..parse.comments import provenance_key, source_nodes_and_ops
from ..parse.names import text_key
from ..parse.tokens import NAME, call_args, last_string, lexed_expr as _expr

_NO_NAMES: frozenset[str] = frozenset()


class Call:
    """A kernel launch (``kind`` "kernel": ``target`` the kernel) or an extern op call (``kind`` "extern": ``target``
    the op, ``aoti_torch_cuda_addmm_out``) in run_impl.  ``callee`` as written (``call_triton_x``); ``checked``:
    wrapped in ``AOTI_TORCH_ERROR_CODE_CHECK(…)``.  What the statement says beyond that is read from it on first
    use (70,000 calls on a 20,000-kernel package, most never asked about): ``names``, ``writes``, ``fills``,
    ``args``.  ``comment``: the FX nodes, ATen ops and provenance key of the comments above it, when the index
    read them (`ModelIndex.call_comments`)."""

    __slots__ = ("line", "target", "kind", "callee", "checked", "_statement", "_dialect", "_names", "_args")

    def __init__(self, line: int, target: str, kind: str, callee: str | None, checked: bool, statement: str,
                 dialect):
        self.line, self.target, self.kind, self.callee, self.checked = line, target, kind, callee, checked
        self._statement, self._dialect = statement, dialect
        self._names = None
        self._args = None

    def __repr__(self) -> str:
        return f"<Call {self.kind} {self.target} at wrapper line {self.line}>"

    @property
    def names(self) -> frozenset[str]:
        """Every identifier the statement names (its callee, arguments, the names it writes)."""
        if self._names is None:
            self._names = frozenset(NAME.findall(self._statement)) if self._statement else _NO_NAMES
        return self._names

    def mentions(self, name: str) -> bool:
        """Whether the statement names ``name`` as a whole identifier (``buf1`` is not in ``buf10``)."""
        return name in self.names

    @property
    def writes(self) -> frozenset[str]:
        """The arguments the call writes, where its statement says so (an ``_out`` op's first argument, a CPU
        kernel's non-const pointer); empty when it does not say."""
        return frozenset(self._dialect.written_args(self._statement)) if self._statement else _NO_NAMES

    @property
    def fills(self) -> tuple[str, ...]:
        """The names the call is handed by address (``&buf3_handle``, ``&u0_raw``), in order: what it fills."""
        s = self._statement
        out, at = [], s.find("&")
        while at >= 0:
            end = at + 1
            while end < len(s) and (s[end].isalnum() or s[end] == "_"):
                end += 1
            if end > at + 1 and not s[at + 1].isdigit():
                out.append(s[at + 1:end])
            at = s.find("&", end)
        return tuple(out)

    @property
    def arg_names(self) -> tuple[str, ...]:
        """The names its arguments mention, in order, each once."""
        return tuple(dict.fromkeys(n for a in self.args for n in a.names))

    @property
    def outputs(self) -> tuple[str, ...]:
        """The buffers an extern op fills through a handle (``&buf3_handle`` -> buf3), in order."""
        s = self._statement
        return tuple(extern_outputs(self._dialect, s)) if s and dict(self._dialect.buffer_markers)["extern_output"] in s \
            else ()

    @property
    def args(self) -> tuple[Expr, ...]:
        """The call's positional arguments, as written (``call_triton_x(buf2, s0, 64L)`` -> buf2, s0, 64L)."""
        if self._args is None:
            s, callee = self._statement, self.callee or ""
            at = s.find(callee + "(") if callee else -1
            self._args = tuple(_expr(a) for a in call_args(s[at + len(callee):] if at >= 0 else s)) if s else ()
        return self._args

    def encoded(self) -> list:
        """The call as the index cache's ``calls`` part stores it (its statement's start rule, then the rest)."""
        return [self.line, "checked_call" if self.checked else "call", self.callee, self.target, self.kind,
                self._statement]


@dataclass(frozen=True, slots=True)
class CallComment:
    """What the comments above one call say (`ModelIndex.call_comments`): its FX nodes and ATen ops (``// Topologically
    Sorted Source Nodes: […], Original ATen: […]``; None when there is no such comment) and its provenance key
    (``// [Provenance debug handles] triton_poi_fused_0:3``)."""

    nodes: tuple[str, ...] | None = None
    aten_ops: tuple[str, ...] = ()
    provenance: str | None = None


@dataclass(frozen=True, slots=True)
class IntArray:
    """``int64_t int_array_0[] = {s77, 64L};``: a size or stride list a later call names."""

    line: int
    name: str
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class NumelLocal:
    """``int64_t triton_x_xnumel = 4*s0;``: how many elements a launch of ``kernel`` covers along ``axis``."""

    line: int
    kernel: str
    axis: str  # "x", "y", "r0_", …
    expr: Expr


@dataclass(frozen=True, slots=True)
class Alloc:
    """``aoti_torch_empty_strided(4, int_array_0, int_array_1, cached_torch_dtype_float32, …, &buf0_handle)``: a new
    buffer with the sizes and strides its arrays hold (empty when the arrays were not found before it)."""

    line: int
    buf: str
    sizes: tuple[Expr, ...]
    strides: tuple[Expr, ...]
    dtype: str
    device: str | None = None


@dataclass(frozen=True, slots=True)
class Alias:
    """``auto buf4 = std::move(buf0);`` (``moved``: buf4 takes buf0's storage, buf0 is gone) or ``auto buf5 =
    reinterpret_tensor_wrapper(buf3, 2, int_array_2, int_array_3, 32L);`` (a view of buf3 at ``offset``, with the
    sizes its array holds)."""

    line: int
    buf: str
    of: str
    moved: bool
    offset: Expr | None = None
    sizes: tuple[Expr, ...] | None = None


@dataclass(frozen=True, slots=True)
class Release:
    """``buf0.reset();``: the buffer's handle is released."""

    line: int
    buf: str


@dataclass(frozen=True, slots=True)
class HandOut:
    """``output_handles[0] = buf2.release();``: the buffer goes to the caller."""

    line: int
    buf: str


@dataclass(frozen=True, slots=True)
class RuntimeAssert:
    """``if (!(u0 >= 4L)) { throw std::runtime_error("Expected u0 >= 4 but received " + …); }``: a runtime assertion
    on a symbolic size; ``condition`` as its message states it (``u0 >= 4``, also for the ``Expected u0 >= 4 to be
    True but received`` form), the text a failing run prints."""

    line: int
    condition: str


@dataclass(frozen=True, slots=True)
class SizeStride:
    """``if (_check_aoti_runtime_check_inputs_env()) { assert_size_stride(buf2, {s77, 192L, s45}, {…}, "op"); }``:
    the sizes and strides an input or an extern op's output is checked against (torch 2.13 writes one after each
    extern call: the package's own statement of what the op returns)."""

    line: int
    buf: str
    sizes: tuple[Expr, ...]
    strides: tuple[Expr, ...]


class AssertSite:
    """A kernel's assert as the scan found it: its kernel, its line in the kernel's file numbering, its message (the
    last string literal of ``tl.device_assert(cond, "msg")`` / ``AOTI_TORCH_CHECK(cond, "msg");``, "" when it has
    none), and (Triton) its wrapper line.  Nothing parsed: the kernel is parsed when a query asks for it."""

    __slots__ = ("kernel", "line", "statement", "wrapper_line", "_message")

    def __init__(self, kernel: str, line: int, statement: str, wrapper_line: int | None):
        self.kernel, self.line, self.statement, self.wrapper_line = kernel, line, statement, wrapper_line
        self._message = None

    @property
    def message(self) -> str:
        if self._message is None:
            self._message = last_string(self.statement)
        return self._message

    def carries(self, key: str) -> bool:
        """Whether the statement holds a message whose `inspector.parse.names.message_key` is ``key`` (its text
        compared as `text_key` normalises it: a bound's ``L`` suffix, spacing)."""
        return key in text_key(self.statement)

    def __repr__(self) -> str:
        return f"<AssertSite {self.kernel}:{self.line}>"


# -- the one pass that makes `ModelIndex.statements` ---------------------------------------------------------------

_RUNTIME_ASSERT = 'throw std::runtime_error("Expected '


class _Arrays:
    """Each ``int_array_N``'s declarations in run_impl, in order, so an allocation or a view is read with the sizes
    declared last before it (what a walk in statement order would hold)."""

    def __init__(self):
        self.at: dict[str, list[int]] = {}
        self.items: dict[str, list[tuple[Expr, ...]]] = {}

    def add(self, i: int, name: str, items: tuple[Expr, ...]) -> None:
        self.at.setdefault(name, []).append(i)
        self.items.setdefault(name, []).append(items)

    def before(self, name: str | None, i: int) -> tuple[Expr, ...] | None:
        at = self.at.get(name) if name else None
        if not at:
            return None
        k = bisect.bisect_left(at, i)
        return self.items[name][k - 1] if k else None


def run_records(run, dialect, calls: dict[int, Call]) -> list:
    """The records of run_impl's statements, in order (``calls``: run_impl index -> its `Call`, from the scan's call
    list).  One statement may state several facts (a view that releases a buffer on its line); each is one record."""
    out: list = []
    arrays = _Arrays()
    texts, kinds, lines, callees = run.text, run.kind, run.line, run.callee
    d = dialect
    alloc_prefix = d.allocation_prefix
    marker = dict(d.buffer_markers)  # a pattern is tried only on a statement holding its plain string
    m_alloc, m_array, m_share = marker["allocation"], marker["int_array"], marker["storage_share"]
    m_release, m_out, m_numel = marker["release"], marker["handed_out"], marker["numel_local"]
    for i in compress(count(), map((lambda k: k != "comment"), kinds)):
        text, kind, line = texts[i], kinds[i], lines[i]
        if kind == "declaration" and m_array in text:
            for name, items in int_arrays(d, text):
                items = tuple(map(_expr, items))
                arrays.add(i, name, items)
                out.append(IntArray(line, name, items))
        n = numel_local(d, text) if m_numel in text else None
        if n:
            out.append(NumelLocal(line, n[0], n[1], _expr(n[2])))
        al = allocation(d, text) if m_alloc in text else None
        if al:
            out.append(Alloc(line, al.buffer, arrays.before(al.sizes, i) or (), arrays.before(al.strides, i) or (),
                             al.dtype, al.device))
            continue
        c = calls.get(i)
        if c is None and callees[i] and callees[i].startswith(alloc_prefix):
            # an allocation the dialect's pattern does not read (another signature): still an extern call that fills
            # a handle (the call list leaves allocations out)
            c = Call(line, callees[i], "extern", callees[i], kind == "checked_call", text, d)
        if c is not None:
            out.append(c)
        sh = storage_share(d, text) if text.startswith(m_share) else None
        if sh:
            view = None if sh.moved else view_of(text)
            out.append(Alias(line, sh.name, sh.source, sh.moved, _expr(sh.offset) if sh.offset is not None else None,
                             arrays.before(view.sizes, i) if view else None))
        if m_release in text:
            out += [Release(line, buf) for buf in releases(d, text)]
        if m_out in text:
            out += [HandOut(line, buf) for buf in handed_out(d, text)]
        if kind == "size_stride":
            ss = size_stride_check(text)
            if ss:
                out.append(SizeStride(line, ss[0], tuple(map(_expr, ss[1])), tuple(map(_expr, ss[2]))))
            continue
        if kind is None and _RUNTIME_ASSERT in text:
            at = text.index(_RUNTIME_ASSERT) + len(_RUNTIME_ASSERT)
            said = text[at:text.find('"', at)].split(" but received")[0]
            out.append(RuntimeAssert(line, said.removesuffix(" to be True")))
    return out


def call_comments(run, dialect, call_at: list[int]) -> dict[int, CallComment]:
    """run_impl index of each call -> what the last Source Nodes and provenance comments between the call before it
    and it say (``call_at``: the calls' run_impl indices, in order)."""
    out: dict[int, CallComment] = {}
    texts, kinds = run.text, run.kind
    prev = 0
    for i in call_at:
        nodes = ops = key = None
        for j in range(i - 1, prev - 1, -1):
            if kinds[j] != "comment":
                continue
            if nodes is None:
                got = source_nodes_and_ops(dialect, texts[j])
                if got is not None:
                    nodes, ops = got
            if key is None:
                key = provenance_key(dialect, texts[j])
            if nodes is not None and key is not None:
                break
        if nodes is not None or key is not None:
            out[i] = CallComment(tuple(nodes) if nodes is not None else None, tuple(ops or ()), key)
        prev = i + 1
    return out
