"""Every sentence `doctor` says: the verdict, and for each finding code (``Finding.code``, inspector.queries.doctor)
its message, its evidence lines and what to do, made from the finding's facts (plain values).  The checks hold no
sentence; this module opens no package (it imports nothing from inspector.queries)."""

from __future__ import annotations

from dataclasses import dataclass

from ..dialects.members import PICKLED_WEIGHTS_DIR
from .diagnose import load_from_disk_call


@dataclass(frozen=True)
class FindingWords:
    """What a person reads of one finding."""

    message: str
    evidence: list[str]
    fix: str | None = None


def words(code: str, facts: dict) -> FindingWords:
    """The words of the finding ``code`` with ``facts``."""
    message, evidence, fix = WORDS[code](facts)
    return FindingWords(message, list(evidence), fix)


def verdict(errors: list[str], warnings: list[str], unchecked: list[str]) -> str:
    """The answer's first line from the messages of its errors and warnings, most serious first, and what could not
    be checked: "nothing stands against running it here" only when everything was looked at."""
    e, w = errors, warnings
    if e:
        return f"will not run as given: {e[0]}" + (f" (and {len(e) - 1} more error(s))" if len(e) > 1 else "")
    if unchecked:
        gap = "; not checked: " + ", ".join(unchecked)
        if w:
            return f"no error found in what was checked; {len(w)} warning(s): {w[0]}{gap}"
        return f"no error found in what was checked{gap}"
    if w:
        return f"no error found; {len(w)} warning(s): {w[0]}"
    return "no error found: nothing in the package stands against running it here"


def package_line(package: str, models: int) -> str:
    return f"package {package}: {models} model(s)"


# -- what could not be checked (DoctorResult.unchecked; codes of the query) -------------------------------

def unchecked(code: str, detail: str | None = None) -> str:
    if code == "gpu_not_given":
        return "the GPU (no --gpu sm_XX or --gpu auto)"
    if code == "gpu_not_found":
        return "the GPU (--gpu auto: no GPU found, nvidia-smi is missing or reported nothing)"
    if code == "cpuinfo_unreadable":
        return f"this host's CPU features (/proc/cpuinfo not read: {detail})"
    if code == "cpu_not_given":
        return "the host's CPU features (no --host-cpuinfo auto or FILE)"
    raise KeyError(code)


# -- usage errors ---------------------------------------------------------------------------------------

def bad_gpu(gpu: str) -> str:
    return (f"--gpu {gpu!r}: give the GPU's architecture as sm_XX (sm_80, sm_90, sm_100) or X.Y (8.0), "
            "or 'auto'")


def unknown_release(torch: str, known: list[str]) -> str:
    return f"--torch {torch!r}: no table for that release; known: {', '.join(known)}"


def weights_need_a_model(path: str, names: list[str]) -> str:
    return f"--weights: {path} holds several models ({', '.join(names)}): pass --model NAME"


# -- the metadata ---------------------------------------------------------------------------------------

def _metadata_unreadable(x):
    return "the wrapper metadata is not valid JSON", [x["member"]], None


def _duplicate_member(x):
    return (f"{x['member']} is in the zip {x['count']} times: which copy torch's loader reads is not defined",
            [f"the zip directory lists {x['member']} {x['count']} times"],
            "rebuild the package (aoti_compile_and_package writes each member once), or remove the extra copies")


# -- gpu_arch ---------------------------------------------------------------------------------------------

_FORM_WORDS = {"cubin": "cubins", "fatbin": "fatbins (emit_multi_arch_kernel)",
               "ptx": "PTX members (compile_standalone)", "embedded": "kernel images embedded in the .so (embed_kernel_binary)",
               "embedded fatbin": "fatbins embedded in the .so"}
_NO_IMAGE = "no kernel image is available for execution on the device"


def _sm_list(sms, suffix: str) -> str:
    return ", ".join(f"sm_{s}{suffix}" for s in sorted(sms))


def _image_count(forms: dict) -> str:
    return ", ".join(f"{n} {_FORM_WORDS.get(k, k)}" for k, n in sorted(forms.items()))


def _suffix(x) -> str:
    return "a" if x["arch_specific"] else ""


def _gpu_src(x) -> str:
    return "nvidia-smi" if x["gpu_arg"] == "auto" else f"--gpu {x['gpu_arg']}"


def _sass_evidence(x) -> list[str]:
    return [_image_count(x["forms"])] + (list(x["sources"][:2]) if "cubin" not in x["forms"] else [])


def _images_evidence(x) -> list[str]:
    return [_image_count(x["forms"])] + list(x["sources"][:2])


def _have(x) -> str:
    """What the images hold: SASS for …, PTX for …"""
    built = _sm_list(x["sass_sm"], _suffix(x))
    return " and ".join(([f"SASS for {built}"] if built else []) + [f"PTX for {_sm_list(x['ptx_sm'], _suffix(x))}"]) \
        + ("" if built else " (no SASS)")


def _gpu_cpu_model(x):
    return "a CPU model: it needs no GPU", [x["wrapper"]], None


def _gpu_unreadable(x):
    return (f"{len(x['errors'])} kernel image(s) are not CUDA ELF or fatbin files: their architecture is unknown",
            [f"{src}: {err}" for src, err in x["errors"][:3]], None)


def _gpu_not_found(x):
    return (f"built for {_sm_list(x['sass_sm'], _suffix(x))}; no GPU found to compare with "
            "(nvidia-smi is missing or reported nothing)", _sass_evidence(x),
            "pass --gpu sm_XX for the GPU it will run on")


def _gpu_wrong_arch(x):
    what = "cubin(s)" if set(x["forms"]) == {"cubin"} else "kernel image(s)"
    gpu = x["gpu_sm"]
    return (f"its {x['bad_images']} {what} are built for {_sm_list(x['bad_sm'], _suffix(x))} and the GPU "
            f"({_gpu_src(x)}) is sm_{gpu}: the first kernel launch fails with `CUDA driver error: {_NO_IMAGE}`",
            list(x["bad_sources"]),
            f"compile the package on (or for) an sm_{gpu} GPU: AOTInductor compiles natively, not across "
            "architectures, and Triton's cubins carry no PTX to JIT")


def _gpu_runs(x):
    return (f"built for {_sm_list(x['sass_sm'], _suffix(x))}; runs on the sm_{x['gpu_sm']} GPU ({_gpu_src(x)})",
            _sass_evidence(x), None)


def _gpu_sass_only(x):
    return (f"built for {_sm_list(x['sass_sm'], _suffix(x))} (SASS only, no PTX): it runs only on GPUs of that "
            "architecture", _sass_evidence(x), "pass --gpu sm_XX or --gpu auto to check")


def _gpu_none_usable(x):
    gpu = x["gpu_sm"]
    return (f"{x['unusable']} of its {x['readable']} kernel image(s) hold {_have(x)}"
            + (" (architecture-specific: Triton compiles the 'a' target from compute capability 9.0)"
               if x["arch_specific"] else "")
            + f", none of which an sm_{gpu} GPU ({_gpu_src(x)}) can use: the first kernel launch fails with `CUDA "
            f"driver error: {_NO_IMAGE}`", _images_evidence(x), f"compile the package on (or for) an sm_{gpu} GPU")


def _gpu_ptx_jit(x):
    return (f"{_have(x)}: the sm_{x['gpu_sm']} GPU ({_gpu_src(x)}) runs it by JIT-compiling the PTX of {x['jit']} "
            "kernel(s) when they are first loaded (a slower first call; the driver caches the result)",
            _images_evidence(x), None)


def _gpu_sass_runs(x):
    return f"{_have(x)}; the SASS runs on the sm_{x['gpu_sm']} GPU ({_gpu_src(x)})", _images_evidence(x), None


def _gpu_multi_arch(x):
    sms, ptx = x["sass_sm"], x["ptx_sm"]
    if x["arch_specific"]:
        msg = (f"{_have(x)}: {'both are' if sms else 'it is'} architecture-specific (Triton compiles the 'a' target "
               f"from compute capability 9.0), so it runs only on {_sm_list(set(sms) | set(ptx), '')} "
               "GPUs; on a GPU of any other architecture the driver cannot JIT the PTX either and the first kernel "
               f"launch fails with `{_NO_IMAGE}`")
    else:
        msg = (f"{_have(x)}: GPUs of {', '.join(f'sm_{s // 10}x' for s in sorted(sms))} run the SASS; other GPUs from "
               f"sm_{min(ptx)} on JIT-compile the PTX when a kernel is first loaded (a slower first call); older ones "
               f"fail with `{_NO_IMAGE}`")
    return msg, _images_evidence(x), "pass --gpu sm_XX or --gpu auto to check a GPU"


# -- device_index -----------------------------------------------------------------------------------------

def device_index_words(dev: str, uses: int, fixed: list[str]) -> str:
    if fixed:
        return (f"the wrapper names fixed devices ({', '.join(fixed)}) besides the runner's own index: load it on "
                "that index, or expect a device mismatch on another")
    if uses:
        return (f"loads on any {dev} device index: every allocation and launch uses the runner's own index "
                f"(this->device_idx_, {uses} uses); inputs and load_constants tensors must be on that same GPU")
    return f"a {dev} model; the wrapper does not say which device index it uses"


def device_index_fix(dev: str) -> str:
    return (f"pick the GPU with torch._inductor.aoti_load_package(path, device_index=N) (default: the current "
            f"device, {dev}:0), then move every input there: x.to('{dev}:N')")


def _device_index(x):
    uses, fixed, wrapper = x["runner_lines"], x["fixed"], x["wrapper"]
    ev = [f"{wrapper}: this->device_idx_ at lines {', '.join(map(str, uses[:5]))}" + (" …" if len(uses) > 5 else "")
          ] if uses else []
    return (device_index_words(x["device"], len(uses), list(fixed)), ev + [f"{wrapper}: {f}" for f in fixed],
            device_index_fix(x["device"]))


# -- cpu_isa ----------------------------------------------------------------------------------------------

_CAP_ISA = "TORCHINDUCTOR_CPP_MARCH=x86-64-v3 ATEN_CPU_CAPABILITY=avx2"


def _cpu_evidence(x) -> list[str]:
    isa = " ".join(x["isa"])
    return (([f"{x['metadata_member']}: AOTI_CPU_ISA {isa}"] if isa else [])
            + ([f"{x['command_member']}: compile command"] if x["command_member"] else []))


def _host_code(x) -> str:
    return "its .so's host code (a CUDA package's wrapper) " if x["cuda_host_code"] else ""


def _host_src(x) -> str:
    return "this host" if x["host"] == "auto" else "the given cpuinfo"


def _cpu_native(x):
    return (f"{_host_code(x) or 'the code '}was compiled with -march=native: it may use any instruction the build "
            "machine's CPU has, beyond the flags listed", _cpu_evidence(x),
            f"run it on the same CPU model it was built on, or rebuild without -march=native (torch 2.13: {_CAP_ISA} "
            "at compile time) or on the serving CPU")


def _cpu_needs(x):
    return (f"needs the CPU features {' '.join(x['need'])}", _cpu_evidence(x),
            "pass --host-cpuinfo auto (this machine) or a saved /proc/cpuinfo to compare")


def _cpu_lacks(x):
    return (f"{_host_code(x)}built for CPU features {_host_src(x)} lacks: {' '.join(x['lacks'])}; the first kernel "
            "using them dies with SIGILL (exit 132) and no message", _cpu_evidence(x),
            "rebuild the package on the serving CPU, or without -march=native and with the vector ISA capped at what "
            f"it has (torch 2.13: {_CAP_ISA} at compile time)")


def _cpu_amx_unused(x):
    return (f"compiled with {' '.join(x['lacks'])}, which {_host_src(x)} lacks, but no kernel of the package has AMX "
            "tile code: it runs (torch warns `Device information mismatch for AOTI_CPU_ISA`)", _cpu_evidence(x), None)


def _cpu_covered(x):
    return (f"{_host_src(x)} has every CPU feature the build uses ({' '.join(x['need'])})", _cpu_evidence(x), None)


# -- torch_abi, glibc -------------------------------------------------------------------------------------

def _abi_unreadable(x):
    return (f"the model's .so is not a readable ELF file ({x['error']}): the loader will fail on it", [x["so"]],
            "rebuild the package")


def _abi_unknown(x):
    return (f"{len(x['unknown'])} C-shim symbol(s) no torch release in the table ({x['first']}-{x['last']}) "
            f"exports: {', '.join(x['unknown'][:4])}; a newer torch (or a custom build) made it", [x["so"]], None)


def _abi_release_lacks(x):
    return (f"torch {x['release']} lacks {len(x['lack'])} C-shim symbol(s) the .so calls: loading fails with "
            f"`undefined symbol: {x['lack'][0]}`", [x["so"]] + list(x["lack"][:8]),
            f"serve with torch {x['oldest']} or newer" if x["oldest"] else "rebuild the package with the serving torch")


def _abi_release_has(x):
    return f"torch {x['release']} exports all {x['symbols']} C-shim symbols the .so calls", [x["so"]], None


def _abi_oldest(x):
    return (f"calls {x['symbols']} C-shim symbols; the oldest torch release that exports them all is {x['oldest']}",
            [x["so"]], "pass --torch X.Y for the serving release")


def _glibc_too_new(x):
    return (f"the .so needs {x['need']} and this host has {x['host']}: loading fails with `version '{x['need']}' "
            "not found`", [x["so"]], "build on a machine with an older glibc than the serving one")


def _layout_root(x):
    return (f"torch {x['release']}'s loader expects the members at the archive's top, and this package keeps them "
            f"under {x['root']!r}: aoti_load_package fails with `RuntimeError: No AOTInductor generate cpp file or "
            "so file found in zip archive`", [f"root folder {x['root']}"],
            "serve it with the torch release that built it (or a newer one)")


# -- checks -----------------------------------------------------------------------------------------------

def _unchecked_indirect(x):
    first = x["sites"][0]
    return (f"{x['count']} load(s)/store(s) through an index with no bounds check (e.g. {first[0]} line {first[1]}): "
            "a bad index there reads or writes out of bounds (an illegal memory access, a segfault, or wrong numbers) "
            "instead of failing with a message", [f"{k} line {ln}" for k, ln in x["sites"][:4]],
            "rebuild with index asserts on (inductor_configs={'assert_indirect_indexing': True}, the default), or "
            "check the index inputs before calling")


def _unchecked_extern(x):
    first = x["calls"][0]
    return (f"{x['count']} extern call(s) run without an error check (e.g. {first[0]} at wrapper.cpp line {first[1]}): "
            "an error there prints `Exception in aoti_torch` and the run goes on with garbage",
            [f"{t} line {ln}" for t, ln in x["calls"][:4]], None)


def _no_input_guards(x):
    return ("no input guards are compiled in: a wrong shape, dtype or device is not caught before the kernels run "
            "(even with AOTI_RUNTIME_CHECK_INPUTS=1)", [], "check inputs first: pt2-inspect check PKG --input …")


def _nan_checks(x):
    return "NaN/Inf checks are compiled in (aoti_torch_check_inf_and_nan)", [], None


def _value_printer(x):
    return ("the intermediate value printer is compiled in: every run prints tensors (slow, large logs)", [],
            "rebuild without AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER for production")


def _constant_nan(x):
    return (f"{x['kernel']} reads no tensor and stores a NaN constant: what it writes is NaN whatever the input (an op "
            "whose result Inductor did not have: e.g. a user-defined Triton kernel dropped at export, its output's "
            "torch.empty folded to NaN)", [f"wrapper.cpp line {x['line']}: its launch" if x["line"] else x["kernel"]],
            "look for a warning at export/compile time (torch/_higher_order_ops/triton_kernel_wrap.py); run the "
            "exported program eagerly and compare")


# -- custom_op --------------------------------------------------------------------------------------------

def _no_proxy_executor(x):
    calls = x["lines"]
    return (f"calls {len(calls)} op(s) through the proxy executor but has no <hash>.wrapper.json, the file the loader "
            "builds it from: loading succeeds and the first run fails with `Unable to find a proxy executor to run "
            "custom ops`", [f"wrapper.cpp line{'s' if len(calls) > 1 else ''} {', '.join(map(str, calls[:5]))}"],
            "package it again with torch._inductor.aoti_compile_and_package, or put the .wrapper.json the compile "
            "produced back beside the .so")


def _custom_op(x):
    op, py = x["op"], x["python"]
    return (f"calls the custom op {op} through the proxy executor" + (
        ": a Python torch.library.custom_op, so the serving process must import its definition before loading, or "
        f"loading fails with `Could not find schema for {op}`" if py
        else ": it must be registered (TORCH_LIBRARY) where the package runs"),
        [x["member"]], "import the module that defines it before aoti_load_package" if py else None)


# -- completeness -----------------------------------------------------------------------------------------

def _cmake_evidence(x) -> list[str]:
    return [x["cmakelists"], f"{x['folder']}: no .so"]


def _cmake_standalone(x):
    return ("the package is a libtorch-free C++ project (aot_inductor_mode.compile_standalone: CMakeLists.txt builds a "
            "static library against TorchStandalone, no .so): aoti_load_package cannot run it (it compiles it, then "
            "dlopen fails: `undefined symbol: aoti_torch_check`)", _cmake_evidence(x),
            "build it into your C++ program with its CMakeLists.txt (find_package(TorchStandalone)) and call the model "
            "class its header declares; to serve it from Python, rebuild without compile_standalone")


def _cmake_cpp_only(x):
    return ("the package holds the model's C++ sources and CMakeLists.txt, not a compiled .so (package_cpp_only=True): "
            "aoti_load_package compiles it when it loads it (torch 2.13), so the serving host needs a C++ compiler, "
            "torch's headers and time (tens of seconds)", _cmake_evidence(x),
            "build it once where it is served (cmake with find_package(Torch): a shared library), or rebuild without "
            "package_cpp_only to ship the .so")


def _cpp_build_evidence(x) -> list[str]:
    ev = [x["cmakelists"] + (f": add_library({x['library']})" if x["library"] else "")]
    ev += [f"{x['flags_member']}: compiler {x['compiler']}"] if x["flags_member"] else []
    return ev


def _cpp_build_how(x) -> str:
    return (f"cmake -S <the model folder> -B build && cmake --build build (needs {x['needs']}), then link "
            f"{'the library' if not x['library'] else x['library'].split(' ')[0]} into the program that serves it")


def _cpp_only_embedded(x):
    embedded = x["embedded"]
    more = f" (and {len(embedded) - 1} more)" if len(embedded) > 1 else ""
    ev = _cpp_build_evidence(x) + [f"wrapper: loadKernel({embedded[0]}, …){more}; the kernels are .ptx members the "
                                   "CMake build turns into fatbins and embeds"]
    return ("the package holds no .so: it is C++ source meant to be built with its CMakeLists.txt (compile_standalone "
            "/ package_cpp_only), and aoti_load_package cannot run it: its own build leaves the kernel images out and "
            f"dlopen fails with `undefined symbol: {embedded[0]}`", ev, _cpp_build_how(x))


def _cpp_only(x):
    compiler = x["compiler"]
    return ("the package holds no .so: it is C++ source meant to be built with its CMakeLists.txt "
            "(package_cpp_only=True); aoti_load_package compiles and links it itself at every load, which needs a C++ "
            f"compiler{' (' + compiler + ')' if compiler else ''}, torch's headers and "
            + ("the CUDA headers " if x["cuda"] else "") + "on the serving host", _cpp_build_evidence(x),
            _cpp_build_how(x))


def _no_so(x):
    return ("the package holds no compiled .so for this model: aoti_load_package cannot load it", [x["folder"]],
            "repackage it with the .so that aoti_compile_and_package wrote")


def _cubins_missing(x):
    return (f"{x['count']} cubin(s) the wrapper loads are not in the package: the first launch of their kernels fails",
            list(x["missing"][:5]), "repackage it with every cubin the build wrote")


# -- weights ----------------------------------------------------------------------------------------------

def _blob_evidence(x) -> list[str]:
    return [f"{x['so']}: constants blob {x['blob']} byte(s)"]


def _disk_evidence(x) -> list[str]:
    pickled = x["pickled"]
    shown = pickled[:5] + ([f"… and {len(pickled) - 5} more"] if len(pickled) > 5 else [])
    return [f"{x['config']}: maps each constant's FQN to a member below",
            f"{len(pickled)} member(s) under {PICKLED_WEIGHTS_DIR}, {x['disk_bytes']:,} bytes (zip directory): "
            + ", ".join(m.rsplit("/", 1)[-1] for m in shown)]


def _constants_lead(x) -> str:
    return f"its {x['constants']} constants ({x['need']:,} bytes)"


def _beside(x):
    """The package carries its weights as separate pickled members: only the loading call that reads them works."""
    lead = (f"{_constants_lead(x)} are not in the .so: they are" if x.get("so") else "its constants are")
    return (f"{lead} stored beside the code, one pickled tensor per member "
            "(package_constants_on_disk_format=\"pickle_weights\"), and it needs the loading call that reads them "
            "(load_weights_from_disk=True): plain aoti_load_package ignores them and the first call segfaults "
            "(SIGSEGV, exit 139, no message)", (_blob_evidence(x) if x.get("so") else []) + _disk_evidence(x),
            f"load it with `{load_from_disk_call(x['model'])}` (it reads {PICKLED_WEIGHTS_DIR} and calls "
            "load_constants; torch 2.13's load_package has no load_weights_from_disk), or call "
            "`runner.load_constants(state_dict, check_full_update=True)` after aoti_load_package")


def constants_stored(code: str | None) -> str | None:
    """Where a model's constants are (`show`'s ``constants_stored``), in words; None where nothing needs saying."""
    return {"absent": "not in the package (built with package_constants_in_so=False): call `load_constants(…)` "
                      "before the first run (`doctor` gives the call)",
            "pickle_weights": "stored beside the code (pickle_weights): load with load_weights_from_disk=True",
            "binary_blob": "stored beside the .so (binary_blob): aoti_load_package loads them"}.get(code or "")


def loader_call(package: str, model: str, models: int) -> str:
    """The call that loads model ``model`` of ``package`` (torch 2.13): aoti_load_package for a package of one
    model, load_package naming it for one of several."""
    if models > 1:
        return f"torch._inductor.package.load_package({package!r}, {model!r})"
    return f"torch._inductor.aoti_load_package({package!r})"


def _fqn_list(fqns: list[str], most: int = 6) -> str:
    shown = ", ".join(repr(f) for f in fqns[:most])
    return shown + (f", … and {len(fqns) - most} more" if len(fqns) > most else "")


def _left_out(x):
    evidence = _blob_evidence(x)
    if x.get("fqns"):
        evidence.append(f"the constants it needs ({len(x['fqns'])}, by FQN): {_fqn_list(x['fqns'])}")
    if x.get("package"):
        fix = (f"m = {loader_call(x['package'], x['model'], x.get('models', 1))}; then, before the first call, "
               "m.load_constants(constants_map, check_full_update=True): constants_map maps each FQN above "
               "(m.get_constant_fqns() lists them) to its tensor, on the package's device: the eager model's "
               "{**model.state_dict(), **dict(model.named_buffers())} (state_dict() leaves out the non-persistent "
               "buffers)")
    else:
        fix = ("call `runner.load_constants(weights, check_full_update=True)` (or update_constant_buffer) with every "
               "constant before the first run")
    return (f"built without weights: {_constants_lead(x)} are not in the package (package_constants_in_so=False): "
            "its first run segfaults (SIGSEGV, exit 139, no message) unless `load_constants(…)` loads them first",
            evidence, fix)


def _in_so(x):
    return (f"{_constants_lead(x)} are compiled into the .so ({x['blob']:,} bytes with alignment)", [x["so"]], None)


def _also_on_disk(x):
    return ("a copy of its constants is also stored beside the code "
            f"(pickle_weights, {x['disk_bytes']:,} bytes): aoti_load_package uses the .so's copy", _disk_evidence(x),
            None)


def _blob_member_evidence(x) -> list[str]:
    return _blob_evidence(x) + [f"{x['member']}: {x['size']:,} bytes (zip directory)"]


def _blob_truncated(x):
    return (f"its {x['constants']} constants need {x['need']:,} bytes but the weights blob beside the .so "
            f"(package_constants_on_disk_format=\"binary_blob\") holds {x['size']:,}: it is truncated or belongs to "
            "another build", _blob_member_evidence(x), "repackage it with the blob aoti_compile_and_package wrote")


def _blob_beside(x):
    return (f"{_constants_lead(x)} are stored beside the .so, in the package's weights blob "
            "(package_constants_on_disk_format=\"binary_blob\"): aoti_load_package loads it before the first run; "
            "the .so loaded alone (AOTIModelContainerRunnerCpu, torch._export.aot_load) does not, and its first run "
            "segfaults", _blob_member_evidence(x),
            "load it with torch._inductor.aoti_load_package(PKG); a runner made from the .so alone needs "
            "`runner.load_constants(weights, check_full_update=True)` first")


# -- --weights --------------------------------------------------------------------------------------------

def _weights_problem(p: dict) -> str:
    if p["what"] == "stride":
        return f"stride {p['got']}, the package's is {p['want']} (a transposed or strided view)"
    return f"{p['what']} {p['got']}, the package's is {p['want']}"


def _weights_mismatch(x):
    return (f"{x['fqn']}: {'; '.join(_weights_problem(p) for p in x['problems'])}: load_constants copies the raw bytes "
            "without checking, so the model runs and gives wrong numbers", [x["source"], f"constant {x['constant']} "
                                                                           f"(#{x['index']})"],
            f"convert it first: tensor.to({x['dtype']}).reshape({x['shape']}).contiguous() — or re-export the "
            "package from the model these weights belong to")


def _weights_prefix(x):
    prefix = x["prefix"]
    return (f"every key in the file starts with {prefix!r} (a DDP or wrapper module's prefix): load_constants fails "
            f"with `Constant not found: {prefix}…`", [x["file"]],
            f"strip the prefix: {{k.removeprefix({prefix!r}): v for k, v in weights.items()}}")


def _weights_inlined(x):
    keys = x["keys"]
    return (f"{len(keys)} key(s) of the file are not constants of the package, folded into kernel code (a 0-d tensor "
            f"or a 1-D one of at most {x['max_numel']} elements, e.g. {keys[0]}): passing them fails with "
            f"`Constant not found: {keys[0]}`", keys[:8],
            "leave them out of the map; their values are fixed in the package (re-export to change them)")


def _weights_extra(x):
    keys = x["keys"]
    return (f"{len(keys)} key(s) of the file are not constants of the package: passing them fails with "
            f"`Constant not found: {keys[0]}`", keys[:8],
            "leave them out, or check that the file belongs to this model")


def _weights_missing(x):
    missing = x["missing"]
    return (f"{len(missing)} constant(s) of the package are not in the file (e.g. {missing[0]}): with "
            f"check_full_update=True load_constants fails with `Cannot find constants {x['first_constant']} in "
            "constants_map!`; without it they keep their compiled-in values (or, with the weights left out of the .so, "
            "the run segfaults)", missing[:8], "add them to the map")


def _weights_match(x):
    return (f"the file's {x['tensors']} tensors match the package's {x['constants']} constants (names, dtypes, shapes, "
            "strides)", [x["file"]], None)


# -- memory -----------------------------------------------------------------------------------------------

# What the range was checked against (tests/unit/test_memory.py holds it on these packages)
MEMORY_MEASURED = ("measured on an H200 (torch.cuda.max_memory_allocated above the inputs, weights loaded): "
                   "every run of an MLP, BERT-base (static batch and dynamic batch+sequence, up to 720 MiB at "
                   "[32,512]), ResNet-18 (batch 1-64, up to 429 MiB), and timm ResNet-18 / MobileNetV3 / ViT-tiny at "
                   "batch 2 falls in it; the activations alone are exact for the MLP and BERT, 0.57x for ResNet-18 "
                   "(cuDNN's workspaces)")
MEMORY_MEASURED_CPU = ("measured on the CPU (torch 2.13, the resident-size high-water mark above the inputs, "
                       "memory_cpu213/*/measure.json): transformers BERT + mean pooling, GPT-2, Llama, timm ViT "
                       "(dynamic image size) and wav2vec2 at their largest measured size land within 15% of the "
                       "activations' figure")


def _not_counted(x) -> str:
    """Why a figure is a floor (`MemoryPlan.not_counted`), in words."""
    parts = []
    if x.get("custom_ops"):
        n = len(x["custom_ops"])
        parts.append(f"{n} custom op call{'s' if n > 1 else ''} (proxy executor, wrapper.cpp line "
                     f"{', '.join(map(str, x['custom_ops'][:3]))}) {'allocate' if n > 1 else 'allocates'} inside the "
                     "op, which the package does not show: outputs counted, the op's own buffers not")
    if x.get("unsized"):
        parts.append(f"{len(x['unsized'])} extern op outputs nothing in the package sizes")
    if x.get("unknown"):
        parts.append(f"{len(x['unknown'])} sizes these values do not settle (a data-dependent size, or a symbol "
                     "not given)")
    return "; ".join(parts) or "sizes unknown"


def _memory_where(x) -> str:
    at = ", ".join(f"{k} = {v}" for k, v in x["at"])
    where = f"at {at}" if at else "static shapes"
    return where + ("" if x["given"] or not at else " (no --input: every symbol taken as 64)")


def _memory_constants(x) -> str:
    """The constants' bytes on the model's device, and elsewhere (byte counts spelled by the memory plan)."""
    elsewhere = "".join(f" (and {b} of constants on {d}, not {x['device']} memory)" for d, b in x["elsewhere"])
    return f" + {x['constants']} of constants on {x['device']}{elsewhere}"


def _memory_unknown(x):
    return (f"{_memory_where(x)}: could not estimate the activations' peak: none of the {x['allocations']} allocations "
            f"has a size these values settle ({', '.join(x['unknown'][:5]) or 'no size found'}) "
            f"{_memory_constants(x)[1:]}", [f"{x['allocations']} allocations and their releases in run_impl"],
            "pass --input for every dynamic dimension; sizes the wrapper computes at run time cannot be read from the "
            "package")


def _memory(x):
    upper = x["upper"]
    if upper is not None:
        span = f"{x['low']} to {upper} of activations at their peak"
    else:
        span = f"at least {x['low']} of activations at their peak (no upper bound: {_not_counted(x)})"
    msg = (f"{_memory_where(x)}: {span} (wrapper.cpp line {x['line']}, {x['live']} buffers alive)"
           + (f"; a fresh process's first run at least {x['first']} (cuBLAS's 32 MiB workspace)"
              if x["first"] else "")
           + _memory_constants(x))
    ev = [f"{x['allocations']} allocations and their releases in run_impl"]
    if x["peak_alloc"]:
        buf, formula = x["peak_alloc"]
        ev.append(f"the peak's allocation: {buf} = {formula} bytes (wrapper.cpp line {x['line']})")
    if x.get("viewed"):
        ev.append(f"{x['viewed']} extern or custom op outputs sized by the first view read of them (at least that big)")
    if x.get("checked"):
        ev.append(f"{x['checked']} extern op outputs sized by the package's own assert_size_stride after the call")
    if x["estimated"]:
        ev.append(f"{x['estimated']} extern op outputs sized by the numel of the kernel that reads them (an estimate)")
    if x.get("contract"):
        ev.append(f"{x['contract']} extern op outputs sized by the op's contract (attention: the query's sizes)")
    if x["unsized"]:
        ev.append(f"{len(x['unsized'])} extern op outputs of unknown size left out: {', '.join(x['unsized'][:5])}")
    if x["unknown"]:
        ev.append(f"{len(x['unknown'])} allocations whose size these values do not settle, left out: "
                  + ", ".join(x["unknown"][:5]))
    if upper is not None and x.get("device") == "cpu":
        ev.append("the range: from the tensors alone up to them" + (" with each convolution's workspace allowance (2x its "
                                                                "output)" if x["conv"] else "")
                  + " + 1 MiB for the heap's small blocks and a BLAS library's buffers")
    elif upper is not None:
        ev.append("the range: the activations alone (a later run in the same process) up to a fresh process's "
                  "first run with cuBLAS's workspace" + (" and each convolution's workspace allowance (2x its output)"
                                                         if x["conv"] else "") + " + 4 MiB for library temporaries")
    ev.append(MEMORY_MEASURED_CPU if x.get("device") == "cpu" else MEMORY_MEASURED)
    return msg, ev, ("a floor: " if x["floor"] else "") + "not counted: the inputs and the allocator's fragmentation"


WORDS = {
    "metadata_unreadable": _metadata_unreadable, "duplicate_member": _duplicate_member,
    "gpu_cpu_model": _gpu_cpu_model, "gpu_unreadable": _gpu_unreadable, "gpu_not_found": _gpu_not_found,
    "gpu_wrong_arch": _gpu_wrong_arch, "gpu_runs": _gpu_runs, "gpu_sass_only": _gpu_sass_only,
    "gpu_none_usable": _gpu_none_usable, "gpu_ptx_jit": _gpu_ptx_jit, "gpu_sass_runs": _gpu_sass_runs,
    "gpu_multi_arch": _gpu_multi_arch,
    "device_index": _device_index,
    "cpu_native": _cpu_native, "cpu_needs": _cpu_needs, "cpu_lacks": _cpu_lacks, "cpu_amx_unused": _cpu_amx_unused,
    "cpu_covered": _cpu_covered,
    "abi_unreadable": _abi_unreadable, "abi_unknown": _abi_unknown, "abi_release_lacks": _abi_release_lacks,
    "abi_release_has": _abi_release_has, "abi_oldest": _abi_oldest, "glibc_too_new": _glibc_too_new,
    "layout_root": _layout_root,
    "weights_beside": _beside, "weights_left_out": _left_out, "weights_in_so": _in_so,
    "weights_also_on_disk": _also_on_disk, "weights_blob_truncated": _blob_truncated,
    "weights_blob_beside": _blob_beside,
    "cmake_standalone": _cmake_standalone, "cmake_cpp_only": _cmake_cpp_only, "cpp_only_embedded": _cpp_only_embedded,
    "cpp_only": _cpp_only, "no_so": _no_so, "cubins_missing": _cubins_missing,
    "no_input_guards": _no_input_guards, "nan_checks": _nan_checks, "value_printer": _value_printer,
    "unchecked_indirect": _unchecked_indirect, "unchecked_extern": _unchecked_extern,
    "no_proxy_executor": _no_proxy_executor, "custom_op": _custom_op,
    "memory_unknown": _memory_unknown, "memory": _memory,
    "constant_nan": _constant_nan,
    "weights_mismatch": _weights_mismatch, "weights_prefix": _weights_prefix, "weights_inlined": _weights_inlined,
    "weights_extra": _weights_extra, "weights_missing": _weights_missing, "weights_match": _weights_match,
}


# -- the headline: each finding in a few words (the message in full is its own line below) ---------------------------
TITLES = {
    "metadata_unreadable": "its metadata cannot be read", "duplicate_member": "two members have the same name",
    "gpu_cpu_model": "a model of it runs on the CPU", "gpu_unreadable": "a GPU kernel image cannot be read",
    "gpu_not_found": "no GPU found", "gpu_wrong_arch": "it was compiled for another GPU architecture",
    "gpu_runs": "its kernels run on this GPU", "gpu_sass_only": "its kernels run on one GPU architecture only",
    "gpu_none_usable": "no kernel image of it runs on this GPU", "gpu_ptx_jit": "its kernels need a PTX JIT here",
    "gpu_sass_runs": "its kernels run on this GPU", "gpu_multi_arch": "it holds kernels for several GPUs",
    "device_index": "its inputs must be on the device it was loaded on",
    "cpu_native": "compiled with -march=native (the build machine's CPU)",
    "cpu_needs": "its code needs CPU features this host may lack",
    "cpu_lacks": "this host's CPU lacks instructions its code uses", "cpu_amx_unused": "AMX is not used",
    "cpu_covered": "this host's CPU has what its code uses",
    "abi_unreadable": "its .so's torch symbols cannot be read", "abi_unknown": "the torch that built it is unknown",
    "abi_release_lacks": "this torch lacks a C-shim symbol its .so calls",
    "abi_release_has": "this torch has every C-shim symbol its .so calls", "abi_oldest": "it needs a recent torch",
    "glibc_too_new": "it needs a newer glibc than this host has",
    "layout_root": "its members sit under a root folder an old torch cannot read",
    "weights_beside": "its weights are beside the .so, not in it",
    "weights_left_out": "built without weights: call load_constants(…) before the first run",
    "weights_in_so": "its weights are in its .so", "weights_also_on_disk": "its weights are in the .so and on disk",
    "weights_blob_truncated": "its weights blob is truncated",
    "weights_blob_beside": "its weights are in a blob only aoti_load_package loads",
    "cmake_standalone": "a libtorch-free C++ project: aoti_load_package cannot run it",
    "cmake_cpp_only": "C++ source to build with its CMakeLists.txt, no .so",
    "cpp_only_embedded": "C++ source with its kernels embedded, no .so", "cpp_only": "C++ source only, no .so",
    "no_so": "no compiled .so for a model", "cubins_missing": "kernel images are missing",
    "no_input_guards": "no input guards compiled in: a wrong shape reaches the kernels",
    "nan_checks": "NaN/Inf checks are compiled in", "value_printer": "the value printer is compiled in",
    "unchecked_indirect": "indirect accesses without a bounds check",
    "unchecked_extern": "extern ops index without a bounds check",
    "no_proxy_executor": "custom op calls without their proxy executor JSON",
    "custom_op": "custom ops must be registered where it runs", "memory_unknown": "its memory needs are unknown",
    "memory": "its memory needs", "constant_nan": "a constant holds NaN/Inf",
    "weights_mismatch": "the weights do not fit the package", "weights_prefix": "the weights' keys carry a prefix",
    "weights_inlined": "the weights given are inlined in the .so", "weights_extra": "the weights hold extra keys",
    "weights_missing": "the weights lack constants the package needs", "weights_match": "the weights fit",
}


def headline(errors: list[str], warnings: list[str], unchecked: bool, lead: str | None = None) -> str:
    """The first line from the codes of the errors and warnings (most serious first): the verdict, each finding by
    its title; what was not checked is the answer's next line (`not_checked_line`).  ``lead``: a warning whose
    package fails its first run unless the caller acts first (`DoctorResult.lead`): with no error, the line is it."""
    from .headline import WIDTH, fit

    e, w, budget = errors, warnings, WIDTH - len("✓ ")
    if lead and not e:
        title = TITLES.get(lead, lead)
        return fit(budget, f"{title}; {len(w) - 1} more warning(s) below" if len(w) > 1 else None, title)
    if e:
        more = f" (+{len(e) - 1} more)" if len(e) > 1 else ""
        return fit(budget, f"will not run as given: {TITLES.get(e[0], e[0])}{more}",
                   f"will not run as given ({len(e)} error(s) below)")
    head = "no error found in what was checked" if unchecked else "no error found"
    if w:
        return fit(budget, f"{head}; {len(w)} warning(s): {TITLES.get(w[0], w[0])}",
                   f"no error found; {len(w)} warning(s): {TITLES.get(w[0], w[0])}", f"{head}; {len(w)} warning(s)")
    return head if unchecked else "no error found: nothing in the package stands against running it here"


def not_checked_line(unchecked: list[str]) -> str:
    return "not checked: " + ", ".join(unchecked)
