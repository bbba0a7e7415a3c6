"""doctor: will this package run here?  The contract a package carries, read before anything runs.

Findings, each with its evidence (member, wrapper line, symbol) and what to do, most serious first:

- ``gpu_arch`` (gpu.py): the SM target of every cubin (ELF header) against ``gpu`` ("sm_80", or what
  ``nvidia-smi`` reports with ``"auto"``); Triton's cubins carry no PTX, so nothing can JIT them for another GPU.
- ``cpu_isa`` (cpu.py): ``AOTI_CPU_ISA`` (wrapper metadata) and the compile commands' ``-m…`` flags against the host's
  ``/proc/cpuinfo`` flags (``host_cpuinfo``: the text, or "auto" to read this machine's); ``-march=native``.
- ``torch_abi`` (abi.py): the package's undefined ``aoti_*`` symbols (ELF ``.dynsym``, never loaded) against the C-shim
  symbols each torch release exports (`inspector/data/shim_symbols.json`, made by tools/make_shim_table.py):
  the oldest release that has them all, and with ``torch="2.13"`` what that release lacks.
- the archive's layout against an old loader (torch 2.6 wants no root folder);
- ``glibc`` (abi.py): the GLIBC / GLIBCXX versions the `.so` needs (``.gnu.version_r``), against this host's glibc with
  ``host_cpuinfo="auto"``.
- ``weights`` (weights.py): constants compiled into the `.so` (``_binary_constants_bin_start`` … ``_end``) or
  left out, against the bytes the model's constants need; or stored beside the code (``pickle_weights``: the
  ``data/weights/`` members, sized from the zip directory), which only ``load_pt2(…, load_weights_from_disk=True)``
  loads; or one raw blob member beside the `.so` (``binary_blob``: ``<hash>.wrapper_weights.blob``), which
  aoti_load_package loads itself.
- ``completeness`` (completeness.py): the metadata readable; a CPU model shipped as a CMake project
  (package_cpp_only: aoti_load_package compiles it; compile_standalone: it cannot load it); every member the loader
  opens (the `.so`, each cubin a launcher's ``loadKernel`` names).
- ``checks`` (guards.py): what the build compiled in: input guards, NaN/Inf checks, the intermediate value printer;
  indirect loads with no bounds check, extern calls with no error check; kernels that store a NaN constant.
- ``custom_op`` (guards.py): ops called through the proxy executor, and what the serving process needs for them.
- ``device_index`` (gpu.py): the GPU index the model can be loaded on.
- ``memory`` (footprint.py): constant bytes and the run's peak activation memory, at ``inputs``.

Reads headers and tables only: never a weight, never dlopen, never unpickle.

Shaped like ``diagnose``: one ``Check`` per family of findings, in ``CHECKS`` (their order is the order the
findings are made in, before the sort by severity), each returning typed ``Finding(kind, severity, code, facts)``
records (results.py); the sentences are inspector.explain.doctor's, the host probes inspector.host's.
"""

from __future__ import annotations

import inspector.host as host

from ...dialects import sniff
from ...errors import UsageError
from ...explain import doctor as say
from ...explain.doctor import MEMORY_MEASURED  # noqa: F401
from ...host import host_cpu_flags, nvidia_smi_sm  # noqa: F401
from .abi import ROOTLESS_LOADERS, Layout, TorchAbi, resolve_release, shim_table  # noqa: F401
from .base import Check, Here, Subject
from .completeness import CmakeProject, Complete, DuplicateMembers, Metadata, cmake_project  # noqa: F401
from .cpu import CpuIsa, built_native, uses_amx  # noqa: F401
from .footprint import Memory
from .gpu import DeviceIndex, GpuArch, parse_gpu
from .guards import CompiledChecks, ConstantNan, CustomOps, Unchecked
from .results import LEADS, SEVERITY_ORDER, DoctorResult, Finding  # noqa: F401
from .weights import (INLINED_MAX_NUMEL, Weights, WeightsFile, compare_weights, weights_blob_bytes,  # noqa: F401
                      weights_blob_member, weights_on_disk)

# The checks, in the order their findings are made (the answer sorts them by severity, model and kind, stably)
CHECKS: list[Check] = [Metadata(), DuplicateMembers(), GpuArch(), DeviceIndex(), CpuIsa(), TorchAbi(), Layout(), Weights(), CmakeProject(),
                       Complete(), CompiledChecks(), Unchecked(), CustomOps(), Memory(), ConstantNan(), WeightsFile()]


def _here(gpu, host_cpuinfo, torch, inputs) -> Here:
    """Where it will run, from the arguments (and this host's probes, for "auto")."""
    here = Here(gpu=gpu or None, host=host_cpuinfo, release=resolve_release(torch) if torch else None,
                inputs=tuple(inputs))
    if gpu:
        here.gpu_sm = host.nvidia_smi_sm() if gpu == "auto" else parse_gpu(gpu)
    if host_cpuinfo == "auto":
        try:
            here.host_flags = host.host_cpu_flags(host.read_cpuinfo())
        except OSError as e:
            here.cpu_gap = str(e.strerror or e)
        here.host_glibc = host.host_glibc()
    elif host_cpuinfo:
        here.host_flags = host.host_cpu_flags(host_cpuinfo)
    return here


def _subject(pkg, name: str, members: set[str]) -> Subject:
    files = pkg.files(name)
    wrapper = pkg.archive.read_text(files.wrapper) if files.wrapper else ""
    unreadable = False
    if files.wrapper_metadata:
        try:
            pkg.archive.read_json(files.wrapper_metadata)
        except Exception:  # noqa: BLE001 - an unreadable metadata member is a finding, not a crash
            unreadable = True
    # the one record of the metadata, with the index's one device fallback (inspector.dialects.metadata)
    metadata = pkg.index(name).eager().wrapper_metadata
    m = Subject(pkg, name, files, members, wrapper, sniff(wrapper, files.wrapper) if wrapper else None, metadata,
                unreadable)
    m.readings["device"] = m.device
    return m


def doctor(pkg, gpu: str | None = None, host_cpuinfo: str | None = None, torch: str | None = None,
           weights: str | None = None, model: str | None = None, inputs=()) -> DoctorResult:
    """Every finding for every model of ``pkg`` (or ``model``).  ``host_cpuinfo``: a /proc/cpuinfo text, or
    "auto" (this host).  ``weights``: a weights file or folder to check against the model's constants.
    ``inputs``: input shapes (``check``'s ``InputSpec``) the memory estimate is evaluated at."""
    here = _here(gpu, host_cpuinfo, torch, inputs)
    names = [pkg.files(model).name] if model else list(pkg.model_names)
    if weights:
        from ...weights import read_weights

        if len(names) > 1:
            raise UsageError(say.weights_need_a_model(str(pkg.path), names))
        here.weights = read_weights(weights)
    findings: list[Finding] = []
    readings: dict = {}
    members = set(pkg.archive.members())
    for name in names:
        m = _subject(pkg, name, members)
        readings[name] = m.readings
        for check in CHECKS:
            findings += check.run(m, here)
    # most serious first; among the warnings, the one the verdict leads with (`LEADS`) first
    findings.sort(key=lambda x: (SEVERITY_ORDER[x.severity], x.code not in LEADS, x.model or "", x.kind))
    unchecked = []
    if any(readings[n].get("cubin_sm") is not None or pkg.files(n).cubins for n in names):
        if not gpu:
            unchecked.append(say.unchecked("gpu_not_given"))
        elif here.gpu_sm is None:
            unchecked.append(say.unchecked("gpu_not_found"))
    if here.cpu_gap:
        unchecked.append(say.unchecked("cpuinfo_unreadable", here.cpu_gap))
    elif not host_cpuinfo and any(readings[n].get("cpu_flags_needed") for n in names):
        unchecked.append(say.unchecked("cpu_not_given"))
    return DoctorResult(str(pkg.path), names, findings, readings, unchecked)
