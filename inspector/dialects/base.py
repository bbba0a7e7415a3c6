"""The `Dialect` record: every fact about one family of AOTInductor wrappers that the scan and the
parsers need (plain-string markers, launch style, comment placement, line numbering, naming).  The
families themselves are one module each beside this one; `inspector.dialects` registers them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

# Wrapper statements by leading word -> the start rule of grammars/wrapper.lark.
_DECL_WORDS = ("auto", "int64_t", "int32_t", "const ", "static ", "[[maybe_unused]]", "double ", "bool ", "decltype(auto) ",
               "alignas(")
_DECL_WORDS_BY_LETTER = {c: tuple(w for w in _DECL_WORDS if w[0] == c) for c in {w[0] for w in _DECL_WORDS}}
_HANDLE_TYPES = ("AtenTensorHandle ", "RAIIAtenTensorHandle ")
_NAMED_END = "} // AOTInductorModel"  # run_impl's end line, for any model class name
_CALL_HEAD = re.compile(r"\w+\(")
_BINDS = re.compile(r"^\w+\s+\w+\s*=")


@dataclass(frozen=True)
class Dialect:
    name: str
    summary: str
    torch_seen: tuple[str, ...]  # builds we have real packages of (or read the codegen of)
    # -- sniffing: every `requires` string is in the wrapper, no `excludes` string is -------
    requires: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    # -- region markers (prefixes of a stripped line; plain string search, no parse) ---------
    run_impl_start: str = "void AOTInductorModel::run_impl("
    run_impl_body: str = ") {"  # the line that opens run_impl's body (unstripped prefix)
    run_impl_end: str = "} // AOTInductorModel::run_impl"
    check_input_start: str = "AOTI_NOINLINE static void check_input_"
    check_input_index: re.Pattern = field(default=re.compile(r"check_input_(\d+)"))  # K of `check_input_K`
    # in a check_input_K body: `auto x_expected_dtype = aoti_torch_dtype_float32();`,
    # `int32_t x_expected_device_type = 1;` (device type codes: c10's DeviceType)
    guard_dtype_marker: str = "_expected_dtype = aoti_torch_dtype_"
    guard_dtype: re.Pattern = field(default=re.compile(r"aoti_torch_dtype_(\w+)\("))
    guard_device_marker: str = "_expected_device_type = "
    guard_device: re.Pattern = field(default=re.compile(r"= (-?\d+);"))
    device_type_codes: tuple[tuple[str, str], ...] = (("0", "cpu"), ("1", "cuda"))
    cpp_kernel_decl: str = 'extern "C"'
    cpp_kernel_name: re.Pattern = field(default=re.compile(r"\b(cpp_\w+)\("))  # a CPU kernel a declaration names
    constructor_info_starts: tuple[str, ...] = ("inputs_info_[", "outputs_info_[", "constants_info_[", "in_spec_", "out_spec_")
    constant_info: str = "constants_info_["  # `constants_info_[3].data_size = 4096;`: one fact of constant 3
    constant_binding: str = "constants_->at("  # run_impl: `[[maybe_unused]] auto& w = constants_->at(3);`
    # the dtype and device of a constant in its `constants_info_[i].dtype` / `.device_type` value
    constant_dtype: re.Pattern = field(default=re.compile(r"dtype_(\w+)"))
    constant_device: re.Pattern = field(default=re.compile(r"device_type_(\w+)"))
    # -- launch style ------------------------------------------------------------------------
    # "call_triton": run_impl calls `call_triton_<k>(…)`, a static launcher above run_impl that
    #   embeds the Triton source and loads the cubin;  "cpp": run_impl calls `cpp_fused_<k>(…)`.
    launch_style: str = "call_triton"
    # `call_triton_<k>` for Inductor's kernels, `call_<k>` for a user-defined Triton kernel (torch.library
    # triton_op / wrap_triton: `call_gather_kernel_0`, its source under `@triton_heuristics.user_autotune`)
    launcher_start: str | None = "static inline void call_"
    launcher_params_end: str = "){"
    launcher_name: re.Pattern = field(default=re.compile(r"call_(\w+)\("))  # the kernel a launcher launches
    launcher_call_prefix: str = "call_"  # run_impl callee `call_triton_x` launches kernel `triton_x`
    load_kernel_marker: str = "loadKernel("
    # -- where the kernel source is ----------------------------------------------------------
    triton_open: re.Pattern = field(default=re.compile(r"async_compile\.triton\('(\w+)',\s*'''"))
    triton_open_marker: str = "async_compile.triton("  # a plain string every `triton_open` line holds
    triton_close: str = "''', device_str"
    # A NaN constant in Triton source (`tl.full([1], float("nan"), tl.float32)`): what Inductor writes for the
    # values of an uninitialised tensor it folded (seen: a user kernel dropped at export left its output's
    # torch.empty, and the package's relu stored a NaN constant)
    nan_literals: tuple[str, ...] = ('float("nan")', "float('nan')")
    device_assert: str = "tl.device_assert("  # a Triton assert statement (stripped line prefix)
    # The `.py` line a device assert prints, counted from the `async_compile.triton(` line as 1.
    triton_line_base: int = 1
    # "kernel.cpp": a `<hash>.kernel.cpp` beside the wrapper; "inline": in the same `<hash>.cpp` above run_impl
    cpp_kernels_member: str = "kernel.cpp"
    # -- comments that travel with a call ----------------------------------------------------
    # "above_call": `// Topologically Sorted Source Nodes: […]` right above the call it describes
    # (on CPU builds only extern ops get one); "none": the family writes none.
    source_nodes: str = "above_call"
    source_nodes_re: re.Pattern = field(default=re.compile(
        r"//\s*Topologically Sorted Source Nodes:\s*\[(.*?)\](?:,\s*Original ATen:\s*\[(.*?)\])?"))
    provenance_re: re.Pattern = field(default=re.compile(r"//\s*\[Provenance debug handles\]\s*(\S+)"))
    checked_call: str = "AOTI_TORCH_ERROR_CODE_CHECK("
    # run_impl: `if (…) assert_size_stride(x, {…}, {…});`, a statement of an input's shape and stride
    size_stride_check: str = "assert_size_stride("
    # run_impl callees that allocate a buffer (`aoti_torch_empty_strided(…, &buf0_handle)`): no graph op
    allocation_prefix: str = "aoti_torch_empty"
    # `aoti_torch_assign_tensors_out(src, &dst_handle)`: a subgraph (torch.cond / while_loop) takes its inputs as
    # new handles to the caller's tensors: dst is src, read, not written (its name ends in _out all the same)
    assign_calls: tuple = ("aoti_torch_assign_tensors_out",)
    # The buffer life cycle run_impl spells out (doctor's memory estimate): an allocation with its size and
    # stride arrays and dtype, the arrays' declarations, a buffer taking another's storage (`auto buf4 =
    # std::move(buf0);`, a `reinterpret_tensor_wrapper(buf5, …)` view), a release (`buf0.reset();`) and an
    # output handed to the caller (`output_handles[0] = buf2.release();`).
    allocation: re.Pattern = field(default=re.compile(
        r"aoti_torch_empty_strided\(\s*\d+\s*,\s*(?P<sizes>\w+)\s*,\s*(?P<strides>\w+)\s*,\s*cached_torch_dtype_(?P<dtype>\w+)\s*,"
        r"\s*cached_torch_device_type_(?P<device>\w+).*?&(?P<buf>\w+)_handle\)"))
    int_array: re.Pattern = field(default=re.compile(r"int64_t\s+(?P<name>int_array_\d+)\[\]\s*=\s*\{(?P<items>[^}]*)\}"))
    storage_share: re.Pattern = field(default=re.compile(
        r"^auto\s+(?P<name>\w+)\s*=\s*(?:std::move\((?P<moved>\w+)\)|.*?reinterpret_tensor_wrapper\((?P<viewed>\w+)\s*,)"))
    release: re.Pattern = field(default=re.compile(r"\b(?P<buf>\w+)\.reset\(\)"))
    # a view's storage offset: the last argument of `reinterpret_tensor_wrapper(buf4, 2, int_array_2, int_array_3, 32L)`
    view_offset: re.Pattern = field(default=re.compile(r"reinterpret_tensor_wrapper\(\w+\s*,[^()]*,\s*(?P<offset>[^,()]+?)\s*\)"))
    # what a call writes, by its text: an extern `_out` op's first argument, a CPU kernel's non-const pointer
    out_first_arg: re.Pattern = field(default=re.compile(r"\b\w+_out\(\s*(?P<buf>\w+)\s*,"))
    mutable_pointer: re.Pattern = field(default=re.compile(r"\((?!const\b)\w+\*\)\((?P<buf>\w+)\.data_ptr\(\)\)"))
    handed_out: re.Pattern = field(default=re.compile(r"output_handles\[\d+\]\s*=\s*(?P<buf>\w+)\.release\(\)"))
    extern_output: re.Pattern = field(default=re.compile(r"&(?P<buf>buf\d+)_handle\b"))
    # A plain string every match of the buffer patterns above holds: a pattern is tried only on a statement that has
    # it (run_impl has ~480,000 statements on 20,000 kernels, a few hundred allocations among them)
    buffer_markers: tuple[tuple[str, str], ...] = (
        ("allocation", "aoti_torch_empty_strided("), ("int_array", "int_array_"), ("storage_share", "auto"),
        ("release", ".reset()"), ("handed_out", "output_handles["), ("numel_local", "numel"),
        ("extern_output", "_handle"))
    # A Triton kernel's first pointer parameter and its element type (`'signature': {'in_out_ptr0': '*fp32', …}`)
    triton_signature: re.Pattern = field(default=re.compile(r"'signature':\s*\{'(?P<first>\w+)':\s*'\*(?P<t>\w+)'"))
    numel_local: re.Pattern = field(default=re.compile(r"^(?:int64_t\s+)?(?P<kernel>\w+?)_(?P<axis>[xyr]0?_?)numel\s*=\s*(?P<expr>[^;]+);"))
    # run_impl callees that are runtime plumbing, not graph ops (the unaligned-input copy included)
    runtime_helpers: tuple[str, ...] = ("aoti_torch_get_", "aoti_torch_delete", "aoti_torch_new_tensor_handle",
                                        "aoti_torch_grad_mode", "assert_size_stride", "aoti_torch_check",
                                        "aoti_torch_clone_preserve_strides",
                                        # the intermediate value printer's own calls (compiled in with it)
                                        "aoti_torch_print_tensor_handle", "aoti_torch_save_tensor_handle")
    known: bool = True  # False for the fallback: answers may be partial

    # -- what a run_impl statement is -------------------------------------------------------
    def start_rule(self, s: str) -> str | None:
        """The grammar rule a stripped statement goes to, by its leading word (None: not a statement we read).
        (Each prefix is asked only of a statement that starts with its first letter: run_impl has ~480,000
        statements on 20,000 kernels.)"""
        c, checked = s[:1], self.checked_call
        if (c == checked[:1] or not checked) and s.startswith(checked):
            return "checked_call"
        words = _DECL_WORDS_BY_LETTER.get(c)
        if words is not None and s.startswith(words):
            return "declaration"
        if (c == "A" or c == "R") and s.startswith(_HANDLE_TYPES):
            # `RAIIAtenTensorHandle scalar_to_tensor_0 = scalar_to_tensor_handle(0L);` binds a value
            return "declaration" if _BINDS.match(s) else "handle_decl"
        if c == "o" and s.startswith("output_handles["):
            return "assignment"
        if _CALL_HEAD.match(s):
            return "call"
        return None

    def call_target(self, callee: str, cpp_kernels: set[str], launchers=()) -> tuple[str, str] | None:
        """``(target, "kernel"|"extern")`` for a run_impl callee, or None for runtime helpers.  ``launchers``: the
        kernels whose launcher the wrapper defines (a user-defined kernel's `call_<k>` is one only then)."""
        if callee.startswith(self.runtime_helpers):
            return None
        if callee.startswith("call_triton_") or (
                callee.startswith(self.launcher_call_prefix) and callee[len(self.launcher_call_prefix):] in launchers):
            return callee[len(self.launcher_call_prefix):], "kernel"
        if callee in cpp_kernels or callee.startswith("cpp_"):
            return callee, "kernel"
        if callee.startswith("aoti_"):
            return callee, "extern"
        return None

    def written_args(self, text: str) -> set[str]:
        """The arguments a call statement writes, where its text says so (empty when it does not)."""
        return {m.group("buf") for rx in (self.out_first_arg, self.mutable_pointer) for m in rx.finditer(text)}

    def matches(self, text: str, member: str = "", has=None) -> bool:
        """The wrapper text carries the markers; a `<hash>.cpp` member (no `.wrapper.cpp`) is the inline
        family's, a `*.wrapper.cpp` (or an unnamed text) the others'.  ``has``: ``marker in text``, remembered
        (`sniff` asks every dialect about one text: run_impl's marker sits two thirds into a big CUDA wrapper,
        and each search for it reads those 100 MB again)."""
        has = has or text.__contains__
        inline_member = bool(member) and not member.endswith(".wrapper.cpp")
        if inline_member != (self.cpp_kernels_member == "inline"):
            return False
        named = model_class(text) if self.run_impl_start in self.requires and not has(self.run_impl_start) else ""
        return all(has(r) or (named and r == self.run_impl_start and has(self.named_run_impl_start(named)))
                   for r in self.requires) and not any(has(x) for x in self.excludes)

    def named_run_impl_start(self, name: str) -> str:
        """compile_standalone names the class ``AOTInductorModel<name>`` (model_name_for_generated_files)."""
        return self.run_impl_start.replace("AOTInductorModel::", f"AOTInductorModel{name}::")

    def is_run_impl_start(self, line: str) -> bool:
        return line.startswith(self.run_impl_start) or (
            line.startswith("void AOTInductorModel") and "::run_impl(" in line and " " not in line[5:line.find("::")])

    def is_run_impl_end(self, line: str) -> bool:
        return line.startswith(self.run_impl_end) or (line.startswith(_NAMED_END) and line.rstrip().endswith("::run_impl"))

    @property
    def run_impl_end_prefix(self) -> str:
        """What every line `is_run_impl_end` accepts starts with (a scan searches the text for it)."""
        return os.path.commonprefix([self.run_impl_end, _NAMED_END])

    def to_dict(self) -> dict:
        return {"name": self.name, "summary": self.summary, "torch_seen": list(self.torch_seen),
                "launch_style": self.launch_style, "source_nodes": self.source_nodes,
                "triton_line_base": self.triton_line_base, "known": self.known}


def model_class(text: str) -> str:
    """``gather`` for a wrapper whose model class is ``AOTInductorModelgather`` (compile_standalone with
    model_name_for_generated_files="gather"); "" for the plain ``AOTInductorModel``."""
    at = text.find("::run_impl(")
    while at >= 0:
        start = text.rfind("void AOTInductorModel", 0, at)
        if start >= 0 and "\n" not in text[start:at]:
            name = text[start + len("void AOTInductorModel"):at]
            if name.isidentifier() or name == "":
                return name
        at = text.find("::run_impl(", at + 1)
    return ""


# Not a family we know: the markers of the newest known one, so whatever still matches is read,
# and every answer says it may be partial.
FALLBACK = Dialect(
    name="unknown",
    summary="no known wrapper family matched; read with the newest markers, answers may be partial",
    torch_seen=(),
    known=False,
)
