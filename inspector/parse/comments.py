"""The comments Inductor writes above a run_impl call, read by the dialect's patterns: ``// Topologically Sorted
Source Nodes: [gather, add], Original ATen: [aten.gather, aten.add]`` (the FX nodes the call came from) and
``// [Provenance debug handles] triton_poi_fused_0:3`` (kernel_information.json's key of the call).  One reader
for `locate`, the kernel table and anyone else who needs them."""

from __future__ import annotations


def source_nodes(dialect, text: str) -> list[str] | None:
    """The FX nodes a Source Nodes comment names, in order; None when ``text`` is no such comment."""
    m = dialect.source_nodes_re.search(text)
    return _split(m.group(1)) if m else None


def source_nodes_and_ops(dialect, text: str) -> tuple[list[str], list[str]] | None:
    """The FX nodes and the ``Original ATen:`` ops of a Source Nodes comment, each in order (no ops: []);
    None when ``text`` is no such comment."""
    m = dialect.source_nodes_re.search(text)
    return (_split(m.group(1)), _split(m.group(2) or "")) if m else None


def _split(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def provenance_key(dialect, text: str) -> str | None:
    """``triton_poi_fused_0:3`` from a Provenance debug handles comment; None when ``text`` is none."""
    m = dialect.provenance_re.search(text)
    return m.group(1) if m else None


def is_comment(line: str) -> bool:
    return line.lstrip().startswith("//")
