"""Unchecked indirect accesses: loads and stores whose address uses a value read from a tensor, with no
bounds assert on it.  These are the illegal-memory-access suspects (packages compiled with
``assert_indirect_indexing=False``, or indexing Inductor did not guard)."""

from __future__ import annotations

import inspector.graph.ids as ids
from ..graph.build import resolve_tmp
from ..model import Kernel, Model
from ..parse.access import definition_reads_pointer, definition_tmps, expr_tmps, kernel_accesses
from .index_walk import dedupe, value_table, walk_kernel
from .walk import Step, edges, path_names


def _data_dependent(g, node: str) -> bool:
    seen, queue = {node}, [node]
    while queue:
        n = queue.pop()
        for _, v, d in g.out_edges(n, data=True):
            if d.get("kind") == "loads":
                return True
            if d.get("kind") == "uses" and ids.kind_of(v) == ids.TMP and v not in seen:
                seen.add(v)
                queue.append(v)
    return False


def copies(g, v: str, k: Kernel | None = None) -> list[str]:
    """``v`` and the tmps it merely copies or converts, in order (tmp12 -> tmp11 -> tmp10).  With the kernel,
    a vectorized copy (a lambda whose body names one other tmp) counts too."""
    out = [v]
    while True:
        nxt = [w for _, w, d in g.out_edges(v, data=True) if d.get("kind") in ("uses", "loads")
               and g.nodes[w].get("role") not in ("size", "other")]  # a tail count (ks1 …) is no data
        if not nxt and k is not None and ids.kind_of(v) == ids.TMP:
            line = g.nodes[v].get("line")
            t = next((x for x in k.tmps if x.line == line), None)
            names = {n for n in definition_tmps(k, line) if t is None or n != t.name}
            if t is not None and len(names) == 1 and not definition_reads_pointer(k, line):
                d = resolve_tmp(k, names.pop(), line, t.scope)
                nxt = [ids.tmp(k.name, d.line)] if d is not None else []
        if len(nxt) != 1 or ids.kind_of(nxt[0]) != ids.TMP or nxt[0] in out:
            return out
        v = nxt[0]
        out.append(v)


def _checked(g, k: Kernel) -> set[str]:
    """tmps an assertion checks, and the ones they merely copy or convert (``tmp12 = convert(tmp11)``,
    ``tmp11 = tmp10``): a CPU kernel asserts on the copy and indexes with the original."""
    out = set()
    for a in k.assertions:
        for v, _ in edges(g, ids.assertion(k.name, a.line), "asserts_on"):
            out.update(copies(g, v, k))
    return out


def unchecked_indirect(m: Model, g, only: set[str] | None = None) -> list[dict]:
    """Every kernel access whose address holds a tensor-read value that no assertion of the kernel checks
    (in the kernels ``only`` names, when given: a slice also holds the writers its walks need)."""
    out = []
    for k in m.kernels.values():
        if only is not None and k.name not in only:
            continue
        site = next((c for c in m.calls if c.kind == "kernel" and c.target == k.name), None)
        call_node = ids.call(site.line) if site else None
        checked = _checked(g, k)
        # The kernel's accesses, read from its own lines (`inspector.parse.access`): expression texts may be cut
        # short (vectorized loads), and a vectorized gather spans a lambda.
        for acc in kernel_accesses(k):
            ptr, line, scope, how = acc.ptr, acc.line, acc.scope, acc.kind
            p = k.param(ptr)
            if p is None or (how == "load" and p.role == "out"):  # a load of an out pointer reads no input
                continue
            for name in dict.fromkeys(expr_tmps(acc.address)):
                t = resolve_tmp(k, name, line, scope)
                if t is None:
                    continue
                tn = ids.tmp(k.name, t.line)
                if tn in checked or not _data_dependent(g, tn):
                    continue
                origins = []
                walk_kernel(m, g, k, tn, site, [Step("tmp", name, tn)], origins, set(), 0)
                origins = dedupe(origins)
                bind = next(edges(g, ids.param(k.name, ptr), "binds", call_node), None) if call_node else None
                table = value_table(m, g, bind[0], ptr, bind[1].get("arg")) if bind else None
                out.append({
                    "kernel": k.name, "kernel_kind": k.backend, "line": int(line), "access": how, "pointer": ptr,
                    "address": str(acc.address), "index_var": name, "table": table.to_dict() if table else None,
                    "index_origin": [{"input": o.input.index if o.input else None,
                                      "input_name": o.input.name if o.input else None,
                                      "constant": o.constant, "path": path_names(o.path), "unresolved": o.unresolved}
                                     for o in origins],
                    "launched_at": site.line if site else None,
                })
    uniq = {}
    for s in out:
        uniq.setdefault((s["kernel"], s["pointer"], s["index_var"], s["access"]), s)
    # Input-fed first, then constants, then the rest; launch order within each.
    return sorted(uniq.values(), key=lambda s: (not any(o["input"] is not None for o in s["index_origin"]),
                                                not any(o["constant"] for o in s["index_origin"]),
                                                s["launched_at"] or 10**9, s["line"]))


def model_suspects(pkg, name: str) -> list[dict]:
    """``unchecked_indirect`` of model ``name``, the same list, from a slice of the kernels `ModelIndex.suspect_kernels`
    names (and the writers their walks follow) instead of the whole parse."""
    if name in pkg._models:  # parsed already: nothing to save
        return unchecked_indirect(pkg.model(name), pkg.graph(name))
    ix = pkg.index(name)
    if ix.parsed_whole:
        return unchecked_indirect(ix.full(), pkg.graph_of(ix.full()))
    kernels = ix.suspect_kernels()
    if not kernels:
        return []
    m = ix.slice(kernels=kernels)
    return unchecked_indirect(m, pkg.graph_of(m), only=set(kernels))


def first_kernel_names(pkg, name: str, n: int) -> list[str]:
    """``list(pkg.model(name).kernels)[:n]`` without the whole parse (a CPU region no rule reads is no kernel)."""
    if name in pkg._models:
        return list(pkg.model(name).kernels)[:n]
    ix = pkg.index(name)
    if ix.parsed_whole:
        return list(ix.full().kernels)[:n]
    out = []
    for k in ix.kernel_names():
        if len(out) >= n:
            break
        if ix.kernel(k) is not None:
            out.append(k)
    return out
