"""Places of a package that can divide by a dynamic size (what SIGFPE points to): CPU kernels whose integer
division or modulo has a symbol for divisor (the typed expression trees of their statements), and extern ATen
ops whose inputs' shapes hold a dynamic symbol (the wrapper's calls, the views' and buffers' sizes).  Read by
`diagnose` (arithmetic_fault) and `check` (a size at 0 that a kernel divides by)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..naming import NO_KERNEL_SHIMS, root_symbol
from ..parse import expr_tree as E

_DIVIDING = ("/", "%", "//")
_DIV_CALLS = ("c10::div_floor_integer", "div_floor_integer", "c10::div_mod", "tl.math.div_rn", "triton_helpers.div_floor_integer")


@dataclass
class SizeRef:
    """A dynamic symbol and the model input dim behind it (None when it is read from data or unknown)."""

    symbol: str
    input: int | None = None
    dim: int | None = None
    input_name: str | None = None


@dataclass
class FaultSite:
    """A place of this package that can divide by a size: a kernel's division (``kind`` "kernel", ``divisor`` its
    text) or an extern op whose inputs' shapes hold a dynamic symbol (``kind`` "extern")."""

    model: str
    kind: str
    target: str
    line: int  # wrapper.cpp line of the launch / call
    symbols: list[SizeRef] = field(default_factory=list)
    divisor: str | None = None
    certainty: str = "possible"
    evidence: str | None = None  # the backtrace's frame that names it

    def to_dict(self) -> dict:
        return asdict(self)


def _size_ref(m, name: str) -> SizeRef | None:
    sym = root_symbol(m.symbols, name)
    if sym is None:
        return None
    inp = next((i for i in m.inputs if i.index == sym.input), None) if sym.input is not None else None
    return SizeRef(sym.name, sym.input, sym.dim, inp.name if inp else None)


def _refs(m, names) -> list[SizeRef]:
    out: dict[str, SizeRef] = {}
    for n in names:
        r = _size_ref(m, n)
        if r is not None:
            out.setdefault(r.symbol, r)
    return list(out.values())


# How far above an extern call the size arrays and view handles it names are looked for (Inductor declares them
# just before the call)
REACH = 60


def _names(items) -> list[str]:
    return [n for e in items or () for n in e.names]


def _tensor_sizes(ix, m, line: int, name: str) -> list[str]:
    """The names in the sizes of a tensor an extern call reads: a model input's shape, the size array of a buffer's
    allocation (``aoti_torch_empty_strided(2, int_array_8, …, &buf2_handle)``) or of a view handle defined above
    the call (``auto tmp_tensor_handle_0 = reinterpret_tensor_wrapper(buf0, 2, int_array_0, …);``)."""
    inp = m.input_by_name(name)
    if inp is not None:
        return [str(d) for d in inp.shape]
    buf = m.buffers.get(name)
    if buf is not None and buf.kind == "alloc":
        return _names(ix.allocation_sizes(name, buf.line, reach=REACH))
    handle = name.removesuffix("_raii")
    if handle.startswith("tmp_tensor_handle_"):
        return _names(ix.view_sizes(handle, line, REACH))
    return []


def extern_sites(pkg, m) -> list[FaultSite]:
    ix = pkg.index(m.name)
    out = []
    for c in m.calls:
        if c.kind != "extern" or c.target.startswith(NO_KERNEL_SHIMS):
            continue
        names: list[str] = []
        for a in c.args:
            for n in E.names(a.tree):
                names += _names(ix.array_items(n, c.line, REACH)) if n.startswith("int_array_") else [n]
                names += _tensor_sizes(ix, m, c.line, n)
        refs = _refs(m, names)
        if refs:
            out.append(FaultSite(m.name, "extern", c.target, c.line, refs))
    return out


def _bare(n):
    """A divisor without its casts and parentheses (``static_cast<int64_t>(ks1)`` -> ``ks1``)."""
    while isinstance(n, (E.Cast, E.Paren)):
        n = n.operand if isinstance(n, E.Cast) else n.inner
    return n


def _divisors(tree) -> list:
    """The divisors of the integer divisions and modulos in an expression tree."""
    out = []
    for n in E.walk(tree):
        if isinstance(n, E.BinOp) and n.op in _DIVIDING:
            out.append(_bare(n.right))
        elif isinstance(n, E.Call) and E.dotted(n.func) in _DIV_CALLS and len(n.args) >= 2:
            out.append(_bare(n.args[1]))
    return out


def kernel_sites(m) -> list[FaultSite]:
    from ..parse.access import kernel_accesses

    out = []
    for k in m.kernels.values() if isinstance(m.kernels, dict) else m.kernels:
        if k.backend != "cpp":  # a GPU's integer division by zero does not trap: no SIGFPE comes from a Triton kernel
            continue
        trees = [t.expr.tree for t in k.tmps] + [a.address.tree for a in kernel_accesses(k)]
        params = [p.name for p in k.params]
        site = next((c for c in m.calls if c.kind == "kernel" and c.target == k.name), None)
        for d in (d for t in trees for d in _divisors(t)):
            names = [n for n in E.names(d) if n in params or n in m.symbols]
            if not names:
                continue
            sym_names = []
            for n in names:  # a kernel's size parameter (ks0) is the launch's argument at its position
                if n in params and site is not None and len(site.args) == len(params):
                    sym_names += list(E.names(site.args[params.index(n)].tree))
                else:
                    sym_names.append(n)
            out.append(FaultSite(m.name, "kernel", k.name, site.line if site else 0, _refs(m, sym_names),
                                 divisor=E.unparse(d)))
            break
    return out


def zero_divisions(pkg, name: str, dims: dict[tuple[int, int], int]) -> list[FaultSite]:
    """The CPU kernels of model ``name`` whose integer division or modulo divides by a size these dims make 0
    (read by `check`: a "may fail" that dies of SIGFPE)."""
    ix = pkg.index(name)
    if not any(ix.kernel_backend(k) == "cpp" for k in ix.kernel_names()):
        return []
    zero = {k for k, v in dims.items() if v == 0}
    return [s for s in kernel_sites(ix.full()) if any((r.input, r.dim) in zero for r in s.symbols)]


def unvouched_externs(pkg, name: str, sizes: dict[str, int]) -> list[FaultSite]:
    """The extern ATen ops of model ``name`` whose inputs' shapes hold a symbol of ``sizes`` (root symbol -> a
    value the package was not built for: 0, or outside the symbol's range).  The generated kernels are the
    package's own code, which `check` models; what ATen does at such a size is not in the package (an empty
    sequence makes cpu_flash_attention divide by zero: SIGFPE), so `check` says "may fail" there, not "fit".
    Read in a slice of the extern calls (no kernel the calls do not need is parsed)."""
    return unvouched_externs_read(pkg, name, sizes)[0]


# A package with more extern calls than `EXTERN_ALL` is read `EXTERN_CHUNK` calls at a time, in launch order, until
# `MAX_UNVOUCHED` sites are found: on a 20,000-kernel package (40,000 extern calls) a slice of every call follows
# ~300,000 names (minutes), and even 64 calls' slice follows thousands (19 s); the first sites by line are the ones
# that run first, which is what check's verdict names.  Smaller packages are read whole.
EXTERN_ALL = 256
EXTERN_CHUNK = 8
MAX_UNVOUCHED = 8


def unvouched_externs_read(pkg, name: str, sizes: dict[str, int]) -> tuple[list[FaultSite], int | None]:
    """`unvouched_externs`, and the wrapper line after which no call was read (None: every call was)."""
    ix = pkg.index(name)
    lines = sorted(c.line for c in ix.calls() if c.kind == "extern" and not c.target.startswith(NO_KERNEL_SHIMS))
    if not lines or not sizes:
        return [], None
    step = len(lines) if len(lines) <= EXTERN_ALL else EXTERN_CHUNK
    out: list[FaultSite] = []
    for at in range(0, len(lines), step):
        m = ix.slice(call_lines=lines[at: at + step])
        out += [s for s in extern_sites(pkg, m) if any(r.symbol in sizes for r in s.symbols)]
        if len(out) >= MAX_UNVOUCHED and at + step < len(lines):
            return out, lines[at + step - 1]
    return out, None
