"""An arithmetic fault (``arithmetic_fault``): the process died of SIGFPE, an integer division by zero (or
INT_MIN / -1) in native code.  The hypotheses come from this package: (a) generated kernels whose integer
division or modulo has a dynamic size for divisor (read from the typed expression trees of their statements),
(b) extern ATen ops whose inputs' shapes hold a dynamic symbol (the wrapper's calls, the views' and buffers'
sizes); (c) a native backtrace in the log (gdb's, torch's ``frame #N``) naming a wrapper.cpp line or a shim
decides between them.  Real logs: sample_packages/cpu/transformer/logs/sigfpe_*.log."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ....explain import diagnose as say
from ....logs import patterns as P
from ....naming import root_symbol
from ....parse import expr_tree as E
from ..results import Diagnosis, step
from .base import _NOT_OPS, Facts, Rule, _ev

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


def _array_sizes(lines: list[str], line: int, array: str) -> list[str]:
    """The sizes of ``int_array_N`` defined at most 60 lines above ``line`` (``const int64_t int_array_10[] =
    {s23, 4L, s27, 16L};``), read as a braced list by the expression trees."""
    for k in range(min(line - 1, len(lines)) - 1, max(line - 61, 0) - 1, -1):
        text = lines[k]
        if f"{array}[]" in text and "=" in text:
            tree = E.strip_parens(E.parse_expr(text.split("=", 1)[1].strip().rstrip(";")))
            return list(E.names(tree))
    return []


def _extern_sites(pkg, m) -> list[FaultSite]:
    lines = pkg.index(m.name).wmap.lines
    out = []
    for c in m.calls:
        if c.kind != "extern" or c.target.startswith(_NOT_OPS):
            continue
        names: list[str] = []
        for a in c.args:
            for n in E.names(a.tree):
                names += _array_sizes(lines, c.line, n) if n.startswith("int_array_") else [n]
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


def _kernel_sites(m) -> list[FaultSite]:
    from ....parse.access import kernel_accesses

    out = []
    for k in m.kernels.values() if isinstance(m.kernels, dict) else m.kernels:
        if k.kind != "cpp":  # a GPU's integer division by zero does not trap: no SIGFPE comes from a Triton kernel
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
    if not any(ix.kernel_kind(k) == "cpp" for k in ix.kernel_names()):
        return []
    zero = {k for k, v in dims.items() if v == 0}
    return [s for s in _kernel_sites(ix.full()) if any((r.input, r.dim) in zero for r in s.symbols)]


@dataclass
class Backtrace:
    """What a native backtrace in the log names: the innermost function, the shim op, the wrapper.cpp line."""

    function: str | None = None
    shim: str | None = None
    wrapper_line: int | None = None
    frames: list[str] = field(default_factory=list)


def _backtrace(lines: list[str]) -> Backtrace:
    bt = Backtrace()
    for ln in lines:
        m = P.NATIVE_FRAME.search(ln)
        if not m:
            continue
        fn = m.group("fn")
        bt.frames.append(ln.strip())
        name = P.FRAME_FUNCTION.search(fn)
        if bt.function is None and name:
            bt.function = name.group("name")
        shim = P.SHIM_IN_FRAME.search(fn)
        if bt.shim is None and shim:
            bt.shim = f"aoti_torch_{shim.group('device')}_{shim.group('op')}"
        if (bt.wrapper_line is None and m.group("file") and m.group("file").endswith("wrapper.cpp")
                and name and name.group("name") == "run_impl"):
            bt.wrapper_line = int(m.group("line"))
    return bt


class ArithmeticFault(Rule):
    category = "arithmetic_fault"

    def claims(self, f: Facts) -> bool:
        return f.rep.has("arithmetic_fault")

    def answer(self, f: Facts, d: Diagnosis) -> None:
        d.evidence = _ev([e for e in f.rep.events if e.pattern == "arithmetic_fault"], 2)
        bt = _backtrace(f.rep.lines)
        sites: list[FaultSite] = []
        for em in f.models:
            m = f.pkg.index(em.name).full()
            sites += _kernel_sites(m) + _extern_sites(f.pkg, m)
        sites.sort(key=lambda s: s.line)  # the first to run with a size at 0 is the first to divide by it
        named = [s for s in sites if (bt.wrapper_line is not None and s.line == bt.wrapper_line)
                 or (bt.wrapper_line is None and bt.shim is not None
                     and s.target.replace("_", "").startswith(bt.shim.replace("_", "")))]
        if named:
            for s in named:
                s.certainty = "likely"
                at_line = [fr for fr in bt.frames if bt.wrapper_line and f"wrapper.cpp:{bt.wrapper_line}" in fr]
                at_shim = [fr for fr in bt.frames if bt.shim and bt.shim.split("_", 3)[-1] in fr]
                s.evidence = (at_line or at_shim or [None])[0]
            sites = named
        d.hypotheses = [s.to_dict() for s in sites]
        if bt.frames:
            d.notes.append(say.fpe_backtrace_note(bt.function, bt.shim, bt.wrapper_line))
        first = sites[0] if sites else None
        d.verdict = say.fpe_verdict(len(sites), first.to_dict() if first else None, bool(named), bt.function)
        dims = list(dict.fromkeys((r.input, r.dim) for s in sites for r in s.symbols if r.input is not None))
        d.steps = [step(say.fpe_check_step(dims)),
                   step(say.FPE_SWEEP)]
        if not bt.frames:
            d.steps.append(step(say.FPE_GDB, {"OMP_NUM_THREADS": "1"}, "run"))
        if not named and len(sites) > 1:
            d.notes.append(say.FPE_TELL_APART)
