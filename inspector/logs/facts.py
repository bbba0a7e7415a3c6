"""What one reading of a log found (``inspector.logs.parse.parse_log``): one typed fact per recognised line, each
with ``line_no``, the 1-based line of the log it came from (``str.splitlines`` numbering).  Frozen where the
reading can make them whole; a printer block and a distinct check (``ReportedAssert``) are filled as the reading
goes.  No regular expression and no sentence is here: the reading fills the fields, the rules read them.

* the located checks, one fact per printed line: ``DeviceAssert`` (a Triton assert), ``AtenAssert`` (an ATen CUDA
  kernel's own), ``CheckFailure`` (a CPU ``AOTI_TORCH_CHECK``), and ``ReportedAssert``, one per distinct check;
* ``FailedCall``: a call of run_impl that returned an error (``API call failed at …wrapper.cpp, line N``);
* ``LogEvent``: a line one of ``patterns.PATTERNS`` recognised; the patterns whose fields a rule reads make a
  typed subclass (``OutOfMemory``, ``CudaError``, ``InputCheck``, ``SymbolicAssert``, …), the others a plain
  ``LogEvent`` (its ``fields`` the pattern's named groups);
* ``PrinterBlock`` (the intermediate value printer), ``PythonFrame`` and ``NativeFrame`` (stack frames);
* ``FailureLine`` / ``ExceptionLine``: any line that says something failed / a raised exception's line (the
  evidence of a log no rule claims);
* ``OpError``: an ATen op's error message read for what it is about (a tensor's layout, or an index's limit).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import inspector.logs.patterns as P

# ---------------------------------------------------------------------------
# Read inside a message
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OpError:
    """An ATen op's error message: ``layout`` "storage" | "shape" | "dtype" when it is about a tensor's layout (no
    index bound in it), else ``limit``, the size it names that an index must stay under (None: names none)."""

    message: str
    layout: str | None = None
    limit: int | None = None


# ---------------------------------------------------------------------------
# The located checks
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceAssert:
    """A Triton device assert, one line per failing thread: ``file`` the kernel's .py as compiled, ``line`` in it."""

    file: str
    line: int
    message: str
    block: str  # "0,0,0": as printed, spaces dropped
    thread: str
    printed: str  # the line as printed, stripped
    line_no: int
    pattern: str = P.CUDA_ASSERT.name


@dataclass(frozen=True)
class AtenAssert:
    """An ATen CUDA kernel's own assert (EmbeddingBag.cu, IndexKernel.cu …): ``kernel`` the CUDA function."""

    file: str
    line: int
    kernel: str
    message: str
    printed: str  # the line as printed, stripped
    line_no: int
    op_error: OpError | None = None
    pattern: str = P.ATEN_ASSERT.name


@dataclass(frozen=True)
class CheckFailure:
    """A CPU kernel's ``AOTI_TORCH_CHECK`` (``Exception raised from <kernel> at <…>.kernel.cpp:<line>``), with the
    message printed in one of the 3 lines above it (``message_line_no``; 0 and "" when none was)."""

    kernel: str
    file: str
    line: int
    message: str
    message_line_no: int
    printed: str  # the line as printed, stripped
    line_no: int
    pattern: str = P.CPU_FROM.name
    message_pattern: str = P.CPU_MSG.name


@dataclass(frozen=True)
class BareMessage:
    """Only an index assert's message, with no file or line (a pasted fragment)."""

    message: str
    line_no: int
    pattern: str = P.BARE_MSG.name


@dataclass
class ReportedAssert:
    """One distinct failing check: the located facts above that say the same check (a CUDA assert printed by many
    threads is one), or a bare message when the log holds no located one."""

    kind: str  # "cuda" | "cpu" | "aten" (an ATen CUDA kernel's own assert) | "message"
    message: str
    file: str | None = None  # the .py (CUDA), .kernel.cpp (CPU) or .cu (ATen) path as printed
    line: int | None = None
    kernel: str | None = None  # CPU: the kernel the exception names; ATen: the CUDA kernel function
    occurrences: int = 1  # CUDA: failing threads seen
    threads: list = field(default_factory=list)  # CUDA: (block, thread) of each failing thread printed, as written
    first_text: str = ""  # the first line it came from
    line_no: int = 0  # that line's number in the log (0: a bare message's, when not known)
    pattern: str = ""  # the pattern that found it (evidence's code)
    message_pattern: str | None = None  # CPU: the pattern that found the message above it
    op_error: OpError | None = None  # ATen: its message read as an op's error

    @property
    def file_name(self) -> str | None:
        return self.file.rsplit("/", 1)[-1] if self.file else None


@dataclass(frozen=True)
class FailedCall:
    """A call in run_impl that reported an error: on CUDA a later call that noticed it; on CPU the op that failed.
    ``error``: the op's own exception, printed in the 40 lines after it (``error_line_no``) or, on torch 2.8, in the
    ``Exception in aoti_torch`` line before it."""

    call: str
    file: str
    line: int  # in the wrapper
    printed: str  # the line as printed, stripped
    line_no: int
    error: str | None = None
    error_line_no: int = 0
    op_error: OpError | None = None  # ``error`` read as an op's error
    pattern: str = P.NOTICED.name
    error_pattern: str = P.NOTICED_ERROR.name

    @property
    def file_name(self) -> str:
        return self.file.rsplit("/", 1)[-1]


# ---------------------------------------------------------------------------
# Every other recognised line (patterns.PATTERNS)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LogEvent:
    """A recognised line that is not a located check: a symptom, an input check, a load failure…  A pattern whose
    fields a rule reads makes one of the typed subclasses below (its ``fields`` then empty)."""

    pattern: str  # the pattern's name
    category: str  # the failure category it points to
    printed: str  # the line as printed, stripped
    line_no: int  # 1-based line in the log
    fields: dict = field(default_factory=dict)  # a plain event's: the pattern's named groups


@dataclass(frozen=True, kw_only=True)
class SymbolicAssert(LogEvent):
    """``Expected u0 >= 10 but received 2``: a runtime assertion on a symbolic size; ``symbols`` the size symbols
    (``s<N>``, ``u<N>``) its condition names, in order."""

    cond: str
    got: int
    symbols: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class NanInfFound(LogEvent):
    """The NaN/Inf check compiled in fired: ``what`` NaN | INF | Inf, in ``buf``; ``line``: the checking call's
    wrapper line (nan_inf_call); a Triton kernel's own assert names neither."""

    what: str | None = None
    buf: str | None = None
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True, kw_only=True)
class ConstantNotFound(LogEvent):
    fqn: str


@dataclass(frozen=True, kw_only=True)
class ConstantNotInMap(LogEvent):
    """A full update lacks one of the package's constants: ``name`` its internal name."""

    name: str


@dataclass(frozen=True, kw_only=True)
class ConstantNotProvided(LogEvent):
    name: str


@dataclass(frozen=True, kw_only=True)
class ConstantOnDevice(LogEvent):
    """A new constant on another device type than the package's: the device type codes as printed."""

    name: str
    got: str
    expected: str


@dataclass(frozen=True, kw_only=True)
class OutOfMemory(LogEvent):
    """An allocation failed.  ``source``: who refused: "allocator" (the caching allocator, which names ``size`` and
    maybe ``free`` of ``total`` on ``gpu``), "cpu" (``bytes``), "runtime" / "driver" (no size), "cublas" (its own
    handle or workspace)."""

    source: str
    size: str | None = None  # as printed: "596.05 GiB"
    bytes: int | None = None
    free: str | None = None
    total: str | None = None
    gpu: int | None = None


@dataclass(frozen=True, kw_only=True)
class MissingCustomOp(LogEvent):
    op: str  # as printed (a sentence's full stop may follow it: ``name``)

    @property
    def name(self) -> str:
        return self.op.rstrip(".")


@dataclass(frozen=True, kw_only=True)
class UndefinedSymbol(LogEvent):
    """``undefined symbol: X``: a C-shim function (undefined_shim_symbol) or an embedded kernel image's
    ``__<kernel>_start`` (undefined_kernel_image)."""

    symbol: str


@dataclass(frozen=True, kw_only=True)
class InputCheck(LogEvent):
    """``input_handles[K]: …``: AOTI_RUNTIME_CHECK_INPUTS=1 rejected input ``input``.  ``kind``: "range" (a dynamic
    dim outside its guards: ``dim``, ``got``, ``bound`` "<=" | ">=", ``limit``, ``too`` "small" | "large"), "dtype"
    (c10::ScalarType codes ``got``, ``expected``), "device" (``got_device``, ``expected_device`` as printed, and
    their names), "size" / "stride" (``dim``, ``got``, ``expected``) or "other"."""

    input: int
    what: str  # the check's text after the colon
    kind: str
    dim: int | None = None
    got: int | None = None
    expected: int | None = None
    expected_name: str | None = None  # dtype: the name printed beside the code, if any
    bound: str | None = None
    limit: int | None = None
    too: str | None = None
    got_device: str | None = None  # "11(cuda)" | "0"
    expected_device: str | None = None
    got_device_name: str | None = None  # "cuda" | "cpu" | as printed
    expected_device_name: str | None = None


@dataclass(frozen=True, kw_only=True)
class SizeAssert(LogEvent):
    """``expected size 3==4, stride 8==8 at dim=0``: the wrapper's assert_size_stride (got == expected)."""

    got: int
    expected: int
    stride_got: int
    stride_expected: int
    dim: int


@dataclass(frozen=True, kw_only=True)
class CudaError(LogEvent):
    """A CUDA error: ``kind`` "illegal_memory_access" | "launch_failure" | "misaligned_address" |
    "illegal_instruction" | "illegal_address" (the driver's CUDA_ERROR_ILLEGAL_ADDRESS) | "device_side_assert" |
    "cublas" (``status``: CUBLAS_STATUS_…, ``api``: the cuBLAS call when printed)."""

    kind: str
    status: str | None = None
    api: str | None = None


@dataclass(frozen=True, kw_only=True)
class RaisedFrom(LogEvent):
    """``Exception raised from <fn> at <file>:<line>``: the function c10 names as the one that raised (a custom op's
    launch check, ``roi_align_forward_kernel``; the caching allocator's ``malloc``)."""

    fn: str
    file: str
    line: int


@dataclass(frozen=True, kw_only=True)
class DeviceMismatch(LogEvent):
    """An input on the wrong device.  c10's ``Expected all tensors to be on the same device`` names both devices
    (``first``: the other tensors', ``second``: the argument's) and maybe the argument and method; other forms
    name none (``first`` None)."""

    first: str | None = None
    second: str | None = None
    arg: str | None = None
    method: str | None = None


@dataclass(frozen=True, kw_only=True)
class ShimException(LogEvent):
    """``Exception in aoti_torch: …``: an ATen op called through the C shim threw."""

    message: str
    op_error: OpError


@dataclass(frozen=True, kw_only=True)
class IsaMismatch(LogEvent):
    """``Device information mismatch for AOTI_…: <package's> vs <host's>.``: the words of each side."""

    key: str
    package: tuple[str, ...]
    host: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class DeprecatedCall(LogEvent):
    """A deprecated AOTI entry point (aot_compile, aot_load); ``in_frame``: a traceback's frame names it (it was
    called), not only a warning."""

    api: str
    in_frame: bool = False


@dataclass(frozen=True, kw_only=True)
class CpuFlags(LogEvent):
    """A /proc/cpuinfo ``flags`` line: the host's CPU features."""

    flags: tuple[str, ...]


# ---------------------------------------------------------------------------
# The intermediate value printer, stack frames, and lines that say something failed
# ---------------------------------------------------------------------------


@dataclass
class PrinterBlock:
    """One block of the intermediate value printer: ``when`` ("before_launch" | "after_launch" |
    "aoti_model_inputs" | "mark:…" at level 3), the kernel (or extern op), the argument, its statistics, the
    launch it belongs to (``launch``: 1-based, in the order of the log; the before_launch blocks of one launch,
    then its after_launch blocks) and the how-manieth launch of that kernel it is (``call``; an extern op prints
    the same name at every call, so only the position tells one call from another).  ``line_no``: its header."""

    when: str
    kernel: str
    arg: str | None
    stats: dict[str, str] = field(default_factory=dict)
    call: int = 0
    line_no: int = 0
    launch: int = 0
    lines: list[str] = field(default_factory=list)  # the block as printed: its header, then its statistics
    # its values, when the printer printed them (numel <= 64), read from torch's C++ layout whatever form it took
    # (``printed_as``: "scalar", "column" (1-d), "rows" (2-d), "chunks" (2-d in `Columns a to b` chunks),
    # "slices" (n-d), "empty"; "unread": values were printed that did not add up to the footer's sizes)
    values: tuple[float, ...] | None = None  # row-major, each times its scale
    shape: tuple[int, ...] | None = None  # the footer's sizes (`{2,13}`)
    printed_as: str | None = None
    value_type: str | None = None  # the footer's type: "CPUFloatType", "CPULongType", "CPUBoolType", …

    def number(self, key: str) -> float | None:
        """A statistic as a float (``-nan`` and ``inf`` included), None when absent or unreadable."""
        v = self.stats.get(key)
        if v is None:
            return None
        try:
            return float(v)
        except ValueError:
            return None

    @property
    def bad(self) -> str | None:
        """"NaN" or "Inf" when the statistics hold one (or, where no statistic was printed, its values)."""
        vals = [self.number(k) for k in ("Mean value", "Min value", "Max value")]
        if not any(v is not None for v in vals):
            vals = list(self.values or ())
        if any(v is not None and v != v for v in vals):
            return "NaN"
        if any(v is not None and v in (float("inf"), float("-inf")) for v in vals):
            return "Inf"
        return None

    def count(self, what: str) -> int | None:
        """How many of its printed values are ``what`` ("NaN" | "Inf"); None when its values were not printed."""
        if self.values is None:
            return None
        if what == "NaN":
            return sum(1 for v in self.values if v != v)
        return sum(1 for v in self.values if v in (float("inf"), float("-inf")))

    def rows_holding(self, what: str) -> list[int] | None:
        """The indices along dim 0 whose values hold ``what`` ("NaN" | "Inf"): which rows of a batch went bad;
        None when its values were not printed or it has no dim 0."""
        if self.values is None or not self.shape:
            return None
        n = self.shape[0]
        per = len(self.values) // n if n else 0
        test = (lambda v: v != v) if what == "NaN" else (lambda v: v in (float("inf"), float("-inf")))
        return [r for r in range(n) if any(test(v) for v in self.values[r * per:(r + 1) * per])]


@dataclass(frozen=True)
class PythonFrame:
    """A frame of a Python stack trace (``File "build.py", line 84, in forward`` and the code line under it)."""

    file: str
    line: int
    fn: str
    code: str | None  # the code line under it, stripped; None when the trace shows none
    line_no: int = 0  # its ``File`` line in the text read


@dataclass(frozen=True)
class NativeFrame:
    """A frame of a native backtrace: gdb's (``#6  0x… in f () at FILE:LINE``) or torch's (``frame #7: f + 0x8b``).
    ``function``: the function it names (``cpu_flash_attention`` in ``void at::native::(anonymous namespace)::
    cpu_flash_attention<float, …>(…)``); ``shim``: the C shim it names, as ``aoti_torch_<device>_<op>``."""

    number: int
    fn: str  # the frame's text after its number
    file: str | None
    line: int | None
    function: str | None
    shim: str | None
    printed: str  # the line as printed, stripped
    line_no: int


@dataclass(frozen=True)
class FailureLine:
    """A line that says something failed (``Error``, ``error:``, ``Exception``, ``failed``), as printed (not
    stripped): the evidence of a log no rule claims."""

    printed: str  # the line as printed, stripped
    line_no: int
    pattern: str = P.ERROR_LINE.name


@dataclass(frozen=True)
class ExceptionLine:
    """A raised exception's line (``RuntimeError: …``), stripped; ``missing_member``: it says an archive member is
    missing (``File not found``)."""

    printed: str  # the line as printed, stripped
    line_no: int
    missing_member: bool = False
    pattern: str = P.EXCEPTION_LINE.name
