"""`show`: what a package is, as typed dataclasses (the CLI renders them; ``ShowResult.to_dict()`` is what
--json prints).  Field names are the JSON keys, in the JSON's order."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from ..explain import GUARD_NOTE
from ..index.gc_pause import gc_paused
from ..model import Model
from ..package import Package
from .layout import known_layout


def _plain(x):
    """A dataclass tree as JSON-ready dicts and lists (fields in declaration order)."""
    if type(x) in _SCALARS:
        return x
    how = _how(type(x))
    if how is not None:
        return x.to_dict() if how is True else {n: _plain(getattr(x, n)) for n in how}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


_SCALARS = frozenset({str, int, float, bool, type(None)})


@functools.lru_cache(maxsize=None)
def _how(cls):
    """How `_plain` writes an instance of ``cls``: True (its own ``to_dict``), its field names (a dataclass), None
    (anything else); looked up once per class, not for each of a multi-model package's 2,900 constants."""
    if not is_dataclass(cls):
        return None
    return True if hasattr(cls, "to_dict") else tuple(f.name for f in fields(cls))


@dataclass
class InputSummary:
    index: int
    name: str
    dtype: str | None
    shape: list | None
    stride: list | None
    device: str | None
    user_name: str | None = None  # from the exported program (`annotate_summary`)
    # dims whose stride the package checks nowhere (the run takes any there; `stride` says what the kernels assume)
    stride_unchecked: list[int] = field(default_factory=list)
    # where the dims and strides the wrapper leaves unsaid come from: "exported program", "dense" (the only dense
    # layout the checked strides allow), "row-major assumed" (several do), None (nothing inferred)
    layout_from: str | None = None


@dataclass
class OutputSummary:
    index: int
    name: str
    source: str | None


@dataclass
class SymbolSummary:
    name: str
    input: int | None
    dim: int | None
    min: int | None
    max: int | None
    alias_of: str | None
    line: int | None


@dataclass
class ConstantSummary:
    name: str
    fqn: str | None
    dtype: str | None
    shape: list | None
    nbytes: int | None
    kind: str | None


@dataclass
class ConstantTotals:
    """The constants as the scan counts them, nothing parsed: how many, and their bytes by dtype and device
    (``by``: ``[dtype, device, count, bytes]``, most bytes first; None where the wrapper does not say)."""
    count: int
    nbytes: int
    by: list[list]


@dataclass
class KernelSummary:
    name: str
    kind: str
    flavor: str | None
    assertions: int
    launches: int
    file: str
    assert_lines: list[int] = field(default_factory=list)


@dataclass
class ExternOpSummary:
    name: str
    calls: int


@dataclass
class ExternCallSummary:
    """An extern call without AOTI_TORCH_ERROR_CODE_CHECK: a failure there returns garbage with exit 0."""
    name: str
    line: int


@dataclass
class SkippedStatement:
    line: int
    statement: str


@dataclass
class RegionCoverage:
    understood: int
    total: int
    skipped: list[SkippedStatement] = field(default_factory=list)


@dataclass
class Coverage:
    """Statements handed to a grammar rule: understood / total, per region.  ``read``: "all" (--full) or
    "lazy" (the scan; then ``kernels_parsed`` of ``kernels`` were parsed, and only those keys exist then)."""
    understood: int
    total: int
    regions: dict[str, RegionCoverage]
    read: str = "all"
    kernels_parsed: int | None = None
    kernels: int | None = None

    def to_dict(self) -> dict:
        d = {"understood": self.understood, "total": self.total, "regions": _plain(self.regions), "read": self.read}
        if self.read == "lazy":
            d["kernels_parsed"] = self.kernels_parsed
            d["kernels"] = self.kernels
        return d


@dataclass
class ModelSummary:
    name: str
    dialect: str | None
    device: str | None
    compute_capability: str | None
    cpu_isa: str | None
    platform: str | None
    machine: str | None
    wrapper: str | None
    kernel_cpp: str | None
    inputs: list[InputSummary]
    outputs: list[OutputSummary]
    symbols: list[SymbolSummary]
    constants: list[ConstantSummary]
    kernels: list[KernelSummary]
    kernel_counts: dict[str, int]
    extern_ops: list[ExternOpSummary]
    unchecked_extern_calls: list[ExternCallSummary]
    assertions: int
    provenance: bool
    in_spec: Any
    out_spec: Any
    coverage: Coverage
    warnings: list[str]
    # Set by `exported_program.annotate_summary` (`show` always calls it).
    exported_program: str | None = None
    exported_program_disagreements: list[str] = field(default_factory=list)
    # For the terminal only (not in --json, which lists every constant): the scan's count of the constants,
    # and whether ``constants`` lists them (`summarize(constants=False)` leaves them unparsed).
    constant_totals: ConstantTotals | None = None
    constants_listed: bool = True
    # What the runtime checks do not enforce (issue 34): dims the kernels read by other inputs' sizes or that the
    # package computes (a multiple of 16), `shared_dims.dim_contracts`; the ops whose arguments' values must meet a
    # contract (roi_align's batch index), `op_calls.op_calls`.  In the JSON only when there is one.
    dim_contracts: list[dict] = field(default_factory=list)
    op_calls: list[dict] = field(default_factory=list)
    # Where the constants are (inspector.queries.doctor.weights.STORAGE): "so" (compiled in), "absent" (not in the
    # package: built with package_constants_in_so=False), "pickle_weights" / "binary_blob" (beside the code); None
    # when there are none or the package does not say.
    constants_stored: str | None = None

    _TERMINAL_ONLY = ("constant_totals", "constants_listed")
    _WHEN_ANY = ("dim_contracts", "op_calls")

    def to_dict(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in self._TERMINAL_ONLY
                and (f.name not in self._WHEN_ANY or getattr(self, f.name))}

    def device_parts(self) -> list[str]:
        """``["cuda", "compute capability 90"]`` / ``["cpu", "CPU ISA AVX512 …"]``: the device as renderers word it."""
        return [self.device or "?"] + ([f"compute capability {self.compute_capability}"] if self.compute_capability else []) \
            + ([f"CPU ISA {self.cpu_isa}"] if self.cpu_isa else [])


@dataclass
class ShowResult:
    package: str
    format: str | None
    archive_version: Any
    exported_programs: list[str]
    guard_note: str
    models: list[ModelSummary]

    @gc_paused
    def to_dict(self) -> dict:
        """Exactly what `show --json` prints (inspector/schemas/show.schema.json)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def range_only_dims(m) -> list[SymbolSummary]:
    """The input dims a wrapper only range-checks (``check_input_K``: ``argN_size[d] < 2`` / ``> 4096``) and never
    reads into a symbol (their shape says ``?``), each as a row named ``argN[d]`` with its range: the export's
    range, which is all the package says of it (torch 2.11 writes no comparison with another symbol)."""
    out = []
    for i in m.inputs:
        shape = i.shape or []
        for d, x in enumerate(shape):
            if x != "?":
                continue
            lo = next((g for g in i.guards if g.dim == d and g.kind == "min"), None)
            hi = next((g for g in i.guards if g.dim == d and g.kind == "max"), None)
            if lo is None and hi is None:
                continue
            out.append(SymbolSummary(name=f"{i.name}[{d}]", input=i.index, dim=d,
                                     min=int(lo.value) if lo else None, max=int(hi.value) if hi else None,
                                     alias_of=None, line=(lo or hi).line))
    return out


def shape_with_ranges(shape, symbols, index: int) -> list | None:
    """``shape`` with each range-only ``?`` dim written as its range (``2..4096``), for the terminal."""
    if shape is None:
        return None
    r = {s.dim: s for s in symbols if s.input == index and s.name.endswith("]") and "[" in s.name}
    return [f"{r[d].min if r[d].min is not None else ''}..{r[d].max if r[d].max is not None else ''}"
            if x == "?" and d in r else x for d, x in enumerate(shape)]


@gc_paused
def summarize(pkg: Package, model: str | None = None, full: bool = False, constants: bool = True) -> ShowResult:
    """By default from the scan (kernels, asserts, calls: nothing parsed) and the interface (inputs, guards,
    symbols, outputs: their statements parsed); ``full``: every statement parsed, so the coverage counts the
    whole wrapper and kernel.cpp.  The answers are the same (tests/samples/test_lazy.py).  ``constants=False``: the
    constants are counted by the scan (`ModelSummary.constant_totals`), not parsed one by one nor listed
    (a model may hold thousands)."""
    names = [model] if model else pkg.model_names
    if model:
        pkg.files(model)
    return ShowResult(package=str(pkg.path), format=pkg.format, archive_version=pkg.archive_version,
                      exported_programs=pkg.exported_programs, guard_note=GUARD_NOTE,
                      models=[summarize_model(pkg, n, full, constants) for n in names])


def summarize_model(pkg: Package, name: str, full: bool = False, list_constants: bool = True) -> ModelSummary:
    from .doctor.weights import constants_storage
    from .op_calls import op_calls
    from .shared_dims import dim_contracts

    f = pkg.files(name)
    totals = ConstantTotals(**pkg.index(name).constant_totals())  # the scan (before the whole parse: see SEEN)
    if full:
        m = pkg.model(name)
        kernels = [(k.name, k.backend, k.heuristic, k.source_file.rsplit("/", 1)[-1], [a.line for a in k.assertions])
                   for k in m.kernels.values()]
        calls = [(c.target, c.kind, c.line, c.checked) for c in m.calls]
        parsed = None
        constants = m.constants if list_constants else []
    else:  # the scan: nothing parsed but the interface (`ModelIndex.eager`)
        ix = pkg.index(name)
        m = ix.eager()
        lines: dict[str, list[int]] = {}
        for site in ix.assert_sites():
            lines.setdefault(site.kernel, []).append(site.line)
        kernels = [(n, ix.kernel_backend(n), ix.kernel_heuristic(n),
                    (f.wrapper if ix.kernel_backend(n) == "triton" else f.kernel_cpp or "").rsplit("/", 1)[-1],
                    lines.get(n, [])) for n in ix.kernel_names()]
        calls = [(c.target, c.kind, c.line, c.checked) for c in ix.calls()]
        parsed = (ix.parsed_kernels(), len(kernels))
        constants = ix.constants() if list_constants else []
    calls_per_kernel = Counter(t for t, kind, _, _ in calls if kind == "kernel")
    externs = Counter(t for t, kind, _, _ in calls if kind == "extern")
    ks = [KernelSummary(name=n, kind=kind, flavor=flavor, assertions=len(al), launches=calls_per_kernel.get(n, 0),
                        file=file, assert_lines=al) for n, kind, flavor, file, al in kernels]
    by_flavor = Counter(f"{k.kind}:{k.flavor}" for k in ks)
    wmeta = m.wrapper_metadata
    cov = coverage(m)
    if parsed is not None:
        cov.read, (cov.kernels_parsed, cov.kernels) = "lazy", parsed
    return ModelSummary(
        name=m.name,
        dialect=m.dialect,
        device=wmeta.device,
        compute_capability=wmeta.compute_capability,
        cpu_isa=" ".join(wmeta.cpu_isa) or None,
        platform=wmeta.platform,
        machine=wmeta.machine,
        wrapper=m.wrapper_member,
        kernel_cpp=m.kernel_member,
        inputs=[_input_summary(m, i) for i in m.inputs],
        outputs=[OutputSummary(index=o.index, name=o.name, source=o.source) for o in m.outputs],
        symbols=[SymbolSummary(name=s.name, input=s.input, dim=s.dim, min=s.min, max=s.max, alias_of=s.alias_of,
                               line=s.line) for s in m.symbols.values()] + range_only_dims(m),
        constants=[ConstantSummary(name=c.name, fqn=c.fqn, dtype=c.dtype, shape=c.shape, nbytes=c.nbytes,
                                   kind=c.kind) for c in constants],
        kernels=ks,
        kernel_counts=dict(sorted(by_flavor.items())),
        extern_ops=[ExternOpSummary(name=n, calls=c) for n, c in sorted(externs.items())],
        unchecked_extern_calls=[ExternCallSummary(name=t, line=line) for t, kind, line, checked in calls
                                if kind == "extern" and not checked],
        assertions=sum(k.assertions for k in ks),
        provenance=bool(m.provenance),
        in_spec=m.in_spec,
        out_spec=m.out_spec,
        coverage=cov,
        warnings=m.warnings,
        constant_totals=totals,
        constants_listed=list_constants,
        dim_contracts=dim_contracts(pkg, name),
        op_calls=[c.to_dict() for c in op_calls(pkg, name)],
        constants_stored=constants_storage(pkg, name, totals.count),
    )


def _input_summary(m: Model, i) -> InputSummary:
    """An input as `show` states it: what the wrapper says, and for each ``?`` what else the package knows
    (`inspector.queries.layout`)."""
    ranges = {}
    for g in i.guards:
        if g.dim is not None and g.kind in ("min", "max"):
            lo, hi = ranges.get(g.dim, (None, None))
            ranges[g.dim] = (int(g.value), hi) if g.kind == "min" else (lo, int(g.value))
    lay = known_layout(i.shape, i.stride, ranges)
    return InputSummary(index=i.index, name=i.name, dtype=i.dtype, shape=lay.shape, stride=lay.stride,
                        device=i.device, stride_unchecked=lay.unchecked, layout_from=lay.basis)


def coverage(m: Model) -> Coverage:
    """Statements handed to a grammar rule, per region: understood / total, and the first few skipped."""
    regions = {r: RegionCoverage(understood=c.understood, total=c.total,
                                 skipped=[SkippedStatement(line=ln, statement=s) for ln, s in c.skipped])
               for r, c in m.coverage.items() if c.total}
    return Coverage(understood=sum(r.understood for r in regions.values()),
                    total=sum(r.total for r in regions.values()), regions=regions)
