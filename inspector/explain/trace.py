"""The words of trace-assert's walks and matching (inspector.queries.bound_walk, index_walk, trace, match,
suspects): why a walk stopped, what a computed index runs over, what the log's thread lines say, why nothing here
matched the log.

Facts in, plain strings out (as the rest of inspector.explain); the queries hold no sentence."""

from __future__ import annotations

# ---------------------------------------------------------------------------
# Index origins (queries/index_walk.py): what the walk found instead of an input or constant
# ---------------------------------------------------------------------------


def loop_index(var: str) -> str:
    return f"{var} is the kernel's own loop index (e.g. an arange position)"


def no_definition(var: str | None, kernel: str) -> str:
    return f"no definition of {var} found in {kernel}"


def walk_lost(var: str | None) -> str:
    return f"{var} reads a tensor the walk could not follow to an input, a constant or a computed value"


def computed_index(var: str | None, span: str = "") -> str:
    """``span``: `span_words` of what it runs over, or ""."""
    return f"{var} reads no tensor: it is computed from loop indices and sizes (e.g. an arange position)" + span


def span_words(param: str, symbol_or_arg: str, input_index: int | None, dim: int | None, lo: int | None,
               hi: int | None) -> str:
    """`` (0 … ks0-1, ks0 = s27: input 0 dim 1, 2 … 1024)``: what a computed index runs over."""
    where = f"{param} = {symbol_or_arg}"
    if input_index is not None and dim is not None:
        where += f": input {input_index} dim {dim}"
    if lo is not None or hi is not None:
        where += f", {lo if lo is not None else '?'} … {hi if hi is not None else '?'}"
    return f"; it runs over 0 … {param}-1 ({where})"


def walk_too_deep(depth: int, kernel: str) -> str:
    return f"stopped after {depth} steps in {kernel}"


def never_called(kernel: str) -> str:
    return f"{kernel} is never called"


def no_argument(param: str) -> str:
    return f"no argument for {param}"


def stopped_at(node: str) -> str:
    return f"stopped at {node}"


def nothing_writes(name: str, line: int) -> str:
    return f"nothing writes {name} before line {line}"


def reads_no_tensor(target: str) -> str:
    return f"{target} reads no tensor"


def no_store(name: str, target: str, line: int) -> str:
    return f"no store of {name} found in {target} (wrapper.cpp line {line}) and it reads no tensor"


def not_a_tensor(name: str) -> str:
    return f"{name} is not a tensor run_impl defines"


# ---------------------------------------------------------------------------
# What trace-assert looked for and found (queries/trace.py)
# ---------------------------------------------------------------------------

SAY_WHAT_FAILED = ("say what failed: --line N, --message TEXT, --kernel NAME or --log FILE (or paste the error)")
NO_CHECK_IN_LOG = "a device assert or CPU check failure in the log (none was found)"


def looked_for_report(kind: str, message: str, where: str | None) -> str:
    """``cuda failure `index out of bounds: …` at c3x….py:38``; ``where``: the file and line, when the log names them."""
    return f"{kind} failure `{message}`" + (f" at {where}" if where else "")


def looked_for_filter(line: int | None, message: str | None, kernel: str | None) -> str:
    """What a ``--line``/``--message``/``--kernel`` search looked for (``message`` quoted already)."""
    return " ".join(x for x in (f"line {line}" if line else "", f"message {message}" if message else "",
                                f"kernel {kernel}" if kernel else "") if x)


def too_many_candidates(n: int) -> str:
    return (f"more than {n} assertions match: the first {n} in package order are explained; "
            "the log's file:line (or --line N, --kernel NAME) narrows it")


def looked_for_extern(target: str, line: int) -> str:
    return f"extern op {target} at wrapper.cpp line {line}"


def thread_evidence(failed: bool, block: str, thread: str, n: int) -> str:
    """The log's line about thread [0,0,0] of block [0,0,0]: it failed, or which thread did (``n`` listed)."""
    listed = f"{n} thread(s) listed"
    if failed:
        return f"the log: thread [0,0,0] of block [0,0,0] failed ({listed})"
    return f"the log: block [{block}], thread [{thread}] failed ({listed}, none of them thread [0,0,0] of block [0,0,0])"


def foreign_numbering(said: str, kernel: str, line: int, msg: str) -> tuple[str, str]:
    """(verdict, hint): the log's check is here only up to its numbering (another build of the same model)."""
    return (f"the log's check {said} is not in this package; {kernel} line {line} holds the same check up to its "
            f"numbering (`{msg}`) under another kernel or file name: the log comes from another build of the same "
            "model (another torch or config)",
            "trace the log against the package that printed it; the kernel and line numbers of another build "
            "do not apply to this one")


def foreign(said: str) -> tuple[str, str]:
    """(verdict, hint): no check of this package is the log's."""
    return (f"the log's check {said} is not in this package: the log comes from another package or build",
            "no assertion, kernel file or kernel name of this package is in the log: check that the log and the "
            "package belong together")


def log_check(message: str, where: str | None) -> str:
    """```index out of bounds: …` at x.py:38``: the log's check as the no-match verdicts quote it."""
    return f"`{message}`" + (f" at {where}" if where else "")


def quoted_paste(first: str, n_lines: int) -> str:
    return f"`{first}`" + (f" (one of {n_lines} lines)" if n_lines > 1 else "")


def not_an_assert(category: str) -> str:
    """The first line of trace-assert on a log with no check in it: what the log is (diagnose's category, by its
    name) and that no assert fired."""
    if category == "no_failure":
        return "no failure in this log, so no assert fired; `pt2-inspect check` finds the contracts the runtime skips"
    if category == "unknown":
        return "no assert fired in this log, and no failure diagnose knows is in it (unknown)"
    return f"no assert fired: this log is {category} (diagnose's category); `pt2-inspect diagnose` answers it"


def candidates_verdict(n: int, first_kernel: str) -> str:
    return (f"a device-side assert fired but its Assertion line is not in the text: {n} candidate assertions, most "
            f"likely first ({first_kernel}); rerun with CUDA_LAUNCH_BLOCKING=1 to print the line")


def noticed_on_cpu(call: str, file_name: str, line: int, where: str, error: str | None) -> str:
    return (f"{call} failed at {file_name}, line {line}{where}: on CPU the named call is the one that failed"
            + (f" ({error})" if error else ""))


def noticed_on_gpu(call: str, file_name: str, line: int, where: str) -> str:
    return (f"{call} reported the error at {file_name}, line {line}{where}: the next call that noticed it, not the "
            "failing kernel (CUDA errors surface at a later call)")


def noticed_where(model: str, line: int, target: str) -> str:
    return f" = model {model!r}, wrapper.cpp line {line} ({target})"


def how_cpu_exception(line: int) -> str:
    return f"CPU exception at the extern call, wrapper.cpp line {line}"


def how_aten_assert(kernel: str, file_name: str, line: int, target: str) -> str:
    return f"ATen CUDA kernel {kernel} asserted ({file_name}:{line}); {target} can launch it"


def how_swallowed(aborted: bool) -> str:
    went_on = "the process aborted after it" if aborted else "the run went on with garbage and exit code 0"
    return f"an unchecked extern call swallowed the exception ({went_on})"


# ---------------------------------------------------------------------------
# How a failure was matched to an assertion (queries/match.py)
# ---------------------------------------------------------------------------


def how_cpu_check(kernel: str, file: str, line: int, same_file: bool) -> str:
    return f"CPU check: {kernel} at {file} line {line}" + ("" if same_file else f" ({file} name differs from the package's)")


def how_cubin(file_name: str, line: int, embedded: bool) -> str:
    whose = "its image in the .so (embed_kernel_binary)" if embedded else "the kernel's cubin"
    return f"device assert at {file_name}:{line}; {whose} names that file"


def how_line_and_message(line: int, file_name: str) -> str:
    return f"line {line} and message match; no cubin names {file_name}"


HOW_MESSAGE = "message match"


# ---------------------------------------------------------------------------
# A bound in words (queries/bound_walk.py): ``ks0 + ks1`` -> ``input 0's dim 0 + input 1's dim 0``
# ---------------------------------------------------------------------------


def term_words(index: int, dim: int | None, user_name: str | None) -> str:
    """A size a bound is made of: ```ids`.size(0)`` (the user's name), ``input 1's dim 0``, ``input 1``."""
    if user_name:
        return f"`{user_name}`.size({dim})" if dim is not None else f"`{user_name}`"
    return f"input {index}'s dim {dim}" if dim is not None else f"input {index}"


def limit_words(tree, words: dict[str, str]) -> str:
    """An expression tree (`inspector.parse.expr_tree`) written with each name in ``words`` replaced by its words,
    integers without their C++ suffix and a space around each operator (``8L*ks0`` -> ``8 * input 0's dim 0``)."""
    from ..parse import expr_tree as E

    def w(n) -> str:
        if isinstance(n, E.Name):
            return words.get(n.id, n.id)
        if isinstance(n, E.Int):
            return str(n.value)
        if isinstance(n, E.BinOp):
            return f"{w(n.left)} {n.op} {w(n.right)}"
        if isinstance(n, E.UnaryOp):
            return f"{n.op}{w(n.operand)}"
        if isinstance(n, E.Paren):
            return f"({w(n.inner)})"
        return E.unparse(n)

    return w(tree)
