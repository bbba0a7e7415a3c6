"""doctor: will this package run here?  The contract a package carries, read before anything runs.

Findings, each with its evidence (member, wrapper line, symbol) and what to do, most serious first:

- ``gpu_arch``: the SM target of every cubin (ELF header) against ``gpu`` ("sm_80", or what
  ``nvidia-smi`` reports with ``"auto"``); Triton's cubins carry no PTX, so nothing can JIT them for another GPU.
- ``cpu_isa``: ``AOTI_CPU_ISA`` (wrapper metadata) and the compile commands' ``-m…`` flags against the host's
  ``/proc/cpuinfo`` flags (``host_cpuinfo``: the text, or "auto" to read this machine's); ``-march=native``.
- ``torch_abi``: the package's undefined ``aoti_*`` symbols (ELF ``.dynsym``, never loaded) against the C-shim
  symbols each torch release exports (`inspector/data/shim_symbols.json`, made by tools/make_shim_table.py):
  the oldest release that has them all, and with ``torch="2.13"`` what that release lacks.
- the archive's layout against an old loader (torch 2.6 wants no root folder);
- ``glibc``: the GLIBC / GLIBCXX versions the `.so` needs (``.gnu.version_r``), against this host's glibc with
  ``host_cpuinfo="auto"``.
- ``weights``: constants compiled into the `.so` (``_binary_constants_bin_start`` … ``_end``) or left out,
  against the bytes the model's constants need; or stored beside the code (``pickle_weights``: the
  ``data/weights/`` members, sized from the zip directory), which only ``load_pt2(…, load_weights_from_disk=True)``
  loads; or one raw blob member beside the `.so` (``binary_blob``: ``<hash>.wrapper_weights.blob``), which
  aoti_load_package loads itself.
- ``completeness``: a CPU model shipped as a CMake project (package_cpp_only: aoti_load_package compiles it;
  compile_standalone: it cannot load it); every member the loader opens (the `.so`, each cubin a launcher's ``loadKernel`` names).
- ``checks``: what the build compiled in: input guards, NaN/Inf checks, the intermediate value printer.

Reads headers and tables only: never a weight, never dlopen, never unpickle.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import inspector.elf as elf
from ..cpu_isa import ISA_CPUINFO, M_FLAG_CPUINFO
from ..dialects import sniff
from ..dialects.members import (CMAKE_PROJECT, CMAKE_STANDALONE, PICKLED_WEIGHTS_CONFIG, PICKLED_WEIGHTS_DIR,
                                pickled_weights, weights_blob)
from ..errors import UsageError
from ..explain.diagnose import load_from_disk_call
from .kernel_binaries import cpp_build, embedded_kernel_symbols, kernel_images

SEVERITY_ORDER = {"error": 0, "warn": 1, "info": 2}
# the one table of CPU features, shared with diagnose (inspector.cpu_isa)
_M_FLAG_CPUINFO, _ISA_CPUINFO = M_FLAG_CPUINFO, ISA_CPUINFO
_COMPILE_CMD = re.compile(r"^//\s*(?:g\+\+|c\+\+|clang\+\+|\S*/(?:g\+\+|c\+\+|clang\+\+))\s.*$", re.M)
_M_FLAGS = re.compile(r"\s-m([a-z0-9-]+)")
_LOAD_KERNEL = re.compile(r"loadKernel\(\s*\"?[^\"]*?([\w]+\.cubin)")
_LOAD_KERNEL_ANY = re.compile(r"(\w+\.(?:cubin|fatbin))")
_RELEASE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


@dataclass
class Finding:
    severity: str  # "error": it will fail · "warn": it may fail or mislead · "info"
    kind: str
    model: str | None
    message: str
    evidence: list[str] = field(default_factory=list)
    fix: str | None = None

    def to_dict(self) -> dict:
        return {"severity": self.severity, "kind": self.kind, "model": self.model, "message": self.message,
                "evidence": list(self.evidence), "fix": self.fix}


@dataclass
class DoctorResult:
    package: str
    models: list[str]
    findings: list[Finding]
    facts: dict = field(default_factory=dict)  # per model: sm, isa, shim symbols, oldest torch, weights bytes …
    # what "here" could not be checked against (no GPU found, cpuinfo not read, not asked): said in the verdict,
    # so "nothing stands against running it here" is never said without having looked (issue 22 §2)
    unchecked: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def verdict(self) -> str:
        e = self.errors
        w = [f for f in self.findings if f.severity == "warn"]
        if e:
            return f"will not run as given: {e[0].message}" + (f" (and {len(e) - 1} more error(s))" if len(e) > 1 else "")
        if self.unchecked:
            gap = "; not checked: " + ", ".join(self.unchecked)
            if w:
                return f"no error found in what was checked; {len(w)} warning(s): {w[0].message}{gap}"
            return f"no error found in what was checked{gap}"
        if w:
            return f"no error found; {len(w)} warning(s): {w[0].message}"
        return "no error found: nothing in the package stands against running it here"

    def to_dict(self) -> dict:
        return {"package": self.package, "models": list(self.models), "ok": self.ok, "verdict": self.verdict(),
                "findings": [f.to_dict() for f in self.findings], "facts": self.facts,
                "unchecked": list(self.unchecked)}


# -- the shipped table ------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def shim_table() -> dict:
    try:
        text = resources.files("inspector").joinpath("data/shim_symbols.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError):
        text = (Path(__file__).resolve().parents[1] / "data" / "shim_symbols.json").read_text()
    return json.loads(text)


def resolve_release(torch: str) -> str:
    """``"2.13"`` or ``"2.13.0"`` -> the table's release; a UsageError naming the known ones otherwise."""
    known = list(shim_table()["releases"])
    t = torch.strip().split("+")[0]
    if t in known:
        return t
    m = _RELEASE.match(t)
    if m:
        hits = [r for r in known if r.split(".")[:2] == [m.group(1), m.group(2)]]
        if hits:
            return hits[-1]
    raise UsageError(f"--torch {torch!r}: no table for that release; known: {', '.join(known)}")


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


# -- the host -----------------------------------------------------------------------------------------

def host_cpu_flags(text: str) -> set[str]:
    """The flags of a ``/proc/cpuinfo`` text (its first ``flags`` line), or of a bare flag list."""
    for line in text.splitlines():
        if re.match(r"^\s*flags\s*:", line):
            return set(line.split(":", 1)[1].split())
    return set(text.split())


def nvidia_smi_sm() -> int | None:
    """The compute capability ``nvidia-smi`` reports for GPU 0 (90 for 9.0), None without one."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+)\.(\d+)", out)
    return int(m.group(1)) * 10 + int(m.group(2)) if m else None


def parse_gpu(gpu: str) -> int:
    """``sm_80`` / ``sm80`` / ``8.0`` / ``80`` -> 80; a UsageError otherwise."""
    g = gpu.strip().lower()
    m = re.fullmatch(r"(?:sm_?)?(\d{2,3})[af]?|(\d+)\.(\d)", g)
    if not m:
        raise UsageError(f"--gpu {gpu!r}: give the GPU's architecture as sm_XX (sm_80, sm_90, sm_100) or X.Y (8.0), "
                         "or 'auto'")
    return int(m.group(1)) if m.group(1) else int(m.group(2)) * 10 + int(m.group(3))


def _runs_on(built: int, gpu: int) -> bool:
    """SASS for sm_XY runs on a GPU of the same major version and a minor version >= Y."""
    return built // 10 == gpu // 10 and gpu % 10 >= built % 10


# -- the package ----------------------------------------------------------------------------------------

def _so_reader(pkg, member: str):
    """Ranged reads of a member: the headers and tables of a `.so` whose weights may be gigabytes."""
    return lambda offset, size: pkg.archive.read_range(member, offset, size)


def doctor(pkg, gpu: str | None = None, host_cpuinfo: str | None = None, torch: str | None = None,
           weights: str | None = None, model: str | None = None, inputs=()) -> DoctorResult:
    """Every finding for every model of ``pkg`` (or ``model``).  ``host_cpuinfo``: a /proc/cpuinfo text, or
    "auto" (this host).  ``weights``: a weights file or folder to check against the model's constants.
    ``inputs``: input shapes (``check``'s ``InputSpec``) the memory estimate is evaluated at."""
    release = resolve_release(torch) if torch else None
    gpu_sm, gpu_src = None, None
    if gpu:
        if gpu == "auto":
            gpu_sm, gpu_src = nvidia_smi_sm(), "nvidia-smi"
        else:
            gpu_sm, gpu_src = parse_gpu(gpu), f"--gpu {gpu}"
    host_flags, host_glibc = None, None
    cpu_gap = None
    if host_cpuinfo == "auto":
        try:
            host_flags = host_cpu_flags(Path("/proc/cpuinfo").read_text())
        except OSError as e:
            host_flags, cpu_gap = None, f"this host's CPU features (/proc/cpuinfo not read: {e.strerror or e})"
        try:
            host_glibc = os.confstr("CS_GNU_LIBC_VERSION")
        except (ValueError, OSError, AttributeError):
            host_glibc = None
    elif host_cpuinfo:
        host_flags = host_cpu_flags(host_cpuinfo)
    findings: list[Finding] = []
    facts: dict = {}
    names = [pkg.files(model).name] if model else list(pkg.model_names)
    wfile = None
    if weights:
        from ..weights import read_weights

        if len(names) > 1:
            raise UsageError(f"--weights: {pkg.path} holds several models ({', '.join(names)}): pass --model NAME")
        wfile = read_weights(weights)
    for name in names:
        f = pkg.files(name)
        facts[name] = fact = {}
        members = set(pkg.archive.members())
        wrapper = pkg.archive.read_text(f.wrapper) if f.wrapper else ""
        dialect = sniff(wrapper, f.wrapper) if wrapper else None  # once: each sniff reads the whole text
        md = {}
        if f.wrapper_metadata:
            try:
                md = pkg.archive.read_json(f.wrapper_metadata) or {}
            except Exception:  # noqa: BLE001 - an unreadable metadata member is a finding, not a crash
                findings.append(Finding("warn", "completeness", name, "the wrapper metadata is not valid JSON",
                                        [f.wrapper_metadata]))
        device = md.get("AOTI_DEVICE_KEY") or ("cuda" if f.cubins or embedded_kernel_symbols(wrapper) else "cpu")
        fact["device"] = device
        findings += _gpu(name, f, pkg, device, gpu_sm, gpu_src, fact, wrapper)
        findings += _device_index(name, f, wrapper, device, fact)
        findings += _cpu(name, f, pkg, md, wrapper, host_flags, host_cpuinfo, fact)
        findings += _abi(name, f, pkg, release, host_glibc, fact)
        findings += _layout(name, pkg, release)
        findings += _weights(name, f, pkg, fact)
        findings += _cmake(pkg, name, f, fact)
        findings += _complete(name, f, wrapper, members, fact, pkg, dialect)
        findings += _checks(name, wrapper, fact, dialect)
        findings += _unchecked(pkg, name, f, fact)
        findings += _custom_ops(pkg, name, f, fact)
        findings += _memory(pkg, name, device, inputs, fact)
        findings += _constant_nan(pkg, name, fact)
        if wfile is not None:
            findings += compare_weights(name, pkg.index(name).constants(), wfile, fact)
    findings.sort(key=lambda x: (SEVERITY_ORDER[x.severity], x.model or "", x.kind))
    unchecked = []
    if any(facts[n].get("cubin_sm") is not None or pkg.files(n).cubins for n in names):
        if not gpu:
            unchecked.append("the GPU (no --gpu sm_XX or --gpu auto)")
        elif gpu_sm is None:
            unchecked.append("the GPU (--gpu auto: no GPU found, nvidia-smi is missing or reported nothing)")
    if cpu_gap:
        unchecked.append(cpu_gap)
    elif not host_cpuinfo and any(facts[n].get("cpu_flags_needed") for n in names):
        unchecked.append("the host's CPU features (no --host-cpuinfo auto or FILE)")
    return DoctorResult(str(pkg.path), names, findings, facts, unchecked)


_DEVICE_IDX = re.compile(r"\bthis->device_idx_\b")
_FIXED_IDX = re.compile(r"\"(cuda|xpu):(\d+)\"")


def _device_index(name, f, wrapper: str, device: str, fact) -> list[Finding]:
    """Which GPU index the model can be loaded on: its wrapper allocates and launches on the runner's own index
    (``this->device_idx_``), so any index of its device type, chosen with ``device_index``; a device string with
    a fixed index in the wrapper pins it."""
    from ..explain import device_index_fix, device_index_words

    dev = (device or "").split(":")[0]
    if dev not in ("cuda", "xpu") or not wrapper:
        return []
    uses = [i + 1 for i, line in enumerate(wrapper.splitlines()) if _DEVICE_IDX.search(line)]
    fixed = sorted({m.group(0) for m in _FIXED_IDX.finditer(wrapper)})
    fact["device_index"] = {"runner_index_uses": len(uses), "fixed": fixed}
    ev = [f"{f.wrapper}: this->device_idx_ at lines {', '.join(map(str, uses[:5]))}" + (" …" if len(uses) > 5 else "")
          ] if uses else []
    return [Finding("warn" if fixed else "info", "device_index", name, device_index_words(dev, len(uses), fixed),
                    ev + [f"{f.wrapper}: {x}" for x in fixed], device_index_fix(dev))]


def _gpu(name, f, pkg, device, gpu_sm, gpu_src, fact, wrapper: str = "") -> list[Finding]:
    images = kernel_images(pkg, f, wrapper)
    if not images:
        if gpu_src and device == "cpu":
            return [Finding("info", "gpu_arch", name, "a CPU model: it needs no GPU", [f.wrapper or ""])]
        return []
    readable = [i for i in images if i.error is None]
    unreadable = [i for i in images if i.error is not None]
    sms: dict[int, list[str]] = {}
    for i in readable:
        for s in i.sass:
            sms.setdefault(s, []).append(i.source)
    ptx = sorted({p for i in readable for p in i.ptx})
    specific = any(i.arch_specific for i in readable)
    forms = {}
    for i in images:
        forms[i.form] = forms.get(i.form, 0) + 1
    fact["cubin_sm"] = sorted(sms)
    if set(forms) != {"cubin"}:
        fact["kernel_images"] = {"forms": forms, "sass_sm": sorted(sms), "ptx_sm": ptx, "arch_specific": specific}
    out = []
    count = ", ".join(f"{n} {_FORM_WORDS.get(k, k)}" for k, n in sorted(forms.items()))
    suffix = "a" if specific else ""
    built = ", ".join(f"sm_{s}{suffix}" for s in sorted(sms))
    if unreadable:
        out.append(Finding("warn", "gpu_arch", name, f"{len(unreadable)} kernel image(s) are not CUDA ELF or fatbin "
                           "files: their architecture is unknown",
                           [f"{i.source}: {i.error}" for i in unreadable[:3]]))
    if not readable:
        return out
    if not ptx:  # SASS only: cubins, or images embedded in the .so
        ev = [count] + ([f"{i.source}" for i in readable[:2]] if "cubin" not in forms else [])
        if gpu_src and gpu_sm is None:
            out.append(Finding("info", "gpu_arch", name, f"built for {built}; no GPU found to compare with "
                               "(nvidia-smi is missing or reported nothing)", ev,
                               "pass --gpu sm_XX for the GPU it will run on"))
        elif gpu_src:
            bad = [s for s in sms if not any(i.runs_on(gpu_sm) for i in readable if s in i.sass)]
            if bad:
                out.append(Finding(
                    "error", "gpu_arch", name,
                    f"its {sum(len(sms[s]) for s in bad)} {'cubin(s)' if set(forms) == {'cubin'} else 'kernel image(s)'} "
                    f"are built for {', '.join(f'sm_{s}{suffix}' for s in sorted(bad))} "
                    f"and the GPU ({gpu_src}) is sm_{gpu_sm}: the first kernel launch fails with `CUDA driver error: "
                    "no kernel image is available for execution on the device`",
                    [sms[s][0] for s in sorted(bad)],
                    f"compile the package on (or for) an sm_{gpu_sm} GPU: AOTInductor compiles natively, not across "
                    "architectures, and Triton's cubins carry no PTX to JIT"))
            else:
                out.append(Finding("info", "gpu_arch", name, f"built for {built}; runs on the sm_{gpu_sm} GPU ({gpu_src})",
                                   ev))
        else:
            out.append(Finding("info", "gpu_arch", name, f"built for {built} (SASS only, no PTX): it runs only on GPUs "
                               f"of that architecture", ev, "pass --gpu sm_XX or --gpu auto to check"))
        return out
    # SASS and PTX (fatbins, emit_multi_arch_kernel): say which GPUs run what
    have = " and ".join(([f"SASS for {built}"] if built else [])
                        + [f"PTX for {', '.join(f'sm_{p}{suffix}' for p in ptx)}"]) + ("" if built else " (no SASS)")
    ev = [count] + [i.source for i in readable[:2]]
    if gpu_src and gpu_sm is not None:
        how = [i.runs_on(gpu_sm) for i in readable]
        if None in how:
            out.append(Finding(
                "error", "gpu_arch", name,
                f"{how.count(None)} of its {len(readable)} kernel image(s) hold {have}"
                + (" (architecture-specific: Triton compiles the 'a' target from compute capability 9.0)" if specific else "")
                + f", none of which an sm_{gpu_sm} GPU ({gpu_src}) can use: the first kernel launch fails with `CUDA "
                "driver error: no kernel image is available for execution on the device`", ev,
                f"compile the package on (or for) an sm_{gpu_sm} GPU"))
        elif "ptx" in how:
            out.append(Finding("info", "gpu_arch", name, f"{have}: the sm_{gpu_sm} GPU ({gpu_src}) runs it by JIT-compiling "
                               f"the PTX of {how.count('ptx')} kernel(s) when they are first loaded (a slower first "
                               "call; the driver caches the result)", ev))
        else:
            out.append(Finding("info", "gpu_arch", name, f"{have}; the SASS runs on the sm_{gpu_sm} GPU ({gpu_src})", ev))
        return out
    if specific:
        msg = (f"{have}: {'both are' if sms else 'it is'} architecture-specific (Triton compiles the 'a' target from compute capability 9.0), "
               f"so it runs only on {', '.join(f'sm_{s}' for s in sorted(set(sms) | set(ptx)))} GPUs; on a GPU of any "
               "other architecture the driver cannot JIT the PTX either and the first kernel launch fails with `no "
               "kernel image is available for execution on the device`")
    else:
        lo = min(ptx)
        msg = (f"{have}: GPUs of {', '.join(f'sm_{s // 10}x' for s in sorted(sms))} run the SASS; other GPUs from "
               f"sm_{lo} on JIT-compile the PTX when a kernel is first loaded (a slower first call); older ones fail "
               "with `no kernel image is available for execution on the device`")
    out.append(Finding("info", "gpu_arch", name, msg, ev, "pass --gpu sm_XX or --gpu auto to check a GPU"))
    return out


_FORM_WORDS = {"cubin": "cubins", "fatbin": "fatbins (emit_multi_arch_kernel)", "ptx": "PTX members (compile_standalone)",
               "embedded": "kernel images embedded in the .so (embed_kernel_binary)",
               "embedded fatbin": "fatbins embedded in the .so"}


def _compile_flags(pkg, f, wrapper: str) -> tuple[set[str], bool, str | None]:
    """(-m flags, -march=native seen, the member the command came from) of the build's compile commands."""
    flags: set[str] = set()
    native, where = False, None
    texts = [(f.wrapper, wrapper)]
    if f.kernel_cpp and f.kernel_cpp != f.wrapper:
        texts.append((f.kernel_cpp, pkg.archive.read_text(f.kernel_cpp)))
    for member, text in texts:
        for m in _COMPILE_CMD.finditer(text):
            cmd = m.group(0)
            flags |= set(_M_FLAGS.findall(cmd)) - {"arch=native"}
            native = native or "-march=native" in cmd
            where = where or member
    return {x for x in flags if not x.startswith(("arch", "tune"))}, native, where


def built_native(pkg, name: str) -> bool:
    """Whether a model's compile commands (the wrapper's, the kernels') hold -march=native."""
    f = pkg.files(name)
    return _compile_flags(pkg, f, pkg.archive.read_text(f.wrapper) if f.wrapper else "")[1]


def uses_amx(pkg, name: str) -> bool:
    """Whether a model's kernels have AMX tile code (tile intrinsics, AMX micro-kernels)."""
    f = pkg.files(name)
    return _uses_amx(pkg, f, pkg.archive.read_text(f.wrapper) if f.wrapper else "")


def _uses_amx(pkg, f, wrapper: str) -> bool:
    """Tile intrinsics or AMX micro-kernels in the kernels' code (comment lines left out)."""
    text = pkg.archive.read_text(f.kernel_cpp) if f.kernel_cpp and f.kernel_cpp != f.wrapper else ""
    for line in (text + "\n" + wrapper).splitlines():
        s = line.lstrip()
        if s.startswith("//"):
            continue
        if "_tile_" in s or "amx" in s.lower():
            return True
    return False


def _cpu(name, f, pkg, md, wrapper, host_flags, host_src, fact) -> list[Finding]:
    # A CUDA package's .so is host code too, compiled on the build host like a CPU package's (seen: `-march=native
    # -mavx512f … -mamx-tile` in cuda/embedding's compile command): its CPU ISA is checked the same way.
    isa = (md.get("AOTI_CPU_ISA") or "").split()
    mflags, native, where = _compile_flags(pkg, f, wrapper)
    need = sorted({_M_FLAG_CPUINFO[x] for x in mflags if x in _M_FLAG_CPUINFO}
                  | {c for w in isa for c in _ISA_CPUINFO.get(w, ())})
    fact.update(cpu_isa=" ".join(isa) or None, cpu_flags_needed=need, march_native=native)
    out = []
    ev = ([f"{f.wrapper_metadata}: AOTI_CPU_ISA {' '.join(isa)}"] if isa else []) + ([f"{where}: compile command"] if where else [])
    host_code = "its .so's host code (a CUDA package's wrapper) " if f.cubins else ""
    if native:
        out.append(Finding("warn", "cpu_isa", name, f"{host_code or 'the code '}was compiled with -march=native: it "
                           "may use any instruction the build machine's CPU has, beyond the flags listed", ev,
                           "run it on the same CPU model it was built on, or rebuild without -march=native "
                           "(torch 2.13: TORCHINDUCTOR_CPP_MARCH=x86-64-v3 ATEN_CPU_CAPABILITY=avx2 at compile time) or on the "
                           "serving CPU"))
    if host_flags is None:
        if need:
            out.append(Finding("info", "cpu_isa", name, f"needs the CPU features {' '.join(need)}", ev,
                               "pass --host-cpuinfo auto (this machine) or a saved /proc/cpuinfo to compare"))
        return out
    missing = [x for x in need if x not in host_flags]
    src = "this host" if host_src == "auto" else "the given cpuinfo"
    # AMX is reached only through tile intrinsics (Inductor's micro-GEMM templates), never by the compiler's own
    # vectorizing: a build whose kernels have no tile code runs without it (seen: cpu/embedding, built with
    # -mamx-tile, ran correctly on a host without AMX, torch only warning "Device information mismatch").
    tile_code = _uses_amx(pkg, f, wrapper)
    fatal = [x for x in missing if not (x.startswith("amx_") and not tile_code)]
    unused = [x for x in missing if x not in fatal]
    if fatal:
        out.append(Finding("error", "cpu_isa", name, f"{host_code}built for CPU features {src} lacks: "
                           f"{' '.join(fatal)}; the first kernel using them dies with SIGILL (exit 132) and no message",
                           ev, "rebuild the package on the serving CPU, or without -march=native and with the vector "
                           "ISA capped at what it has (torch 2.13: TORCHINDUCTOR_CPP_MARCH=x86-64-v3 ATEN_CPU_CAPABILITY=avx2 at "
                           "compile time)"))
    if unused:
        out.append(Finding("warn", "cpu_isa", name, f"compiled with {' '.join(unused)}, which {src} lacks, but no kernel "
                           "of the package has AMX tile code: it runs (torch warns `Device information mismatch for "
                           "AOTI_CPU_ISA`)", ev))
    if need and not missing:
        out.append(Finding("info", "cpu_isa", name, f"{src} has every CPU feature the build uses ({' '.join(need)})", ev))
    return out


def _abi(name, f, pkg, release, host_glibc, fact) -> list[Finding]:
    out = []
    table = shim_table()
    releases = list(table["releases"])
    for so in f.shared_objects:
        try:
            read = _so_reader(pkg, so)
            syms = elf.dynamic_symbols(read)
            versions = elf.needed_versions(read)
        except elf.ElfError as e:
            out.append(Finding("error", "torch_abi", name, f"the model's .so is not a readable ELF file ({e}): the "
                               "loader will fail on it", [so], "rebuild the package"))
            continue
        shim = sorted({s.name for s in syms if not s.defined and s.name.startswith("aoti_")})
        fact["shim_symbols"] = len(shim)
        unknown = [s for s in shim if s not in table["symbols"]]
        have = [r for r in releases if all(r in table["symbols"].get(s, ()) for s in shim)]
        oldest = have[0] if have else None
        fact["oldest_torch"] = oldest
        if unknown:
            out.append(Finding("warn", "torch_abi", name, f"{len(unknown)} C-shim symbol(s) no torch release in the "
                               f"table ({releases[0]}-{releases[-1]}) exports: {', '.join(unknown[:4])}; a newer "
                               "torch (or a custom build) made it", [so]))
        if release:
            lack = [s for s in shim if release not in table["symbols"].get(s, ())]
            if lack:
                out.append(Finding(
                    "error", "torch_abi", name,
                    f"torch {release} lacks {len(lack)} C-shim symbol(s) the .so calls: loading fails with "
                    f"`undefined symbol: {lack[0]}`", [so] + lack[:8],
                    f"serve with torch {oldest} or newer" if oldest else "rebuild the package with the serving torch"))
            else:
                out.append(Finding("info", "torch_abi", name, f"torch {release} exports all {len(shim)} C-shim "
                                   "symbols the .so calls", [so]))
        elif oldest:
            out.append(Finding("info", "torch_abi", name, f"calls {len(shim)} C-shim symbols; the oldest torch "
                               f"release that exports them all is {oldest}", [so],
                               "pass --torch X.Y for the serving release"))
        glibc = [v for lib, v in versions if v.startswith("GLIBC_")]
        cxx = [v for lib, v in versions if v.startswith("GLIBCXX_")]
        top = lambda vs, p: max(vs, key=lambda v: tuple(int(x) for x in re.findall(r"\d+", v[len(p):]))) if vs else None
        fact["glibc"], fact["glibcxx"] = top(glibc, "GLIBC_"), top(cxx, "GLIBCXX_")
        if host_glibc and fact["glibc"]:
            have_v = tuple(int(x) for x in re.findall(r"\d+", host_glibc))
            need_v = tuple(int(x) for x in re.findall(r"\d+", fact["glibc"]))
            if need_v > have_v:
                out.append(Finding("error", "glibc", name, f"the .so needs {fact['glibc']} and this host has "
                                   f"{host_glibc}: loading fails with `version '{fact['glibc']}' not found`", [so],
                                   "build on a machine with an older glibc than the serving one"))
    return out


def _unchecked(pkg, name, f, fact) -> list[Finding]:
    """Loads through an index with no bounds assert (built with assert_indirect_indexing=False, or an extern op
    Inductor cannot check), and extern ATen calls made without an error check."""
    from .suspects import model_suspects

    out = []
    sus = model_suspects(pkg, name)
    fact["unchecked_indirect"] = len(sus)
    if sus:
        s0 = sus[0]
        out.append(Finding("warn", "checks", name, f"{len(sus)} load(s)/store(s) through an index with no bounds check "
                           f"(e.g. {s0['kernel']} line {s0['line']}): a bad index there reads or writes out of bounds "
                           "(an illegal memory access, a segfault, or wrong numbers) instead of failing with a message",
                           [f"{x['kernel']} line {x['line']}" for x in sus[:4]],
                           "rebuild with index asserts on (inductor_configs={'assert_indirect_indexing': True}, the "
                           "default), or check the index inputs before calling"))
    bare = [(target, st.line) for st, target, kind in pkg.index(name).calls()
            if kind == "extern" and st.kind != "checked_call"
            and not target.startswith(("aoti_torch_clone", "aoti_torch_copy", "aoti_torch_empty"))]
    fact["unchecked_extern"] = len(bare)
    if bare:
        out.append(Finding("info", "checks", name, f"{len(bare)} extern call(s) run without an error check (e.g. "
                           f"{bare[0][0]} at wrapper.cpp line {bare[0][1]}): an error there prints `Exception in "
                           "aoti_torch` and the run goes on with garbage", [f"{t} line {ln}" for t, ln in bare[:4]]))
    return out


def _custom_ops(pkg, name, f, fact) -> list[Finding]:
    """Ops the package calls through the proxy executor (``<hash>.wrapper.json``): a Python ``custom_op`` needs its
    registration in the serving process (seen for real: `Could not find schema for hvlib::scale_shift`)."""
    out = []
    jsons = [x for x in f.other if x.endswith(".wrapper.json")]
    calls = [st.line for st, target, _k in pkg.index(name).calls() if target == "aoti_torch_proxy_executor_call_function"]
    if calls and not jsons:  # seen for real (torch 2.11): `Unable to find a proxy executor to run custom ops`
        out.append(Finding("error", "custom_op", name,
                           f"calls {len(calls)} op(s) through the proxy executor but has no <hash>.wrapper.json, the "
                           "file the loader builds it from: loading succeeds and the first run fails with `Unable to "
                           "find a proxy executor to run custom ops`",
                           [f"wrapper.cpp line{'s' if len(calls) > 1 else ''} {', '.join(map(str, calls[:5]))}"],
                           "package it again with torch._inductor.aoti_compile_and_package, or put the .wrapper.json "
                           "the compile produced back beside the .so"))
    for member in jsons:
        try:
            doc = pkg.archive.read_json(member)
        except Exception:  # noqa: BLE001 - unreadable: the loader will say so; not our finding
            continue
        for n in (doc or {}).get("nodes", []):
            node = n.get("node") or {}
            op = node.get("target")
            if not op:
                continue
            py = (node.get("metadata") or {}).get("torch_library_custom_op") == "1"
            fact.setdefault("custom_ops", []).append(op)
            out.append(Finding("warn" if py else "info", "custom_op", name,
                               f"calls the custom op {op} through the proxy executor" + (
                                   ": a Python torch.library.custom_op, so the serving process must import its "
                                   "definition before loading, or loading fails with `Could not find schema for "
                                   f"{op}`" if py else ": it must be registered (TORCH_LIBRARY) where the package runs"),
                               [member], "import the module that defines it before aoti_load_package" if py else None))
    return out


# The oldest loader seen to want the archive's members at its top (`data/aotinductor/…`, no root folder).
ROOTLESS_LOADERS = ("2.6",)


def _layout(name, pkg, release) -> list[Finding]:
    """torch 2.6's aoti_load_package looks for `data/aotinductor/` at the archive's top: a package with a root
    folder (every build since) fails there before any symbol is resolved."""
    root = getattr(pkg.archive, "root", "")
    if not release or not root or pkg.archive.kind != "zip" or not release.startswith(ROOTLESS_LOADERS):
        return []
    return [Finding("error", "torch_abi", name,
                    f"torch {release}'s loader expects the members at the archive's top, and this package keeps them "
                    f"under {root!r}: aoti_load_package fails with `RuntimeError: No AOTInductor generate cpp file or "
                    "so file found in zip archive`", [f"root folder {root}"],
                    "serve it with the torch release that built it (or a newer one)")]


def weights_blob_bytes(pkg, name: str) -> int | None:
    """The size of the constants blob compiled into a model's .so (``_binary_constants_bin_start`` … ``_end``):
    1 byte when it was built with package_constants_in_so=False; None when the .so says nothing."""
    for so in pkg.files(name).shared_objects:
        try:
            syms = {s.name: s.value for s in elf.dynamic_symbols(_so_reader(pkg, so))}
        except elf.ElfError:
            continue
        if "_binary_constants_bin_start" in syms:
            return syms.get("_binary_constants_bin_end", 0) - syms["_binary_constants_bin_start"]
    return None


def weights_on_disk(pkg, name: str) -> tuple[str, list[str], int] | None:
    """A model whose constants are stored beside the code (package_constants_on_disk_format="pickle_weights"):
    its ``weights_config.json`` member, the archive's ``data/weights/weight_<i>`` members and their total bytes,
    from the zip directory alone (never read, never unpickled).  None when the model has no weights_config.json."""
    f = pkg.files(name)
    a = pkg.archive
    members = a.members()
    config = f.folder + PICKLED_WEIGHTS_CONFIG
    if config not in members:
        return None
    pickled = pickled_weights(members, getattr(a, "root", ""))
    return config, pickled, sum(a.size(m) for m in pickled)


def weights_blob_member(pkg, name: str) -> tuple[str, int] | None:
    """A model built with package_constants_on_disk_format="binary_blob": its ``<hash>.wrapper_weights.blob`` member
    and that member's size (zip directory; never read).  None when it has none."""
    member = weights_blob(pkg.archive.members(), pkg.files(name).folder)
    return (member, pkg.archive.size(member)) if member else None


def _weights(name, f, pkg, fact) -> list[Finding]:
    out = []
    disk = weights_on_disk(pkg, name)
    if disk:
        _, pickled, disk_bytes = disk
        fact["weights_on_disk_members"], fact["weights_on_disk_bytes"] = len(pickled), disk_bytes
    blob_member = weights_blob_member(pkg, name)
    if blob_member:
        fact["weights_blob_member"], fact["weights_blob_bytes"] = blob_member
    for so in f.shared_objects[:1]:
        blob = weights_blob_bytes(pkg, name)
        if blob is None:
            continue
        fact["weights_in_so_bytes"] = blob
        try:
            consts = pkg.index(name).constants()
        except Exception:  # noqa: BLE001 - the finding still stands without the constants' sizes
            consts = []
        need = sum(c.nbytes or 0 for c in consts)
        fact["constants"], fact["constants_bytes"] = len(consts), need
        if blob <= 64 and need and blob_member:
            out += _blob_beside(name, so, blob, len(consts), need, *blob_member)
        elif blob <= 64 and need and disk:
            out.append(_beside(name, f"its {len(consts)} constants ({need:,} bytes) are not in the .so: they are",
                               [f"{so}: constants blob {blob} byte(s)"], disk))
        elif blob <= 64 and need:
            out.append(Finding(
                "warn", "weights", name,
                f"its {len(consts)} constants ({need:,} bytes) are not in the .so (built with "
                "package_constants_in_so=False): run it before `load_constants` and it segfaults (SIGSEGV, exit 139, "
                "no message)", [f"{so}: constants blob {blob} byte(s)"],
                "call `runner.load_constants(weights, check_full_update=True)` (or update_constant_buffer) with every "
                "constant before the first run"))
        elif need:
            out.append(Finding("info", "weights", name, f"its {len(consts)} constants ({need:,} bytes) are compiled "
                               f"into the .so ({blob:,} bytes with alignment)", [so]))
            if disk:
                out.append(Finding("info", "weights", name, "a copy of its constants is also stored beside the code "
                                   f"(pickle_weights, {disk[2]:,} bytes): aoti_load_package uses the .so's copy",
                                   _disk_evidence(disk)))
    if disk and not any(x.kind == "weights" for x in out):  # no .so to read: the members alone say it
        out.append(_beside(name, "its constants are", [], disk))
    return out


def _constant_nan(pkg, name, fact) -> list[Finding]:
    """Kernels that read no tensor and store a NaN constant (seen for real, torch 2.11: a user-defined Triton kernel
    taking TMA descriptors was dropped at export, and the relu after it stored NaN: every output NaN)."""
    from .nan_constants import constant_nan_kernels

    try:
        hits = constant_nan_kernels(pkg, name)
    except Exception:  # noqa: BLE001 - no answer is a missing fact, not a failed doctor
        return []
    if hits:
        fact["constant_nan_kernels"] = [k for k, _ in hits]
    return [Finding("error", "checks", name,
                    f"{k} reads no tensor and stores a NaN constant: what it writes is NaN whatever the input (an op "
                    "whose result Inductor did not have: e.g. a user-defined Triton kernel dropped at export, its "
                    "output's torch.empty folded to NaN)",
                    [f"wrapper.cpp line {line}: its launch" if line else k],
                    "look for a warning at export/compile time (torch/_higher_order_ops/triton_kernel_wrap.py); run the "
                    "exported program eagerly and compare")
            for k, line in hits]


def _memory(pkg, name, device, inputs, fact) -> list[Finding]:
    """Constant bytes and the run's peak activation memory: a formula of the dynamic symbols, evaluated at
    ``inputs`` (else only the formula at the allocation where it peaks for size 64 of every symbol)."""
    from .memory import human_bytes, memory_plan, symbol_values

    try:
        plan = memory_plan(pkg, name)
    except Exception:  # noqa: BLE001 - no estimate is a missing fact, not a failed doctor
        return []
    consts = pkg.index(name).constant_totals()
    by_dev: dict[str, int] = {}
    for _dtype, dev, _count, nbytes in consts.get("by") or []:
        by_dev[dev or device] = by_dev.get(dev or device, 0) + nbytes
    cbytes = by_dev.get(device, 0) if by_dev else (consts.get("nbytes") or 0)
    elsewhere = {d: b for d, b in sorted(by_dev.items()) if d != device and b}
    m = pkg.index(name).eager()
    given = symbol_values(m, inputs) if inputs else {}
    if not plan.allocations:
        return []
    values = {s: given.get(s, 64) for s in plan.symbols}
    est = plan.estimate(values)
    peak = est.steady
    alloc = next((a for a in plan.allocations if a.line == peak.line), None)
    at = ", ".join(f"{k} = {v}" for k, v in sorted(values.items()) if m.symbols[k].alias_of is None)
    fact["memory"] = {"constants_bytes": cbytes, "peak_activation_bytes": peak.bytes if est.estimable else None,
                      "at": values, "peak_line": peak.line, "live_at_peak": peak.live, "outputs_bytes": peak.outputs,
                      "extern_outputs_estimated": sum(1 for a in plan.allocations if a.estimated_from),
                      "extern_outputs_unsized": plan.unsized, "given": bool(given),
                      "first_run_bytes": est.first.bytes if est.estimable else None,
                      "upper_bytes": est.upper if est.estimable else None,
                      "unknown_sizes": peak.unknown, "cublas_workspace": est.cublas, "convolutions": est.conv}
    if elsewhere:  # a mixed graph: constants kept on the CPU are host memory, not the model device's
        fact["memory"]["constants_bytes_elsewhere"] = elsewhere
    on_elsewhere = "".join(f" (and {human_bytes(b)} of constants on {d}, not {device} memory)" for d, b in elsewhere.items())
    where = f"{'at ' + at if at else 'static shapes'}{'' if given or not at else ' (no --input: every symbol taken as 64)'}"
    ev = [f"{len(plan.allocations)} allocations and their releases in run_impl"]
    if not est.estimable:
        msg = (f"{where}: could not estimate the activations' peak: none of the {len(plan.allocations)} allocations "
               f"has a size these values settle ({', '.join(peak.unknown[:5]) or 'no size found'}) "
               f"+ {human_bytes(cbytes)} of constants on {device}{on_elsewhere}")
        return [Finding("info", "memory", name, msg, ev, "pass --input for every dynamic dimension; sizes the "
                        "wrapper computes at run time cannot be read from the package")]
    floor = not est.upper
    lo, first = peak.bytes, est.first.bytes
    if est.upper is not None:
        span = f"{human_bytes(lo)} to {human_bytes(est.upper)} of activations at their peak"
    else:
        span = f"at least {human_bytes(lo)} of activations at their peak (no upper bound: sizes unknown)"
    msg = (f"{where}: {span} (wrapper.cpp line {peak.line}, {len(peak.live)} buffers alive)"
           + (f"; a fresh process's first run at least {human_bytes(first)} (cuBLAS's 32 MiB workspace)"
              if est.cublas and first > lo else "")
           + f" + {human_bytes(cbytes)} of constants on {device}{on_elsewhere}")
    if alloc is not None:
        ev.append(f"the peak's allocation: {alloc.buffer} = {alloc.formula()} bytes (wrapper.cpp line {alloc.line})")
    estd = [a for a in plan.allocations if a.estimated_from]
    if estd:
        ev.append(f"{len(estd)} extern op outputs sized by the numel of the kernel that reads them (an estimate)")
    if plan.unsized:
        ev.append(f"{len(plan.unsized)} extern op outputs of unknown size left out: {', '.join(plan.unsized[:5])}")
    if peak.unknown:
        ev.append(f"{len(peak.unknown)} allocations whose size these values do not settle, left out: "
                  + ", ".join(peak.unknown[:5]))
    if est.upper is not None:
        ev.append("the range: the activations alone (a later run in the same process) up to a fresh process's "
                  "first run with cuBLAS's workspace" + (" and each convolution's workspace allowance (2x its output)"
                                                         if est.conv else "") + " + 4 MiB for library temporaries")
    ev.append(MEMORY_MEASURED)
    return [Finding("info", "memory", name, msg, ev,
                    ("a floor: " if floor else "") + "not counted: the inputs and the allocator's fragmentation")]


# What the range was checked against (tests/test_memory.py holds it on these packages)
MEMORY_MEASURED = ("measured on an H200 (torch.cuda.max_memory_allocated above the inputs, weights loaded): "
                   "every run of an MLP, BERT-base (static batch and dynamic batch+sequence, up to 720 MiB at "
                   "[32,512]), ResNet-18 (batch 1-64, up to 429 MiB), and timm ResNet-18 / MobileNetV3 / ViT-tiny at "
                   "batch 2 falls in it; the activations alone are exact for the MLP and BERT, 0.57x for ResNet-18 "
                   "(cuDNN's workspaces)")


def _blob_beside(name, so: str, blob: int, n: int, need: int, member: str, size: int) -> list[Finding]:
    """binary_blob: the constants are one raw member beside the .so, which aoti_load_package loads by itself."""
    ev = [f"{so}: constants blob {blob} byte(s)", f"{member}: {size:,} bytes (zip directory)"]
    if size < need:
        return [Finding("error", "weights", name, f"its {n} constants need {need:,} bytes but the weights blob beside "
                        f"the .so (package_constants_on_disk_format=\"binary_blob\") holds {size:,}: it is truncated "
                        "or belongs to another build", ev, "repackage it with the blob aoti_compile_and_package wrote")]
    return [Finding("info", "weights", name, f"its {n} constants ({need:,} bytes) are stored beside the .so, in the "
                    "package's weights blob (package_constants_on_disk_format=\"binary_blob\"): aoti_load_package "
                    "loads it before the first run; the .so loaded alone (AOTIModelContainerRunnerCpu, "
                    "torch._export.aot_load) does not, and its first run segfaults", ev,
                    "load it with torch._inductor.aoti_load_package(PKG); a runner made from the .so alone needs "
                    "`runner.load_constants(weights, check_full_update=True)` first")]


def _disk_evidence(disk) -> list[str]:
    config, pickled, disk_bytes = disk
    shown = pickled[:5] + ([f"… and {len(pickled) - 5} more"] if len(pickled) > 5 else [])
    return [f"{config}: maps each constant's FQN to a member below",
            f"{len(pickled)} member(s) under {PICKLED_WEIGHTS_DIR}, {disk_bytes:,} bytes (zip directory): "
            + ", ".join(m.rsplit("/", 1)[-1] for m in shown)]


def _beside(name, lead: str, evidence: list[str], disk) -> Finding:
    """The package carries its weights as separate pickled members: only the loading call that reads them works."""
    return Finding(
        "warn", "weights", name,
        f"{lead} stored beside the code, one pickled tensor per member "
        "(package_constants_on_disk_format=\"pickle_weights\"), and it needs the loading call that reads them "
        "(load_weights_from_disk=True): plain aoti_load_package ignores them and the first call segfaults "
        "(SIGSEGV, exit 139, no message)", evidence + _disk_evidence(disk),
        f"load it with `{load_from_disk_call(name)}` (it reads {PICKLED_WEIGHTS_DIR} and calls "
        "load_constants; torch 2.13's load_package has no load_weights_from_disk), or call "
        "`runner.load_constants(state_dict, check_full_update=True)` after aoti_load_package")


def cmake_project(pkg, name: str) -> str | None:
    """"standalone" (aot_inductor_mode.compile_standalone) or "cpp_only" (package_cpp_only=True) for a model folder
    that is a CMake project (its CMakeLists.txt, read: a small text member); None otherwise."""
    member = pkg.files(name).folder + CMAKE_PROJECT
    if member not in pkg.archive.members():
        return None
    return "standalone" if CMAKE_STANDALONE in pkg.archive.read_text(member) else "cpp_only"


def _cmake(pkg, name, f, fact) -> list[Finding]:
    """A CPU model shipped as its CMake project and no .so (package_cpp_only / compile_standalone; torch 2.13).  Seen
    for real: aoti_load_package builds a package_cpp_only package itself (g++ with torch's headers, at load) and it
    runs; a compile_standalone one it builds too, then dlopen fails (`undefined symbol: aoti_torch_check`: the
    library is libtorch-free)."""
    kind = cmake_project(pkg, name) if not f.shared_objects and fact.get("device") == "cpu" else None
    fact["cmake_project"] = kind
    if kind is None:
        return []
    ev = [f.folder + CMAKE_PROJECT, f"{f.folder}: no .so"]
    if kind == "standalone":
        return [Finding("error", "completeness", name, "the package is a libtorch-free C++ project "
                        "(aot_inductor_mode.compile_standalone: CMakeLists.txt builds a static library against "
                        "TorchStandalone, no .so): aoti_load_package cannot run it (it compiles it, then dlopen fails: "
                        "`undefined symbol: aoti_torch_check`)", ev,
                        "build it into your C++ program with its CMakeLists.txt (find_package(TorchStandalone)) and "
                        "call the model class its header declares; to serve it from Python, rebuild without "
                        "compile_standalone")]
    return [Finding("warn", "completeness", name, "the package holds the model's C++ sources and CMakeLists.txt, not "
                    "a compiled .so (package_cpp_only=True): aoti_load_package compiles it when it loads it (torch "
                    "2.13), so the serving host needs a C++ compiler, torch's headers and time (tens of seconds)", ev,
                    "build it once where it is served (cmake with find_package(Torch): a shared library), or "
                    "rebuild without package_cpp_only to ship the .so")]


def _cpp_only(pkg, name, f, wrapper: str, build, fact) -> Finding:
    """No .so but a CMakeLists.txt: built with package_cpp_only=True (or compile_standalone).  Seen on torch 2.11
    (sample_packages/options/): aoti_load_package compiles and links such a package itself at load (cpp_only_cuda
    ran), except when its kernels are loaded from ``__<k>_start`` symbols with no image in the package to embed
    them from (compile_standalone: only the CMake build turns its .ptx into fatbins and embeds them; the loader's
    own build failed at dlopen with ``undefined symbol: __gather_triton_…_start``)."""
    fact["cpp_build"] = build.to_dict()
    flags = next((m for m in f.other if m.endswith("_compile_flags.json")), None)
    compiler = None
    if flags:
        try:
            compiler = (pkg.archive.read_json(flags) or {}).get("compiler")
        except Exception:  # noqa: BLE001 - an unreadable flags member only loses the compiler's name
            compiler = None
    ev = [build.cmakelists + (f": add_library({build.library})" if build.library else "")]
    ev += [f"{flags}: compiler {compiler}"] if flags else []
    how = (f"cmake -S <the model folder> -B build && cmake --build build (needs {build.needs()}), then link "
           f"{'the library' if not build.library else build.library.split(' ')[0]} into the program that serves it")
    embedded = embedded_kernel_symbols(wrapper)
    images = {m.rsplit("/", 1)[-1] for m in f.cubins if m.endswith((".cubin", ".fatbin"))}
    if embedded and not images:
        more = f" (and {len(embedded) - 1} more)" if len(embedded) > 1 else ""
        ev.append(f"wrapper: loadKernel({embedded[0]}, …){more}; the kernels are .ptx members the CMake build turns "
                  "into fatbins and embeds")
        return Finding("error", "completeness", name,
                       "the package holds no .so: it is C++ source meant to be built with its CMakeLists.txt "
                       "(compile_standalone / package_cpp_only), and aoti_load_package cannot run it: its own build "
                       "leaves the kernel images out and dlopen fails with `undefined symbol: "
                       f"{embedded[0]}`", ev, how)
    return Finding("warn", "completeness", name,
                   "the package holds no .so: it is C++ source meant to be built with its CMakeLists.txt "
                   "(package_cpp_only=True); aoti_load_package compiles and links it itself at every load, which "
                   f"needs a C++ compiler{' (' + compiler + ')' if compiler else ''}, torch's headers and "
                   + ("the CUDA headers " if build.cuda else "") + "on the serving host", ev, how)


def _complete(name, f, wrapper: str, members: set[str], fact, pkg=None, dialect=None) -> list[Finding]:
    out = []
    # a CPU CMake project is _cmake's (package_cpp_only / compile_standalone as seen on torch 2.13); the rest here
    cmake_cpu = fact.get("cmake_project")
    build = cpp_build(pkg, f) if pkg is not None and not f.shared_objects and not cmake_cpu else None
    if build is not None:
        out.append(_cpp_only(pkg, name, f, wrapper, build, fact))
    elif not f.shared_objects and not cmake_cpu:
        out.append(Finding("error", "completeness", name, "the package holds no compiled .so for this model: "
                           "aoti_load_package cannot load it", [f.folder],
                           "repackage it with the .so that aoti_compile_and_package wrote"))
    names = {m.rsplit("/", 1)[-1] for m in f.cubins}
    wanted = set()
    marker = dialect.load_kernel_marker if dialect else None
    for line in wrapper.splitlines():
        if marker in line:
            wanted |= set(_LOAD_KERNEL_ANY.findall(line))
    missing = sorted(wanted - names)
    fact["cubins_named"], fact["cubins_missing"] = len(wanted), len(missing)
    if missing:
        out.append(Finding("error", "completeness", name, f"{len(missing)} cubin(s) the wrapper loads are not in the "
                           "package: the first launch of their kernels fails", missing[:5],
                           "repackage it with every cubin the build wrote"))
    return out


def _checks(name, wrapper: str, fact, dialect=None) -> list[Finding]:
    out = []
    guards = dialect is not None and dialect.check_input_start in wrapper  # a check_input_K is compiled in
    nan = "aoti_torch_check_inf_and_nan" in wrapper
    printer = "aoti_torch_print_tensor_handle" in wrapper or "aoti_torch_save_tensor_handle" in wrapper
    fact.update(input_guards=guards, nan_checks=nan, value_printer=printer)
    if not guards:
        out.append(Finding("warn", "checks", name, "no input guards are compiled in: a wrong shape, dtype or device "
                           "is not caught before the kernels run (even with AOTI_RUNTIME_CHECK_INPUTS=1)", [],
                           "check inputs first: pt2-inspect check PKG --input …"))
    if nan:
        out.append(Finding("info", "checks", name, "NaN/Inf checks are compiled in (aoti_torch_check_inf_and_nan)"))
    if printer:
        out.append(Finding("warn", "checks", name, "the intermediate value printer is compiled in: every run prints "
                           "tensors (slow, large logs)", [], "rebuild without AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER "
                           "for production"))
    return out


# -- --weights: what load_constants does not check -------------------------------------------------------

INLINED_MAX_NUMEL = 8  # Inductor folds a 0-d tensor or a 1-D one of at most 8 elements into kernel code


def compare_weights(name: str, constants, wfile, fact) -> list[Finding]:
    """A weights file against the model's constants: every FQN present, dtype, shape and stride equal, extra
    keys with their reason.  Seen for real (torch 2.13, cpu/embedding): load_constants copies raw bytes, so a
    float16 table, a transposed weight or a table of another size run and give wrong numbers with no error;
    a key the package lacks fails with `Constant not found: <key>`."""
    from ..weights import contiguous_stride

    out: list[Finding] = []
    by_fqn = {c.fqn or c.name: c for c in constants}
    tensors = wfile.tensors
    src = wfile.path
    fact["weights_file"] = {"path": src, "format": wfile.format, "tensors": len(tensors)}
    prefix = _common_prefix(set(tensors), set(by_fqn))
    missing, mismatched = [], 0
    for fqn, c in by_fqn.items():
        t = tensors.get(fqn) or (tensors.get(prefix + fqn) if prefix else None)
        if t is None:
            missing.append(fqn)
            continue
        problems = []
        if c.dtype and t.dtype and c.dtype != t.dtype:
            problems.append(f"dtype {t.dtype}, the package's is {c.dtype}")
        if c.shape and list(t.shape) != list(c.shape):
            problems.append(f"shape {t.shape}, the package's is {c.shape}")
        want_stride = c.stride or contiguous_stride(c.shape)
        got_stride = t.stride if t.stride is not None else contiguous_stride(t.shape)
        if not problems and want_stride and got_stride != want_stride and t.numel > 1:
            problems.append(f"stride {got_stride}, the package's is {want_stride} (a transposed or strided view)")
        if problems:
            mismatched += 1
            out.append(Finding("error", "weights", name, f"{fqn}: {'; '.join(problems)}: load_constants copies the "
                               "raw bytes without checking, so the model runs and gives wrong numbers",
                               [src if wfile.format != "folder" else f"{src}/{t.source}", f"constant {c.name} (#{c.index})"],
                               f"convert it first: tensor.to({c.dtype}).reshape({c.shape}).contiguous() — or re-export "
                               "the package from the model these weights belong to"))
    if prefix:
        out.append(Finding("error", "weights", name, f"every key in the file starts with {prefix!r} (a DDP or wrapper "
                           f"module's prefix): load_constants fails with `Constant not found: {prefix}…`",
                           [src], f"strip the prefix: {{k.removeprefix({prefix!r}): v for k, v in weights.items()}}"))
    known = set(by_fqn) | {prefix + k for k in by_fqn}
    extra = [k for k in tensors if k not in known]
    inlined = [k for k in extra if tensors[k].numel <= INLINED_MAX_NUMEL and len(tensors[k].shape) <= 1]
    other = [k for k in extra if k not in inlined]
    if inlined:
        out.append(Finding("error", "weights", name, f"{len(inlined)} key(s) of the file are not constants of the "
                           f"package, folded into kernel code (a 0-d tensor or a 1-D one of at most "
                           f"{INLINED_MAX_NUMEL} elements, e.g. {inlined[0]}): passing them fails with "
                           f"`Constant not found: {inlined[0]}`", inlined[:8],
                           "leave them out of the map; their values are fixed in the package (re-export to change them)"))
    if other:
        out.append(Finding("error", "weights", name, f"{len(other)} key(s) of the file are not constants of the "
                           f"package: passing them fails with `Constant not found: {other[0]}`", other[:8],
                           "leave them out, or check that the file belongs to this model"))
    if missing and not prefix:
        out.append(Finding("warn", "weights", name, f"{len(missing)} constant(s) of the package are not in the file "
                           f"(e.g. {missing[0]}): with check_full_update=True load_constants fails with `Cannot find "
                           f"constants {by_fqn[missing[0]].name} in constants_map!`; without it they keep their "
                           "compiled-in values (or, with the weights left out of the .so, the run segfaults)",
                           missing[:8], "add them to the map"))
    if not out:
        out.append(Finding("info", "weights", name, f"the file's {len(tensors)} tensors match the package's "
                           f"{len(by_fqn)} constants (names, dtypes, shapes, strides)", [src]))
    fact["weights_file"].update(missing=len(missing), mismatched=mismatched, extra=len(extra))
    return out


def _common_prefix(keys: set[str], fqns: set[str]) -> str:
    """A prefix every file key has and no package FQN has (DDP's ``module.``), when stripping it matches."""
    if not keys or keys & fqns:
        return ""
    first = next(iter(keys))
    for i in range(len(first), 0, -1):
        p = first[:i]
        if p.endswith(".") and all(k.startswith(p) for k in keys) and {k[len(p):] for k in keys} & fqns:
            return p
    return ""
