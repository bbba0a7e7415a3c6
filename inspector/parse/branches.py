"""Where run_impl runs a higher-order op's subgraph: torch.cond's ``if (pred) { … } else { … }`` blocks, while_loop's
``while (1) { cond; if (!pred) break; body }`` and the ``// subgraph: NAME`` comment AOTI writes at the top of each
inlined subgraph (torch 2.6 to 2.13 alike)::

    bool buf1_scalar;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_item_bool(buf1, &buf1_scalar));
    if (buf1_scalar) {
        // subgraph: true_graph_0
        …
    } else {
        // subgraph: false_graph_0
        …
    }

Read from run_impl's stripped statements (`wrapper_map.RunColumns`: each non-empty line, in order), by the braces of
its control lines; nothing else is parsed.  A subgraph AOTI names otherwise than these (a map body, unrolled by
Inductor, has no block of its own) is not found here."""

from __future__ import annotations

from dataclasses import dataclass

SUBGRAPH_COMMENT = "// subgraph: "
ITEM_BOOL = "aoti_torch_item_bool("


@dataclass(frozen=True, slots=True)
class Branch:
    """One inlined subgraph of run_impl: wrapper lines ``first``..``last`` (its comment to its block's end)."""

    subgraph: str  # ``true_graph_0``, ``while_loop_body_graph_0``
    op: str  # "cond" | "while_loop" | "unknown"
    role: str  # cond: "true" | "false"; while_loop: "cond" | "body"; else "unknown"
    first: int
    last: int
    # the tensor whose value selects it (cond: the one the ``if`` reads; while_loop: the cond subgraph's result the
    # ``break`` reads) and the wrapper line that reads it (``aoti_torch_item_bool``); None when not seen
    predicate: str | None = None
    predicate_line: int | None = None
    depth: int = 0
    condition: str | None = None  # the C condition as written: ``buf1_scalar``, ``s68 > 5L`` (a size's cond)
    # the caller's tensors the subgraph's results replace (``buf1 = std::move(while_loop_body_graph_0_buf2);``):
    # a while_loop body's carried values, a cond's outputs
    replaces: tuple[str, ...] = ()  # how many subgraphs enclose it

    def holds(self, line: int) -> bool:
        return self.first <= line <= self.last

    @property
    def prefix(self) -> str:
        """The prefix AOTI gives every local of the subgraph (``true_graph_0_arg1_1``)."""
        return self.subgraph + "_"


# a subgraph's name (AOTI names them after the FX graph's attributes) -> (the op, its role); else the block it sits in
_BY_NAME = {"true_graph_": ("cond", "true"), "false_graph_": ("cond", "false"),
            "while_loop_cond_graph_": ("while_loop", "cond"), "while_loop_body_graph_": ("while_loop", "body")}
_BY_BLOCK = {"if": ("cond", "true"), "else": ("cond", "false")}
_UNKNOWN = ("unknown", "unknown")


def _kind(name: str, block: str | None) -> tuple[str, str]:
    for prefix, kind in _BY_NAME.items():
        if name.startswith(prefix):
            return kind
    return _BY_BLOCK.get(block, _UNKNOWN)


def _item_bool(s: str) -> tuple[str, str] | None:
    """``AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_item_bool(buf1, &buf1_scalar));`` -> ("buf1", "buf1_scalar")."""
    i = s.find(ITEM_BOOL)
    if i < 0:
        return None
    inner = s[i + len(ITEM_BOOL):]
    j = inner.find(")")
    parts = [p.strip() for p in inner[:j].split(",")] if j > 0 else []
    if len(parts) != 2 or not parts[1].startswith("&"):
        return None
    return parts[0], parts[1][1:]


def _condition(s: str) -> str:
    """``if (buf1_scalar) {`` -> ``buf1_scalar``; ``if (!x) break;`` -> ``!x``."""
    i, j = s.find("("), s.rfind(")")
    return s[i + 1:j].strip() if 0 <= i < j else ""


def branches(lines, texts) -> list[Branch]:
    """The subgraphs run_impl inlines, in wrapper order, from its statements (``lines``: wrapper line numbers,
    ``texts``: the stripped statements, as `RunColumns` holds them).  Empty when run_impl has no subgraph."""
    if not any(t.startswith(SUBGRAPH_COMMENT) for t in texts):
        return []
    out: list[Branch] = []
    scalars: dict[str, tuple[str, int]] = {}  # bool local -> (the tensor it was read from, the line)
    blocks: list[tuple[str, str | None]] = []  # open blocks: (kind, the tensor its condition reads)
    open_: list[list] = []  # [name, op, role, first, last, predicate, predicate_line, block depth, subgraph depth]
    last_line = 0
    prev = 0  # the line before the current one (a subgraph comment on run_impl's first statement closes nothing)

    def close(depth: int, line: int, same: bool = False) -> None:
        while open_ and (open_[-1][7] > depth or (same and open_[-1][7] == depth)):
            r = open_.pop()
            out.append(Branch(r[0], r[1], r[2], r[3], line, r[5], r[6], r[8], r[9], tuple(r[10])))

    for ln, s in zip(lines, texts):
        last_line = ln
        if s.startswith("//"):
            if s.startswith(SUBGRAPH_COMMENT):
                name = s[len(SUBGRAPH_COMMENT):].strip()
                depth = len(blocks)
                close(depth, prev, same=True)
                kind, pred = blocks[-1] if blocks else (None, None)
                op, role = _kind(name, kind)
                p = scalars.get(pred) if pred else None
                open_.append([name, op, role, ln, ln, p[0] if p else None, p[1] if p else None, depth, len(open_),
                              pred if op != "unknown" else None, []])
            prev = ln
            continue
        if open_ and s.endswith(");") and " = std::move(" in s:
            lhs, _, rhs = s[:-2].partition(" = std::move(")
            if rhs.startswith(open_[-1][0] + "_") and not lhs.startswith(open_[-1][0] + "_") and lhs.isidentifier():
                open_[-1][10].append(lhs)
        ib = _item_bool(s)
        if ib is not None:
            scalars[ib[1]] = (ib[0], ln)
        if s.startswith("} else"):
            close(len(blocks) - 1, prev)
            if blocks:
                blocks[-1] = ("else", blocks[-1][1])
        elif s.startswith("if (") and s.endswith("{"):
            blocks.append(("if", _condition(s)))
        elif s.startswith(("while (", "for (")) and s.endswith("{"):
            blocks.append(("loop", None))
        elif s.startswith("if (") and s.endswith("break;"):
            c = _condition(s).lstrip("!").strip()
            p = scalars.get(c)
            if p is not None:  # the while_loop's test: the body that follows runs while it holds
                blocks[-1:] = [(blocks[-1][0], c)] if blocks else []
        elif s == "}" or (s.startswith("}") and not s.startswith("} else")):
            close(len(blocks) - 1, prev)
            if blocks:
                blocks.pop()
        prev = ln
    close(-1, last_line)
    out.sort(key=lambda b: b.first)
    return out


def branch_at(bs: list[Branch], line: int) -> Branch | None:
    """The innermost subgraph holding wrapper line ``line`` (None: the top level)."""
    best = None
    for b in bs:
        if b.holds(line) and (best is None or b.depth >= best.depth):
            best = b
    return best
