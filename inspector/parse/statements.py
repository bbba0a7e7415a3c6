"""What each grammar rule reads a statement into: one frozen dataclass a rule (issue 21 §1).

The transformers of `inspector.parse.wrapper_statements`, `.triton` and `.cpp_kernel` return these (never tagged
tuples), and the scanners dispatch on their type.  They are parse results, shared between statements of the same text (the
memo in `inspector.parse.grammar.parse_one`): nobody mutates them, hence frozen; slots, because a 20k-kernel
package holds hundreds of thousands.  What the index keeps (`inspector.model`) is built from them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Expr

# -- wrapper.cpp (grammars/wrapper.lark) --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InputSlot:
    """``std::move(inputs[K])``: the K-th input the caller passes."""

    index: int


@dataclass(frozen=True, slots=True)
class ConstantSlot:
    """``constants_->at(i)``: the i-th entry of constants_info_."""

    index: int


@dataclass(frozen=True, slots=True)
class Moved:
    """``std::move(buf2)``: the named buffer, reused."""

    name: str


@dataclass(frozen=True, slots=True)
class SizeOf:
    """``arg3_1_size[0]`` / ``arg3_1_stride[1]``: one dimension of a tensor's sizes or strides."""

    tensor: str
    kind: str  # "size" | "stride"
    dim: int

    @property
    def text(self) -> str:
        return f"{self.tensor}_{self.kind}[{self.dim}]"


@dataclass(frozen=True, slots=True)
class View:
    """``reinterpret_tensor_wrapper(buf3, 2, int_array_12, int_array_13, 0L)``: a view of a buffer."""

    base: str
    args: tuple[Expr, ...] = ()

    @property
    def sizes(self) -> str | None:
        """The name of its size array (``int_array_12``), None when its second argument names none."""
        return self.args[1].names[0] if len(self.args) > 1 and self.args[1].names else None


@dataclass(frozen=True, slots=True)
class Tail:
    """What follows a statement on its line: ``buf3.reset();`` after a view, the printer's ``printf("\\n");``."""

    expr: Expr


@dataclass(frozen=True, slots=True)
class Decl:
    """``int64_t s2 = arg3_1_size[0];`` / ``auto arg0_1 = std::move(inputs[0]);`` / ``int64_t u0_raw;`` (value
    ``Expr("")``): a declaration, its value read into the shape the index needs when it has one."""

    type: str
    name: str
    value: Expr | InputSlot | ConstantSlot | Moved | SizeOf | View
    tail: Expr | None = None


@dataclass(frozen=True, slots=True)
class HandleDecl:
    """``AtenTensorHandle buf0_handle;``"""

    name: str


@dataclass(frozen=True, slots=True)
class RaiiDecl:
    """``RAIIAtenTensorHandle buf0(buf0_handle);``"""

    name: str
    handle: str


@dataclass(frozen=True, slots=True)
class Assign:
    """``inputs_info_[0].name = "arg3_1";`` (target, index, attr), ``in_spec_ = R"(…)";``, ``output_handles[0] =
    buf2.release();``."""

    target: str
    index: int | None
    attr: str | None
    value: Expr


@dataclass(frozen=True, slots=True)
class CallStmt:
    """``call_triton_x(buf0, s59);`` / ``AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cuda_addmm_out(…));`` (checked)."""

    callee: str
    args: tuple[Expr, ...] = ()
    checked: bool = False


@dataclass(frozen=True, slots=True)
class GuardDim:
    """``if (arg3_1_size[0] < 2) {`` -> ref ``arg3_1_size``, dim 0, op ``<``, value 2 (``16 != x_size[1]`` is
    written the other way round: op mirrored)."""

    ref: str
    dim: int
    op: str
    value: int


@dataclass(frozen=True, slots=True)
class GuardNames:
    """``if (arg3_1_expected_dtype != arg3_1_dtype) {``"""

    left: str
    op: str
    right: str


@dataclass(frozen=True, slots=True)
class CType:
    """A launcher parameter's C++ type: ``int64_t``, ``std::optional<std::string>``."""

    text: str


@dataclass(frozen=True, slots=True)
class LauncherParam:
    """``int64_t ks0,`` in ``static inline void call_triton_x(``."""

    name: str
    ctype: str


@dataclass(frozen=True, slots=True)
class LoadKernel:
    """``loadKernel("/tmp/…/x.cubin", "triton_x", 0, cubin_dir_);`` (member the cubin path) or, with
    embed_kernel_binary, ``loadKernel(__triton_x_start, "triton_x", 0);`` (member None, ``start`` the symbol)."""

    member: str | None
    mangled: str
    start: str | None = None


# -- Triton kernels (grammars/triton.lark) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Annotation:
    """A parameter's annotation, quotes dropped: ``tl.constexpr``."""

    text: str


@dataclass(frozen=True, slots=True)
class TritonParam:
    name: str
    annotation: str | None = None


@dataclass(frozen=True, slots=True)
class TritonDef:
    """``def triton_poi_fused_x_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):``"""

    name: str
    params: tuple[TritonParam, ...] = ()


@dataclass(frozen=True, slots=True)
class TritonAssign:
    """``tmp9 = tl.where(tmp8, tmp7, tmp5)``; ``a, b = triton_helpers.max_with_index(…)`` (targets a, b);
    ``R0_BLOCK: tl.constexpr = 1024`` (annotated: the first name only); ``acc += tl.dot(a, b)`` (op "+")."""

    targets: tuple[str, ...]
    value: Expr
    annotated: bool = False
    op: str | None = None

    @property
    def target(self) -> str:
        return self.targets[0]


@dataclass(frozen=True, slots=True)
class TritonCall:
    """``tl.device_assert(cond, "msg")``, ``tl.store(out_ptr0 + (x0), tmp4, xmask)``."""

    callee: str
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class Control:
    """Template control flow (``if``/``for``/``return`` …): understood, no graph fact."""

    keyword: str


# -- CPU kernels (grammars/cpp_kernel.lark) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CppParam:
    """``const int64_t* in_ptr0`` -> name ``in_ptr0``, ctype ``int64_t*``, const."""

    name: str
    ctype: str
    const: bool = False


@dataclass(frozen=True, slots=True)
class CppSignature:
    """``extern "C" void cpp_fused_x_0(…)`` (or a GEMM template's ``inline void …_micro_gemm_kernel(…)``)."""

    name: str
    params: tuple[CppParam, ...] = ()
    helper: bool = False


@dataclass(frozen=True, slots=True)
class CppTmp:
    """``auto tmp2 = int64_t(tmp0 - tmp1);``"""

    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class CppCheck:
    """``AOTI_TORCH_CHECK((0 <= tmp2) & (tmp2 < 64L), "index out of bounds: 0 <= tmp2 < 64L");`` (message
    unquoted)."""

    condition: Expr
    message: str


@dataclass(frozen=True, slots=True)
class VecStore:
    """``tmp0.store(out_ptr0 + static_cast<int64_t>(x0));`` (value ``tmp0``) or ``(tmp9 + …).store(…, 4L);``."""

    value: Expr
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class ScalarStore:
    """``out_ptr0[static_cast<int64_t>(x0)] = tmp5;``"""

    ptr: str
    index: Expr
    value: Expr


@dataclass(frozen=True, slots=True)
class AccAssign:
    """``tmp_acc0 = tmp_acc0 + tmp5;`` / ``tmp_acc0_vec = argmax_combine_vec(tmp_acc0_vec, tmp0, x1);``: a CPU
    reduction's accumulator updated (kept as `inspector.model.AccUpdate`)."""

    acc: str
    value: Expr
