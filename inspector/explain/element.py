"""The words of the element answer (issue 35 §1, `inspector.queries.element`): which element of which input the
failing threads held, what that rests on, and why none could be named."""

from __future__ import annotations

CPU_NO_THREAD = ("a CPU check prints no block or thread, so no element can be named from the log; `pt2-inspect repro` "
                 "writes a script that runs the package on inputs that reach the check, and `sweep --run` runs it "
                 "over sizes, to find which values fail")
NO_THREADS = "the log prints the assert without any `block: [..], thread: [..]` line: no element can be named"
NO_LAUNCH = "the kernel's launcher (its grid and launchKernel) is not in the wrapper: the block sizes are unknown"
NO_RBLOCK = "the index is read per reduction step and the package does not fix R0_BLOCK: the element is unknown"
SEVERAL_VALUES = ("no one element is held by every printed thread: more than one value is bad (each thread's "
                  "elements are listed)")
NOT_CONTIGUOUS = "the input's strides are not contiguous: the element below assumes they are, and may be off"
ASSUME_INSIDE = ("places a symbolic offset (`ks0 + 7`) as row = the symbol's coefficient, column = the constant: "
                 "assumes the constant is inside that dim")
ASSUME_CONTIGUOUS = "assumes the input is contiguous (row-major strides)"


def cpu_line() -> str:
    return f"element: none can be named: {CPU_NO_THREAD}"


def no_threads_line() -> str:
    return f"element: none can be named: {NO_THREADS}"


def unknown_line(why: str) -> str:
    return f"element: unknown: {why}"


def no_load(var, n: int) -> str:
    if n == 0:
        return f"{var} is not read from a tensor by one load this reads"
    return f"{var} is made from {n} loads: which one held the bad value is not known"


def assume_layout(spt, tpw, wpc, dims, aligned: bool, contiguous: bool) -> str:
    how = ", ".join(f"{d}: {s} per thread, {t} threads/warp, {w} warps" for d, s, t, w in zip(dims, spt, tpw, wpc))
    vec = ("a vector along the contiguous dim" if contiguous and aligned
           else "no vector (the load may be misaligned)" if contiguous else "no contiguous dim")
    return f"assumes Triton's default blocked layout for the load ({how}; {vec})"


def assume_config(blocks: dict, warps: int) -> str:
    b = ", ".join(f"{d.upper()}BLOCK {v}" for d, v in blocks.items() if v is not None)
    return f"the config the launcher fixes (autotune's choice): {b}, num_warps {warps}"


def symbolic_sizes(sizes) -> str:
    return (f"the input's sizes {list(sizes)} hold a symbol the package does not fix: the element is given as a flat "
            "offset (give the sizes the run used to place it)")


def too_few(got: int, holders: int, block, printed: int) -> str:
    return (f"the log prints {got} of the {holders} threads of block {block} that hold that element (cut, or "
            f"several values failed): the threads it does not print are not known")


def _elem(e) -> str:
    return "[" + ", ".join(str(x) for x in e) + "]"


def element_line(a) -> str:
    """One line: the element(s), the tensor, and on what it rests."""
    if not a.candidates:
        return unknown_line("no printed thread holds an element inside the kernel's range")
    cands = a.candidates
    n = len(cands)
    if a.tensor == "input":
        name = f"input {a.input} ({a.input_name})"
        if a.elements and all(e is not None for e in a.elements):
            where = " or ".join(f"{name}{_elem(e)}" for e in a.elements[:4])
        else:
            where = " or ".join(f"flat offset {c} of {name}" for c in cands[:4])
    elif a.tensor == "buffer":
        src = f", made from input {a.from_input}" if a.from_input is not None else ""
        where = " or ".join(f"offset {c}" for c in cands[:4]) + f" of {a.buffer or a.pointer} (an intermediate{src}; " \
            "its element in the input is not followed)"
    else:
        where = " or ".join(f"offset {c}" for c in cands[:4]) + f" of {a.pointer}"
    more = f" (and {n - 4} more)" if n > 4 else ""
    one = "" if n == 1 else (" (each printed thread holds these; one of them is bad)" if not a.unknown else "")
    cfg = a.config
    blocks = ", ".join(f"{k} {v}" for k, v in cfg.get("blocks", {}).items())
    few = f"; {a.too_few_threads}" if a.too_few_threads else ""
    return (f"element: {where}{more}{one}: from {a.threads_printed} printed thread(s), {a.pointer}[{a.load_index}] "
            f"at {blocks}, {cfg.get('num_warps')} warps{few}")
