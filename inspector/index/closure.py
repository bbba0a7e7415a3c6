"""Lazy models around a question: the run_impl statements that name some values, and the kernels they launch.

`ModelIndex.slice` follows a trace backwards (the writers of every buffer a call reads).  A neighbourhood
(`pt2-inspect graph --around`) also needs the readers: every statement that names a value the walk crosses,
whichever way its edges point.  `model_naming` builds a `Model` from such statements (their declarations
and the interface added, as a slice does); `inspector.graph.export.neighbourhood_of` grows it until the graph
walk crosses no value whose statements are missing.

Only the scan's tables are read (name postings, call targets); the statements included are parsed
through the index's memoized parser, so a later slice or whole parse in the same process reuses them.
"""

from __future__ import annotations

import functools
import itertools
import operator

from ..model import Model
from ..parse.declared import declared_name
from ..parse.regions import consumes_comments
from ..parse.tokens import NAME
from .name_closure import grow


def _tables(ix):
    """(declared name -> its statements, name -> the statements naming it) of an index; the postings may be
    built on demand and stop after `HOT` + 1 statements (see `_naming`)."""
    decls, postings, _ = ix._name_tables()
    if postings is None:
        postings = ix._postings()
    return decls, postings


def _naming(ix, postings, name: str) -> list[int]:
    """Every statement naming ``name``: the postings, or for a name in more than `HOT` statements (an input
    20,000 launches read) a pass over run_impl, since the postings may hold only the first ones."""
    from .postings import HOT

    hit = postings[name]
    if len(hit) <= HOT:
        return hit
    run = ix.wmap.run
    return [i for i, (text, kind) in enumerate(zip(run.text, run.kind))
            if kind is not None and kind != "comment" and name in text and name in NAME.findall(text)]


def statements_naming(ix, names) -> set[int]:
    """Indices into run_impl of every statement that names one of ``names`` (a token of its text), or a view
    or handle declared from one (``auto tmp_tensor_handle_0 = reinterpret_tensor_wrapper(buf0, …)``: a call
    reading ``tmp_tensor_handle_0_raii`` reads ``buf0``), transitively."""
    _, postings = _tables(ix)
    run = ix.wmap.run
    out: set[int] = set()
    seen = set(names)
    work = list(seen)
    while work:
        for i in _naming(ix, postings, work.pop()):
            if i in out:
                continue
            out.add(i)
            d = declared_name(run[i])
            if d and d not in seen:
                seen.add(d)
                work.append(d)
    return out


def _positions(ix) -> tuple[dict[int, int], dict[str, list[int]]]:
    """(wrapper line -> index into run_impl, kernel -> indices of its launches), from the scan's call list;
    built once per index."""
    got = getattr(ix, "_closure_positions", None)
    if got is None:
        at = dict(zip(ix.wmap.run.line, itertools.count()))
        launches: dict[str, list[int]] = {}
        for c in ix.calls():
            if c.kind == "kernel" and c.line in at:
                launches.setdefault(c.target, []).append(at[c.line])
        got = ix._closure_positions = (at, launches)
    return got


def calls_of(ix, kernels) -> set[int]:
    """Indices into run_impl of every launch of ``kernels``."""
    _, launches = _positions(ix)
    return {i for k in kernels for i in launches.get(k, ())}


def calls_at(ix, lines) -> set[int]:
    """Indices into run_impl of the statements at these wrapper lines."""
    at, _ = _positions(ix)
    return {at[x] for x in lines if x in at}


def calls_below_comments_naming(ix, names) -> set[int]:
    """The calls that take a comment naming one of ``names`` (an FX node in `Source Nodes: [...]`)."""
    import re

    if not names:
        return set()
    wm = ix.wmap
    run = wm.run
    comments = getattr(ix, "_closure_comments", None)
    if comments is None:
        is_comment = map(operator.eq, run.kind, itertools.repeat("comment"))
        comments = ix._closure_comments = list(itertools.compress(itertools.count(), is_comment))
    named = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")(?!\w)")
    out: set[int] = set()
    after = -1
    for i in comments:
        if i <= after or not named.search(run.text[i]):
            continue
        j = i + 1
        while j < len(run) and not consumes_comments(wm, run[j]):
            j += 1
        if j < len(run):
            out.add(j)
        after = j
    return out


def _declarations(ix, seeds) -> set[int]:
    """``seeds`` plus, for every declared name they mention, the earlier statements that declare, allocate or
    view it (every earlier statement naming it but a launch or an extern op call), transitively; and the
    comments above each included call (`ModelIndex._closure` with the writers' calls left out)."""
    wm = ix.wmap
    run = wm.run
    decls, postings = _tables(ix)
    from .postings import HOT

    def earlier(t: str):
        if t not in decls:
            return ()
        if len(postings[t]) <= HOT:  # a launch or an extern op that fills a handle (`&buf0_handle`) too
            own = set(decls[t])
            return [j for j in postings[t] if j in own or not consumes_comments(wm, run[j]) or "&" + t in run[j].text]
        return decls[t]

    included = grow(run.text, seeds, earlier)
    for i in [i for i in included if consumes_comments(wm, run[i])]:
        j = i - 1  # the comments since the previous call that took some
        while j >= 0 and not consumes_comments(wm, run[j]):
            if run[j].kind == "comment":
                included.add(j)
            j -= 1
    return included


def model_naming(ix, seeds: set[int], kernels=()) -> Model:
    """The model of the statements ``seeds`` (with the declarations of the names they use, the comments above
    their calls and the interface), the kernels they launch and ``kernels``."""
    run = ix.wmap.run
    around = _declarations(ix, seeds)
    included = ix._eager_statements() | around
    targets = [ix.wmap.call_target(run[i].callee) for i in sorted(included) if run[i].callee]
    names = [n for n in dict.fromkeys([*kernels, *targets]) if n and ix.kernel_backend(n)]
    return ix._model(included, names, uses=included)


_SCALAR_DECL = ("int64_t ", "int32_t ", "const int64_t ", "const int32_t ", "double ", "float ", "bool ")


@functools.lru_cache(maxsize=4096)
def _launcher_param(text: str):
    from ..parse.wrapper_statements import parse_statement

    return parse_statement(text, "launcher_param")


def _contract(ix, name: str):
    """(kernel, launcher params) with only what a bound chain reads, for a Triton kernel not parsed yet."""
    from ..dialects import embedded_source
    from ..model import KernelParam, param_role
    from ..parse.triton import parse_triton_contract

    wm = ix.wmap
    r = wm.launchers[name]
    params = []
    for line in wm.lines[r.start + 1: r.params_end]:  # (one slice of `WrapperLines`)
        p = _launcher_param(line.strip())
        if p:  # a `parse.statements.LauncherParam`
            params.append(KernelParam(name=p.name, position=len(params), role=param_role(p.name), ctype=p.ctype))
    if r.triton is None:
        from ..model import Kernel
        from ..parse.kernel_scan import kernel_heuristic

        k = Kernel(name=name, backend="triton", heuristic=kernel_heuristic(name, None), source_file=wm.member)
    else:
        start, end = r.triton
        k = parse_triton_contract(name, embedded_source(wm.lines, start, end), wm.member, start + 1,
                                  [j - start for j in r.asserts], wm.dialect.triton_line_base)
    if not k.params:
        k.params = params
    return k, params


def bounds_model(ix, kernels) -> Model | None:
    """A model for the bound chains of ``kernels``' assertions (`inspector.queries.bound_walk.bound_chain`): the
    interface, the launches of the kernels whose bound is not a constant with the scalar declarations they
    pass, and each Triton kernel read for its parameters and assertions only (`parse_triton_contract`);
    CPU kernels and kernels parsed already are whole.  Buffers are left out: a caller whose bound reads one
    takes `ModelIndex.slice` (`inspector.queries.check` checks)."""
    from ..parse.message import static_bound

    run = ix.wmap.run
    decls, _ = _tables(ix)
    ks, launcher = {}, {}
    for name in kernels:
        if name in ix._kernels or ix.kernel_backend(name) != "triton" or name not in ix.wmap.launchers:
            k = ix.kernel(name)
            if k is None:
                continue
            ks[name] = k
            if name in ix._launcher_params:
                launcher[name] = ix._launcher_params[name]
        else:
            ks[name], launcher[name] = _contract(ix, name)
    bounded = [n for n, k in ks.items() if any(a.bound_expr and static_bound(a.bound_expr) is None for a in k.assertions)]
    seeds = calls_of(ix, bounded)
    texts = run.text
    included = grow(texts, seeds, lambda t: [j for j in decls.get(t, ()) if texts[j].startswith(_SCALAR_DECL)])
    m = ix._model(ix._eager_statements() | included, ())
    for name, k in ks.items():
        m.kernels[name] = k
        if name in launcher:
            m.launcher_params[name] = launcher[name]
    return m
