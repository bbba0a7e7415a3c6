"""``cpu_isa``: ``AOTI_CPU_ISA`` (the wrapper metadata record) and the compile commands' ``-m…`` flags against the
host's ``/proc/cpuinfo`` flags, through the one ISA table (inspector.cpu_isa); ``-march=native``."""

from __future__ import annotations

from ...cpu_isa import M_FLAG_CPUINFO, isa_flags
from ...parse.wrapper_text import CompileFlags, compile_flags
from .base import Check, Here, Subject


def _compile_flags(pkg, files, wrapper: str) -> CompileFlags:
    """The -m flags of the build's compile commands (the wrapper's, then the kernels')."""
    texts = [(files.wrapper, wrapper)]
    if files.kernel_cpp and files.kernel_cpp != files.wrapper:
        texts.append((files.kernel_cpp, pkg.archive.read_text(files.kernel_cpp)))
    return compile_flags(texts)


def built_native(pkg, name: str) -> bool:
    """Whether a model's compile commands (the wrapper's, the kernels') hold -march=native."""
    files = pkg.files(name)
    return _compile_flags(pkg, files, pkg.archive.read_text(files.wrapper) if files.wrapper else "").native


def uses_amx(pkg, name: str) -> bool:
    """Whether a model's kernels have AMX tile code (tile intrinsics, AMX micro-kernels)."""
    files = pkg.files(name)
    return _uses_amx(pkg, files, pkg.archive.read_text(files.wrapper) if files.wrapper else "")


def _uses_amx(pkg, files, wrapper: str) -> bool:
    """Tile intrinsics or AMX micro-kernels in the kernels' code (comment lines left out)."""
    text = pkg.archive.read_text(files.kernel_cpp) if files.kernel_cpp and files.kernel_cpp != files.wrapper else ""
    for line in (text + "\n" + wrapper).splitlines():
        s = line.lstrip()
        if s.startswith("//"):
            continue
        if "_tile_" in s or "amx" in s.lower():
            return True
    return False


class CpuIsa(Check):
    """A CUDA package's .so is host code too, compiled on the build host like a CPU package's (seen: `-march=native
    -mavx512f … -mamx-tile` in cuda/embedding's compile command): its CPU ISA is checked the same way."""

    name = "cpu_isa"

    def run(self, m: Subject, here: Here):
        files = m.files
        isa = list(m.metadata.cpu_isa)
        build = _compile_flags(m.pkg, files, m.wrapper)
        need = sorted({M_FLAG_CPUINFO[x] for x in build.flags if x in M_FLAG_CPUINFO} | isa_flags(isa))
        m.readings.update(cpu_isa=" ".join(isa) or None, cpu_flags_needed=need, march_native=build.native)
        about = dict(isa=isa, metadata_member=files.wrapper_metadata, command_member=build.member,
                     cuda_host_code=bool(files.cubins), host=here.host, need=need)
        out = []
        if build.native:
            out.append(m.finding("cpu_isa", "warn", "cpu_native", **about))
        if here.host_flags is None:
            if need:
                out.append(m.finding("cpu_isa", "info", "cpu_needs", **about))
            return out
        missing = [x for x in need if x not in here.host_flags]
        # AMX is reached only through tile intrinsics (Inductor's micro-GEMM templates), never by the compiler's own
        # vectorizing: a build whose kernels have no tile code runs without it (seen: cpu/embedding, built with
        # -mamx-tile, ran correctly on a host without AMX, torch only warning "Device information mismatch").
        tile_code = _uses_amx(m.pkg, files, m.wrapper)
        fatal = [x for x in missing if not (x.startswith("amx_") and not tile_code)]
        unused = [x for x in missing if x not in fatal]
        if fatal:
            out.append(m.finding("cpu_isa", "error", "cpu_lacks", **about, lacks=fatal))
        if unused:
            out.append(m.finding("cpu_isa", "warn", "cpu_amx_unused", **about, lacks=unused))
        if need and not missing:
            out.append(m.finding("cpu_isa", "info", "cpu_covered", **about))
        return out
