"""Wrapper dialects: what one family of AOTInductor wrappers looks like, in one place.

Every torch release moves something in the generated ``wrapper.cpp`` (where the Triton
source sits, how a kernel is launched, which comments come with a call).  Each family
is one `Dialect` object: the plain-string markers that slice the wrapper into regions,
the launch style, where the Source Nodes comments sit, how the Triton ``.py`` line is
numbered, and how a run_impl statement picks its grammar rule.  `sniff` chooses one by
looking at the wrapper text; ``show --json`` reports its name per model.

Adding a family is one `Dialect(...)` entry in `DIALECTS` (most specific first) and a
snippet test in tests/test_dialects.py.  Nothing here parses: the scanners in
`inspector.parse` ask the dialect, the grammars in ``grammars/`` do the parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Wrapper statements by leading word -> the start rule of grammars/wrapper.lark.
_DECL_WORDS = ("auto", "int64_t", "int32_t", "const ", "static ", "[[maybe_unused]]", "double ", "bool ", "decltype(auto) ")
_CALL_HEAD = re.compile(r"\w+\(")


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
    cpp_kernel_decl: str = 'extern "C"'
    constructor_facts: tuple[str, ...] = ("inputs_info_[", "outputs_info_[", "constants_info_[", "in_spec_", "out_spec_")
    constant_info: str = "constants_info_["  # `constants_info_[3].data_size = 4096;`: one fact of constant 3
    constant_binding: str = "constants_->at("  # run_impl: `[[maybe_unused]] auto& w = constants_->at(3);`
    # the dtype and device of a constant in its `constants_info_[i].dtype` / `.device_type` value
    constant_dtype: re.Pattern = field(default=re.compile(r"dtype_(\w+)"))
    constant_device: re.Pattern = field(default=re.compile(r"device_type_(\w+)"))
    # -- launch style ------------------------------------------------------------------------
    # "call_triton": run_impl calls `call_triton_<k>(…)`, a static launcher above run_impl that
    #   embeds the Triton source and loads the cubin;  "cpp": run_impl calls `cpp_fused_<k>(…)`.
    launch_style: str = "call_triton"
    launcher_start: str | None = "static inline void call_triton_"
    launcher_params_end: str = "){"
    launcher_call_prefix: str = "call_"  # run_impl callee `call_triton_x` launches kernel `triton_x`
    load_kernel_marker: str = "loadKernel("
    # -- where the kernel source is ----------------------------------------------------------
    triton_open: re.Pattern = field(default=re.compile(r"async_compile\.triton\('(\w+)',\s*'''"))
    triton_open_marker: str = "async_compile.triton("  # a plain string every `triton_open` line holds
    triton_close: str = "''', device_str"
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
    # run_impl callees that are runtime plumbing, not graph ops (the unaligned-input copy included)
    runtime_helpers: tuple[str, ...] = ("aoti_torch_get_", "aoti_torch_delete", "aoti_torch_new_tensor_handle",
                                        "aoti_torch_grad_mode", "assert_size_stride", "aoti_torch_check",
                                        "aoti_torch_clone_preserve_strides")
    known: bool = True  # False for the fallback: answers may be partial

    # -- what a run_impl statement is -------------------------------------------------------
    def start_rule(self, s: str) -> str | None:
        """The grammar rule a stripped statement goes to, by its leading word (None: not a statement we read)."""
        if s.startswith(self.checked_call):
            return "checked_call"
        if s.startswith(_DECL_WORDS):
            return "declaration"
        if s.startswith(("AtenTensorHandle ", "RAIIAtenTensorHandle ")):
            return "handle_decl"
        if s.startswith("output_handles["):
            return "assignment"
        if _CALL_HEAD.match(s):
            return "call"
        return None

    def call_target(self, callee: str, cpp_kernels: set[str]) -> tuple[str, str] | None:
        """``(target, "kernel"|"extern")`` for a run_impl callee, or None for runtime helpers."""
        if callee.startswith(self.runtime_helpers):
            return None
        if callee.startswith("call_triton_"):
            return callee[len(self.launcher_call_prefix):], "kernel"
        if callee in cpp_kernels or callee.startswith("cpp_"):
            return callee, "kernel"
        if callee.startswith("aoti_"):
            return callee, "extern"
        return None

    def matches(self, text: str, member: str = "") -> bool:
        """The wrapper text carries the markers; a `<hash>.cpp` member (no `.wrapper.cpp`) is the inline
        family's, a `*.wrapper.cpp` (or an unnamed text) the others'."""
        inline_member = bool(member) and not member.endswith(".wrapper.cpp")
        if inline_member != (self.cpp_kernels_member == "inline"):
            return False
        return all(r in text for r in self.requires) and not any(x in text for x in self.excludes)

    def to_dict(self) -> dict:
        return {"name": self.name, "summary": self.summary, "torch_seen": list(self.torch_seen),
                "launch_style": self.launch_style, "source_nodes": self.source_nodes,
                "triton_line_base": self.triton_line_base, "known": self.known}


CUDA_CALL_TRITON = Dialect(
    name="cpp-wrapper-gpu/call_triton",
    summary="CUDA: one `static inline void call_triton_<k>(…)` launcher per kernel above run_impl, its Triton "
            "source in a `/* async_compile.triton('<k>', '''…''') */` comment, a cubin per kernel; "
            "Source Nodes comments above each call",
    torch_seen=("2.11",),
    requires=("void AOTInductorModel::run_impl(", "static inline void call_triton_"),
)

CPU_KERNEL_CPP = Dialect(
    name="cpp-wrapper-cpu/kernel.cpp",
    summary="CPU: `cpp_fused_<k>(…)` calls in run_impl, the kernels in a `<hash>.kernel.cpp` beside the wrapper; "
            "Source Nodes comments only above extern ops",
    torch_seen=("2.13",),
    requires=("void AOTInductorModel::run_impl(",),
    excludes=("static inline void call_triton_", "async_compile.triton("),
    launch_style="cpp",
    launcher_start=None,
)

CPU_INLINE = Dialect(
    name="cpp-wrapper-cpu/inline",
    summary="CPU, torch 2.6 archives: no root folder, `version` at the top, one `data/aotinductor/<model>/<hash>.cpp` "
            "holding the `cpp_fused_<k>` kernels above run_impl (errors name `<hash>.cpp:N`), `<hash>_metadata.json`; "
            "no check_input_K guards",
    torch_seen=("2.6",),
    requires=("void AOTInductorModel::run_impl(",),
    excludes=("static inline void call_triton_", "async_compile.triton("),
    launch_style="cpp",
    launcher_start=None,
    cpp_kernels_member="inline",
)

# Not a family we know: the markers of the newest known one, so whatever still matches is read,
# and every answer says it may be partial.
FALLBACK = Dialect(
    name="unknown",
    summary="no known wrapper family matched; read with the newest markers, answers may be partial",
    torch_seen=(),
    known=False,
)

DIALECTS: tuple[Dialect, ...] = (CUDA_CALL_TRITON, CPU_KERNEL_CPP, CPU_INLINE)


def embedded_source(lines: list[str], start: int, end: int) -> list[str]:
    """A Triton kernel's lines as the wrapper comment at ``lines[start:end]`` holds them, the indent of
    the ``async_compile.triton(`` line removed (the kernel's ``.py`` text, line for line)."""
    first = lines[start]
    indent = len(first) - len(first.lstrip())
    return [l[indent:] if l[:indent].strip() == "" else l.lstrip() for l in lines[start:end]]


def sniff(text: str, member: str = "") -> Dialect:
    """The first registered dialect whose markers the wrapper text (of archive member ``member``, when
    known) carries, else `FALLBACK`."""
    for d in DIALECTS:
        if d.matches(text, member):
            return d
    return FALLBACK


def by_name(name: str) -> Dialect:
    for d in (*DIALECTS, FALLBACK):
        if d.name == name:
            return d
    raise KeyError(name)
