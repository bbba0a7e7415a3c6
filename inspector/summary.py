"""`show`: what a package is, as one plain dict (the CLI renders it, --json prints it)."""

from __future__ import annotations

from collections import Counter

from .model import Model
from .package import Package
from .trace import GUARD_NOTE


def summarize(pkg: Package, model: str | None = None) -> dict:
    names = [model] if model else pkg.model_names
    if model:
        pkg.files(model)
    return {
        "package": str(pkg.path),
        "format": pkg.format,
        "archive_version": pkg.archive_version,
        "exported_programs": pkg.exported_programs,
        "guard_note": GUARD_NOTE,
        "models": [summarize_model(pkg.model(n)) for n in names],
    }


def summarize_model(m: Model) -> dict:
    md = m.metadata
    calls_per_kernel = Counter(c.target for c in m.calls if c.kind == "kernel")
    externs = Counter(c.target for c in m.calls if c.kind == "extern")
    kernels = []
    for k in m.kernels.values():
        kernels.append({
            "name": k.name, "kind": k.kind, "flavor": k.flavor, "assertions": len(k.assertions),
            "launches": calls_per_kernel.get(k.name, 0), "file": k.source_file.rsplit("/", 1)[-1],
            "assert_lines": [a.line for a in k.assertions],
        })
    by_flavor = Counter(f"{k['kind']}:{k['flavor']}" for k in kernels)
    return {
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
                       "kind": c.kind} for c in m.constants],
        "kernels": kernels,
        "kernel_counts": dict(sorted(by_flavor.items())),
        "extern_ops": [{"name": n, "calls": c} for n, c in sorted(externs.items())],
        # Extern calls without AOTI_TORCH_ERROR_CODE_CHECK: a failure there returns garbage with exit 0.
        "unchecked_extern_calls": [{"name": c.target, "line": c.line} for c in m.calls
                                   if c.kind == "extern" and not c.checked],
        "assertions": sum(k["assertions"] for k in kernels),
        "provenance": bool(m.provenance),
        "in_spec": m.in_spec,
        "out_spec": m.out_spec,
        "coverage": coverage(m),
        "warnings": m.warnings,
    }


def coverage(m: Model) -> dict:
    """Statements handed to a grammar rule, per region: understood / total, and the first few skipped."""
    regions = {r: {"understood": c.understood, "total": c.total,
                   "skipped": [{"line": ln, "statement": s} for ln, s in c.skipped]}
               for r, c in m.coverage.items() if c.total}
    return {"understood": sum(r["understood"] for r in regions.values()),
            "total": sum(r["total"] for r in regions.values()), "regions": regions}
