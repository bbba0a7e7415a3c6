"""``completeness``: the wrapper metadata readable; a CPU model shipped as a CMake project (package_cpp_only:
aoti_load_package compiles it; compile_standalone: it cannot load it); every member the loader opens (the `.so`,
each cubin a launcher's ``loadKernel`` names)."""

from __future__ import annotations

from ...dialects.members import CMAKE_PROJECT, CMAKE_STANDALONE_PACKAGE
from ...parse.binaries import cmake_facts
from ...parse.wrapper_text import loaded_image_names
from ..kernel_binaries import cpp_build, embedded_kernel_symbols
from .base import Check, Here, Subject


class DuplicateMembers(Check):
    """A member of the model listed twice in the zip directory: which copy torch's loader reads is not defined."""

    name = "duplicate_members"

    def run(self, m: Subject, here: Here):
        return [m.finding("completeness", "warn", "duplicate_member", member=name, count=n)
                for name, n in m.pkg.archive.duplicates.items() if name.startswith(m.files.folder)]


class Metadata(Check):
    """An unreadable metadata member is a finding, not a crash."""

    name = "metadata"

    def run(self, m: Subject, here: Here):
        if not m.metadata_unreadable:
            return []
        return [m.finding("completeness", "warn", "metadata_unreadable", member=m.files.wrapper_metadata)]


def cmake_project(pkg, name: str) -> str | None:
    """"standalone" (aot_inductor_mode.compile_standalone) or "cpp_only" (package_cpp_only=True) for a model folder
    that is a CMake project (its CMakeLists.txt, read: a small text member); None otherwise."""
    member = pkg.files(name).folder + CMAKE_PROJECT
    if member not in pkg.archive.members():
        return None
    packages = cmake_facts(pkg.archive.read_text(member)).packages  # find_package names, by the CMake grammar
    return "standalone" if CMAKE_STANDALONE_PACKAGE in packages else "cpp_only"


class CmakeProject(Check):
    """A CPU model shipped as its CMake project and no .so (package_cpp_only / compile_standalone; torch 2.13).  Seen
    for real: aoti_load_package builds a package_cpp_only package itself (g++ with torch's headers, at load) and it
    runs; a compile_standalone one it builds too, then dlopen fails (`undefined symbol: aoti_torch_check`: the
    library is libtorch-free)."""

    name = "cmake_project"

    def run(self, m: Subject, here: Here):
        files = m.files
        kind = cmake_project(m.pkg, m.name) if not files.shared_objects and m.readings.get("device") == "cpu" else None
        m.readings["cmake_project"] = kind
        if kind is None:
            return []
        about = dict(cmakelists=files.folder + CMAKE_PROJECT, folder=files.folder)
        if kind == "standalone":
            return [m.finding("completeness", "error", "cmake_standalone", **about)]
        return [m.finding("completeness", "warn", "cmake_cpp_only", **about)]


def _cpp_only(m: Subject, build):
    """No .so but a CMakeLists.txt: built with package_cpp_only=True (or compile_standalone).  Seen on torch 2.11
    (sample_packages/options/): aoti_load_package compiles and links such a package itself at load (cpp_only_cuda
    ran), except when its kernels are loaded from ``__<k>_start`` symbols with no image in the package to embed
    them from (compile_standalone: only the CMake build turns its .ptx into fatbins and embeds them; the loader's
    own build failed at dlopen with ``undefined symbol: __gather_triton_…_start``)."""
    files = m.files
    m.readings["cpp_build"] = build.to_dict()
    flags = next((x for x in files.other if x.endswith("_compile_flags.json")), None)
    compiler = None
    if flags:
        try:
            compiler = (m.pkg.archive.read_json(flags) or {}).get("compiler")
        except Exception:  # noqa: BLE001 - an unreadable flags member only loses the compiler's name
            compiler = None
    about = dict(cmakelists=build.cmakelists, library=build.library, flags_member=flags, compiler=compiler,
                 needs=build.needs(), cuda=build.cuda)
    embedded = embedded_kernel_symbols(m.wrapper)
    images = {x.rsplit("/", 1)[-1] for x in files.cubins if x.endswith((".cubin", ".fatbin"))}
    if embedded and not images:
        return m.finding("completeness", "error", "cpp_only_embedded", **about, embedded=embedded)
    return m.finding("completeness", "warn", "cpp_only", **about)


class Complete(Check):
    name = "complete"

    def run(self, m: Subject, here: Here):
        files = m.files
        out = []
        # a CPU CMake project is CmakeProject's (package_cpp_only / compile_standalone as seen on torch 2.13)
        cmake_cpu = m.readings.get("cmake_project")
        build = cpp_build(m.pkg, files) if not files.shared_objects and not cmake_cpu else None
        if build is not None:
            out.append(_cpp_only(m, build))
        elif not files.shared_objects and not cmake_cpu:
            out.append(m.finding("completeness", "error", "no_so", folder=files.folder))
        names = {x.rsplit("/", 1)[-1] for x in files.cubins}
        wanted = loaded_image_names(m.wrapper, m.dialect.load_kernel_marker if m.dialect else None)
        missing = sorted(wanted - names)
        m.readings["cubins_named"], m.readings["cubins_missing"] = len(wanted), len(missing)
        if missing:
            out.append(m.finding("completeness", "error", "cubins_missing", count=len(missing), missing=missing))
        return out
