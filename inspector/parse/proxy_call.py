"""A proxy-executor call and the op node it runs, typed: the call's lists (`proxy_args`: ``std::array<int64_t,
3>{4, 4, 2}.data()`` -> ("4", "4", "2")) and ``<hash>.wrapper.json``'s nodes (`extern_nodes`), each argument of the
op's schema with the list it is taken from.  The format's facts: `inspector.dialects.proxy_executor`."""

from __future__ import annotations

from dataclasses import dataclass

from ..dialects import proxy_executor as P
from ..model import Expr


@dataclass(frozen=True)
class ProxyArgs:
    node_index: int | None  # into the wrapper.json's nodes
    ints: tuple[str, ...]  # as written: "4", "s65"
    tensors: tuple[str, ...]  # run_impl names: "buf4", "arg5_1"


@dataclass(frozen=True)
class NodeArg:
    """One argument of an extern node: ``name`` the schema's, ``kind`` the JSON's (``as_tensor``, ``as_int``, …),
    ``value`` what the JSON holds (a tensor's name, a number, a list of them), ``passed`` "tensor" | "tensors" |
    "int" | "ints" when the call passes it, None when the executor fills it from the JSON."""

    name: str
    kind: str
    value: object
    passed: str | None


@dataclass(frozen=True)
class ExternNode:
    target: str  # "torchvision::roi_align"
    inputs: tuple[NodeArg, ...]
    outputs: tuple[NodeArg, ...]
    python_custom_op: bool  # torch.library.custom_op (needs its registration in the serving process)


def _braced(text: str) -> list[tuple[str, ...]]:
    """The items of each top-level braced list in ``text`` (``std::array<T, 3>{a, b, c}.data()``), in order, each
    split at its top-level commas."""
    out, depth, inner, cur, items = [], 0, 0, [], []
    for c in text:
        if c == "{":
            depth += 1
            if depth == 1:
                cur, items = [], []
                continue
        elif c == "}":
            depth -= 1
            if depth == 0:
                last = "".join(cur).strip()
                out.append(tuple(items + ([last] if last else [])))
                continue
        if depth == 0:
            continue
        inner += (c in "([") - (c in ")]")
        if c == "," and depth == 1 and inner == 0:
            items.append("".join(cur).strip())
            cur = []
            continue
        cur.append(c)
    return out


def proxy_args(args: tuple[Expr, ...]) -> ProxyArgs | None:
    """The lists of a proxy-executor call's arguments, None when they are not of that shape.  ``args`` as any
    reader split them: a template's comma (``std::array<int64_t, 3>``) may have cut one in two, so the lists are
    read from the text after the node index."""
    texts = [a.text for a in args]
    if len(texts) <= P.INT_COUNT:
        return None
    lists = _braced(", ".join(texts[P.INT_COUNT:]))
    if len(lists) != 2:
        return None
    idx = texts[P.NODE_INDEX].strip()
    return ProxyArgs(int(idx) if idx.isdigit() else None, lists[0], lists[1])


def _node_arg(a: dict) -> NodeArg | None:
    if not isinstance(a, dict):
        return None
    arg = a.get("arg") if "arg" in a else a
    if not isinstance(arg, dict) or len(arg) != 1:
        return None
    kind, v = next(iter(arg.items()))
    if kind in P.TENSOR_KINDS:
        value = v.get("name") if isinstance(v, dict) else None
        if kind == "as_optional_tensor" and isinstance(v, dict) and "as_tensor" in v:
            value = (v["as_tensor"] or {}).get("name")
        passed = "tensor" if value is not None else None
    elif kind in P.TENSOR_LIST_KINDS:
        value = [x.get("name") if "name" in x else (x.get("as_tensor") or {}).get("name")
                 for x in (v or []) if isinstance(x, dict) and ("name" in x or "as_tensor" in x)]
        passed = "tensors"
    elif kind in P.INT_KINDS:
        value = v.get("as_name") or v.get("as_int") if isinstance(v, dict) else v
        passed = "int"
    elif kind in P.INT_LIST_KINDS:
        value = list(v or [])
        passed = "ints"
    elif kind == "as_none":
        value, passed = None, None
    else:
        value, passed = v, None
    return NodeArg(str(a.get("name") or ""), kind, value, passed)


def extern_nodes(doc) -> list[ExternNode]:
    """``<hash>.wrapper.json`` (already loaded as JSON) as typed nodes, in order (a call's node index picks one)."""
    out = []
    for n in (doc or {}).get("nodes", []) if isinstance(doc, dict) else []:
        node = (n or {}).get("node") or {}
        target = node.get("target")
        if not isinstance(target, str):
            out.append(ExternNode("?", (), (), False))
            continue
        ins = tuple(x for x in map(_node_arg, node.get("inputs") or []) if x is not None)
        outs = tuple(x for x in map(_node_arg, node.get("outputs") or []) if x is not None)
        py = (node.get("metadata") or {}).get("torch_library_custom_op") == "1"
        out.append(ExternNode(target, ins, outs, py))
    return out
