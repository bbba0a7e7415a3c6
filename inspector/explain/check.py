"""The words of `check` (queries/check.py decides which inputs fit and which checks fail; this module says it):
each violation's detail, the notes, the verdict, the predicted failures' reasons and the usage errors."""

from __future__ import annotations

NO_INPUTS = "give the inputs to check: --input POSITION=DTYPE[d0,...]@DEVICE (repeat) or --inputs-json FILE"
VALUES_UNCHECKED = ("the sizes fit; the values of index inputs are not checked (the package's index checks still "
                    "test them at run time)")
_GUARDS_RUN = "which run only with AOTI_RUNTIME_CHECK_INPUTS=1"


def _lines(lines) -> str:
    return ", ".join(map(str, lines))


def cite(lines: list[int]) -> str:
    """``; wrapper.cpp line 742`` for the guards that say so (the package's own evidence); "" when none does."""
    return f"; wrapper.cpp line {_lines(lines)}" if lines else ""


def label(idx: int, name: str, user_name: str | None) -> str:
    """``input 1 (arg1_1, `item_ids`)``."""
    return f"input {idx} ({name}" + (f", `{user_name}`" if user_name else "") + ")"


def detail(label_: str, what: str) -> str:
    return f"{label_}: {what}"


# -- usage errors -----------------------------------------------------------------------------------------------
def no_such_position(who: str, model: str, n: int) -> str:
    return f"--input {who}: model {model!r} has {n} inputs (0..{n - 1})"


def no_such_input(who: str, n: int, names: list[str], has_ep: bool) -> str:
    return (f"--input {who}: no such input; use a position (0..{n - 1}) or one of: {', '.join(names)}"
            + ("" if has_ep else " (user names need an exported program: --ep FILE)"))


def given_twice(who: str, idx: int) -> str:
    return f"--input {who}: input {idx} is given twice"


# -- one input's violations ---------------------------------------------------------------------------------------
def wrong_device(got: str, want: str, key: str | None, cited: str) -> str:
    return (f"is on {got}; the package was compiled for {want} (AOTI_DEVICE_KEY {key!r}{cited}): move it with "
            f".to('{want}')")


def wrong_dtype(got: str, want: str, cited: str, use=None) -> str:
    """``use``: how the kernels read a bool input (`parse.mask_use.MaskUse`), for a float mask's fix."""
    from .diagnose import dtype_fix

    tail = f": {dtype_fix(want, got, use)}" if want == "bool" and got.startswith(("float", "bfloat")) else ""
    return f"is {got}; the package expects {want}{cited}" + tail


def no_rank_note(idx: int, dims: int) -> str:
    return (f"input {idx}: the package records no rank or dtype for it (no input guards: torch 2.6); only dims "
            f"0..{dims - 1} are checked")


def rank_unchecked(idx: int) -> str:
    return f"input {idx}'s rank and dtype"


def wrong_rank(got: list[int], want: list) -> str:
    return f"has {len(got)} dims {got}; the package expects {len(want)} {want}"


def size_from_ep(idx: int, dim: int, want) -> str:
    return f"input {idx} dim {dim}: size {want} taken from the exported program"


def dim_unnamed(idx: int, dim: int) -> str:
    return f"input {idx} dim {dim}: no symbol and no guard names it: not checked"


def dim_unchecked(idx: int, dim: int) -> str:
    return f"input {idx} dim {dim}"


def _empty(got: int) -> str:
    return " (an empty input)" if got == 0 else ""


def out_of_guards(dim: int, got: int, idx: int, lo, hi, lines: list[int]) -> str:
    return (f"dim {dim} is {got}{_empty(got)}; the guards of check_input_{idx} allow {lo}..{hi} (wrapper.cpp lines "
            f"{_lines(lines)}, {_GUARDS_RUN})")


def not_static(dim: int, got: int, want, cited: str) -> str:
    return f"dim {dim} is {got}; the package was compiled for a static {want}{cited}"


def not_formula(dim: int, got: int, want, value: int) -> str:
    return f"dim {dim} is {got}; the package expects {want} = {value}"


def out_of_range(dim: int, got: int, symbol: str, lo, hi, owner: int | None, lines: list[int]) -> str:
    why = _empty(got) or (" (export specializes sizes 0 and 1: even a Dim with min=1 compiles to >= 2)"
                          if got == 1 and lo == 2 else "")
    cites = f", wrapper.cpp lines {_lines(lines)}" if lines else ""
    return (f"dim {dim} is {got}{why}; symbol {symbol} allows {lo}..{hi} (the guards of check_input_{owner}{cites}, "
            f"{_GUARDS_RUN})")


def unequal(dim: int, got: int, other: int, other_dim: int, value: int, symbol: str) -> str:
    return (f"dim {dim} is {got} but input {other} dim {other_dim} is {value}: both are symbol {symbol}, so they must "
            "be equal")


def wrong_stride(dim: int, got: int, want, value) -> str:
    return (f"stride {dim} is {got}; the package expects {want}" + (f" = {value}" if str(value) != str(want) else "")
            + ": pass x.contiguous()")


# -- devices across inputs -----------------------------------------------------------------------------------------
def loaded_on_other_type(device: str, pkg_dev: str, key: str | None) -> str:
    return (f"the package is loaded on {device}, but it was compiled for {pkg_dev} (AOTI_DEVICE_KEY {key!r}): "
            f"changing the device type is not supported; load it on a {pkg_dev} device")


def load_there(index: int) -> str:
    return f", or load the package with device_index={index}"


def others_on(devices: list[str]) -> str:
    return "; the other inputs are on " + ", ".join(devices)


def not_on_loaded(idx: int, name: str, dev: str, loaded: int, alt: str) -> str:
    return (f"input {idx} ({name}): is on {dev}, but the package is loaded on cuda:{loaded} (aoti_load_package(path, "
            f"device_index={loaded})): move the input with .to('cuda:{loaded}')" + alt)


def split_devices(idx: int, name: str, dev: str, first_idx: int, first: str) -> str:
    return (f"input {idx} ({name}): is on {dev} while input {first_idx} is on {first}: one run of the model uses one "
            "device; move every input to the same GPU")


def all_on(dev: str, index: int) -> str:
    return (f"every given input is on {dev}: load the package there, aoti_load_package(path, device_index={index}) "
            "(a runner on another GPU rejects them)")


# -- what was not checked, and the verdict ----------------------------------------------------------------------------
def not_given(missing: list[int]) -> str:
    return f"not given, so not checked: inputs {_lines(missing)}"


def no_shape(unshaped: list[int]) -> str:
    return f"no shape given for input(s) {_lines(unshaped)}: their sizes were not checked"


def may_fail_verdict(kernel: str, message: str, why: str, more: int) -> str:
    return f"may fail: {kernel} `{message}`: {why}" + (f" (and {more} more)" if more else "")


def unchecked_verdict(model: str, unchecked: list[str], unshaped: list[int]) -> str:
    parts = ([f"not checked (the package does not say): {', '.join(unchecked)}"] if unchecked else []) + (
        [f"the shape of input(s) {_lines(unshaped)} was not checked (none given)"] if unshaped else [])
    return f"no violation in what model {model!r} records; " + "; ".join(parts)


def fit_verdict(n: int, model: str) -> str:
    return f"the {n} given input(s) fit model {model!r}"


def would_fail(kernel: str, message: str) -> str:
    return f"{kernel} would fail `{message}`"


def violations_verdict(violations: int, predicted: int, first: str) -> str:
    return f"{violations} violation(s), {predicted} predicted failure(s): {first}"


# -- the checks these sizes fail or may fail ----------------------------------------------------------------------------
def may_fail_why(pos, length: int, top: int, table: str | None, bound: int) -> str:
    return (f"its index is a position {pos.name} returns along {pos.length} ({pos.where})"
            + (f", which is {length} here" if pos.input is not None else "")
            + f", so it can reach {top}; the bound is "
            + (f"{table} = {bound}" if table != str(bound) else table)
            + f": any position ≥ {bound} fails the check (sizes {length} vs {bound})")


def zero_divisor_why(divisor: str, dims: list[tuple[int, int]]) -> str:
    where = " and ".join(f"input {i} dim {d}" for i, d in dims)
    return (f"it divides by {divisor}, which is {where} = 0 here: an integer division by zero kills the process "
            "with SIGFPE (`pt2-inspect diagnose` reads it as arithmetic_fault)")


def _sizes_words(sizes: list[dict]) -> str:
    """``input 0 dim 1 = 0 (s27; built for 2..128)``: the sizes an extern op gets that the package was not built for."""
    def rng(x):
        return (f"; built for {x['min'] if x['min'] is not None else '?'}..{x['max'] if x['max'] is not None else '?'}"
                if x["min"] is not None or x["max"] is not None else "")
    return " and ".join(f"input {x['input']} dim {x['dim']} = {x['value']} ({x['symbol']}{rng(x)})" for x in sizes)


def extern_size_why(op: str, line: int, more_calls: int, sizes: list[dict]) -> str:
    calls = f"wrapper.cpp line {line}" + (f" and {more_calls} more call(s)" if more_calls else "")
    return (f"ATen's {op} ({calls}) gets {_sizes_words(sizes)}, a size the package was not built for: what it "
            "does there is not in the package")


def extern_size_verdict(target: str, why: str, more: int) -> str:
    return (f"may fail: the generated code fits, but extern op {target}: {why}"
            + (f" (and {more} more op(s))" if more else ""))


EXTERN_SIZES = ("the generated kernels are the package's own code, and check models them; an extern ATen op runs "
                "ATen's code, which the package does not hold: at a size the package was not built for it may reject "
                "the input, return, or die (an empty sequence makes ATen's cpu_flash_attention divide by zero: "
                "SIGFPE), so check says 'may fail', not 'fit'; run it to know (`pt2-inspect sweep --run`)")


def zero_divisor_first(kernel: str, divisor: str) -> str:
    return (f"{kernel} divides by {divisor}, 0 with these sizes: the process may die of SIGFPE there before that "
            "kernel's check prints its message")


def table_terms(terms) -> str:
    """``input 0 dim 1 * input 1 dim 0``: the sizes a bound multiplies."""
    return " * ".join(f"input {t.input.index} dim {t.input.dim}" for t in terms)


def bound_terms(terms, dims: dict) -> str:
    return ", ".join(f"{t.kernel_param} = input {t.input.index} dim {t.input.dim} = "
                     f"{dims[(t.input.index, t.input.dim)]}" for t in terms)


def empty_bound_why(bound: str, value: int, parts: str, index_var: str, kernel: str) -> str:
    return (f"the bound `{bound}` is {value} with these sizes ({parts}): every index fails `0 <= {index_var} < "
            f"{value}` once {kernel} runs a non-empty grid")


def unchecked_load(access: str, pointer: str, address: str) -> str:
    return f"unchecked {access} {pointer}[{address}]"


def empty_table_why(index: int, name: str, dim: int) -> str:
    return (f"it reads input {index} ({name}), empty with these sizes (dim {dim} is 0), through a data-dependent "
            "index with no bounds check: an out-of-bounds access (illegal memory access on CUDA)")


def loop_overrun_why(pos, length: int, bound: int, index_var: str) -> str:
    """A check whose index is a loop position (an arange) that these sizes push to or past its bound."""
    from . import loop_where

    return (f"its index {index_var} is a loop position (an arange: {loop_where(pos)} runs 0 … {pos.length} - 1); that dim "
            f"is {length} here, so {index_var} reaches {length - 1}, past the bound {bound}: every run fails")


def externs_unread(line: int) -> str:
    """Said after the last extern entry when `divisions.unvouched_externs_read` stopped early."""
    return (f" (extern calls after wrapper.cpp line {line} were not read: the first ones to run that take such a "
            "size are listed)")


# -- contracts the runtime checks do not enforce (issue 34 §4): shared dims, derived dims, op value contracts ---------
_EFFECT = {"raises": "the op raises", "wrong_or_crash": "the op reads outside the tensor: wrong values silently, or a "
           "crash", "wrong": "silently wrong results", "illegal_memory_access": "the op reads outside the tensor: an "
           "illegal memory access, reported at a later call", "device_assert": "a device-side assert"}


def unequal_caught(line: int | None) -> str:
    """After `unequal`: what stops the run (the wrapper's assert_size_stride, only with the checks on)."""
    if line is None:
        return ""
    return (f"; AOTI_RUNTIME_CHECK_INPUTS=1 stops it (assert_size_stride, wrapper.cpp line {line}); without it the "
            "kernels index this input with the other's size and the run returns wrong numbers with no error")


def _owners(owners) -> str:
    return " × ".join(f"input {i} dim {d}" for i, d in owners)


def pass_equal(idx: int, dim: int, owners, symbols, value: int) -> str:
    """The fix of dims that must share a symbol: ``input 1 dim 0 and input 0 dim 0 are both s70: pass them equal``."""
    if len(owners) == 1:
        (i, d), = owners
        return (f"input {idx} dim {dim} and input {i} dim {d} are both {symbols[0]}: pass them equal "
                f"(input {idx} dim {dim} = {value} with these sizes)")
    return (f"input {idx} dim {dim} is {' × '.join(symbols)} ({_owners(owners)}): pass it equal to their product "
            f"({value} with these sizes)")


def read_as_other(dim: int, got: int, symbols: list[str], owners, value: int, kernel: str, line: int) -> str:
    return (f"dim {dim} is {got}, but kernel {kernel} (wrapper.cpp line {line}) reads it as {' × '.join(symbols)} = "
            f"{value} ({_owners(owners)}): the wrapper reads this dim into no symbol and its guards check only its "
            "range, so no runtime check compares them (AOTI_RUNTIME_CHECK_INPUTS=1 included); the run reads the "
            "wrong elements" + (", past the input's end," if got < value else "") + " with no error")


def reads_past_end(numel: int, last: int, kernel: str, line: int, address: str) -> str:
    return (f"holds {numel:,} element(s), but at these sizes kernel {kernel} (wrapper.cpp line {line}) reads up to "
            f"element {last:,} (`{address}`): its size follows other inputs' and no runtime check compares them "
            "(its guards check only its range); the run reads past its end: wrong values silently, or a crash")


def derived_dim(dim: int, got: int, expr: str, value: int, multiple: int | None, shape, line: int | None) -> str:
    caught = (f"; AOTI_RUNTIME_CHECK_INPUTS=1 stops it (assert_size_stride, wrapper.cpp line {line}: "
              f"`expected size {got}=={value}`)" if line is not None else "; no runtime check compares it")
    seen = (f": the model sees a {list(shape)} tensor read from the first {_numel(shape):,} elements of this one "
            "(its strides computed from those sizes), silently" if shape else ": the kernels use that size, silently")
    return (f"dim {dim} is {got}" + (f", not a multiple of {multiple}" if multiple else "")
            + f"; the package computes it as {expr} = {value}" + seen + caught)


def _numel(shape) -> int:
    n = 1
    for x in shape:
        n *= x
    return n


def op_contract_note(op: str, line: int, condition: str, args: str, effect: str) -> str:
    return (f"{op} (wrapper.cpp line {line}) needs {condition} ({args}): nothing checks it at run time, in the package "
            f"or the op; a run that breaks it: {_EFFECT.get(effect, effect)}")


def arg_words(name: str, inputs, direct: bool, value: str | None) -> str:
    """``rois = input 1 (arg5_1)``, ``input = buf4, made from input 0 (arg4_1)``."""
    ins = ", ".join(f"input {i.index} ({i.name}" + (f", `{i.user_name}`" if i.user_name else "") + ")" for i in inputs)
    if direct and ins:
        return f"{name} = {ins}"
    if ins:
        return f"{name} = {value}, made from {ins}"
    return f"{name} = {value}" if value else name


def contracts_verdict(n: int, model: str, ops: list[str]) -> str:
    return f"the {n} given input(s) fit model {model!r} by size; unchecked value contracts: {', '.join(dict.fromkeys(ops))}"
