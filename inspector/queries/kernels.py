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


@dataclass
class KernelRow:
    model: str
    name: str
    kind: str  # "cpp" or "triton <heuristic>"
    launches: int
    assertions: list[tuple[int, str]] = field(default_factory=list)  # (line in the kernel's numbering, message)
    inputs: list[str] = field(default_factory=list)  # wrapper names of the model inputs its launches pass
    fx_nodes: list[str] = field(default_factory=list)  # source FX nodes of its launches


def kernel_rows(pkg: Package, name: str) -> list[KernelRow]:
    """Every kernel of model ``name``, from the scan (`ModelIndex.calls`, `call_comments`, `assert_sites`)."""
    ix = pkg.index(name)
    m = ix.eager()  # the interface: the inputs' names
    in_names = {i.name for i in m.inputs}
    launches: dict[str, int] = {}
    inputs: dict[str, dict] = {}
    fx: dict[str, dict] = {}
    comments = ix.call_comments()  # the FX nodes of the Source Nodes comment above each call
    for c in ix.calls():
        if c.kind != "kernel":
            continue
        launches[c.target] = launches.get(c.target, 0) + 1
        for n in c.arg_names:
            if n in in_names:
                inputs.setdefault(c.target, {})[n] = None
        said = comments.get(c.line)
        for n in (said.nodes or ()) if said else ():
            fx.setdefault(c.target, {})[n] = None
    asserts: dict[str, list[tuple[int, str]]] = {}
    for s in ix.assert_sites():
        asserts.setdefault(s.kernel, []).append((s.line, s.message))
    rows = []
    for k in ix.kernel_names():
        kind = ix.kernel_backend(k)
        rows.append(KernelRow(model=name, name=k, kind=kind if kind != "triton" else f"triton {ix.kernel_heuristic(k)}",
                              launches=launches.get(k, 0), assertions=asserts.get(k, []),
                              inputs=list(inputs.get(k, ())), fx_nodes=list(fx.get(k, ()))))
    return rows
