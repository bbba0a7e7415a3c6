"""What a package holds, as plain dataclasses.

Parsers (``inspector.parse``) produce these; the graph (``inspector.graph.build``)
links them; queries and renderers only read them.  Line numbers are 1-based
and always say which file they count in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from .dialects.metadata import DEVICE_KEY, WrapperMetadata

# `Node` in the annotations is `inspector.parse.expr_tree.Node`: this module, the vocabulary every stage shares,
# imports no stage (parse/ imports it).


def parse_expr(text: str) -> Node:  # noqa: F821
    """An expression's text -> its typed tree: `inspector.parse.expr_tree.parse_expr`, which `inspector.parse`
    (the stage that reads expressions, imported by whatever made a model) puts in this name's place, importing
    expr_tree only on the first tree asked for (`inspector.parse.install_tree_parser`)."""
    raise RuntimeError("an expression's tree is read by inspector.parse: import it first")


@dataclass(frozen=True)
class Expr:
    """An expression as generated code wrote it: its text, the identifiers it names, and (`tree`) its typed tree."""

    text: str
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        """The expression as written: for display (its meaning is ``tree``)."""
        return self.text

    @property
    def tree(self) -> Node:
        """The expression as an `inspector.parse.expr_tree` tree (`expr_tree.Opaque` when the grammar does not
        read it), parsed on first use and shared by every `Expr` of the same text; ``expr_tree.unparse`` gives
        ``text`` back."""
        return parse_expr(self.text)


@dataclass
class Guard:
    """One check in ``check_input_K``: ``if (argN_size[d] < 2)`` and the like."""

    input: int
    dim: int | None
    kind: str  # "min" | "max" | "eq" | "stride" | "dtype" | "device"
    value: int | str
    line: int  # wrapper.cpp line


@dataclass
class Input:
    index: int  # position the caller passes
    name: str  # wrapper name, e.g. "arg3_1"
    dtype: str | None = None
    shape: list[int | str] = field(default_factory=list)
    stride: list[int | str] | None = None
    device: str | None = None
    guards: list[Guard] = field(default_factory=list)
    # run_impl's `assert_size_stride(argN_1, {…}, {…}, "input")` that states shape and stride (torch 2.13+ CPU), which
    # runs only with AOTI_RUNTIME_CHECK_INPUTS=1 and compares every dim (shared symbols included); None without one
    size_stride_line: int | None = None


@dataclass
class Output:
    index: int
    name: str  # outputs_info_ name, e.g. "output0"
    source: str | None = None  # the buffer run_impl hands out, e.g. "buf2"


@dataclass
class Symbol:
    """``int64_t s2 = arg3_1_size[0];`` (a definition) or ``int64_t s23 = s2;`` (an alias)."""

    name: str
    line: int
    expr: str
    input: int | None = None
    dim: int | None = None
    alias_of: str | None = None
    min: int | None = None
    max: int | None = None


@dataclass
class Constant:
    name: str
    index: int
    fqn: str | None = None
    dtype: str | None = None
    shape: list[int] = field(default_factory=list)
    stride: list[int] = field(default_factory=list)
    nbytes: int | None = None
    kind: str | None = None  # Parameter, Buffer, TensorConstant…


def param_role(name: str, ctype: str | None = None, const: bool = False) -> str:
    """What Inductor's parameter naming says a kernel does with an argument.

    ``in_ptrK`` read, ``out_ptrK`` written, ``in_out_ptrK`` both, ``ksM``/``*numel`` sizes;
    an unnamed pointer is read when ``const``, written otherwise.
    """
    if ctype and "constexpr" in ctype:
        return "other"
    for prefix, role in (("in_out_ptr", "inout"), ("in_ptr", "in"), ("out_ptr", "out")):
        if name.startswith(prefix):
            return role
    if re.fullmatch(r"ks\d+", name) or name.endswith("numel"):
        return "size"
    if ctype and "*" in ctype:
        return "in" if const else "out"
    return "other"


@dataclass(slots=True)
class KernelParam:
    name: str
    position: int
    role: str  # "in" | "out" | "inout" | "size" | "other"
    ctype: str | None = None


@dataclass(slots=True)
class TmpDef:
    """``tmp9 = tl.where(…)`` / ``auto tmp2 = …;``: one definition in one loop-nest scope."""

    name: str
    expr: Expr
    line: int  # in the kernel's own file numbering (Triton .py / kernel.cpp)
    scope: tuple[int, ...] = ()  # ids of the { } blocks around it (CPU loop nests)


@dataclass(slots=True)
class Store:
    ptr: str
    value: Expr
    line: int
    scope: tuple[int, ...] = ()


@dataclass
class AccUpdate:
    """``tmp_acc0 = tmp_acc0 + tmp5;`` / ``tmp_acc0_vec = argmax_combine_vec(tmp_acc0_vec, tmp0, x1);``: a CPU
    reduction's accumulator updated inside its kernel (the tmp grammar does not define it: it is no ``auto``)."""

    acc: str  # as written: tmp_acc0_vec
    value: Expr
    line: int  # kernel.cpp line
    scope: tuple[int, ...] = ()

    @property
    def base(self) -> str:
        """The accumulator it belongs to: ``tmp_acc0`` for ``tmp_acc0_vec`` / ``tmp_acc0_arr``."""
        rest = self.acc[len("tmp_acc"):] if self.acc.startswith("tmp_acc") else ""
        digits = rest[: len(rest) - len(rest.lstrip("0123456789"))]
        return "tmp_acc" + digits if digits else self.acc


@dataclass(frozen=True)
class Access:
    """A load or store of a kernel pointer parameter: ``in_ptr1[tmp1 + 64L*x0]``, ``tl.load(in_ptr0 + (x0), …)``,
    ``loadu(in_ptr0 + static_cast<int64_t>(x0))``.  ``address`` is the text as the kernel wrote it (its ``tree``
    the typed address); ``closed``: False when the text ended inside the bracket (a statement cut short)."""

    ptr: str
    address: Expr
    line: int | float  # the tmp's line; a store's line + 0.5 (after the tmps of its line)
    kind: str  # "load" | "store"
    scope: tuple[int, ...] = ()
    closed: bool = True


@dataclass
class Assertion:
    kernel: str
    line: int  # Triton: the .py line a device assert reports; CPU: the kernel.cpp line
    message: str
    index_var: str | None
    bound_expr: str | None
    lower_bound: str | None  # "0", or None when the check has no lower bound
    condition: str
    scope: tuple[int, ...] = ()
    wrapper_line: int | None = None  # where the statement sits in wrapper.cpp (Triton only)
    checks: str = "index"  # "index": a range check; "finite": a NaN/Inf check on a computed value (no bound)

    @property
    def condition_tree(self) -> Node:
        """``condition`` as a typed tree (parsed on first use)."""
        return parse_expr(self.condition)

    @property
    def bound_tree(self) -> Node | None:
        """``bound_expr`` as a typed tree (``(-1) + ks0``, ``1000L`` -> `expr_tree.Int` 1000), None without one."""
        return parse_expr(self.bound_expr) if self.bound_expr else None


@dataclass
class Kernel:
    name: str
    backend: str  # "triton" | "cpp": the code generator (an "extern" match is an ATen op)
    heuristic: str  # "pointwise" | "reduction" | "persistent_reduction" | "template" | "foreach" | "cpp" | …
    params: list[KernelParam] = field(default_factory=list)
    tmps: list[TmpDef] = field(default_factory=list)
    stores: list[Store] = field(default_factory=list)
    assertions: list[Assertion] = field(default_factory=list)
    source_file: str = ""  # member the numbering refers to (wrapper.cpp for Triton, kernel.cpp for CPU)
    first_line: int = 0  # line in source_file where the kernel's text starts
    source: list[str] = field(default_factory=list)  # the kernel's lines, first is file line `first_line`
    line_base: int = 0  # kernel line L is source[L - line_base]
    cubin: str | None = None  # archive member of the cubin (CUDA)
    mutated: list[str] = field(default_factory=list)
    acc_updates: list[AccUpdate] = field(default_factory=list)  # CPU reductions: `tmp_acc0 = …;` in this kernel
    source_count: int = 0  # how many lines `source` holds, kept when the lines are not (a cached index)
    # () -> the lines, for an index read from the cache (which does not store them); never serialized
    source_loader: object = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"<Kernel {self.name} {self.backend}/{self.heuristic}: {len(self.params)} params, {len(self.tmps)} tmps, "
                f"{len(self.assertions)} assertions, {len(self.source) or self.source_count} lines>")

    def param(self, name: str) -> KernelParam | None:
        return next((p for p in self.params if p.name == name), None)

    def lines(self) -> list[str]:
        """The kernel's source lines (read from the package on first use when the index came from the cache)."""
        if not self.source and self.source_loader is not None:
            self.source = self.source_loader()
        return self.source

    def source_line(self, line: int) -> str | None:
        self.lines()
        i = line - self.line_base
        return self.source[i] if 0 <= i < len(self.source) else None


@dataclass(slots=True)
class CallArg:
    text: str
    base: str | None  # the buffer/input/constant/symbol the argument is made from
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        """The argument as written: for display (its meaning is ``tree``, ``base`` and ``names``)."""
        return self.text

    @property
    def tree(self) -> Node:
        """The argument as a typed tree (parsed on first use)."""
        return parse_expr(self.text)


@dataclass(slots=True)
class CallSite:
    """A kernel launch or extern op call in run_impl."""

    target: str  # kernel name, or the extern op (aoti_torch_cuda_addmm_out)
    kind: str  # "kernel" | "extern"
    line: int  # wrapper.cpp line
    args: list[CallArg] = field(default_factory=list)
    source_nodes: list[str] = field(default_factory=list)
    aten_ops: list[str] = field(default_factory=list)
    provenance: str | None = None  # "<name>:<handle>" key of kernel_information.json
    writes: list[str] = field(default_factory=list)  # bases written (extern ops)
    reads: list[str] = field(default_factory=list)
    # Wrapped in AOTI_TORCH_ERROR_CODE_CHECK(…): an extern op that fails raises.  Unchecked (torch
    # 2.6/2.8 emit some), its failure only logs `Exception in aoti_torch: …` and the run goes on.
    checked: bool = False


@dataclass(slots=True)
class BufferDef:
    name: str
    line: int
    kind: str  # "alloc" | "reuse" | "view" | "extern_out"
    origin: str | None = None  # the buffer it reuses or views


@dataclass
class Coverage:
    """Statements of one region handed to a grammar: how many a rule understood, the first few it did not."""

    understood: int = 0
    total: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, statement), the first `KEEP`
    KEEP = 5

    def ok(self) -> None:
        self.understood += 1
        self.total += 1

    def skip(self, line: int, text: str) -> None:
        self.total += 1
        if len(self.skipped) < self.KEEP:
            self.skipped.append((line, text if len(text) <= 200 else text[:197] + "..."))

    @property
    def missed(self) -> int:
        return self.total - self.understood


@dataclass
class ProvenanceEntry:
    key: str
    stack_traces: list[str] = field(default_factory=list)
    pre_grad_nodes: list[str] = field(default_factory=list)
    post_grad_nodes: list[str] = field(default_factory=list)


@dataclass
class Model:
    """One AOTI model of a package: its wrapper, kernels and metadata, indexed."""

    name: str
    wrapper_member: str | None
    kernel_member: str | None = None
    metadata: dict = field(default_factory=dict)
    inputs: list[Input] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    constants: list[Constant] = field(default_factory=list)
    symbols: dict[str, Symbol] = field(default_factory=dict)
    kernels: dict[str, Kernel] = field(default_factory=dict)
    calls: list[CallSite] = field(default_factory=list)
    buffers: dict[str, BufferDef] = field(default_factory=dict)
    constant_bindings: dict[str, int] = field(default_factory=dict)  # run_impl name -> constants_ index
    in_spec: str | None = None
    out_spec: str | None = None
    provenance: dict[str, ProvenanceEntry] = field(default_factory=dict)
    locals: dict[str, Expr] = field(default_factory=dict)  # run_impl scalars: int64_t x_xnumel = 8L*s59;
    launcher_params: dict[str, list[KernelParam]] = field(default_factory=dict)  # call_triton_<name> params
    warnings: list[str] = field(default_factory=list)
    wrapper_lines: int = 0
    dialect: str = "unknown"  # the wrapper family `inspector.dialects.sniff` chose
    # region ("constructor", "check_input", "launcher", "triton", "run_impl", "kernel.cpp") -> Coverage
    coverage: dict[str, Coverage] = field(default_factory=dict)

    def cov(self, region: str) -> Coverage:
        return self.coverage.setdefault(region, Coverage())

    @property
    def skipped_statements(self) -> int:
        return sum(c.missed for c in self.coverage.values())

    def __repr__(self) -> str:
        return (f"<Model {self.name!r} {self.device}: {len(self.inputs)} inputs, {len(self.symbols)} symbols, "
                f"{len(self.kernels)} kernels, {len(self.calls)} calls>")

    @property
    def device(self) -> str | None:
        """The device `WrapperMetadata` reads (the index filled in its one fallback); None for a model whose
        metadata was never read (a bare or test-built Model: no device is guessed here)."""
        wm = self.wrapper_metadata
        return None if wm.device_guessed else wm.device

    @property
    def wrapper_metadata(self) -> "WrapperMetadata":
        """The metadata member as one record (its device already filled by the index's one fallback)."""
        return WrapperMetadata.read(self.metadata, launches_gpu_kernels=self.metadata.get(DEVICE_KEY) == "cuda")

    def input_by_name(self, name: str) -> Input | None:
        return next((i for i in self.inputs if i.name == name), None)

    def constant_by_name(self, name: str) -> Constant | None:
        return next((c for c in self.constants if c.name == name), None)
