"""Every regular expression over log text, named: the one place where pt2-inspect matches what users paste.

A ``Pattern`` says what one kind of text means (``name``), which failure it points to (``category``: a
diagnose category of ``inspector.queries.diagnose.rules.CATEGORIES``, or one of the ``ROLES`` below) and how
to read it (``regex``: its named groups become the typed fields of a fact, ``inspector.logs.facts``, or a plain
``LogEvent``'s ``fields``).  They are applied by ``inspector.logs.parse`` alone, in its one reading.  Groups:

* ``LOCATED``: a failing check with its file and line, or the call that noticed it (``parse_log`` turns them
  into ``DeviceAssert`` / ``AtenAssert`` / ``CheckFailure``, one ``ReportedAssert`` per distinct check, and
  ``FailedCall``); ``CPU_MSG``, ``NOTICED_ERROR`` and ``BARE_MSG`` read the lines around them;
* ``PATTERNS``: every other line that matches becomes one ``LogEvent`` (typed where a rule reads its fields);
* ``MENTIONS``: looked for anywhere in the text (where a crash happened: at load or at run);
* ``EVENT_DETAILS``: looked for in the recognised lines;
* ``DETAILS``: read inside a piece the reading already holds (the text of an input check, an event, a frame,
  an op's error, an exception line), or framing that carries nothing to understand.

Adding a failure category: its line patterns go in ``PATTERNS`` with the category's name; nothing else here.
Forms seen on real runs: sample_packages/*/error.log, */logs/*.log and /work/shared/FORMAT_NOTES.md.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

# What a pattern's ``category`` may be besides a diagnose category: evidence that alone classifies nothing.
ROLES = ("symptom", "crash", "hint", "detail")


@dataclass(frozen=True)
class Pattern:
    """One kind of log text: ``name``, the ``category`` it points to, and its regular expression (``source``,
    compiled on first use as ``regex``: a command that reads no log, or only some patterns, compiles no others;
    the 77 of them cost a cached ``show`` a fifth of its time)."""

    name: str
    category: str
    source: str
    doc: str = ""
    flags: int = 0

    @functools.cached_property
    def regex(self) -> re.Pattern:
        return re.compile(self.source, self.flags)

    def search(self, text: str) -> re.Match | None:
        return self.regex.search(text)


def _p(name: str, category: str, regex: str, doc: str = "", flags: int = 0) -> Pattern:
    return Pattern(name, category, regex, doc, flags)


# ---------------------------------------------------------------------------
# Located checks (parse_log: DeviceAssert, AtenAssert, CheckFailure, FailedCall) and the lines read around them
# ---------------------------------------------------------------------------

CUDA_ASSERT = _p(
    "cuda_assert", "index_assert",
    r"(?P<file>[^\s:]+\.py):(?P<line>\d+):\s*\S+:\s*block:\s*\[(?P<block>[\d,\s]+)\],\s*thread:\s*\[(?P<thread>[\d,\s]+)\]\s*"
    r"Assertion\s*`(?P<msg>.*?)`\s*failed",
    "a Triton device assert, once per failing thread; the .py is the kernel's compile-time path")
ATEN_ASSERT = _p(
    "aten_cuda_assert", "extern_op",
    r"(?P<file>[^\s:]+\.(?:cu|cuh)):(?P<line>\d+):\s*(?P<kernel>\w+):\s*block:\s*\[[\d,\s]+\],\s*thread:\s*\[[\d,\s]+\]\s*"
    r"Assertion\s*`(?P<msg>.*?)`\s*failed",
    "an ATen CUDA kernel's own assert (EmbeddingBag.cu, IndexKernel.cu …): an extern op failed")
CPU_FROM = _p(
    "cpu_check", "index_assert",
    r"Exception raised from (?P<kernel>cpp_\w+) at (?P<file>\S+?\.cpp):(?P<line>\d+)",
    "an AOTI_TORCH_CHECK in a CPU kernel; the line counts in the package's kernel.cpp (2.6: <hash>.cpp)")
CPU_MSG = _p(
    "cpu_message", "detail",
    r"(?:RuntimeError|Error|what\(\)|c10::Error|IndexError):\s+(?P<msg>.+?)\s*$",
    "the message of a CPU check, in one of the 3 lines above its `Exception raised from`")
NOTICED = _p(
    "api_call_failed", "symptom",
    r"Error:\s+(?P<call>\w+)\(.*?\)\s+API call failed at (?P<file>\S+?\.cpp), line (?P<line>\d+)",
    "a call in run_impl returned an error; its line counts in the wrapper")
NOTICED_RUNNER = _p(
    "runner_call", "detail", r"^run_func_",
    "the runner's own call (model_container_runner.cpp): not a call of the wrapper")
NOTICED_ERROR = _p(
    "noticed_error", "detail",
    r"^\s*(?:RuntimeError|IndexError|ValueError|c10::Error|what\(\)):\s+(?P<msg>.+?)\s*$",
    "the exception printed in the 40 lines after a failed call (on CPU: the op's own error)")
NOTICED_ECHO = _p(
    "noticed_echo", "detail", r"API call failed",
    "an exception line that only repeats the failed call, not the op's error")
BARE_MSG = _p(
    "bare_message", "index_assert", r"(index out of bounds:[^`\"\n]*?)(?:`|\"|$)",
    "only an index-assert message was pasted (no file, no line)", re.M)

LOCATED = [CUDA_ASSERT, ATEN_ASSERT, CPU_FROM, NOTICED]

# ---------------------------------------------------------------------------
# Everything else: one event per line that matches
# ---------------------------------------------------------------------------

PATTERNS: list[Pattern] = [
    # -- issue 15: the guide's other failures (exact texts from real runs: sample_packages/harvest/issue15*,
    #    sample_packages/cpu/embedding/weights/*.log, sample_packages/cpu/jagged/logs/torch26_*.log) --------
    _p("symbolic_assert", "symbolic_assert",
       r"Expected (?P<cond>.+?)(?: to be True)? but received (?P<got>-?\d+)",
       "a runtime assertion on a symbolic size (torch._check, an export constraint, an unbacked symbol's range)"),
    _p("nan_inf_input", "nan_inf", r"At least one (?P<what>NaN|INF|Inf) in (?P<buf>\w+)",
       "the NaN/Inf check compiled in (nan_asserts) found one in a buffer or input"),
    _p("nan_inf_call", "nan_inf",
       r"aoti_torch_check_inf_and_nan\(\s*\"(?P<buf>\w+)\".*?API call failed at (?P<file>\S+?\.cpp), line (?P<line>\d+)",
       "the NaN/Inf check's call in the wrapper, with its line"),
    _p("nan_inf_triton", "nan_inf", r"NaN or Inf found", "a Triton kernel's NaN/Inf device assert"),
    _p("printer_block", "printer",
       r"^\[\s+(?P<when>before_launch|after_launch|aoti_model_inputs) - (?P<kernel>[^\s\]]+?)(?: - (?P<arg>[^\s\]:]+))?"
       r"\s+\]:",
       "the intermediate value printer at level 2: the statistics of one kernel argument before or after it ran"),
    _p("printer_mark", "printer", r"^\[ (?P<when>before_launch|after_launch): (?P<kernel>[^\s\]]+) \]\s*$",
       "the intermediate value printer at level 3: a kernel starting or ending, no values"),
    _p("constant_not_found", "constants", r"Constant not found: (?P<fqn>\S+)",
       "load_constants / update_constant_buffer got a key that is not a constant of the package"),
    _p("constants_map_missing", "constants", r"Cannot find constants (?P<name>\w+) in constants_map",
       "a full update (check_full_update=True) lacks one of the package's constants (internal name)"),
    _p("constant_device", "constants",
       r"[Cc]onstant '(?P<name>[^']+)' (?:is on|has) device type (?P<got>\d+) but (?:model )?expect(?:ed|s) device type (?P<exp>\d+)",
       "a new constant is on another device than the package's (2.11: `update_constant_buffer does not support "
       "mixed device constants. Constant 'lin.weight' has device type 0 but model expects device type 1`)"),
    _p("constant_not_provided", "constants",
       r"Found constant or module state buffer or empty module state parameter (?P<name>\w+) in model, but not provided by user",
       "a full update (load_constants(check_full_update=True)) left a constant out: only this warning says so, and the "
       "run reads uninitialised memory (BERT's non-persistent buffers are not in state_dict())"),
    _p("weights_corrupt", "constants", r"Weights data seems corrupt",
       "the weights blob (in the .so or beside it) is damaged or misaligned"),
    _p("out_of_memory", "out_of_memory",
       r"(?:CUDA|HIP|XPU)? ?out of memory\. Tried to allocate (?P<size>[\d.]+ [KMGTP]?i?B)"
       r"(?:\. GPU (?P<gpu>\d+) has a total capacity of (?P<total>[\d.]+ [KMGTP]?i?B) of which (?P<free>[\d.]+ [KMGTP]?i?B) is free)?"
       r"|DefaultCPUAllocator: (?:can't allocate memory|not enough memory): you tried to allocate (?P<bytes>\d+) bytes"
       r"|(?P<driver>CUDA driver error: out of memory)|(?P<runtime>CUDA error: out of memory)"
       r"|(?P<cublas>CUBLAS_STATUS_ALLOC_FAILED)",
       "an allocation failed: the device (or host) has less free memory than the run asked for (the caching "
       "allocator's `CUDA out of memory. Tried to allocate …`, the CPU allocator's, or, with the cache off or at a "
       "kernel's load, the CUDA runtime's / driver's `out of memory`)"),
    _p("custom_op_missing", "custom_op", r"Could not find schema for (?P<op>[\w:.]+)",
       "the package calls a custom op that is not registered in the serving process"),
    _p("no_proxy_executor", "custom_op", r"Unable to find a proxy executor",
       "the package calls ops through the proxy executor, which this runtime lacks"),
    _p("undefined_shim_symbol", "torch_version", r"undefined symbol:\s*(?P<symbol>aoti_\w+)",
       "the .so calls a C-shim function the loading torch does not export (built by a newer torch)"),
    _p("rootless_loader", "torch_version", r"No AOTInductor generate cpp file or so file found in zip archive",
       "an old loader (torch 2.6) looking for data/aotinductor/ at the archive's top"),
    _p("no_aoti_model", "wrong_artifact",
       r"Failed to find a generated cpp file or so file for model '(?P<model>[^']*)'",
       "aoti_load_package was given an archive with no compiled model (a torch.export.save file?)"),
    _p("export_load_failed", "wrong_artifact", r"We ran into an error when deserializing the saved file",
       "torch.export.load was given something it cannot read (an AOTInductor package?)"),
    _p("input_check", "input_check",
       r"input_handles\[(?P<input>\d+)\]:\s*(?P<what>.+?)\s*$",
       "AOTI_RUNTIME_CHECK_INPUTS=1 rejected an input"),
    _p("size_assert", "input_check",
       r"expected size (?P<got>\d+)==(?P<exp>\d+), stride (?P<sgot>\d+)==(?P<sexp>\d+) at dim=(?P<dim>\d+)",
       "the wrapper's assert_size_stride on an input: a size differs from the one another input fixed"),
    _p("device_side_assert", "device_assert",
       r"device-side assert triggered", "a CUDA kernel asserted; its Assertion line may be missing"),
    _p("cublas_error", "device_assert",
       r"(?P<status>CUBLAS_STATUS_\w+)(?: when calling `(?P<api>\w+))?",
       "cuBLAS failed: usually a symptom of an earlier device-side assert or bad memory (`CUBLAS_STATUS_INTERNAL_ERROR "
       "when calling `cublasCreate(handle)``: the status, and the cuBLAS call when printed)"),
    _p("illegal_memory_access", "illegal_memory_access",
       r"(?P<illegal_memory_access>an illegal memory access was encountered)|(?P<launch_failure>unspecified launch "
       r"failure)|(?P<misaligned_address>misaligned address)|"
       r"(?P<illegal_instruction>an illegal instruction was encountered)|(?P<illegal_address>CUDA_ERROR_ILLEGAL_ADDRESS)",
       "a kernel read or wrote outside its tensors (or was given host memory); which CUDA error it is, by the "
       "group that matched (``CUDA_ERROR_KINDS``)"),
    _p("device_mismatch", "device_mismatch",
       r"resides on host memory and is not registered with any CUDA device|"
       r"Expected \w+ tensor to have device \S+, but got \S+|unmatched device type|"
       r"Expected all tensors to be on the same device|expected device \S+ but got device \S+",
       "an input is on the wrong device"),
    _p("exception_in_aoti_torch", "extern_op",
       r"Exception in aoti_torch:\s*(?P<msg>.+?)\s*$",
       "an ATen op called by the wrapper threw; when the call is not checked the run goes on with garbage"),
    _p("runner_failed", "symptom",
       r"run_func_\(.*?\) API call failed at (?P<file>\S+?model_container_runner\.cpp), line (?P<line>\d+)",
       "the model's run returned an error (the runner, not the wrapper)"),
    _p("isa_mismatch", "load",
       r"Device information mismatch for (?P<key>AOTI_\w+):\s*(?P<package>.*?) vs (?P<host>.*?)\.\s",
       "the package was compiled for another CPU ISA / GPU than this host"),
    _p("no_kernel_image", "load",
       r"no kernel image is available for execution on the device|CUDA driver version is insufficient|"
       r"Found no NVIDIA driver|Torch not compiled with CUDA enabled|"
       r"compiled for (?:CUDA|cuda).*?(?:not|no) .*available",
       "the host cannot run the package's device code"),
    _p("undefined_kernel_image", "load", r"undefined symbol:\s*(?P<symbol>__\w+_start)\b",
       "the .so names an embedded kernel image (__<kernel>_start) its build did not embed (a compile_standalone "
       "package built by aoti_load_package, not by its CMakeLists.txt)"),
    _p("load_failure", "load",
       r"undefined symbol:\s*\S+|cannot open shared object file|Failed to load|"
       r"Illegal instruction|failed to dlopen|Error in dlopen|aoti_load_package.*(?:Error|failed)|"
       r"AOTIModelPackageLoader\(|AOTIModelContainerRunner\w*\(",
       "the package did not load"),
    _p("sigill", "crash", r"Illegal instruction|SIGILL|target signal 4\b",
       "the process died on an instruction the CPU does not have (exit 132): a package built for a wider ISA "
       "(-march=native, AVX-512, AMX) than the host's"),
    _p("arithmetic_fault", "arithmetic_fault",
       r"Floating point exception|SIGFPE|Arithmetic exception|\bsignal 8\b|\b(?:rc|returncode|exit code)[=: ]+-8\b",
       "the process died of SIGFPE (exit 136, a subprocess's -8): an integer division by zero (or INT_MIN / -1) in "
       "native code. Real forms (sample_packages/cpu/transformer/logs/sigfpe_*.log): Python faulthandler's `Fatal "
       "Python error: Floating point exception`, bash's `bash: line 1: PID Floating point exception …`, gdb's "
       "`Program received signal SIGFPE, Arithmetic exception.`; our sweep/repro's `killed by SIGFPE`, `rc -8`"),
    _p("segfault", "crash", r"Segmentation fault|SIGSEGV|signal 11",
       "the process crashed: at load time a bad package/host, at run time an out-of-bounds access"),
    _p("deprecated_api", "deprecated_api",
       r"torch\._export\.(?P<api>aot_compile|aot_load)\b|\b(?P<api2>aot_compile|aot_load)\(|"
       r", in (?P<api3>aot_compile|aot_load)\s*$",
       "a deprecated AOTI entry point"),
    _p("cpuinfo_flags", "hint", r"^flags\s*:\s*(?P<flags>.+)$",
       "a /proc/cpuinfo flags line: the host's CPU features"),
    _p("old_package", "hint",
       r"Loading outdated pt2 file|Could not dlsym (?P<symbol>\w+)",
       "the package was built by an older torch than the one loading it"),
    _p("terminate_recursive", "hint", r"terminate called recursively",
       "the error text was lost inside OpenMP threads"),
    _p("raised_from", "detail", r"Exception raised from (?P<fn>\w+) at (?P<file>\S+?):(?P<line>\d+)",
       "the function c10 names as the one that raised (`Exception raised from roi_align_forward_kernel at …/"
       "roi_align_kernel.cu:250`; a CPU kernel's own check is ``cpu_check``)"),
    _p("run_finished", "no_failure",
       r"\b(?:rc|returncode|return code|exit code|exit status|exited with)[=: ]+0\b|\brun finished\b|"
       r"^ok torch\.Size\(|\boutput \d+: shape=",
       "a line that says the run ended well: an exit code of 0, or an output printed (the harnesses' `[options] "
       "output 0: shape=(32, 16) …`, `[options] run finished`, `ok torch.Size([4, 8]) …`, a runner's `rc 0`)"),
]

# The kinds of CUDA error ``illegal_memory_access`` tells apart (its named groups), for ``facts.CudaError``.
CUDA_ERROR_KINDS = ("illegal_memory_access", "launch_failure", "misaligned_address", "illegal_instruction",
                    "illegal_address")

# ---------------------------------------------------------------------------
# Anywhere in the text (LogReport.mentions)
# ---------------------------------------------------------------------------

MENTIONS: list[Pattern] = [
    _p("at_load", "detail", r"load_package|_load_aoti|AOTIModelPackageLoader|aoti_load_package|load_pt2",
       "a frame of the loading code: a crash happened while loading"),
    _p("at_run", "detail", r"in __call__|boxed_run|run_impl|\bforward\b",
       "a frame of the model's run: a crash happened while running"),
    _p("python_traceback", "detail", r"Traceback", "a Python traceback: the process raised, not merely warned"),
    _p("aborted", "detail", r"terminate called|Aborted \(core dumped\)|SIGABRT|Fatal Python error: Aborted",
       "the process aborted: nothing after the failure ran on"),
    _p("elided", "detail",
       r"^\s*\[\s*\.\.\.|\.\.\.\s*\]\s*$|\b\d+ (?:more )?lines? (?:left out|omitted|truncated|skipped)\b",
       "a line that stands for lines left out (`[...]`, `[... 40 lines left out ...]`): what the log does not show "
       "may still have happened (which threads failed, for one)"),
    _p("launch_blocking", "detail", r"^(?!.*consider passing).*\bCUDA_LAUNCH_BLOCKING[= ]+1\b",
       "the run was made with CUDA_LAUNCH_BLOCKING=1 (a line that sets or echoes it; not torch's advice `For "
       "debugging consider passing CUDA_LAUNCH_BLOCKING=1`): a CUDA error is then reported by the launch that made it"),
    _p("device_assert_said", "detail", r"device-side assert",
       "the text says a device-side assert fired (trace-assert --message: then its candidates)"),
    _p("torch_said", "detail",
       r"torch|aoti|AOTI|[Ii]nductor|\.pt2\b|CUDA|cuda|[Tt]riton|ATen|\bc10\b|cubin|model_container|run_impl|"
       r"cpp_fused_|wrapper\.cpp",
       "a line torch, AOTInductor, ATen, CUDA or Triton printed (a log with none comes from another program)"),
]


# ---------------------------------------------------------------------------
# Inside a piece a rule already holds
# ---------------------------------------------------------------------------

INPUT_RANGE = _p(
    "input_range", "detail",
    r"dim value is too (?P<dir>small|large) at (?P<dim>\d+), expected(?: it)? to be (?P<op>[<>]=) "
    r"(?P<limit>-?\d+), but got: (?P<got>-?\d+)",
    "an input check's text: a dynamic dim outside its guards")
INPUT_DTYPE = _p(
    "input_dtype", "detail",
    r"unmatched dtype, expected: (?P<exp>\d+)(?:\((?P<expname>[^)]*)\))?, but got: (?P<got>\d+)",
    "an input check's text: a dtype (c10::ScalarType codes)")
INPUT_DEVICE = _p(
    "input_device", "detail",
    r"unmatched device type, expected: (?P<exp>\S+?),? but got: (?P<got>\S+)",
    "an input check's text: a device type")
# c10's own wording (aten/src/ATen/core/adaption.cpp, c10::impl::common_device_check_failure; TensorIterator's
# "but got … different from other tensors on"): two devices in one call, the argument named and its device.
DEVICE_PAIR = _p(
    "device_pair", "detail",
    r"Expected all tensors to be on the same device, but found at least two devices, (?P<first>[\w]+(?::\d+)?) and "
    r"(?P<second>[\w]+(?::\d+)?)!(?: \(when checking argument for argument (?P<arg>\w+) in method (?P<method>\w+)\))?"
    r"|Expected all tensors to be on the same device, but got (?P<arg2>\w+) is on (?P<second2>[\w]+(?::\d+)?), "
    r"different from other tensors on (?P<first2>[\w]+(?::\d+)?)(?: \(when checking argument in method (?P<method2>\w+)\))?",
    "two devices in one ATen call: the other tensors' device, then the named argument's (c10's wording)")
INPUT_SIZE = _p(
    "input_size", "detail",
    r"unmatched dim value at (?P<dim>\d+), expected: (?P<exp>-?\d+), but got: (?P<got>-?\d+)",
    "an input check's text: a static size")
INPUT_STRIDE = _p(
    "input_stride", "detail",
    r"unmatched stride value at (?P<dim>\d+), expected: (?P<exp>-?\d+), but got: (?P<got>-?\d+)",
    "an input check's text: a stride")
DEVICE_CODE = _p(
    "device_code", "detail", r"^(?P<code>\d+)\((?P<name>\w+)\)",
    "a device type as the input check prints it: ``11(cuda)``")
ERROR_LINE = _p(
    "error_line", "detail", r"Error|error:|Exception|failed",
    "a line that says something failed (the evidence of a log no rule claimed)")
EXCEPTION_LINE = _p(
    "exception_line", "detail", r"^\s*\w*(Error|Exception)\b.*:",
    "a raised exception's line (`RuntimeError: …`)")
MISSING_MEMBER = _p(
    "missing_member", "detail", r"File not found",
    "the loader's exception names a member missing from the archive")
NOT_ELF = _p(
    "not_elf", "detail", r"invalid ELF header",
    "dlopen of a file that is not a shared object (aot_load given a .pt2)")

# Read by trace-assert (inspector.queries.trace) in a pasted message: the line that states the failure, and an
# ATen op's limit in its error.
FRAMING = _p(
    "framing", "detail", r'Traceback \(most recent call last\):|File ".*", line \d+|frame #\d+:|\^+$',
    "a line of a Python traceback's or a C++ stack's framing, not the failure itself")
# Read by parse_log's count of what it did not understand: lines that carry nothing to understand.
UNREAD_FRAMING = _p(
    "unread_framing", "detail",
    r"^(?:During handling of the above exception, another exception occurred:|The above exception was the direct "
    r"cause of the following exception:|[-=~^*#_.\s]+$|\[\s*\.\.\..*\]$"
    r"|<omitting python frames>|<no Python frame>|<\d+ frames trimmed>|(?:Current thread|Thread) 0x[0-9a-f]+ \(most "
    r"recent call first\):|Extension modules: "
    r"|CUDA kernel errors might be asynchronously reported|For debugging consider passing CUDA_LAUNCH_BLOCKING=1"
    r"|Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions|Search for `cudaError\w+' in https://)",
    "a line that carries nothing to understand: a traceback's chaining line, a rule of dashes, carets or equals "
    "signs, an elision mark (`[...]`), a stack's own framing (`<omitting python frames>`, `<3 frames trimmed>`, "
    "faulthandler's `Current thread 0x… (most recent call first):` and `Extension modules: …`), the advice torch "
    "prints under every CUDA error (`CUDA kernel errors might be asynchronously reported …`)")
SAYS_FAILURE = _p(
    "says_failure", "detail", r"index out of bounds|Assertion|Error|error|failed",
    "a line that states a failure (the one quoted when nothing matched)")
EXTERN_LIMIT = _p(
    "extern_limit", "detail", r"range \[0, (\d+)\)|size (\d+)",
    "an ATen op's error naming the size an index must stay under (group 1 or 2)")

# An ATen op's error that is about a tensor's layout, not an index's value: read by the extern trace, which must not
# take a size in it for a table's bound (`setStorage: sizes [300, 4] … storage of size 0` is no index 300 or 4).
ATEN_LAYOUT_ERRORS = [
    _p("aten_storage", "detail",
       r"setStorage: sizes \[(?P<sizes>[^\]]*)\].*?out of bounds for storage of size (?P<storage>\d+)|"
       r"out of bounds for storage of size (?P<storage2>\d+)",
       "a view whose sizes need more memory than the tensor has: a size that is 0 here, or an op whose output is "
       "smaller than its meta said"),
    _p("aten_shape", "detail",
       r"shape '\[[^\]]*\]' is invalid for input of size \d+|shapes cannot be multiplied|"
       r"must match the size of tensor \w+ \(\d+\) at non-singleton dimension|Sizes of tensors must match",
       "shapes that do not fit together"),
    _p("aten_dtype", "detail",
       r"expected scalar type \w+ but found \w+|expected (?:m1|mat1) and (?:m2|mat2) to have the same dtype|"
       r"Expected tensor for argument .*? to have (?:the same )?(?:scalar type|dtype)",
       "a tensor of another dtype than the op needs"),
]

PYTHON_FRAME = _p(
    "python_frame", "detail",
    r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)(?:\n\s*(?P<code>[^\n]*))?',
    "a frame of a Python stack trace (an exported program's stack_trace, a traceback): file, line, function and "
    "the code line under it when there is one")

# A native stack's frame, gdb's (``#6  0x… in torch::aot_inductor::AOTInductorModel::run_impl () at
# /tmp/…/cnorm….wrapper.cpp:2780``) or torch's (``frame #7: aoti_torch_cuda_mm_out + 0x8b (0x… in …)``).
NATIVE_FRAME = _p(
    "native_frame", "detail",
    r"^\s*(?:#(?P<gdb>\d+)\s+(?:0x[0-9a-fA-F]+\s+in\s+)?|frame #(?P<torch>\d+):\s+)(?P<fn>.+?)"
    r"(?:\s+at\s+(?P<file>\S+?):(?P<line>\d+))?\s*$",
    "a frame of a native backtrace (gdb's `#N … at FILE:LINE`, torch's `frame #N: …`)")
FRAME_FUNCTION = _p(
    "frame_function", "detail", r"(?P<name>[A-Za-z_]\w*+)(?:<[^()]*>)?\s*\((?!anonymous)",
    "the function a native frame names (`cpu_flash_attention` in `void at::native::(anonymous namespace)::"
    "cpu_flash_attention<float, …>(at::Tensor const&, …)`); the name is possessive (``\\w*+``): a shorter one is "
    "followed by a word character, which nothing after it accepts, and trying each made a long frame slow")
SHIM_IN_FRAME = _p(
    "shim_in_frame", "detail", r"\baoti_torch_(?P<device>cpu|cuda|xpu|mps)[._](?P<op>\w+)",
    "the C shim a native frame names (`aoti_torch_cpu.scaled_dot_product_flash_attention_for_cpu`: gdb prints a "
    "dot for the shim's local symbol; `aoti_torch_cuda_mm_out`)")

PRINTER_STAT = _p(
    "printer_stat", "detail",
    r"^(?P<key>Number of elements|Dtype|Mean value|Min value|Max value|Size|Stride|Device|Layout|Is contiguous"
    r"|Requires grad):\s*(?P<value>.*?)\s*$",
    "a statistic line of the printer's block (level 2), after its values")

# The values of a printer block (numel <= 64), as torch's C++ tensor printer (ATen's Formatting.cpp, `at::print`)
# writes them between the block's header and its statistics.  Its layouts:
# * 0-d: the value, then the footer; 1-d: one value a line; 2-d: a row a line, each value right-aligned to one
#   width; n-d: a `(i,j,.,.) = ` line before each 2-d slice (the first index varies fastest), slices apart by a
#   blank line; an empty tensor: the footer alone.  The footer: `[ CPUFloatType{2,13} ]` (`{}` for 0-d).
# * wide (more columns than fit 80 characters): `Columns 1 to 10` chunks, apart by a blank line; the chunk header
#   is followed by no line break: the first row (`Columns 7 to 12-6.6385e-01  1.2e-01`) or the scale line
#   (`Columns 1 to 100.001 *`) runs into it.
# * formats: integers (`24`), fixed (`-0.0778`, 4 decimals), scientific (`-1.0782e-18`), a scale printed before
#   the values they are to be multiplied by (`0.001 *`, `1e-43 *`, `1e+06 *`, `100000 *`: a power of ten);
#   non-finite as glibc writes them: `nan`, `-nan`, `inf`, `-inf`; bools as 0 and 1.
PRINTER_VALUES_END = _p(
    "printer_values_end", "detail",
    r"^\[ (?P<type>[A-Za-z0-9_]+)\{(?P<sizes>[\d,]*)\}(?P<rest>.*?)\s*\]$",
    "the footer of a printer block's values: the tensor's type and sizes (`[ CPUFloatType{2,13} ]`)")
PRINTER_SCALE_FORM = r"(?:1e[+-]\d+|10+|0\.0*1)"
PRINTER_COLUMNS = _p(
    "printer_columns", "detail",
    r"^\s*Columns (?P<first>\d+) to (?P<last>\d+?)(?: ?(?P<scale>" + PRINTER_SCALE_FORM + r") \*\s*$|(?=[\s\-ni]|$))"
    r"(?P<row>.*)$",
    "a wide tensor's chunk header, with what runs into it: a scale (`Columns 11 to 130.001 *`: columns 11 to 13, "
    "scale 0.001; in an n-d slice one space apart, `Columns 1 to 9 0.01 *`) or the chunk's first row (`Columns 7 "
    "to 12-6.6385e-01 …`); a scale is a power of ten written shortest, so the header's last number ends where the "
    "scale's form can begin")
PRINTER_SCALE = _p(
    "printer_scale", "detail", r"^\s*(?P<scale>" + PRINTER_SCALE_FORM + r") \*\s*$",
    "the scale line before a tensor's values (`0.01 *`): each printed value times it is the value")
PRINTER_SLICE = _p(
    "printer_slice", "detail", r"^\s*\((?P<index>(?:\d+,)+)\.,\.\) =\s*$",
    "the header of one 2-d slice of an n-d tensor's values (`(2,1,.,.) = `, 1-based)")
PRINTER_NUMBER = r"[-+]?(?:nan|inf|\d+(?:\.\d*)?(?:e[+-]?\d+)?)"
PRINTER_ROW = _p(
    "printer_row", "detail", r"^\s*+(?:(?>" + PRINTER_NUMBER + r")\s*+)++$",
    "one row of a printer block's values: numbers right-aligned, a negative one may fill its width (each number "
    "atomic: `1234` is never tried as `1`, `2`, `3`, `4`, which made a long line of digits cost 190 µs, not 2)")
PRINTER_VALUE = _p("printer_value", "detail", PRINTER_NUMBER, "one value of a row")
PRINTER_SYMINT = _p(
    "printer_symint", "printer",
    r"\[  (?P<when>before_launch|after_launch) - (?P<kernel>[^\s\]]+?) - (?P<arg>[^\s\]]+): (?P<value>-?\d+)  \]\\n",
    "a size argument the printer printed (`[  before_launch - k - s17: 8  ]\\n`): printf'd with a literal "
    "backslash-n, so several of them and the next block's header share one line")

SYMBOL_NAME = _p(
    "symbol_name", "detail", r"\b(?P<symbol>[us]\d+)\b",
    "a size symbol in a runtime assertion's condition: s<N> backed by an input dim, u<N> read from data")

DETAILS = [*ATEN_LAYOUT_ERRORS, PYTHON_FRAME, NATIVE_FRAME, FRAME_FUNCTION, SHIM_IN_FRAME, SYMBOL_NAME, PRINTER_STAT, PRINTER_VALUES_END,
           PRINTER_COLUMNS, PRINTER_SCALE, PRINTER_SLICE, PRINTER_ROW, PRINTER_VALUE, PRINTER_SYMINT, CPU_MSG, NOTICED_RUNNER, NOTICED_ERROR, NOTICED_ECHO, INPUT_RANGE, INPUT_DTYPE, INPUT_DEVICE,
           DEVICE_PAIR,
           INPUT_SIZE, INPUT_STRIDE, DEVICE_CODE, ERROR_LINE, EXCEPTION_LINE, MISSING_MEMBER, NOT_ELF, FRAMING,
           UNREAD_FRAMING, SAYS_FAILURE, EXTERN_LIMIT]

REGISTRY: dict[str, Pattern] = {p.name: p for p in [*LOCATED, BARE_MSG, *PATTERNS, *MENTIONS, *DETAILS]}

# Looked for in the recognised lines only (LogReport.events_say).
EVENT_DETAILS: list[Pattern] = [NOT_ELF, REGISTRY["device_assert_said"]]
