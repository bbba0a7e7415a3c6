"""The words of `inspector.queries.branches`: which branch of a torch.cond / while_loop the failing kernel runs in."""

from __future__ import annotations

_ROLE = {"true": "the true branch", "false": "the false branch", "body": "the body", "cond": "the loop's condition"}


def _inputs(idx: list[int]) -> str:
    return ", ".join(f"input {i}" for i in idx)


def predicate_words(ctx) -> str:
    """What selects the branch: the kernel that computes it and what it reads, or the input itself."""
    if ctx.predicate_kernel:
        ops = f" ({', '.join(ctx.predicate_ops)})" if ctx.predicate_ops else ""
        reads = f" from {_inputs(ctx.predicate_inputs)}" if ctx.predicate_inputs else ""
        return f"{ctx.predicate}, computed by {ctx.predicate_kernel}{ops}{reads}"
    if ctx.predicate_inputs:
        return f"{_inputs(ctx.predicate_inputs)} ({ctx.predicate}) itself"
    if ctx.condition:
        return f"`{ctx.condition}`" + (f" (sizes {', '.join(ctx.predicate_symbols)})" if ctx.predicate_symbols else "")
    return "a value the package does not name"


def _limit(ob) -> str:
    top = ob.bound - 1 if ob.bound is not None else None
    table = f"{ob.table}, {ob.rows} rows" if ob.table and ob.rows else (ob.table or f"bound {ob.bound_expr}")
    return (f"values up to {top} are fine in {_ROLE.get(ob.role, ob.role)} ({table}, kernel {ob.kernel})"
            if top is not None else f"{_ROLE.get(ob.role, ob.role)} checks them against {ob.bound_expr} ({table})")


def branch_sentence(ctx, mt) -> str:
    """One body line: ``in the false branch (false_graph_0) of torch.cond, taken when buf1 … is False; …``."""
    if ctx.op == "cond":
        when = "True" if ctx.role == "true" else "False"
        s = (f"{mt.kernel} runs in {_ROLE[ctx.role]} ({ctx.subgraph}) of a torch.cond, taken when "
             f"{predicate_words(ctx)} is {when}")
        if ctx.predicate_kernel:
            s += "; the predicate as the user wrote it is not in the package (only its computed form)"
        if ctx.other:
            s += "; " + "; ".join(_limit(ob) for ob in ctx.other)
        return s
    s = (f"{mt.kernel} runs in the body ({ctx.subgraph}) of a while_loop (a torch map is lowered to one): it runs once "
         f"a step while {predicate_words(ctx)} holds")
    if ctx.body_inputs:
        read = [x for x in ctx.body_inputs if x not in ctx.carried]
        s += "; the body takes " + (f"{', '.join(ctx.carried)} carried from step to step" if ctx.carried else "")
        s += (" and " if ctx.carried and read else "") + (f"{', '.join(read)} as they are" if read else "")
        if ctx.body_model_inputs:
            s += f" (from {_inputs(ctx.body_model_inputs)})"
        if ctx.carried:
            s += (": an index made from a carried value (a counter) can pass the table at a later step even when "
                  "every value of the model's inputs is in range")
    return s
