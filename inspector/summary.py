"""`show`: what a package is, as one plain dict (the CLI renders it, --json prints it)."""

from __future__ import annotations

from collections import Counter

from .model import Model
from .package import Package
from .trace import GUARD_NOTE


def summarize(pkg: Package, model: str | None = None, full: bool = False) -> dict:
    """By default from the scan (kernels, asserts, calls: nothing parsed) and the small facts (inputs, guards,
    symbols, constants, outputs: their statements parsed); ``full``: every statement parsed, so the coverage
    counts the whole wrapper and kernel.cpp.  The answers are the same (tests/test_lazy.py)."""
    names = [model] if model else pkg.model_names
    if model:
        pkg.files(model)
    return {
        "package": str(pkg.path),
        "format": pkg.format,
        "archive_version": pkg.archive_version,
        "exported_programs": pkg.exported_programs,
        "guard_note": GUARD_NOTE,
        "models": [summarize_model(pkg, n, full) for n in names],
    }


def summarize_model(pkg: Package, name: str, full: bool = False) -> dict:
    f = pkg.files(name)
    if full:
        m = pkg.model(name)
        kernels = [{"name": k.name, "kind": k.kind, "flavor": k.flavor, "file": k.source_file.rsplit("/", 1)[-1],
                    "assert_lines": [a.line for a in k.assertions]} for k in m.kernels.values()]
        calls = [(c.target, c.kind, c.line, c.checked) for c in m.calls]
        parsed = None
        constants = m.constants
    else:  # the scan: nothing parsed but the small facts (`ModelIndex.eager`)
        ix = pkg.index(name)
        m = ix.eager()
        lines: dict[str, list[int]] = {}
        for site in ix.assert_sites():
            lines.setdefault(site.kernel, []).append(site.line)
        kernels = [{"name": n, "kind": ix.kernel_kind(n), "flavor": ix.kernel_flavor(n),
                    "file": (f.wrapper if ix.kernel_kind(n) == "triton" else f.kernel_cpp or "").rsplit("/", 1)[-1],
                    "assert_lines": lines.get(n, [])} for n in ix.kernel_names()]
        calls = [(target, kind, st.line, st.kind == "checked_call") for st, target, kind in ix.calls()]
        parsed = {"kernels_parsed": ix.parsed_kernels(), "kernels": len(kernels)}
        constants = ix.constants()
    calls_per_kernel = Counter(t for t, kind, _, _ in calls if kind == "kernel")
    externs = Counter(t for t, kind, _, _ in calls if kind == "extern")
    for k in kernels:
        k["assertions"] = len(k["assert_lines"])
        k["launches"] = calls_per_kernel.get(k["name"], 0)
    by_flavor = Counter(f"{k['kind']}:{k['flavor']}" for k in kernels)
    md = m.metadata
    out = {
        "name": m.name,
        "dialect": m.dialect,
        "device": md.get("AOTI_DEVICE_KEY"),
        "compute_capability": md.get("AOTI_COMPUTE_CAPABILITY") or None,
        "cpu_isa": md.get("AOTI_CPU_ISA") or None,
        "platform": md.get("AOTI_PLATFORM"),
        "machine": md.get("AOTI_MACHINE"),
        "wrapper": m.wrapper_member,
        "kernel_cpp": m.kernel_member,
        "inputs": [{"index": i.index, "name": i.name, "dtype": i.dtype, "shape": i.shape, "stride": i.stride,
                    "device": i.device} for i in m.inputs],
        "outputs": [{"index": o.index, "name": o.name, "source": o.source} for o in m.outputs],
        "symbols": [{"name": s.name, "input": s.input, "dim": s.dim, "min": s.min, "max": s.max,
                     "alias_of": s.alias_of, "line": s.line} for s in m.symbols.values()],
        "constants": [{"name": c.name, "fqn": c.fqn, "dtype": c.dtype, "shape": c.shape, "nbytes": c.nbytes,
                       "kind": c.kind} for c in constants],
        "kernels": [{key: k[key] for key in ("name", "kind", "flavor", "assertions", "launches", "file", "assert_lines")}
                    for k in kernels],
        "kernel_counts": dict(sorted(by_flavor.items())),
        "extern_ops": [{"name": n, "calls": c} for n, c in sorted(externs.items())],
        # Extern calls without AOTI_TORCH_ERROR_CODE_CHECK: a failure there returns garbage with exit 0.
        "unchecked_extern_calls": [{"name": t, "line": line} for t, kind, line, checked in calls
                                   if kind == "extern" and not checked],
        "assertions": sum(k["assertions"] for k in kernels),
        "provenance": bool(m.provenance),
        "in_spec": m.in_spec,
        "out_spec": m.out_spec,
        "coverage": coverage(m),
        "warnings": m.warnings,
    }
    out["coverage"]["read"] = "all" if parsed is None else "lazy"
    if parsed is not None:
        out["coverage"].update(parsed)
    return out


def coverage(m: Model) -> dict:
    """Statements handed to a grammar rule, per region: understood / total, and the first few skipped."""
    regions = {r: {"understood": c.understood, "total": c.total,
                   "skipped": [{"line": ln, "statement": s} for ln, s in c.skipped]}
               for r, c in m.coverage.items() if c.total}
    return {"understood": sum(r["understood"] for r in regions.values()),
            "total": sum(r["total"] for r in regions.values()), "regions": regions}
