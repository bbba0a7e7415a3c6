"""Unchecked indirect accesses: loads and stores whose address uses a value read from a tensor, with no
bounds assert on it.  These are the illegal-memory-access suspects (packages compiled with
``assert_indirect_indexing=False``, or indexing Inductor did not guard)."""

from __future__ import annotations

import functools

import inspector.graph.ids as ids
from ..graph.build import resolve_tmp
from ..model import Kernel, Model
from ..parse import expr_tree as E
from ..parse.access import accesses_in, definition_text, kernel_accesses
from ..parse.names import is_tmp, names_a_pointer, tmp_names, tmps_assigned
from .index_walk import dedupe, value_table, walk_kernel
from .walk import Step, edges, path_names

_body = definition_text  # a tmp definition's whole text (a vectorized one spans a lambda over several lines)


def addresses(text: str) -> list[tuple[str, str]]:
    """(pointer, address text) for each ``ptr[addr]``, ``ptr + (addr)``, ``ptr + static_cast<…>(addr)``
    (`inspector.parse.access`)."""
    return [(p, a) for p, a, _ in accesses_in(text)]


def _tmps_of(address) -> list[str]:
    """The tmps an address (an `Expr`) names, in order: from its tree (its text, when the grammar does not read it)."""
    tree = address.tree
    return tmp_names(address.text) if E.has_opaque(tree) else [n for n in E.names(tree) if is_tmp(n)]


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
            names = {n for n in tmp_names(_body(k, line)) if t is None or n != t.name}
            if t is not None and len(names) == 1 and not names_a_pointer(_body(k, line)):
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
            for name in dict.fromkeys(_tmps_of(acc.address)):
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
                    "address": acc.address.text, "index_var": name, "table": table.to_dict() if table else None,
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


# -- lazily: only the kernels whose raw text may hold an unchecked indirect access are parsed -------------

@functools.lru_cache(maxsize=4096)
def _assert_index_var(text: str) -> str | None:
    """The index a ``tl.device_assert(…, "…")`` line checks, read as `inspector.parse.triton` reads it."""
    from ..parse.message import parse_check_message
    from ..parse.triton import parse_triton_statement

    r = parse_triton_statement(text, "call_stmt")  # no coverage: a probe, not the kernel's parse (a TritonCall)
    if not r or r.callee != "tl.device_assert" or len(r.args) < 2:
        return None
    cm = parse_check_message(r.args[1].text.strip("\"'"))
    return cm.index_var if cm else None


def _triton_needs_parse(lines: list[str], assert_at: list[int]) -> bool:
    """From a Triton kernel's raw lines: may `unchecked_indirect` find an access in it?  False only when every
    tmp an address names is defined on one line and asserted on a later one (so the whole parse marks it
    checked); anything less certain is True (the kernel is parsed and asked).  A Triton statement is one
    line, so addresses are read line by line; one that does not close on its line makes the kernel parsed."""
    names: set[str] = set()
    for line in lines:
        if "ptr" in line and "tmp" in line:
            for _, addr, closed in accesses_in(line):
                if not closed:
                    return True
                names.update(tmp_names(addr))
    if not names:
        return False
    defs: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        if "=" in line and "tmp" in line:
            for n in tmps_assigned(line) & names:
                defs.setdefault(n, []).append(i)
    for n in names:
        at = defs.get(n, [])
        if len(at) != 1:
            return True
        if not any(j > at[0] and _assert_index_var(lines[j].strip()) == n for j in assert_at):
            return True
    return False


def suspect_kernels(ix) -> list[str]:
    """The kernels of a model (wrapper order) whose raw text, as the scan holds it, may hold an unchecked
    indirect access: every CPU kernel with an indirect-looking address, the Triton kernels with an address
    made from a tmp no assert certainly checks.  No kernel is parsed."""
    out = []
    for name in ix.kernel_names():
        kind = ix.kernel_backend(name)
        if kind == "triton":
            r = ix.wmap.launchers.get(name)
            if r is None or r.triton is None:
                continue
            start, end = r.triton
            if _triton_needs_parse(ix.wmap.lines[start:end], [j - start for j in r.asserts]):
                out.append(name)
        else:
            start, end, _ = ix.cpp_regions[name]
            text = " ".join(ix.cpp_lines[start:end])
            if "tmp" in text and any(tmp_names(addr) for _, addr, _ in accesses_in(text)):
                out.append(name)
    return out


def model_suspects(pkg, name: str) -> list[dict]:
    """``unchecked_indirect`` of model ``name``, the same list, from a slice of the kernels `suspect_kernels`
    names (and the writers their walks follow) instead of the whole parse."""
    if name in pkg._models:  # parsed already: nothing to save
        return unchecked_indirect(pkg.model(name), pkg.graph(name))
    ix = pkg.index(name)
    if ix.parsed_whole:
        return unchecked_indirect(ix.full(), pkg.graph_of(ix.full()))
    kernels = suspect_kernels(ix)
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
