"""The words of `locate` (queries/locate.py decides what came from where; this module says it): the verdict,
what each match was matched on, the notes and the usage errors."""

from __future__ import annotations

# where the facts came from (LocateResult.source)
FROM_PROVENANCE = "kernel_information.json"
FROM_COMMENTS = "source nodes comments"
FROM_EP_AND_COMMENTS = "exported program + source nodes comments"

ONE_QUERY = "locate takes exactly one of --source FILE:LINE, --node FX_NODE, --module PATH, --kernel K"
NO_PROVENANCE = ("the package has no kernel_information.json (built without provenance tracking): matched on the "
                 "wrapper's Source Nodes comments, which name FX nodes but no user lines")
MODULE_NEEDS_EP = ("--module needs the package's exported program (models/<name>.json) or --ep; this package "
                   "carries none")
NO_EP_FOR_LINE = ("no exported program either: a user line cannot be matched (rebuild with provenance tracking, or "
                  "pass --ep)")
KERNEL_ASKED = "the kernel asked for"


def describe(q: dict) -> str:
    """What was asked: ``line model.py:84``, ``FX node index_put``, ``module blocks.0``, ``kernel K``."""
    if q.get("source"):
        return f"line {q['source']}"
    if q.get("node"):
        return f"FX node {q['node']}"
    if q.get("module"):
        return f"module {q['module']}"
    return f"kernel {q.get('kernel')}"


def verdict(q: dict, kernels: int, externs: int) -> str:
    if not kernels and not externs:
        return "nothing in the package came from " + describe(q)
    parts = ([f"{kernels} kernel(s)"] if kernels else []) + ([f"{externs} extern call(s)"] if externs else [])
    return f"{' and '.join(parts)} came from {describe(q)}"


def frame(file: str, line: int, code: str) -> str:
    """``build.py:84: picked = values[idx]`` (the file's name, not its path)."""
    return f"{file.rsplit('/', 1)[-1]}:{line}: {code}"


def line_match(file: str, line: int, code: str) -> str:
    """``build.py:84 picked = values[idx]``: a stack frame that is the line asked for."""
    return f"{file.rsplit('/', 1)[-1]}:{line}" + (f" {code}" if code else "")


def node_match(node: str) -> str:
    return f"FX node {node}"


def module_node(node: str, module: str) -> str:
    return f"FX node {node} of module {module}"


def line_node(node: str, source: str) -> str:
    return f"FX node {node} of line {source}"


def fused_match(ops: list[str], source: str) -> str:
    return f"its name fuses {', '.join(ops)}, ops of line {source} (no Source Nodes comment: matched by name)"


def no_such_kernel(kernel: str, model: str, names: list[str]) -> str:
    return (f"no kernel or extern call {kernel!r} in model {model!r}; it has: " + ", ".join(names[:30])
            + (f" … ({len(names)} in all)" if len(names) > 30 else ""))
