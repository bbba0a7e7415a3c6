"""What a package says about its compiled GPU kernels outside the ELF headers (`inspector.elf` reads those): a
PTX member's ``.target`` line, the wrapper's ``loadKernel(__<kernel>_start, …)`` calls that name an image embedded
in the `.so` (embed_kernel_binary), and a CMake project's CMakeLists.txt (package_cpp_only / compile_standalone)
read by its grammar (grammars/cmake.lark) into commands.  Typed records; nothing is run or loaded.

    >>> ptx_target(b".version 8.4\\n.target sm_90a\\n")
    PtxTarget(sm=90, suffix='a')
    >>> cmake_facts('cmake_minimum_required(VERSION 3.27)\\nadd_library(gather STATIC)').library
    'gather STATIC'
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

# PTX's `.target sm_90a` directive (ptxas's ISA: the first directives of the file, after `.version`)
_PTX_TARGET = re.compile(rb"^\s*\.target\s+sm_(\d+)(a|f)?", re.M)


@dataclass(frozen=True)
class PtxTarget:
    sm: int  # 90 for sm_90a
    suffix: str | None  # "a" (architecture-specific), "f" (family) or None


def ptx_target(head: bytes) -> PtxTarget | None:
    """The ``.target`` of a PTX text (its first bytes suffice), or None when it has none."""
    t = _PTX_TARGET.search(head)
    return PtxTarget(int(t.group(1)), t.group(2).decode() if t.group(2) else None) if t else None


@functools.lru_cache(maxsize=4)
def _load_call(marker: str) -> re.Pattern:
    return re.compile(re.escape(marker) + r"\s*(__\w+_start)\s*,")


def embedded_kernel_symbols(wrapper: str, marker: str = "loadKernel(") -> list[str]:
    """The ``__<kernel>_start`` symbols the wrapper's ``loadKernel(`` calls name (embed_kernel_binary), in order
    (``marker``: the dialect's `load_kernel_marker`)."""
    return list(dict.fromkeys(_load_call(marker).findall(wrapper)))


@dataclass(frozen=True)
class CMakeCommand:
    name: str  # as written: `add_library`
    args: tuple[str, ...]  # its arguments, quoted ones unquoted, nested parentheses flattened
    line: int

    def named(self, name: str) -> bool:
        """CMake's command names are case-insensitive."""
        return self.name.lower() == name.lower()


@dataclass
class CMakeFacts:
    commands: list[CMakeCommand] = field(default_factory=list)
    parsed: bool = True  # False: the grammar did not accept the file (the facts are empty, not "none")

    def calls(self, name: str) -> list[CMakeCommand]:
        return [c for c in self.commands if c.named(name)]

    @property
    def cmake_min(self) -> str | None:
        """``cmake_minimum_required(VERSION 3.27 FATAL_ERROR)`` -> ``3.27``."""
        for c in self.calls("cmake_minimum_required"):
            up = [a.upper() for a in c.args]
            if "VERSION" in up and up.index("VERSION") + 1 < len(c.args):
                v = c.args[up.index("VERSION") + 1]
                return v if v and all(ch.isdigit() or ch == "." for ch in v) else None
        return None

    @property
    def packages(self) -> list[str]:
        """``find_package(Torch REQUIRED)`` names, in order: Torch, TorchStandalone, CUDAToolkit …"""
        return list(dict.fromkeys(c.args[0] for c in self.calls("find_package") if c.args))

    @property
    def library(self) -> str | None:
        """``add_library(gather STATIC)`` -> ``gather STATIC``."""
        for c in self.calls("add_library"):
            if len(c.args) >= 2 and c.args[1].upper() in ("STATIC", "SHARED", "MODULE"):
                return f"{c.args[0]} {c.args[1].upper()}"
        return None

    @property
    def embeds_kernels(self) -> bool:
        """Whether it calls ``embed_gpu_kernel(…)`` (a call: its definition is ``function(embed_gpu_kernel …)``)."""
        return bool(self.calls("embed_gpu_kernel"))

    @property
    def gencode(self) -> list[str]:
        """nvcc's ``-gencode arch=compute_90a,code=sm_90a`` targets, in order: ``sm_90a`` …"""
        words = [w for c in self.commands for a in c.args for w in a.split()]
        out: dict[str, None] = {}
        for flag, value in zip(words, words[1:]):
            arch, sep, code = value.partition(",code=")
            if flag == "-gencode" and sep and arch.startswith("arch=") and code:
                out[code] = None
        return list(out)

    @property
    def cuda(self) -> bool:
        """``enable_language(CUDA)``."""
        return any("CUDA" in c.args for c in self.calls("enable_language"))

    @property
    def objcopy(self) -> bool:
        """Whether the build runs objcopy (to embed the kernels' fatbins as objects)."""
        return any("objcopy" in a.lower() for c in self.commands for a in (c.name, *c.args))


def _cmake_parser():
    """The LALR parser of grammars/cmake.lark (`inspector.parse.grammar.parser`: its tables are cached beside the
    index, and shipped in grammars/tables.json: ``"cmake"`` is in lark_loader.STARTS)."""
    from .grammar import parser

    return parser("cmake", ("start",))


def _args(children) -> list[str]:
    out = []
    for ch in children:
        if ch.data == "group":
            out += ["(", *_args(ch.children), ")"]
            continue
        tok = ch.children[0]
        if tok.type == "QUOTED":
            out.append(tok[1:-1])
        elif tok.type == "BRACKET":
            out.append(tok[tok.index("[", 1) + 1: tok.rindex("]", 0, -1)])
        else:
            out.append(str(tok))
    return out


def cmake_facts(text: str) -> CMakeFacts:
    """A CMakeLists.txt's commands (`CMakeFacts`); ``parsed=False`` with no command when the grammar refuses it."""
    from lark.exceptions import UnexpectedInput

    try:
        tree = _cmake_parser().parse(text, start="start")
    except UnexpectedInput:
        return CMakeFacts(parsed=False)
    return CMakeFacts([CMakeCommand(str(c.children[0]), tuple(_args(c.children[1:])), c.children[0].line)
                       for c in tree.children])
