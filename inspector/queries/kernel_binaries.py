"""The compiled GPU kernels a model carries, in each of the forms its packaging options give them (issue 23):

- ``.cubin`` members (the default): one CUDA ELF (SASS) each; its SM target is in the ELF header.
- ``.fatbin`` members (``aot_inductor.emit_multi_arch_kernel=True``): a fatbin container per kernel holding
  SASS and PTX images, each entry header naming its architecture (`inspector.elf.fatbin_entries`).
- images embedded in the `.so` (``aot_inductor.embed_kernel_binary=True``): no member; the wrapper's
  ``loadKernel(__<kernel>_start, …)`` names the symbols between which the `.so`'s ``.rodata`` holds the image
  (`inspector.elf.embedded_images`), read by ranges.
- ``.ptx`` members (``compile_standalone``): text for the CMake build to turn into a fatbin; its ``.target``.

Triton compiles every kernel for the architecture-specific target when the GPU's compute capability is 9.0 or
more (``sm_arch_from_capability``: ``sm_90a``; cuobjdump on the H200 build of sample_packages/options/
multi_arch_cuda says ``sm_90a`` for both the ELF and the PTX of each fatbin): such SASS runs only on that exact
architecture and such PTX JIT-compiles only for it.  Below 9.0 the PTX is the portable ``compute_XY``.

Headers only, by ranges; nothing is loaded, decompressed or run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import inspector.elf as elf
from ..dialects.members import CMAKE_PROJECT
from ..parse.binaries import cmake_facts, embedded_kernel_symbols, ptx_target  # noqa: F401 - doctor's import

# Triton's rule (triton/backends/nvidia/compiler.py, 3.x): capability >= 90 -> "sm_{cap}a".
TRITON_ARCH_SPECIFIC_FROM = 90


@dataclass
class KernelImage:
    source: str  # the member, or "<.so member>: __<kernel>_start"
    form: str  # "cubin" | "fatbin" | "embedded" | "ptx"
    sass: list[int] = field(default_factory=list)  # SM numbers it has machine code for
    ptx: list[int] = field(default_factory=list)  # SM numbers it has PTX for
    arch_specific: bool = False  # sm_XYa: runs (SASS) / JIT-compiles (PTX) only on sm_XY
    error: str | None = None  # why its architecture could not be read

    def to_dict(self) -> dict:
        return {"source": self.source, "form": self.form, "sass": list(self.sass), "ptx": list(self.ptx),
                "arch_specific": self.arch_specific, "error": self.error}

    def runs_on(self, gpu: int) -> str | None:
        """"sass" when its machine code runs on an sm_``gpu`` GPU, "ptx" when the driver can JIT its PTX for
        it, None when neither (the launch fails: no kernel image for the device)."""
        for s in self.sass:
            if (gpu == s) if self.arch_specific else (s // 10 == gpu // 10 and gpu % 10 >= s % 10):
                return "sass"
        for p in self.ptx:
            if (gpu == p) if self.arch_specific else gpu >= p:
                return "ptx"
        return None


def member_reader(pkg, member: str):
    """Ranged reads of a member (an `elf.Reader`): the headers and tables of a `.so` whose weights may be
    gigabytes, a cubin's header.  The one such reader: doctor's checks read the `.so` through it too."""
    return lambda offset, size: pkg.archive.read_range(member, offset, size)


def _from_bytes_reader(read, source: str, form: str) -> KernelImage:
    """An image that is either a CUDA ELF or a fatbin (an embedded one may be either)."""
    img = KernelImage(source, form)
    try:
        head = read(0, 4)
        if head == b"\x7fELF":
            sm = elf.cubin_sm(elf.header(read))
            if sm is None:
                img.error = "an ELF file but not a CUDA one"
            else:
                img.sass = [sm]
        else:
            if form == "embedded":
                img.form = "embedded fatbin"
            for e in elf.fatbin_entries(read):
                if e.kind == "sass" and e.sm not in img.sass:
                    img.sass.append(e.sm)
                elif e.kind == "ptx" and e.sm not in img.ptx:
                    img.ptx.append(e.sm)
    except elf.ElfError as e:
        img.error = str(e)
    img.arch_specific = any(s >= TRITON_ARCH_SPECIFIC_FROM for s in img.sass + img.ptx)
    return img


def kernel_images(pkg, files, wrapper: str) -> list[KernelImage]:
    """Every kernel image of one model (``files``: its `inspector.archive.ModelFiles`; ``wrapper``: its text)."""
    out: list[KernelImage] = []
    for m in files.cubins:
        if m.endswith(".ptx"):
            img = KernelImage(m, "ptx")
            t = ptx_target(pkg.archive.read_range(m, 0, 8192))
            if t:
                img.ptx = [t.sm]
                img.arch_specific = t.suffix == "a"
            else:
                img.error = "no .target line in its first 8 KiB"
            out.append(img)
        else:  # .cubin, .fatbin, and device code of other vendors (.hsaco, .spv): read as an error, not skipped
            out.append(_from_bytes_reader(member_reader(pkg, m), m, m.rsplit(".", 1)[-1]))
    wanted = embedded_kernel_symbols(wrapper)
    if wanted:
        for so in files.shared_objects[:1]:
            read = member_reader(pkg, so)
            try:
                found = elf.embedded_images(read)
            except elf.ElfError as e:
                out.append(KernelImage(so, "embedded", error=str(e)))
                continue
            for sym in wanted:
                k = sym[2:-len("_start")]
                if k not in found:
                    out.append(KernelImage(f"{so}: {sym}", "embedded", error="no such symbol range in the .so"))
                    continue
                off, size = found[k]
                out.append(_from_bytes_reader(elf.sub_reader(read, off, size), f"{so}: {sym}", "embedded"))
    return out


# -- a package meant to be built with its CMakeLists.txt (package_cpp_only / compile_standalone) --------------


@dataclass
class CppBuild:
    cmakelists: str
    cmake_min: str | None
    packages: list[str]  # find_package(...) names: Torch, TorchStandalone, CUDAToolkit …
    library: str | None  # "gather STATIC"
    gencode: list[str]  # nvcc's targets for the kernels it compiles from .ptx: "compute_90a", "sm_90a" …
    cuda: bool
    objcopy: bool  # the build embeds the kernels with objcopy

    def to_dict(self) -> dict:
        return {"cmakelists": self.cmakelists, "cmake_min": self.cmake_min, "packages": list(self.packages),
                "library": self.library, "gencode": list(self.gencode), "cuda": self.cuda, "objcopy": self.objcopy}

    def needs(self) -> str:
        """What the build needs, in words."""
        parts = [f"CMake {self.cmake_min}+" if self.cmake_min else "CMake", "a C++17 compiler"]
        parts += [p for p in self.packages if p not in ("CUDAToolkit",)]
        if self.cuda or "CUDAToolkit" in self.packages:
            parts.append("the CUDA toolkit (nvcc" + (" for " + ", ".join(self.gencode) if self.gencode else "") + ")")
        if self.objcopy:
            parts.append("objcopy")
        return ", ".join(parts)


def cpp_build(pkg, files) -> CppBuild | None:
    """The model's CMakeLists.txt, when it has one, read for what its build needs."""
    cm = next((m for m in files.other if m.rsplit("/", 1)[-1] == CMAKE_PROJECT), None)
    if cm is None:
        return None
    facts = cmake_facts(pkg.archive.read_text(cm))
    gencode = facts.gencode if facts.embeds_kernels else []
    return CppBuild(cm, facts.cmake_min, facts.packages, facts.library, gencode, facts.cuda or bool(gencode),
                    facts.objcopy)
