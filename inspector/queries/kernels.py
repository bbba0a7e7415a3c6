"""The kernel list of a model from the lazy index's scan, nothing parsed: what the report's kernel table shows.

One row per kernel (wrapper order, then kernel.cpp order): its kind, how many times run_impl launches it, its
assertions (line and message), the model inputs its launches pass and the source FX nodes of its launches.
All of it comes from the scan's kernels, assert sites and run_impl statements (`ModelIndex.kernel_names`,
`assert_sites`, `calls`): a package of 20,000 kernels is listed without parsing one of them (the whole parse of
such a package takes a minute; tests/samples/test_report_scale.py checks these rows equal the parsed ones on every sample).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..package import Package
from ..parse.comments import source_nodes
from ..parse.tokens import identifiers, last_string

@dataclass
class KernelRow:
    model: str
    name: str
    kind: str  # "cpp" or "triton <heuristic>"
    launches: int
    assertions: list[tuple[int, str]] = field(default_factory=list)  # (line in the kernel's numbering, message)
    inputs: list[str] = field(default_factory=list)  # wrapper names of the model inputs its launches pass
    fx_nodes: list[str] = field(default_factory=list)  # source FX nodes of its launches


def assert_message(text: str) -> str:
    """The message of a scanned assert statement (its last string literal: `tl.device_assert(cond, "msg")`,
    `AOTI_TORCH_CHECK(cond, "msg");`, as the grammars read it in parse/triton.py and parse/cpp_kernel.py), or ""
    when it has none."""
    return last_string(text)


def kernel_rows(pkg: Package, name: str) -> list[KernelRow]:
    """Every kernel of model ``name``, from the scan."""
    ix = pkg.index(name)
    m = ix.eager()  # the interface: the inputs' names
    in_names = {i.name for i in m.inputs}
    dialect = ix.wmap.dialect
    launches: dict[str, int] = {}
    inputs: dict[str, dict] = {}
    fx: dict[str, dict] = {}
    call_at = {st.line: (target, kind) for st, target, kind in ix.calls()}
    pending = None  # the FX nodes the last `// Topologically Sorted Source Nodes` comment names, for the next call
    for st in ix.wmap.run:
        if st.kind == "comment":
            found = source_nodes(dialect, st.text)
            if found is not None:
                pending = found
            continue
        if st.line not in call_at:
            continue
        target, kind = call_at[st.line]
        nodes, pending = pending, None
        if kind != "kernel":
            continue
        launches[target] = launches.get(target, 0) + 1
        for tok in identifiers(st.text[len(st.callee or ""):]):
            if tok in in_names:
                inputs.setdefault(target, {})[tok] = None
        for n in nodes or ():
            fx.setdefault(target, {})[n] = None
    asserts: dict[str, list[tuple[int, str]]] = {}
    for s in ix.assert_sites():
        asserts.setdefault(s.kernel, []).append((s.line, assert_message(s.text)))
    rows = []
    for k in ix.kernel_names():
        kind = ix.kernel_backend(k)
        rows.append(KernelRow(model=name, name=k, kind=kind if kind != "triton" else f"triton {ix.kernel_heuristic(k)}",
                              launches=launches.get(k, 0), assertions=asserts.get(k, []),
                              inputs=list(inputs.get(k, ())), fx_nodes=list(fx.get(k, ()))))
    return rows
