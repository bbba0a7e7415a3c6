"""The words of the HTML report's chains (queries/report.py builds each chain as typed nodes and edges, this module
says them): a node's label (its box) and detail (its tooltip and panel), an edge's name, a source panel's title.

A node is ``Node(key, kind, code, facts, source)``: ``code`` says what it is, ``facts`` the names and numbers its
words use.  Codes and their facts:

- ``assertion``: kernel, line, message, extern (an extern op's check: its line is the call's, in wrapper.cpp)
- ``static_bound``: expr, value, in_kernel (a number baked into the kernel, else the size of an extern op's table)
- ``bound_param``: param, kernel (the kernel parameter a bound is made of)
- ``call_arg``: arg, line (what the launch at wrapper.cpp ``line`` passes for it)
- ``symbol``: name, expr (a wrapper symbol the argument aliases)
- ``definition``: name, definition, line (``s0 = arg0_1_size[0]``)
- ``input_dim``: index, name, dim, min, max (the input dim a bound is the size of, and what its guards allow)
- ``bound_unresolved``: param (a bound the walk did not trace to an input)
- ``writer``: kernel, line (a kernel that writes a buffer the index is read from; ``line`` its launch, or None)
- ``param``: param, kernel (a kernel parameter on the index's path)
- ``tmp``: code, kernel, line (a tmp's definition: ``code`` the kernel's own text of it)
- ``buffer``: name, kind, line (a run_impl buffer: alloc, reuse, view or extern_out)
- ``input``: index, name, dtype, shape
- ``constant``: name, fqn (fqn None: not known)
- ``value``: name (a name the graph has no node for)
- ``computed`` / ``stopped``: text (the walk's own words: where an index is computed, or why the walk stopped)
"""

from __future__ import annotations

# An edge of a chain: its code -> the name drawn beside its arrow ("" draws none).
EDGES = {
    "bound": "bounded by",
    "bound_at_call": "bound at call",
    "alias": "alias",
    "defined_as": "defined as",
    "size_of": "size of",
    "index": "index",
    "": "",
}


def edge_label(code: str) -> str:
    return EDGES[code]


def _short_message(message: str) -> str:
    """An assertion's message without the words every index check starts with."""
    return message.removeprefix("index out of bounds: ")


# A node's label (its box) by code, from its facts; the assertion's is made in `node_label`.
LABELS = {
    "static_bound": "bound {expr} = {value} (a constant)",
    "bound_param": "param {param}",
    "param": "param {param}",
    "call_arg": "call argument {arg}",
    "symbol": "symbol {name}",
    "definition": "{name} = {definition}",
    "input_dim": "input {index} ({name}) dim {dim}",
    "bound_unresolved": "bound {param} not traced to an input",
    "writer": "kernel {kernel}",
    "tmp": "{code}",
    "buffer": "buffer {name}",
    "input": "input {index} ({name})",
    "constant": "constant {name}",
    "value": "{name}",
    "computed": "{text}",
    "stopped": "? {text}",
}


def node_label(n) -> str:
    """What a node's box says (``n``: a `inspector.queries.report.Node`; this module imports no query)."""
    f = n.facts
    if n.code == "assertion":
        where = f"extern call, wrapper.cpp line {f['line']}" if f["extern"] else f"assert line {f['line']}"
        return f"{where}: {_short_message(f['message'])}"
    if n.code not in LABELS:
        raise KeyError(f"no words for a chain node {n.code!r}")
    return LABELS[n.code].format(**f)


# A node's detail (its tooltip and panel) by code, from its facts; the others are made in `node_detail`.
DETAILS = {
    "bound_param": "kernel parameter of {kernel}",
    "call_arg": "wrapper.cpp line {line}",
    "symbol": "{expr}",
    "definition": "wrapper.cpp line {line}",
    "param": "of {kernel}",
    "tmp": "{kernel}, line {line}",
    "buffer": "{kind} at wrapper.cpp line {line}",
    "computed": "computed from loop indices and sizes",
    "stopped": "the walk stopped here",
    "bound_unresolved": "",
    "value": "",
}


def node_detail(n) -> str:
    """What a node's tooltip and panel say below its label ("" for none)."""
    f = n.facts
    c = n.code
    if c == "assertion":
        return f"{f['kernel']}, {'wrapper.cpp ' if f['extern'] else ''}line {f['line']}"
    if c == "static_bound":
        return "the bound is a number baked into the kernel" if f["in_kernel"] else "the size of the table the op indexes"
    if c == "input_dim":
        lo = f["min"] if f["min"] is not None else "?"
        hi = f["max"] if f["max"] is not None else "?"
        return f"guards allow {lo}..{hi} (only with AOTI_RUNTIME_CHECK_INPUTS=1)"
    if c == "writer":
        return (f"writes the buffer; launched at wrapper.cpp line {f['line']}" if f["line"] is not None
                else "writes the buffer")
    if c == "input":
        return f"{f['dtype'] or '?'} [{', '.join(map(str, f['shape']))}]"
    if c == "constant":
        return f["fqn"] or ""
    if c not in DETAILS:
        raise KeyError(f"no words for a chain node {c!r}")
    return DETAILS[c].format(**f)


def panel_title(p) -> str:
    """A source panel's title: the file, or which kernel's lines these are and how they are numbered."""
    if p.view == "wrapper":
        return "wrapper.cpp"
    if p.view == "kernel":
        return f"{p.kernel} ({'its .py numbering' if p.backend == 'triton' else 'kernel.cpp'})"
    if p.view == "signature":
        return f"{p.kernel} (signature)"
    if p.view == "around":
        return f"{p.kernel} around line {p.mark}"
    raise KeyError(f"no words for a source panel {p.view!r}")
