"""The words of `diagnose`: every verdict, step, note and reason a person reads, from facts.

The rules (inspector.queries.diagnose.rules) decide which of these apply; nothing here decides anything,
and nothing here is read back by code.  Adding a category: its one-line description in ``CATEGORY_DOC`` and
the functions its rule calls for its verdict and steps.
"""

from __future__ import annotations

# One line per diagnose category, in the order the rules are tried (inspector.queries.diagnose.rules.RULES);
# tests/test_diagnose_registry.py checks that the keys are the rules' categories.
CATEGORY_DOC = {
    "index_assert": "a device assert / CPU check with its line: the full trace-assert answer;",
    "extern_op": "an ATen op called by the wrapper failed (CPU exception at the call, ATen CUDA kernel assert, "
                 "a swallowed ``Exception in aoti_torch``): a trace with kind extern;",
    "deprecated_api": "torch._export.aot_compile / aot_load;",
    "input_check": "AOTI_RUNTIME_CHECK_INPUTS=1 (or the wrapper's size/stride assert) rejected an input;",
    "device_mismatch": "the text names an input on the wrong device;",
    "illegal_memory_access": "IMA / unspecified launch failure: steps and unchecked-indirect-access suspects;",
    "device_assert": "a device-side assert whose ``Assertion`` line is missing: candidates;",
    "load": "the package did not load (host lacks the device, ISA, symbols…);",
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
    return (f"torch warned about a CPU ISA difference ({f.text[:160]}); the host has every ISA the "
            "package needs")


# ---------------------------------------------------------------------------
# index_assert / extern_op: the trace
# ---------------------------------------------------------------------------

UNCHECKED_EXTERN = ("the failing extern call runs without AOTI_TORCH_ERROR_CODE_CHECK: the error is "
                    "printed and the run goes on, returning garbage with exit code 0")
TRACE_CHECK_INDEX = ("Check the index values named in the verdict before calling the model; the trace "
                     "shows which input they come from.")
TRACE_LAUNCH_BLOCKING = "Rerun with CUDA_LAUNCH_BLOCKING=1 so the failing kernel reports where it fails."

# ---------------------------------------------------------------------------
# deprecated_api
# ---------------------------------------------------------------------------


def deprecated_verdict(apis: list[str]) -> str:
    return (f"the code uses the deprecated {', '.join('torch._export.' + a for a in apis)}: switch to "
            "torch._inductor.aoti_compile_and_package / aoti_load_package")


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


def dtype_fix(expected: str) -> str:
    return f"convert it before the call: x.to(torch.{expected})"


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


CONFIRM_WITH_CHECKS = "Confirm with the runtime checks, which name the input."

# ---------------------------------------------------------------------------
# illegal_memory_access
# ---------------------------------------------------------------------------


def ima_on_cuda(key: str) -> str:
    return ("Check that every input is on cuda:N: CPU tensors fed to a CUDA package print exactly this "
            f"text (the package's AOTI_DEVICE_KEY is {key}). `pt2-inspect check PKG --input …@cuda` "
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


def not_loaded_verdict(said: str | None) -> str:
    return "the package did not load: " + (said or "see the log")[:200]


MISSING_MEMBER = ("a member the loader needs is missing from the archive: the file was truncated or "
                  "repacked; `pt2-inspect show PKG` lists what it holds")


def same_torch_step(dev: str) -> str:
    return ("Load it with the same torch version it was built with (`pt2-inspect show PKG`), on its "
            f"device ({dev}); a missing symbol means a torch version mismatch.")


CPP_STACK_LOAD = "Get the C++ stack of the failure."

# ---------------------------------------------------------------------------
# unknown
# ---------------------------------------------------------------------------

UNKNOWN_VERDICT = "no failure this version knows was found in the log; start with the input contract"


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
