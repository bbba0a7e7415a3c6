"""Input dims the wrapper only range-checks (``argN[d]``: read into no symbol), and how far the kernels read those
inputs: a kernel indexes such an input with the sizes of others (HF Llama's attention mask with the ids' batch and
sequence, a src with the index's length), so its size must match theirs, which no runtime check compares.

`reads_past` evaluates, at given sizes, the last element each kernel launch loads from such an input (its address
with every loop position at its end: a CPU loop's ``x < bound``, a Triton ``xindex < xnumel``; the size arguments
from the launch, the symbols from the given dims) against the elements the input holds.  `read_as` says, with no
sizes, which symbols the kernels read such an input by: the reads at distinct prime sizes, divided by the input's
known dims, named as the symbol (or product of symbols) they equal."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ..model import Model
from ..naming import root_symbol
from ..package import Package
from ..parse.tokens import identifiers


class _Trees:
    """`inspector.parse.expr_tree`, imported on first use: a cached `show` that has nothing here to read builds no
    tree and loads no parser (tests/samples/test_cached_no_parser.py)."""

    def __getattr__(self, name):
        from ..parse import expr_tree

        return getattr(expr_tree, name)


E = _Trees()

# read_as probes each root symbol at a prime times _BASE (so a size the package divides, `s9 = s / 8`, stays whole):
# a read of n elements is then _BASE**k times a product of k of the primes, which names the k symbols
_PRIMES = (11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53)
_BASE = 5040  # 2**4 * 3**2 * 5 * 7


@dataclass
class InputRead:
    """The furthest load of input ``input`` by kernel ``kernel`` (launched at wrapper line ``line``): element
    ``last`` (so ``last + 1`` elements) at the sizes asked."""

    input: int
    kernel: str
    line: int
    last: int
    address: str
    # the address's step along each loop position it names (the positions 0 but one, at 1): the strides the kernel
    # reads the input with, largest first (a broadcast position steps 0 and is left out)
    strides: tuple[int, ...] = ()


def _partial_inputs(m: Model) -> list[int]:
    return [i.index for i in m.inputs if i.shape and any(str(x) == "?" for x in i.shape)]


def _loop_maxima(k, env: dict[str, int], at: float | None = None) -> dict[str, int]:
    """Each loop position's last value: a CPU loop variable's (bound - 1, from the header of that variable last
    above kernel line ``at``: one kernel's loop nests reuse ``x0`` with other bounds), a Triton kernel's
    ``xindex``/``r0_index``-style positions (numel - 1)."""
    out: dict[str, int] = {}
    if k.backend == "cpp":
        from ..parse.cpp_loops import loop_headers

        for h in loop_headers(k):
            if at is not None and h.line > at:
                continue
            try:
                out[h.var] = E.evaluate(h.bound.tree, env) - 1
            except E.EvalError:
                out.pop(h.var, None)
        return out
    for p in k.params:
        if p.name.endswith("numel") and p.name in env:
            axis = p.name[: -len("numel")]
            out[f"{axis}index"] = env[p.name] - 1
            out[f"{axis}offset"] = 0
    return out


def _kernel_env(k, env: dict[str, int], at: float | None = None) -> dict[str, int]:
    """``env`` with the kernel's loop positions at their end (those around kernel line ``at``) and its tmps that are
    plain index arithmetic of them (``x1 = xindex // 4``) evaluated."""
    out = dict(env)
    out.update(_loop_maxima(k, out, at))
    for t in k.tmps:
        if t.name in out or (at is not None and t.line > at):
            continue
        try:
            out[t.name] = E.evaluate(t.expr.tree, out)
        except E.EvalError:
            continue
    return out


class _Sizes(dict):
    """run_impl's size names at given sizes, each resolved when an evaluation asks for it (a 20,000-kernel package
    has tens of thousands of `xnumel` locals; a question reads a few): symbols from the given dims (aliases too),
    locals by their arithmetic (``xnumel = 4L*s23``, ``s45 = c10::div_floor_integer(arg20_1_size_2, 16L)``)."""

    def __init__(self, m: Model, dims: dict[tuple[int, int], int]):
        super().__init__()
        self._m, self._dims, self._busy = m, dims, set()

    def _resolve(self, name: str) -> bool:
        if dict.__contains__(self, name):
            return True
        if name in self._busy:
            return False
        m = self._m
        sym = m.symbols.get(name)
        if sym is not None:
            root = root_symbol(m.symbols, name)
            src = root if root is not None else sym
            if src.input is not None and (src.input, src.dim) in self._dims:
                dict.__setitem__(self, name, self._dims[(src.input, src.dim)])
                return True
            return False
        e = m.locals.get(name)
        if e is None:
            return False
        self._busy.add(name)
        try:
            try:
                v = E.evaluate(e.tree, self)
            except E.EvalError:
                v = _exact(e.tree, self)  # torch 2.11 CUDA: `s9 = (1.0 / 8.0) * arg23_1_size_1`
        finally:
            self._busy.discard(name)
        if v is None:
            return False
        dict.__setitem__(self, name, v)
        return True

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and self._resolve(name)

    def __getitem__(self, name):
        if not self._resolve(name):
            raise KeyError(name)
        return dict.__getitem__(self, name)


def size_env(m: Model, dims: dict[tuple[int, int], int]) -> dict[str, int]:
    """run_impl's size names at the sizes ``dims`` give, resolved on demand (`_Sizes`)."""
    return _Sizes(m, dims)


def _exact(n, env: dict[str, int]) -> int | None:
    """A size Inductor wrote with float literals (``(1.0 / 8.0) * arg23_1_size_1``: a sequence that is a multiple of
    8, divided by it) evaluated exactly: its value when that is a whole number, else None."""
    from fractions import Fraction

    def ev(x):
        if isinstance(x, (E.Int, E.Float)):
            return Fraction(x.value)
        if isinstance(x, E.Name):
            return Fraction(env[x.id]) if x.id in env else None
        if isinstance(x, E.Paren) and not isinstance(x.inner, E.Tuple):
            return ev(x.inner)
        if isinstance(x, E.Cast):
            v = ev(x.operand)
            return Fraction(int(v)) if v is not None else None
        if isinstance(x, E.BinOp) and x.op in "+-*/":
            a, b = ev(x.left), ev(x.right)
            if a is None or b is None or (x.op == "/" and b == 0):
                return None
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}[x.op]
        return None

    v = ev(n)
    return int(v) if v is not None and v.denominator == 1 else None


@dataclass
class Derived:
    """A dim the package computes from sizes (``16L*s45`` with ``s45 = size // 16``) that the given size is not:
    the kernels use ``value`` for it (``expr`` at these sizes)."""

    input: int
    dim: int
    given: int
    expr: str
    value: int
    multiple_of: int | None  # the sizes it holds for are this number's multiples (None: not that simple)
    shape: list[int] | None  # the input's shape as the kernels see it, every dim computed


def _value(tree, env) -> int | None:
    try:
        return E.evaluate(tree, env)
    except E.EvalError:
        return None


def _multiple(m: Model, idx: int, d: int, want: E.Node, lo: int, hi: int) -> int | None:
    """The k such that the sizes ``want`` equals (over lo..hi, other dims as their lower bounds) are exactly k's
    multiples: what ``16L*s45`` with ``s45 = size // 16`` asks."""
    held = []
    for n in range(max(lo, 1), min(hi, lo + 4096) + 1):
        env = size_env(m, {(idx, d): n})
        if _value(want, env) == n:
            held.append(n)
    if len(held) < 2:
        return None
    k = held[1] - held[0]
    return k if all(b - a == k for a, b in zip(held, held[1:])) and held[0] % k == 0 else None


def derived_mismatches(m: Model, dims: dict[tuple[int, int], int]) -> list[Derived]:
    """The given dims whose shape entry is an expression of sizes (not a symbol, not a number) that evaluates, at the
    given sizes, to something else: the package derives the dim and the kernels read that size."""
    env = size_env(m, dims)
    out = []
    for (i, d), got in sorted(dims.items()):
        inp = m.inputs[i] if i < len(m.inputs) else None
        if inp is None or d >= len(inp.shape):
            continue
        want = inp.shape[d]
        if isinstance(want, int) or str(want) == "?" or str(want) in m.symbols or str(want).rstrip("L").isdigit():
            continue
        tree = E.parse_expr(str(want))
        v = _value(tree, env)
        if v is None or v == got:
            continue
        own = next((s for s in m.symbols.values() if s.input == i and s.dim == d), None)
        lo, hi = (own.min or 1, own.max or 4096) if own else (1, 4096)
        shape = [_value(E.parse_expr(str(x)), env) if not isinstance(x, int) else x for x in inp.shape]
        out.append(Derived(i, d, got, str(want), v, _multiple(m, i, d, tree, lo, hi),
                           None if any(x is None for x in shape) else shape))
    return out


def reads_past(pkg: Package, name: str, dims: dict[tuple[int, int], int]) -> list[InputRead]:
    """The furthest element each kernel loads from each input with a range-only dim, at the sizes ``dims`` give
    ((input, dim) -> size); only loads whose address is loop arithmetic (no value read from a tensor)."""
    from ..graph.build import call_params
    from ..parse.access import kernel_accesses

    ix = pkg.index(name)
    eager = ix.eager()
    targets = {eager.inputs[i].name: i for i in _partial_inputs(eager)}
    if not targets:
        return []
    kernels = list(dict.fromkeys(c.target for c in ix.calls() if c.kind == "kernel"
                                 and any(c.mentions(n) for n in targets)))
    if not kernels:
        return []
    m = ix.slice(kernels=kernels)
    env = size_env(m, dims)
    out = []
    for site in m.calls:
        k = m.kernels.get(site.target) if site.kind == "kernel" else None
        if k is None:
            continue
        kenv: dict[str, int] = {}
        bound: dict[str, int] = {}  # pointer param -> input index
        for pname, arg in zip(call_params(m, site), site.args):
            if arg.base in targets and k.param(pname) is not None:
                bound[pname] = targets[arg.base]
            try:
                kenv[pname] = E.evaluate(arg.tree, env)
            except E.EvalError:
                continue
        if not bound:
            continue
        args = kenv
        best: dict[int, tuple[int, str]] = {}
        for acc in kernel_accesses(k):
            i = bound.get(acc.ptr)
            if i is None or acc.kind != "load" or not acc.closed:
                continue
            tree = acc.address.tree
            if E.has_opaque(tree) or any(n.startswith("tmp") for n in E.names(tree)):
                continue
            kenv = _kernel_env(k, args, acc.line if k.backend == "cpp" else None)
            try:
                v = E.evaluate(tree, kenv)
            except E.EvalError:
                continue
            if i not in best or v > best[i][0]:
                best[i] = (v, str(acc.address), _strides(tree, kenv))
        out += [InputRead(i, k.name, site.line, v, a, st) for i, (v, a, st) in best.items()]
    return out


def _strides(tree, env: dict[str, int]) -> tuple[int, ...]:
    """The address's step along each loop position it names (`is_loop_index`), largest first, each once."""
    from ..parse.names import is_loop_index

    pos = [n for n in dict.fromkeys(E.names(tree)) if is_loop_index(n)]
    zero = dict(env, **{n: 0 for n in pos})
    try:
        base = E.evaluate(tree, zero)
        steps = {E.evaluate(tree, dict(zero, **{n: 1})) - base for n in pos}
    except E.EvalError:
        return ()
    return tuple(sorted((x for x in steps if x > 0), reverse=True))


def numel(shape: list[int]) -> int:
    return prod(shape)


@dataclass
class ReadAs:
    """A range-only dim ``input``/``dim`` that the kernels read as ``symbols`` (the product of those sizes), from
    the loads of ``kernel``: its size must be at least that, and an exported shared `Dim` makes it equal."""

    input: int
    dim: int
    symbols: list[str]  # root symbols, their product
    owners: list[tuple[int, int]]  # (input, dim) each symbol is read from
    kernel: str
    line: int


def read_as(pkg: Package, name: str) -> list[ReadAs]:
    """For each input with exactly one range-only dim whose other dims are static numbers or symbols: the sizes
    the kernels read it by, found by evaluating the reads at distinct prime sizes (one prime per root symbol)."""
    ix = pkg.index(name)
    m = ix.eager()
    partial = _partial_inputs(m)
    if not partial:
        return []
    roots = [s for s in m.symbols.values() if s.alias_of is None and s.input is not None and s.dim is not None]
    dims: dict[tuple[int, int], int] = {}
    prime_of: dict[int, str] = {}
    for s, p in zip(roots, _PRIMES):
        dims[(s.input, s.dim)] = p * _BASE
        prime_of[p] = s.name
    if len(prime_of) < len(roots):
        return []
    out = []
    for i in partial:
        inp = m.inputs[i]
        unknown = [d for d, x in enumerate(inp.shape) if str(x) == "?"]
        if len(unknown) == len(inp.shape) > 1:
            out += _read_by_strides(pkg, name, m, i, dims, prime_of)
            continue
        if len(unknown) != 1:
            continue
        known = 1
        for d, x in enumerate(inp.shape):
            if d == unknown[0]:
                continue
            if isinstance(x, int) or str(x).isdigit():
                known *= int(x)
            else:
                sym = root_symbol(m.symbols, str(x))
                if sym is None or (sym.input, sym.dim) not in dims:
                    known = None
                    break
                known *= dims[(sym.input, sym.dim)]
        if known is None:
            continue
        for d, x in enumerate(inp.shape):  # the range-only dim at a size no symbol has: its own
            if d != unknown[0] and not (isinstance(x, int) or str(x).isdigit()):
                dims.setdefault((i, d), known)
        reads = [r for r in reads_past(pkg, name, dims) if r.input == i]
        if not reads:
            continue
        r = max(reads, key=lambda r: r.last)
        n = r.last + 1
        if n % known:
            continue
        factors = _factor(n // known, prime_of)
        if factors is None:
            continue
        owners = [(m.symbols[f].input, m.symbols[f].dim) for f in factors]
        out.append(ReadAs(i, unknown[0], factors, owners, r.kernel, r.line))
    return out


def _factor(n: int, prime_of: dict[int, str]) -> list[str] | None:
    """The symbols whose probe values (prime × _BASE) multiply to ``n``; None when ``n`` is no such product."""
    k, left = 0, n
    while left and left % _BASE == 0:
        left //= _BASE
        k += 1
    factors = []
    for p in sorted(prime_of):
        while left % p == 0:
            factors.append(prime_of[p])
            left //= p
    return factors if left == 1 and factors and len(factors) == k else None


def _read_by_strides(pkg: Package, name: str, m: Model, i: int, dims: dict, prime_of: dict[int, str]) -> list[ReadAs]:
    """An input none of whose dims the wrapper reads (HF Llama's attention mask on torch 2.11 CUDA): its dims from
    the strides a kernel reads it with (a contiguous read: steps d1*…, …, 1) and the elements it reads."""
    rank = len(m.inputs[i].shape)
    for r in sorted((r for r in reads_past(pkg, name, dims) if r.input == i), key=lambda r: -r.last):
        st = r.strides
        if len(st) != rank or st[-1] != 1 or (r.last + 1) % st[0] or any(a % b for a, b in zip(st, st[1:])):
            continue
        sizes = [(r.last + 1) // st[0]] + [a // b for a, b in zip(st, st[1:])]
        named = [_factor(x, prime_of) for x in sizes]
        if any(x is None for x in named):
            continue
        return [ReadAs(i, d, f, [(m.symbols[x].input, m.symbols[x].dim) for x in f], r.kernel, r.line)
                for d, f in enumerate(named)]
    return []


def dim_contracts(pkg: Package, name: str) -> list[dict]:
    """What `show` says of the dims the runtime checks do not tie down: each range-only dim the kernels read by
    other inputs' sizes (``kind`` "shared": ``symbols``, ``owners``) and each dim the package computes from its
    size (``kind`` "derived": ``expr``, ``multiple_of``)."""
    ix = pkg.index(name)
    m = ix.eager()
    out = []
    for i in m.inputs:
        for d, want in enumerate(i.shape or []):
            if isinstance(want, int) or str(want) == "?" or str(want) in m.symbols or str(want).rstrip("L").isdigit():
                continue
            if not any(n in m.locals for n in identifiers(str(want))):  # computed from no local: no division
                continue
            own = next((s for s in m.symbols.values() if s.input == i.index and s.dim == d), None)
            if own is None:
                continue
            k = _multiple(m, i.index, d, E.parse_expr(str(want)), own.min or 1, own.max or 4096)
            if k is not None and k > 1:
                out.append({"kind": "derived", "input": i.index, "dim": d, "expr": str(want), "multiple_of": k,
                            "line": i.size_stride_line})
    for r in read_as(pkg, name):
        out.append({"kind": "shared", "input": r.input, "dim": r.dim, "symbols": r.symbols,
                    "owners": [list(o) for o in r.owners], "kernel": r.kernel, "line": r.line})
    return out
