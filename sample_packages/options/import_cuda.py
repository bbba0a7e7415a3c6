"""Copy the H200's build_cuda.py results into sample_packages/options/, members deflated; the .so kept only
where a check reads it (KEEP_SO: embed_kernel_binary's .so holds the kernels doctor reads), its debug sections
stripped (`strip --strip-debug`: .debug_* only; .symtab, .dynsym and .rodata stay).
usage: import_cuda.py SRC_ROOT DEST_ROOT"""
import json, os, shutil, subprocess, sys, tempfile, zipfile
KEEP_SO = {"embed_kernel_cuda", "multi_arch_cuda"}  # multi_arch: doctor reads its .so beside the fatbins
TRUTH = {
    "embed_kernel_cuda": "aot_inductor.embed_kernel_binary=True: no .cubin member; the 2 kernels' CUDA ELF images "
                         "(sm_90a) sit in the .so's .rodata between __<kernel>_start and __<kernel>_end",
    "multi_arch_cuda": "aot_inductor.emit_multi_arch_kernel=True: one .fatbin per kernel, each an sm_90a ELF and sm_90a "
                       "PTX (cuobjdump --list-elf --list-ptx); Triton compiles cc >= 90 for the 'a' target, so neither "
                       "image serves a GPU other than sm_90",
    "cpp_only_cuda": "aot_inductor.package_cpp_only=True: no .so, no kernel.cpp; CMakeLists.txt, compile/linker flags, "
                     "weights.o, cubins named after their kernels; torch 2.11's aoti_load_package compiled it at load "
                     "(run 'load', rc 0)",
    "standalone_cuda": "aot_inductor_mode.compile_standalone=True (+ model_name_for_generated_files='gather'): no .so, "
                       "a .ptx per kernel, gather.h, CMakeLists.txt; aoti_load_package's own build of it fails at dlopen "
                       "(undefined symbol __gather_triton_..._start: the kernel images are embedded only by the "
                       "CMake build)",
    "cond_index_cuda": "torch.cond whose true branch gathers tab[idx]: the device assert `0 <= tmp4 < 100` fires in the "
                       "branch's kernel; its index is model input 1 (idx), passed into the subgraph",
    "mixed_cpu_cuda": "a CPU buffer cpu_tab (4096x64 float32, 1 MiB) gathered on the CPU, then moved to CUDA: the CPU "
                      "kernel's TORCH_CHECK `0 <= tmp7 < 4096L` fires (rc 1); constants of both devices",
    "sdpa_bf16_dyn_cuda": "bf16 token+position embeddings (position table 128 rows) and causal SDPA, dynamic sequence: "
                          "at sequence 160 the position gather's assert `y0 < 128` fires (its index is arange(seq): "
                          "input 0 dim 1), not the token gather",
    "cpu_and_cuda_models": "two models in one package (package_pt2): gather_cuda and gather_cpu (AVX2, "
                           "ATEN_CPU_CAPABILITY=avx2), loaded with load_package(pkg, model_name=...)",
}
# the category a person gives each failing run (harvest's `right_category`); every other run is clean.  cpu_inputs:
# the log names no device (an illegal access after cuBLAS's handle failed), so it is an illegal_memory_access whose
# likeliest cause is an input on the CPU, not a device_mismatch (issue 34 §2)
RIGHT = {"oob_index": "index_assert", "oob_true": "index_assert", "oob_cuda": "index_assert",
         "oob_cpu_index": "index_assert", "past_table": "index_assert", "cpu_inputs": "illegal_memory_access",
         "checkinputs_bad_shape": "input_check"}
RIGHT_BY_CASE = {("standalone_cuda", "load"): "load"}
src_root, dest_root = sys.argv[1:3]
for name in sorted(os.listdir(src_root)):
    d = os.path.join(src_root, name)
    if not os.path.exists(os.path.join(d, "index.json")):
        continue
    info = json.load(open(os.path.join(d, "index.json")))
    out = os.path.join(dest_root, name)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    pkg = os.path.join(d, name + ".pt2")
    with zipfile.ZipFile(pkg) as zi, zipfile.ZipFile(os.path.join(out, name + ".pt2"), "w", zipfile.ZIP_DEFLATED) as zo:
        for it in zi.infolist():
            data = zi.read(it.filename)
            if it.filename.endswith(".so"):
                if name not in KEEP_SO:
                    info.setdefault("left_out", []).append(it.filename.rsplit("/", 1)[-1])
                    continue
                with tempfile.TemporaryDirectory() as t:
                    so = os.path.join(t, "x.so")
                    open(so, "wb").write(data)
                    subprocess.run(["strip", "--strip-debug", so], check=True)
                    stripped = open(so, "rb").read()
                info.setdefault("so_debug_stripped", {})[it.filename.rsplit("/", 1)[-1]] = [len(data), len(stripped)]
                data = stripped
            zo.writestr(it.filename, data)
    shutil.copytree(os.path.join(d, "logs"), os.path.join(out, "logs"))
    shutil.copy(os.path.join(d, "build.log"), os.path.join(out, "build.log"))
    if info.get("left_out"):
        info["left_out_why"] = ("the .so left out to keep the repo within the device tree's 64 MiB; nothing about its "
                                "statements, kernels or logs needs it")
    info["built_on"] = "the lent H200, torch 2.11 / Triton 3.6 (issue 23), sample_packages/options/build_cuda.py"
    info["truth"] = TRUTH.get(name)
    for r in info.get("runs", []):
        r["right_category"] = RIGHT_BY_CASE.get((name, r["scenario"])) or RIGHT.get(r["scenario"]) or (
            "none (clean run)" if r["rc"] == 0 else None)
        r["command"] = r["command"].replace("build_cuda.py", "sample_packages/options/build_cuda.py")
    json.dump(info, open(os.path.join(out, "index.json"), "w"), indent=1)
    print(out, sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(out) for f in fs) // 1024, "K")
