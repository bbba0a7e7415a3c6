"""The words of `diagnose`: every verdict, step, note and reason a person reads, from facts.

The rules (inspector.queries.diagnose.rules) decide which of these apply; nothing here decides anything,
and nothing here is read back by code.  Adding a category: its one-line description in ``CATEGORY_DOC`` and
the functions its rule calls for its verdict and steps.
"""

from __future__ import annotations

# One line per diagnose category, in the order the rules are tried (inspector.queries.diagnose.rules.RULES);
# tests/unit/test_diagnose_registry.py checks that the keys are the rules' categories.
CATEGORY_DOC = {
    "index_assert": "a device assert / CPU check with its line: the full trace-assert answer;",
    "extern_op": "an ATen op called by the wrapper failed (CPU exception at the call, ATen CUDA kernel assert, "
                 "a swallowed ``Exception in aoti_torch``): a trace with kind extern;",
    "foreign_log": "the log's located check is no assertion of this package: another package, or another build of the "
                   "same model;",
    "deprecated_api": "torch._export.aot_compile / aot_load;",
    "symbolic_assert": "a runtime assertion on a symbolic size failed (``Expected u0 >= 10 but received 2``): the symbol, "
                       "the input dim or the op behind it;",
    "nan_inf": "the compiled-in NaN/Inf check fired: the input, or the kernel or op that wrote the buffer;",
    "printer": "the intermediate value printer's output: the first kernel whose output holds NaN/Inf, or (with "
               "--against a good run's log) the first whose output differs;",
    "constants": "load_constants / update_constant_buffer refused a key or missed a constant;",
    "out_of_memory": "an allocation failed for lack of memory: the buffer, its size formula, the constants' bytes;",
    "custom_op": "the package calls a custom op the serving process has not registered, or has no proxy executor;",
    "torch_version": "the loading torch lacks a C-shim symbol the .so calls, or cannot read the archive's layout;",
    "wrong_artifact": "a torch.export.save archive given to aoti_load_package, or the reverse;",
    "input_check": "AOTI_RUNTIME_CHECK_INPUTS=1 (or the wrapper's size/stride assert) rejected an input;",
    "device_mismatch": "the text names an input on the wrong device (a device in the message, the input check);",
    "arithmetic_fault": "SIGFPE: an integer division by zero (or INT_MIN / -1) in native code: the kernels that divide "
                        "by a dynamic size and the extern ops fed one, ranked by the backtrace when the log has one;",
    "weights_not_loaded": "a crash while running a package whose weights were left out of the .so and never loaded;",
    "illegal_memory_access": "IMA / unspecified launch failure / a cuBLAS error after one, reported by a later call: "
                             "the launches before it that could have made it (custom ops first), the unchecked "
                             "indirect accesses, an input on the CPU, ranked by evidence;",
    "device_assert": "`device-side assert triggered` without its ``Assertion`` line: candidates;",
    "load": "the package did not load (host lacks the device, ISA, symbols…);",
    "no_failure": "the log shows no failure (a clean run): `check` for the contracts the runtime does not enforce;",
    "unknown": "none of the above: general first steps.",
}

# ---------------------------------------------------------------------------
# Notes any category may carry
# ---------------------------------------------------------------------------

OLD_PACKAGE = ("torch warned that the package comes from an older torch (outdated pt2 / missing AOTInductor "
               "entry points): rebuild it with the serving torch if anything else fails")


def isa_note(f) -> str:
    """An ``IsaFinding``: the host's CPU features (from /proc/cpuinfo or torch's warning) against the package's."""
    need = " ".join(f.need)
    if f.harmless:
        return (f"the package was compiled for CPU ISA {need} and the host lacks {' '.join(f.missing)}, but no kernel of "
                f"model {f.model!r} has AMX tile code: it runs without it (torch only warns)")
    if f.kind == "cpuinfo_lacks":
        return (f"the /proc/cpuinfo flags in the log lack {' '.join(f.missing)}, which model {f.model!r} was "
                f"compiled for (AOTI_CPU_ISA {need}): its kernels can die with 'Illegal "
                "instruction'; recompile on (or for) this host")
    if f.kind == "cpuinfo_covers":
        return f"the host's /proc/cpuinfo flags cover the package's CPU ISA ({need})"
    if f.kind == "host_lacks":
        return (f"the package was compiled for CPU ISA {need}; this host has {' '.join(f.host)} "
                f"and lacks {' '.join(f.missing)}: kernels using it may crash with 'Illegal instruction' "
                "(recompile on this host or with a lower ISA)")
    return (f"torch warned about a CPU ISA difference ({f.warning[:160]}); the host has every ISA the "
            "package needs")


# ---------------------------------------------------------------------------
# index_assert / extern_op: the trace
# ---------------------------------------------------------------------------

UNCHECKED_EXTERN = ("the failing extern call runs without AOTI_TORCH_ERROR_CODE_CHECK: the error is "
                    "printed and the run goes on, returning garbage with exit code 0")
TRACE_LOOP_POSITION = ("Keep the size named in the verdict at or below the check's bound (truncate or chunk the "
                       "input), or rebuild with a larger table and export that dim with a max the table covers; "
                       "`pt2-inspect check PKG --input SPEC` says which sizes fail, `pt2-inspect sweep PKG --run` "
                       "runs the edge.")
TRACE_CHECK_INDEX = ("Check the index values named in the verdict before calling the model; the trace "
                     "shows which input they come from.")
TRACE_LAUNCH_BLOCKING = "Rerun with CUDA_LAUNCH_BLOCKING=1 so the failing kernel reports where it fails."

# ---------------------------------------------------------------------------
# deprecated_api
# ---------------------------------------------------------------------------


def deprecated_verdict(apis: list[str]) -> str:
    return (f"the code uses the deprecated {', '.join('torch._export.' + a for a in apis)}: switch to "
            "torch._inductor.aoti_compile_and_package / aoti_load_package")


def deprecated_note(apis: list[str]) -> str:
    return (f"the log shows the deprecated {', '.join('torch._export.' + a for a in apis) or 'torch._export API'} "
            "(torch warns on every call through it; the warning is not the failure): "
            "torch._inductor.aoti_compile_and_package / aoti_load_package replace it")


NOT_ELF = ("aot_load expects the compiled .so, not a .pt2 package: a .pt2 is loaded with "
           "torch._inductor.aoti_load_package(path)")
DEPRECATED_COMPILE = ("Compile with torch._inductor.aoti_compile_and_package(torch.export.export(model, args), "
                      "package_path='model.pt2').")
DEPRECATED_LOAD = "Load with torch._inductor.aoti_load_package('model.pt2') and call it with the same inputs."

# ---------------------------------------------------------------------------
# input_check (and device_mismatch named by the runtime check)
# ---------------------------------------------------------------------------


def input_label(idx: int, wrapper_name: str | None, user_name: str | None = None) -> str:
    """``input 1 (arg1_1) `ids```."""
    return f"input {idx}" + (f" ({wrapper_name})" if wrapper_name is not None else "") + (f" `{user_name}`" if user_name else "")


def range_fix(dim: int, got: int, rng: str, over: bool, limit) -> str:
    if got == 0:
        return (f"an empty input: dim {dim} is 0, the package was exported for {rng}. Skip the call for empty "
                "batches, or export with a size-0/1 sample (and Dim min=0) so the package handles them.")
    if over:
        return (f"dim {dim} is {got}, over the {limit} the package was exported "
                f"for: split the input into chunks, or re-export with a larger max for this Dim.")
    return f"dim {dim} is {got}, under the {rng} the package was exported for: pad the input or re-export."


def range_verdict(label: str, dim: int, symbol: str | None, got: int, rng: str) -> str:
    return f"{label} dim {dim}" + (f" (symbol {symbol})" if symbol else "") + f" is {got}; the package accepts {rng}"


def dtype_fix(expected: str, got: str | None = None, use=None) -> str:
    """``use``: how the package's kernels read a bool input (`parse.mask_use.MaskUse`), for a float mask."""
    if expected == "bool" and got is not None and got.startswith(("float", "bfloat")):
        return bool_mask_fix(use)
    return f"convert it before the call: x.to(torch.{expected})"


def bool_mask_fix(use) -> str:
    """A float mask where a bool one was compiled (issue 35 §5): `.to(torch.bool)` keeps a 0/1 mask's meaning but
    inverts an additive 0/-inf one (-inf -> True, 0 -> False).  The fix that keeps it depends on what the model's
    True means, read from its kernels (``use``) where they say; both readings of the user's mask are named."""
    if use is None:
        return ("the package takes a bool mask: convert it keeping its meaning. A 0/1 float mask (1 where True): "
                "mask.to(torch.bool) (or mask != 0). An additive 0/-inf mask: not .to(torch.bool), which makes -inf "
                "True and 0 False; pass mask == 0 if the model's True means keep (masked_fill(~mask, -inf)), "
                "mask != 0 if True means masked out (masked_fill(mask, -inf)): which one this model means was not "
                "read from its kernels")
    how = (f"kernel {use.kernel} keeps the value where the mask is True and writes {use.fill} where it is False "
           f"(line {use.line})" if use.keeps == "true" else
           f"kernel {use.kernel} writes {use.fill} where the mask is True (masked out) and keeps the value where it is "
           f"False (line {use.line})")
    if use.keeps == "true":
        additive = ("mask == 0 (True where 0: kept); not .to(torch.bool), which makes -inf True and 0 False and so "
                    "inverts it")
    else:
        additive = "mask != 0 (True where -inf: masked out; .to(torch.bool) gives the same here)"
    return (f"the package takes a bool mask: {how}. If yours is a 0/1 float mask (1 where the bool would be True): "
            f"mask.to(torch.bool) (or mask != 0). If it is an additive 0/-inf mask: {additive}")


def dtype_verdict(label: str, got: str, got_code: int, expected: str, exp_code: int) -> str:
    return f"{label} is {got} (code {got_code}); the package expects {expected} (code {exp_code})"


def device_fix(device) -> str:
    return f"move it to the package's device ({device}) before the call: x.to('{device}')"


def device_verdict(label: str, got: str, got_text: str, exp: str, exp_text: str, device) -> str:
    return f"{label} is on {got} ({got_text}); the package expects {exp} ({exp_text}, AOTI_DEVICE_KEY {device!r})"


def static_fix(kind: str) -> str:
    return ("the package was compiled for a static size here: pass that size or re-export with a Dim"
            if kind == "size" else "pass a contiguous tensor (x.contiguous()) or the layout it was compiled for")


def static_verdict(label: str, kind: str, dim: int, got: int, expected: int) -> str:
    return f"{label} {kind} at dim {dim} is {got}; the package expects {expected}"


def other_check_verdict(label: str, what: str) -> str:
    return f"{label} was rejected by the runtime input check: {what}"


def equal_other(sym_input: int | None, sym_dim: int | None) -> str:
    """What a dim must equal: another input's dim (same symbol) or the compiled size."""
    return f"input {sym_input} dim {sym_dim}" if sym_input is not None else "the compiled size"


def equal_fix(idx: int, dim: int, other: str, exp: int) -> str:
    return f"make input {idx} dim {dim} equal to {other} ({exp})"


def equal_verdict(idx: int, name: str, dim: int, got: int, other: str, exp: int, symbol: str | None) -> str:
    return (f"input {idx} ({name}) dim {dim} is {got} but must equal {other} ({exp})"
            + (f": both are symbol {symbol}" if symbol else ""))


def unnamed_size_verdict(dim: int, got: int, exp: int) -> str:
    return f"an input's dim {dim} is {got} where the package expects {exp}"


SIZES_AGREE = "Make the sizes agree."
FIX_INPUT = "Fix the input named above."
CHECK_ALL_INPUTS = "Check every input at once against the package: `pt2-inspect check PKG --input …`."
KEEP_CHECKS_ON = "Keep the runtime checks on while testing: they name the input instead of failing inside a kernel."

# ---------------------------------------------------------------------------
# device_mismatch (named by the error text)
# ---------------------------------------------------------------------------


def mismatch_verdict(key: str) -> str:
    return f"an input is not on the package's device: the package was compiled for {key} (AOTI_DEVICE_KEY)"


def inputs_words(m) -> str:
    return ", ".join(f"{i.index} {i.name} {i.dtype or '?'}[{', '.join(map(str, i.shape))}]" for i in m.inputs)


def mismatch_move(key: str, m) -> str:
    return (f"Move every input to {key} before the call: [x.to('{key}') for x in inputs] "
            f"(the package's inputs: {inputs_words(m)}).")


def host_pointer_verdict(key: str, cublas_first: bool) -> str:
    """An illegal memory access that the package's own code cannot make: an input is most likely on the CPU."""
    return ("an input is most likely on the CPU: an illegal memory access"
            + (" (first seen by cuBLAS, whose handle could not be created after it)" if cublas_first else "")
            + f" in a {key} package that has no unchecked indirect access and holds its weights, so no index of its "
              "kernels can make it; a kernel given a host pointer can")


HOST_POINTER_RESTS_ON = ("the device is read from the package, not from the log: the log names no device (CPU tensors fed "
                         "to a CUDA package print only the illegal access); the runtime input checks would name the "
                         "input")


def host_pointer_check(key: str) -> str:
    return (f"Confirm which input is not on {key}: rerun with AOTI_RUNTIME_CHECK_INPUTS=1 (it names the input), or "
            f"`pt2-inspect check PKG --input …@{key}` with the devices your inputs are on.")


CONFIRM_WITH_CHECKS = "Confirm with the runtime checks, which name the input."


def device_index_verdict(first: str, second: str, arg: str | None, method: str | None) -> str:
    """c10's device check named two GPUs of one type: the package runs on one index, a tensor sits on another."""
    who_ = f"argument `{arg}` of {method}" if arg and method else (f"argument `{arg}`" if arg else "one tensor")
    return (f"two GPUs in one call: {who_} is on {second}, the other tensors on {first}; the package's own buffers "
            f"and constants sit on the GPU it was loaded on (aoti_load_package(path, device_index=N)), so one of "
            f"the inputs (or a load_constants tensor) is on the other GPU")


def device_index_move(first: str, second: str, arg: str | None) -> str:
    i1, i2 = first.split(":")[-1], second.split(":")[-1]
    dev = first.split(":")[0]
    return (f"If the package was loaded on {first} (device_index={i1}), move the tensor passed as {('`' + arg + '`') if arg else 'it'} "
            f"there: x.to('{first}'); if it was loaded on {second} (device_index={i2}), move the other inputs to "
            f"{second}. Every input and constant must be on the loaded GPU: `pt2-inspect check PKG --device "
            f"{dev}:N --input …@{dev}:M` names the ones that are not.")


DEVICE_INDEX_CHECK = ("AOTI_RUNTIME_CHECK_INPUTS=1 does not catch this: the package's input checks compare the device "
                      "type only (`unmatched device type`), never the index")

# ---------------------------------------------------------------------------
# arithmetic_fault (SIGFPE)
# ---------------------------------------------------------------------------


def _sizes(h: dict) -> str:
    refs = [f"{r['symbol']} (input {r['input']} dim {r['dim']})" if r["input"] is not None else r["symbol"]
            for r in h["symbols"]]
    return ", ".join(refs) or "no named size"


def fpe_place(h: dict) -> str:
    """One hypothesis: a kernel's division or an extern op, its wrapper line and the sizes behind it."""
    if h["kind"] == "kernel":
        return f"kernel {h['target']} (launched at wrapper.cpp line {h['line']}) divides by {h['divisor']}: {_sizes(h)}"
    return f"extern op {h['target']} at wrapper.cpp line {h['line']}, on inputs sized by {_sizes(h)}"


def fpe_verdict(n: int, first: dict | None, named: bool, function: str | None) -> str:
    out = ("SIGFPE: an integer division by zero (or INT_MIN / -1) in native code, most often a size that was 0 "
           "used as a divisor")
    if first is None:
        return out + "; no kernel of the package divides by a dynamic size and no extern op takes one"
    if named:
        return out + (f"; the backtrace names {fpe_place(first)}" + (f" (it faulted in {function})" if function else ""))
    if n == 1:
        return out + f"; one place of the package can divide by a dynamic size: {fpe_place(first)}"
    return out + (f"; {n} places of the package can divide by a dynamic size, the log does not say which "
                  f"(first to run: {fpe_place(first)})")


def fpe_backtrace_note(function: str | None, shim: str | None, line: int | None) -> str:
    parts = [f"innermost function {function}" if function else None, f"shim {shim}" if shim else None,
             f"wrapper.cpp line {line}" if line else None]
    return "the log's native backtrace names " + (", ".join(p for p in parts if p) or "no function of ours")


def fpe_check_step(dims: list[tuple[int, int]]) -> str:
    where = " or ".join(f"input {i} dim {d}" for i, d in dims) if dims else "a dynamic dim"
    return (f"Check the sizes you ran with: a 0 at {where} is the usual divisor; `pt2-inspect check PKG --input …` "
            "with that dim at 0 says what the package's guards allow.")


FPE_SWEEP = ("Run the edge cases one by one in child processes: `pt2-inspect sweep PKG --run` shows which size at 0 "
             "dies of SIGFPE.")
FPE_GDB = ("Get the native backtrace: `gdb -batch -ex run -ex bt --args python …` names the faulting function and "
           "the wrapper.cpp line, which tells the places below apart.")
FPE_TELL_APART = ("faulthandler's text shows Python frames only: a native backtrace (gdb), or the sweep's row at 0, "
                  "tells these places apart")

# ---------------------------------------------------------------------------
# illegal_memory_access
# ---------------------------------------------------------------------------


def ima_on_cuda(key: str, said: str | None = None) -> str:
    """``said``: the log's own illegal-access line; without one the step claims no text of the log."""
    what = (f"print exactly this text (`{said[:120]}`)" if said else
            "crash with an illegal memory access")
    return (f"Check that every input is on cuda:N: CPU tensors fed to a CUDA package {what} "
            f"(the package's AOTI_DEVICE_KEY is {key}). `pt2-inspect check PKG --input …@cuda` "
            "or AOTI_RUNTIME_CHECK_INPUTS=1 confirms it.")


IMA_DETERMINISTIC = "Make the failure deterministic and reported at the failing kernel."
IMA_GDB = ("Run with one thread under gdb (`gdb -ex run --args python …`): the backtrace names the "
           "crashing cpp_fused_* kernel.")
IMA_PRINTER = "Find the kernel: recompile the package with the intermediate value printer, then rerun."
IMA_PRINT_SUSPECTS = "Print only the suspect kernels' inputs and outputs (recompile)."
IMA_ASSERTS_ON = ("Recompile with index asserts on (the default), so a bad index fails with its message "
                  "instead of an illegal access: inductor_configs={'assert_indirect_indexing': True}.")


def ima_verdict(n: int, s: dict, table: str, on_cuda: bool) -> str:
    """``s``: the first unchecked indirect access (inspector.queries.suspects)."""
    src = next((o for o in s["index_origin"] if o["input"] is not None), None)
    out = (f"illegal memory access: {n} unchecked indirect access(es) in the package; most "
           f"likely {s['kernel']} {s['access']}s {table or s['pointer']} at an index "
           + (f"read from input {src['input']} ({src['input_name']})" if src else "read from a tensor")
           + " with no bounds check")
    return out + ("; or an input is not on cuda" if on_cuda else "")


def ima_no_suspect_verdict(on_cuda: bool) -> str:
    return ("illegal memory access; the package has no unchecked indirect access"
            + (": check first that every input is on cuda" if on_cuda else ""))


# An asynchronous CUDA error (inspector.queries.async_error): what could have made it
ASYNC_BLOCKING = ("Pin the launch that made it: rerun with CUDA_LAUNCH_BLOCKING=1, so each launch waits and the one "
                  "that fails reports itself (then give that log to `pt2-inspect diagnose` again).")
ASYNC_SANITIZER = ("Or run it under `compute-sanitizer --tool memcheck python …`: it names the kernel, the thread and "
                   "the address of the bad access (slow: use the smallest inputs that fail).")


def _args_words(args) -> str:
    return ", ".join(f"{a.name} (input {a.input})" if a.input is not None else a.name for a in args)


def _error_words(kind: str) -> str:
    return {"illegal_memory_access": "an illegal memory access", "launch_failure": "an unspecified launch failure",
            "misaligned_address": "a misaligned address", "illegal_instruction": "an illegal instruction",
            "illegal_address": "an illegal address", "cublas": "a cuBLAS error"}.get(kind, "a CUDA error")


def async_hypothesis(h) -> str:
    """One place that could have made an asynchronous CUDA error (``AsyncHypothesis``), in words."""
    at = f" at wrapper.cpp line {h.line}" if h.line is not None else ""
    args = f" on {_args_words(h.args)}" if h.args else ""
    if h.kind == "named_custom_op":
        said = (f"the log names {h.function}" if h.function else
                "the error was printed inside it (a swallowed exception) before the call that reported it"
                if "swallowed_before_report" in h.evidence else "it reported the error itself")
        sync = ("; with CUDA_LAUNCH_BLOCKING=1 the launch that reports an error is the one that made it"
                if "launch_blocking" in h.evidence else
                "; without CUDA_LAUNCH_BLOCKING=1 an earlier launch may have made it all the same")
        return f"custom op {h.target}, called through the proxy executor{at}{args}: {said}{sync}"
    if h.kind == "host_input":
        if "no_unchecked_access" in h.evidence:  # the package rules the rest out
            return ("an input is on the CPU: the package has no unchecked indirect access and no custom op and holds "
                    "its weights, so none of its kernels can make the access; a kernel given a host pointer can "
                    "(nothing in the log names a device: AOTI_RUNTIME_CHECK_INPUTS=1 would)")
        return ("an input is on the CPU (a kernel given a host pointer prints the same text; nothing in the log names "
                "a device: AOTI_RUNTIME_CHECK_INPUTS=1 would)")
    if h.kind == "custom_op":
        before = ", before the call that reported the error" if "before_report" in h.evidence else ""
        return (f"custom op {h.target}, called through the proxy executor{at}{args}{before}: the package cannot show "
                "its bounds checks")
    if h.kind == "unchecked_access":
        s = h.suspect or {}
        return (f"{h.target} {s.get('access', 'read')}s {s.get('pointer', 'a tensor')} at an index with no bounds "
                "check (line " + str(s.get("line")) + " of the kernel)")
    if h.kind == "assert_candidate":
        return (f"a device-side assert of {h.target} (launched{at}) whose Assertion line is missing: a cuBLAS error "
                "alone may follow one")
    return f"{h.target}{at}{args}, launched before the call that reported the error"


def async_verdict(a, top) -> str:
    """The verdict of an asynchronous CUDA error: what it is, where it was reported (not made), the likeliest place."""
    err = _error_words(a.kind)
    if top.kind == "named_custom_op":
        return f"{err} in {async_hypothesis(top)}"
    where = (f", reported at {a.reported_by} (wrapper.cpp line {a.reported_line}), not made there" if a.reported_by
             else "")
    head = f"{err}{where}: "
    if top.kind == "host_input" and "no_unchecked_access" in top.evidence:
        return head + "most likely " + async_hypothesis(top)
    n = len(a.hypotheses)
    first = async_hypothesis(top)
    return (head + f"{n} place(s) could have made it, most likely {first}; rerun with CUDA_LAUNCH_BLOCKING=1 or "
            "under compute-sanitizer to pin it")


def async_reported_note(call: str, line: int | None) -> str:
    return (f"{call}" + (f" at wrapper.cpp line {line}" if line else "") + " reported the error: CUDA errors are "
            "asynchronous, so it is the next call that noticed one, not the launch that made it")


# ---------------------------------------------------------------------------
# device_assert: candidates
# ---------------------------------------------------------------------------


def candidate_reason(launched_at: int, limit: int | None) -> str:
    return (f"launched at wrapper.cpp line {launched_at}, before the call that reported the error (line {limit})"
            if limit else f"launched at wrapper.cpp line {launched_at}")


def extern_candidate_message(op: str) -> str:
    return f"ATen {op}: index out of range"


EXTERN_CANDIDATE_HOW = "an ATen kernel assert (its line is missing)"


def extern_candidate_reason(op: str, line: int, limit: int | None) -> str:
    return (f"extern ATen op {op} called at wrapper.cpp line {line}"
            + (f", before the call that reported the error (line {limit})" if limit else "")
            + "; its CUDA kernel asserts on a bad index")


def noticed_symptom(call: str, line: int) -> str:
    return f"{call} at wrapper.cpp line {line} is where the error was noticed: a symptom, not the failing kernel"


def device_assert_verdict(symptom: str, target: str | None, line: int | None, n: int, first: str | None) -> str:
    """``symptom``: "cublas_error" | "device_side_assert" | "noticed"."""
    sym = {"cublas_error": "a cuBLAS error", "device_side_assert": "`device-side assert triggered`"}.get(
        symptom, "a failed API call")
    where = f" at {target} (wrapper.cpp line {line})" if target else ""
    return (f"a device-side assert fired; the log shows only its symptom, {sym}{where}. "
            + (f"{n} candidate assertions, most likely {first}" if n else
               "no assertion in the package was launched before it"))


RERUN_FOR_LINE = ("Rerun with CUDA_LAUNCH_BLOCKING=1: the kernel's own `Assertion … failed` line is then printed "
                  "before the error; pass that log to `pt2-inspect diagnose` again.")
CHECK_NOW = "Or check the inputs against the package now: `pt2-inspect check PKG --input …`."

# ---------------------------------------------------------------------------
# load
# ---------------------------------------------------------------------------


def no_device_verdict(dev: str, cc: str | None, said: str) -> str:
    return (f"the host cannot run this package: it was compiled for {dev}"
            + (f" (compute capability {cc})" if cc else "") + "; the log says " + said.strip()[:120])


def no_device_step(dev: str, cc: str | None) -> str:
    return (f"Load it on a host with {dev}" + (f" and a GPU of compute capability {cc}" if cc else "")
            + " and a CUDA build of torch, or recompile the model for this host's device.")


def isa_verdict(isa) -> str:
    return f"the package was compiled for CPU ISA {isa}, which this host does not fully have"


RECOMPILE_ON_HOST = "Recompile on the serving host (or a host with the same ISA)."


def sigill_verdict(need: str | None, missing: str | None, host: str | None, native: bool) -> str:
    """The process died with SIGILL: lead with the ISA the package needs and the host lacks (issue 22 §2)."""
    built = f"CPU ISA {need}" if need else "a CPU ISA the log does not name"
    if native:
        built += ", compiled with -march=native"
    if missing:
        has = f" (it has {host})" if host else ""
        return (f"illegal instruction: the package needs {missing}, which this host lacks{has}; it was built for "
                f"{built}, and the first instruction of those killed the process with SIGILL (exit 132)")
    return (f"illegal instruction: the process died with SIGILL (exit 132); the package was built for {built}, and "
            "this host lacks an instruction it uses (the log names no host ISA: torch printed no mismatch)")


SIGILL_REBUILD_PORTABLE = ("Rebuild the package without -march=native and with the vector ISA capped at what the "
                           "serving CPU has (torch 2.13: TORCHINDUCTOR_CPP_MARCH sets -march, ATEN_CPU_CAPABILITY "
                           "the vector ISA); the wrapper metadata's AOTI_CPU_ISA then says AVX2.")
SIGILL_REBUILD_ON_HOST = "Or rebuild it on the serving CPU (the same model of CPU as the machines that load it)."
SIGILL_DOCTOR = ("Before shipping it, check it against the serving host: `pt2-inspect doctor PKG --host-cpuinfo auto` "
                 "there, or `--host-cpuinfo FILE` with that host's /proc/cpuinfo.")


def not_loaded_verdict(said: str | None) -> str:
    return "the package did not load: " + (said or "see the log")[:200]


MISSING_MEMBER = ("a member the loader needs is missing from the archive: the file was truncated or "
                  "repacked; `pt2-inspect show PKG` lists what it holds")


def same_torch_step(dev: str) -> str:
    return ("Load it with the same torch version it was built with (`pt2-inspect show PKG`), on its "
            f"device ({dev}); a missing symbol means a torch version mismatch.")


CPP_STACK_LOAD = "Get the C++ stack of the failure."


def cmake_package_verdict(symbol: str) -> str:
    return ("the package is C++ source meant to be built with its CMakeLists.txt (compile_standalone: no .so, its "
            f"kernels as .ptx members): aoti_load_package's own build of it leaves the kernel images out, so dlopen "
            f"fails on `{symbol}`")


def cmake_build_step(needs: str, library: str | None) -> str:
    return (f"Build it with its CMakeLists.txt (`pt2-inspect extract PKG -o DIR --all`, then cmake -S DIR/<model folder> "
            f"-B build && cmake --build build; it needs {needs}) and link "
            f"{library or 'the library'} into the program that serves it; `pt2-inspect doctor PKG` says the same.")

# ---------------------------------------------------------------------------
# unknown
# ---------------------------------------------------------------------------

UNKNOWN_VERDICT = "no failure this version knows was found in the log; start with the input contract"

# no_failure: a clean run's log
NO_FAILURE_VERDICT = "no failure in this log; `pt2-inspect check` finds the contracts the runtime does not enforce"
NO_FAILURE_NOTE = ("no check fired, no call failed and nothing raised. A wrong result without an error comes from a "
                   "contract the runtime's checks do not enforce: AOTI_RUNTIME_CHECK_INPUTS=1 compares each input with "
                   "its guards one dim at a time, so sizes that must agree between inputs, or a size the kernels "
                   "divide, can pass it and still give garbage")
NO_FAILURE_CHECK = ("If the outputs look wrong, check the inputs you ran with against the package's contract: "
                    "`pt2-inspect check PKG --input …` (dtypes, devices, every dim's range and the sizes that must "
                    "agree).")
NO_FAILURE_COMPARE = ("Compare with the eager model on the same inputs; to find the first kernel that differs, "
                      "recompile with the intermediate value printer and give both logs to `pt2-inspect diagnose "
                      "PKG --log bad.log --against good.log`.")
# A log with no line of torch's (inspector.logs.patterns ``torch_said``): what was looked for, in a person's words.
TORCH_SAID_WORDS = ("torch", "AOTI/AOTInductor", "Inductor", "ATen", "c10", "CUDA", "Triton", "a .pt2 name",
                    "cpp_fused_ kernels", "wrapper.cpp", "model_container", "run_impl", "cubin")
NOT_TORCH_VERDICT = ("the log holds no line torch, AOTInductor, ATen, CUDA or Triton printed: it comes from another "
                     "program (or lost the serving process's output), so nothing in it is about this package")


def not_torch_note(looked_for) -> str:
    return ("looked for, in every line: " + ", ".join(looked_for) + "; none is there, and no failure pattern of "
            "diagnose matched (a crash line alone says nothing about which program crashed)")


NOT_TORCH_STEP = ("Capture the serving process's own output, stderr included (`python serve.py 2>&1 | tee run.log`), "
                  "and give that log: its traceback or torch's error names the failure.")


def bare_extern_note(model: str, bare: list[tuple[str, int]]) -> str:
    """``bare``: (extern op, wrapper line) of the calls made without an error check."""
    return (f"model {model!r} calls {len(bare)} extern op(s) without an error check ("
            + ", ".join(f"{target} at wrapper.cpp line {line}" for target, line in bare[:5])
            + "): a failure inside them prints `Exception in aoti_torch: …` at most and the run "
              "returns garbage with exit code 0; check their index inputs first")


GENERAL_COMPARE = ("Compare the inputs with what the package was compiled for: `pt2-inspect check PKG --input …` "
                   "(devices, dtypes, shapes, ranges).")
GENERAL_CHECKS = "Rerun with the runtime input checks on: they name the first input that breaks the contract."
GENERAL_SYNC = "Make CUDA errors synchronous so the failing call is the one reported."
GENERAL_ONE_THREAD = "Run with one OpenMP thread so a failing check prints its message."
GENERAL_CPP_STACK = "Get the C++ stack of the error."


# ---------------------------------------------------------------------------
# issue 15: symbolic_assert, nan_inf, constants, custom_op, torch_version, wrong_artifact, weights_not_loaded
# ---------------------------------------------------------------------------

def symbolic_verdict(cond: str, got: str, line: int | None, symbol: str | None, origin: str | None) -> str:
    where = f" (wrapper.cpp line {line})" if line else ""
    about = f"; {symbol} is {origin}" if symbol and origin else ""
    return f"the runtime assertion `{cond}` failed with {got}{where}{about}"


def unbacked_origin(call: str, line: int) -> str:
    return f"a data-dependent size, read from a tensor's values by {call} at wrapper.cpp line {line}"


def backed_origin(label: str, dim: int, rng: str) -> str:
    return f"{label} dim {dim} (guards allow {rng})"


SYMBOLIC_FIX_UNBACKED = ("The value comes from the data (.item(), nonzero, a count): make the input data satisfy "
                         "the condition, or relax the torch._check / constraint in the model and re-export.")
SYMBOLIC_FIX_BACKED = ("Give an input whose size satisfies the condition (the export's Dim constraints or "
                       "torch._check on it), or re-export with the constraint you need.")
SYMBOLIC_CHECK = "Check the sizes first: `pt2-inspect check PKG --input …` names the input."


def nan_word(what: str | None) -> str:
    """The log's ``NaN`` / ``INF`` as a person writes it."""
    return {"INF": "Inf", "Inf": "Inf", "NaN": "NaN"}.get(what or "", "NaN or Inf")


def nan_input_verdict(what: str, label: str) -> str:
    return f"{label} holds {what} when the model is called: the NaN/Inf check compiled in refused it before any kernel ran"


def nan_buffer_verdict(what: str, buf: str, writer: str | None, line: int | None, nodes: list[str]) -> str:
    if writer is None:
        return f"{buf} holds {what}: the NaN/Inf check compiled in fired on it; no call in the wrapper writes it"
    fx = f" (FX nodes {', '.join(nodes)})" if nodes else ""
    return f"{buf} holds {what}, written by {writer} at wrapper.cpp line {line}{fx}: that op made it or passed it on"


def nan_kernel_verdict(trace_verdict: str, line: int, calls: list[int], nodes: list[str]) -> str:
    at = f", launched at wrapper.cpp line {', '.join(map(str, calls))}" if calls else ""
    fx = f"; FX nodes {', '.join(nodes[:6])}" if nodes else ""
    return f"{trace_verdict} (its NaN/Inf check at line {line} of the kernel's .py{at}{fx})"


def constants_not_provided_verdict(names: list[str], fqns: list[str], buffers: bool, crashed: bool) -> str:
    pairs = ", ".join(f"{n} ({q})" if q != n else n for n, q in zip(names, fqns))
    why = (": buffers a model's state_dict() leaves out (register_buffer(..., persistent=False)); add them from "
           "named_buffers()" if buffers else "")
    after = ", and the run then read uninitialised memory" if crashed else ""
    return (f"the constants update left out {pairs}{why}; torch only warned{after}")


_OOM_WHO = {"allocator": "the device", "cpu": "the host (the CPU allocator)",
            "runtime": "the GPU (the CUDA runtime's `cudaMalloc`, the caching allocator off or bypassed)",
            "driver": "the GPU (the CUDA driver, loading or launching a kernel: `CUDA driver error: out of memory`)",
            "cublas": "the GPU (cuBLAS creating its handle or workspace at the first matmul: "
                      "`CUBLAS_STATUS_ALLOC_FAILED`)"}


def oom_verdict(size: str | None, free: str | None, total: str | None, alloc, constants: str,
                source: str = "allocator") -> str:
    """``source``: who refused ("allocator", "cpu", "runtime", "driver"); ``size`` None: the log names none."""
    room = f" ({free} free of {total})" if free and total else ""
    asked = f"asked for {size}{room}" if size else "ran out of memory (the log names no size)"
    who = _OOM_WHO.get(source, "the device")
    if alloc and not size:
        buf, line, formula = alloc
        what = (f"{who} had no memory left allocating {buf} at wrapper.cpp line {line}, whose size is {formula} "
                "bytes (the log names no size): the input sizes made it large, or the GPU was full before it")
    elif alloc:
        buf, line, formula = alloc
        what = (f"the run {asked} allocating {buf} at wrapper.cpp line {line}, whose size is "
                f"{formula} bytes: the input sizes make it that large")
    elif source in ("driver", "cublas"):
        what = f"{who} had no memory left: the GPU was full (this process's tensors or another process's) before it"
    else:
        what = f"the run {asked} and {who} had not that much left"
    return f"out of memory: {what}" + (f"; the package's constants hold {constants}" if constants else "")


OOM_DRIVER = ("See what holds the GPU's memory before the model runs (`nvidia-smi`, torch.cuda.memory_allocated()): "
              "the driver needs room to load the package's kernels, cuBLAS for its handle and workspace (32 MiB on the first "
              "matmul); free it, or run the model once before filling the GPU.")


OOM_SIZES = ("Lower the dynamic sizes (the batch, the sequence length) the buffer's formula grows with, or split the "
             "input into several calls.")
OOM_DOCTOR = ("See the run's peak memory at your input sizes before running: `pt2-inspect doctor PKG --input "
              "0=float32[…]` (activations at their peak + constants).")
OOM_FRAGMENTATION = ("When the free memory is larger than the request, the cache is fragmented: set "
                     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.")


NAN_CHECK_INPUT = "Check the input for NaN/Inf before calling the model (torch.isfinite(x).all())."
NAN_CPU_NOTE = ("on CPU builds the NaN/Inf checks guard the graph's inputs only: a NaN made inside runs silently; "
                "the intermediate value printer finds the first kernel that makes one")
NAN_PRINTER = "Find the first kernel that makes it: recompile with the intermediate value printer, then rerun."


def constant_not_found_verdict(key: str, why: str) -> str:
    return f"load_constants was given {key!r}, which is not a constant of this package: {why}"


def constant_missing_verdict(name: str, fqn: str | None) -> str:
    about = f" ({fqn})" if fqn else ""
    return (f"a full constants update (check_full_update=True) lacks the package's constant {name}{about}: every "
            "constant must be in the map")


def constant_device_verdict(name: str, got: str, exp: str) -> str:
    return f"the new value of constant {name!r} is on device type {got}; the package expects device type {exp}"


CONSTANTS_CORRUPT = "the weights blob is damaged or misaligned: the package was truncated or rewritten"
WHY_PREFIX = "its keys carry a prefix (DDP's `module.`) the package's FQNs do not"
WHY_INLINED = ("a 0-d tensor or a 1-D one of at most 8 elements is folded into kernel code by Inductor (a small "
               "bias, num_batches_tracked): it cannot be replaced and must be left out of the map")
WHY_UNKNOWN = ("the package has no constant of that name (a small tensor folded into kernel code, a renamed module, "
               "or weights of another model)")
CONSTANTS_DOCTOR = ("Check the whole weights file against the package's constants, names, dtypes, shapes and strides "
                    "(load_constants checks none of them): `pt2-inspect doctor PKG --weights FILE`.")


def custom_op_verdict(op: str, calls: list[int]) -> str:
    where = f" (called through the proxy executor at wrapper.cpp line{'s' if len(calls) > 1 else ''} " \
            f"{', '.join(map(str, calls))})" if calls else ""
    return f"the package calls the custom op {op}{where}, which the serving process has not registered"


def custom_op_step(op: str | None) -> str:
    op = op or "the custom op"
    ns = op.split("::")[0] if "::" in op else "mylib"
    return (f"Import the Python module that defines {op} (its torch.library.custom_op) before aoti_load_package, in "
            f"the same process; without Python, register it in C++ with TORCH_LIBRARY({ns}, m) and load that "
            "library first.")


NO_PROXY = "this runtime has no proxy executor: a package that calls custom ops needs one (load it from Python)"


def no_proxy_verdict(calls: list[int], has_json: bool) -> str:
    where = f" (wrapper.cpp line{'s' if len(calls) > 1 else ''} {', '.join(map(str, calls))})" if calls else ""
    if has_json:
        return (f"the package calls ops through the proxy executor{where}, and this runtime has none: a package that "
                "calls custom ops must be loaded with its proxy executor (aoti_load_package from Python)")
    return (f"the package calls ops through the proxy executor{where}, but it has no <hash>.wrapper.json, the file "
            "the loader builds the proxy executor from: the member was removed or never packaged")


NO_PROXY_REBUILD = ("Package it again with torch._inductor.aoti_compile_and_package (it keeps the .wrapper.json beside "
                    "the .so), or put the json that the compile produced back beside the .so.")


def torch_symbol_verdict(symbol: str, first: str | None) -> str:
    since = f" (first exported by torch {first})" if first else ""
    return (f"the loading torch does not export {symbol}{since}, which the package's .so calls: it was built by a "
            "newer torch")


def torch_symbol_step(first: str | None) -> str:
    return (f"Serve it with torch {first} or newer, or rebuild it with the serving torch; `pt2-inspect doctor PKG "
            "--torch X.Y` lists every symbol a release lacks." if first else
            "Rebuild it with the serving torch; `pt2-inspect doctor PKG --torch X.Y` lists every symbol a release lacks.")


ROOTLESS_VERDICT = ("an old loader (torch 2.6) looked for data/aotinductor/ at the archive's top; this package keeps "
                    "its members under a root folder, as every newer torch writes them")
ROOTLESS_STEP = "Serve it with the torch release that built it (or a newer one)."
WRONG_EXPORT_TO_AOTI = ("aoti_load_package was given an archive with no compiled model: a torch.export.save file (an "
                        "exported program) is loaded with torch.export.load, and compiled first with "
                        "torch._inductor.aoti_compile_and_package to run it here")
WRONG_AOTI_TO_EXPORT = ("torch.export.load could not read the file: an AOTInductor package (.pt2 from "
                        "aoti_compile_and_package) is loaded with torch._inductor.aoti_load_package")
def standalone_loaded_verdict(symbol: str | None) -> str:
    return ("aoti_load_package was given a compile_standalone package: a libtorch-free C++ project (CMakeLists.txt "
            "with find_package(TorchStandalone), a static library) meant to be linked into a C++ program; the loader "
            "compiled it and dlopen could not resolve "
            + (f"`{symbol}`" if symbol else "the C-shim symbols") + ", which only libtorch provides")


STANDALONE_STEP = ("Build it into your program with its CMakeLists.txt and the model class its header declares, or "
                   "rebuild without aot_inductor_mode.compile_standalone to load it from Python.")
WRONG_KIND_STEP = "Load each kind with its own loader; `pt2-inspect show FILE` says which kind a .pt2 is."


def weights_not_loaded_verdict(n: int, nbytes: int) -> str:
    return (f"the package was built without its weights (package_constants_in_so=False: {n} constants, "
            f"{nbytes:,} bytes, not in the .so) and the run crashed: some or all of its constants were never "
            "loaded (a model's state_dict() lacks its non-persistent buffers, e.g. position_ids)")


def weights_blob_not_loaded_verdict(n: int, nbytes: int, member: str, size: int) -> str:
    return (f"the model's .so was run without its weights: they are not in the .so but in the package's weights blob "
            f"{member} ({n} constants, {nbytes:,} bytes; package_constants_on_disk_format=\"binary_blob\", "
            f"{size:,} bytes), which only the package loader (aoti_load_package) loads; the .so was loaded alone "
            "(AOTIModelContainerRunnerCpu, torch._export.aot_load, or the .so extracted), so no constant was loaded "
            "and the run crashed")


WEIGHTS_BLOB_STEP = ("Load the package, not its .so: torch._inductor.aoti_load_package(PKG) loads the weights blob "
                     "before the first run.")


def weights_beside_not_loaded_verdict(n: int, nbytes: int, members: int, disk_bytes: int, model: str) -> str:
    return (f"the package stores its weights beside the code, not in the .so ({n} constants, {nbytes:,} bytes; "
            f"package_constants_on_disk_format=\"pickle_weights\": {members} pickled member(s) under data/weights/, "
            f"{disk_bytes:,} bytes), and it was loaded without them: aoti_load_package ignores them and the first "
            f"call crashes; load it with {load_from_disk_call(model)}")


def load_from_disk_call(model: str) -> str:
    """The call that loads a pickle_weights package with its weights (torch 2.13's load_package and
    aoti_load_package take no load_weights_from_disk)."""
    return f'torch.export.pt2_archive._package.load_pt2(PKG, load_weights_from_disk=True).aoti_runners["{model}"]'


def weights_from_disk_step(model: str) -> str:
    return (f"Load it with `{load_from_disk_call(model)}`: it reads data/weights/ and calls load_constants "
            "before the first run (torch 2.13's load_package has no load_weights_from_disk argument).")


WEIGHTS_LOAD_STEP = ("Call load_constants with every constant before the first run, buffers included "
                     "(check_full_update=True warns for a missing buffer only; the run then crashes); "
                     "`pt2-inspect doctor PKG --weights FILE` lists what the file lacks.")


def _call(kernel: str, call: int, line: int | None) -> str:
    nth = f" (call {call})" if call > 1 else ""
    return f"{kernel}{nth}" + (f" at wrapper.cpp line {line}" if line else "")


def printer_bad_verdict(kernel: str, arg: str | None, what: str, call: int, line: int | None, nodes: list[str]) -> str:
    fx = f" (FX nodes {', '.join(nodes)})" if nodes else ""
    return f"the first kernel whose output holds {what}: {_call(kernel, call, line)} wrote {arg}{fx}"


def printer_input_verdict(arg: str, what: str) -> str:
    return f"the model's input {arg} already holds {what} when it is called"


def _printed_call(pc) -> str:
    """``aoti_torch_cpu_addmm_out (call 4 of 5, launch 6 of the log) at wrapper.cpp line 1246``."""
    nth = f"call {pc.call} of {pc.calls}, " if pc.calls > 1 else ""
    where = (f" at wrapper.cpp line {pc.wrapper_line}" if pc.wrapper_line else
             " (its wrapper line unknown: no call of that position names the arguments it printed)")
    return f"{pc.kernel} ({nth}launch {pc.launch} of the log){where}"


def _site(pc) -> str:
    fx = f"; FX nodes {', '.join(pc.nodes)}" if pc.nodes else "; FX nodes unknown (no Source Nodes comment or provenance for this call)"
    user = f"; user line {pc.frames[0]}" if pc.frames else ""
    return fx + user


def _wrote(pf) -> str:
    view = f" (a view: {pf.view_of})" if pf.view_of else ""
    return f"wrote {pf.arg}{view}{_rows(pf)}"


def _rows(pf) -> str:
    """`` (NaN in row 1 of 2)``: which rows of the printed values hold it (nan, when the values were printed)."""
    shape = pf.block.shape if pf.block is not None else None
    if not pf.bad_rows or not shape:
        return ""
    rows = ", ".join(str(r) for r in pf.bad_rows[:8]) + ("…" if len(pf.bad_rows) > 8 else "")
    return f" ({pf.what} in row{'s' if len(pf.bad_rows) > 1 else ''} {rows} of {shape[0]})"


def _mmm(t: tuple) -> str:
    return " / ".join(str(x) for x in t)


def printer_verdict(pf) -> str:
    """The sentence for a level-2 printer finding (inspector.queries.printer.PrinterFinding)."""
    if pf.kind == "nan" and pf.reads_only:
        w = pf.wrapper_writer
        writer = (f"the wrapper's last call before it that writes that storage is {w[0]} at wrapper.cpp line {w[1]}"
                  if w else "no earlier call in the wrapper writes that storage")
        return (f"the first {pf.what} the printer shows is in {pf.arg}{_rows(pf)}, which {_printed_call(pf.call)} only "
                f"reads: the launch that wrote it printed nothing; {writer}")
    if pf.kind == "nan":
        inf = ""
        if pf.inf_before is not None:
            i = pf.inf_before
            inf = (f"; Inf came first, from {i.call.kernel} (launch {i.call.launch}) writing {i.arg}{_rows(i)}: an "
                   f"attention mask's -inf is meant, an overflow would be the cause")
        return (f"the first kernel whose output holds {pf.what}: {_printed_call(pf.call)} {_wrote(pf)}{_site(pf.call)}"
                f"{inf}")
    if pf.kind == "input":
        return printer_input_verdict(pf.arg, pf.what)
    if pf.kind == "diff":
        also = ""
        if pf.input_differs is not None:
            i = pf.input_differs
            also = (f"; the runs' inputs differ too: {i.arg} mean/min/max {_mmm(i.stats())} here, "
                    f"{_mmm(i.stats(i.good))} in the good run")
        return (f"the first kernel whose output differs from the good run: {_printed_call(pf.call)} {_wrote(pf)}"
                f"{_site(pf.call)}: mean/min/max {_mmm(pf.stats())} here, {_mmm(pf.stats(pf.good))} in the good run"
                f"{also}")
    if pf.kind == "input_diff":
        return (f"the model's input {pf.arg} differs from the good run (mean/min/max {_mmm(pf.stats())} here, "
                f"{_mmm(pf.stats(pf.good))} in the good run), and no kernel's printed output does")
    if pf.kind == "no_diff":
        return PRINTER_NO_DIFF
    return PRINTER_CLEAN


def printer_level3_verdict(kernel: str | None, unfinished: bool, line: int | None) -> str:
    if kernel is None:
        return "the printer (level 3) printed no kernel: the run failed before the first launch"
    if unfinished:
        return f"the last kernel that started and never finished: {_call(kernel, 1, line)}"
    return f"every kernel that started finished; the last was {_call(kernel, 1, line)}"


PRINTER_CLEAN = "no printed output holds NaN/Inf: compare with a good run's printer log (--against) to find a wrong value"
PRINTER_NO_DIFF = "every kernel's output matches the good run's statistics: the difference is not in this model's kernels"
PRINTER_AGAINST = ("Compare with a good run (another input, the previous package, the CPU build): "
                   "`pt2-inspect diagnose PKG --log bad.log --against good.log`.")
PRINTER_LOCATE = "Find the user's line behind the kernel: `pt2-inspect locate PKG --kernel K`."
PRINTER_LEVEL2 = "Recompile with the printer at level 2 to see each kernel's values."
PRINTER_BEFORE_LAUNCH = ("an output printed before_launch holds whatever memory it got (inf, 3e35): a kernel is "
                         "judged by what it wrote, after_launch")

FOREIGN_LOG = "the log's failing check is not in this package: the log comes from another package or build"
FOREIGN_STEP = ("Diagnose the log with the package that printed it (its kernel .py / kernel.cpp names are in the log); "
                "`pt2-inspect show PKG` lists this package's kernels and assertions.")

NO_GUARDS_COMPILED = (" This package has no input guards compiled in (torch 2.6 writes none unless "
                      "AOTI_RUNTIME_CHECK_INPUTS=1 is set when compiling): rebuild with it set, then run with it set.")
