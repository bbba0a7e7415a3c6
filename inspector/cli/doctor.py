"""`pt2-inspect doctor PKG`: will this package run here, with this GPU, CPU and torch?"""

from __future__ import annotations

import json

from ._args import MODEL_ONLY, add_host, add_inputs, add_json, add_model, add_package, add_wide, command_parser
from ._io import console, host_cpuinfo

HELP = """Read the contract a package carries and check it against where it will run,
before anything runs. One finding per line, most serious first: error (it will
fail), warn (it may fail or mislead), info; each with its evidence and what to do.

  GPU architecture  the SM target of every cubin (ELF header) against --gpu
  CPU ISA           AOTI_CPU_ISA and the compile commands' -m flags against
                    --host-cpuinfo (a saved /proc/cpuinfo, or auto: this machine)
  torch ABI         the .so's undefined aoti_* C-shim symbols against what each
                    torch release 2.6-2.15 exports (--torch X.Y: what it lacks)
  GLIBC             the versions the .so needs (against this host with auto)
  weights           compiled into the .so, or left out (load_constants first);
                    with --weights FILE: a .safetensors file, a folder of
                    shards or a torch.save file (read as pickle opcodes, never
                    unpickled) against the constants: every name, dtype, shape
                    and stride, and keys the package lacks with their reason.
                    load_constants copies raw bytes and checks none of this
  completeness      the .so and every cubin the wrapper loads are present
  checks            input guards, NaN/Inf checks, the value printer compiled in
  memory            constant bytes, and the run's peak activation memory from the
                    wrapper's allocations and releases: a formula of the dynamic
                    sizes, evaluated at --input shapes (else every size at 64),
                    as a range: the activations alone up to, on CUDA, a fresh
                    process's first run (cuBLAS's 32 MiB workspace, 2x each
                    convolution's output for cuDNN's, 4 MiB slack), on the CPU
                    the tensors + 1 MiB (the heap's small blocks, BLAS buffers).
                    Measured on an H200 (torch 2.11): all 27 runs of an MLP, BERT
                    (static and dynamic batch and sequence), ResNet-18 and timm
                    models fall in it; the floor is exact for the MLP and BERT,
                    57% for ResNet-18. On the CPU (torch 2.13, resident peak):
                    BERT + pooling, GPT-2, Llama and a dynamic-size ViT within
                    15%, wav2vec2 0.8 with its upper bound holding (the
                    convolution's own workspace). "at least" when a size is
                    unknown or a custom op allocates inside itself (the reason is
                    said); "could not estimate", never 0 B

Nothing inside the package is loaded, run or unpickled: ELF headers and symbol
tables are read as bytes.

examples:
  pt2-inspect doctor sample_packages/cuda/jagged/jagged.pt2 --gpu sm_80
  pt2-inspect doctor sample_packages/cuda/jagged/jagged.pt2 --gpu auto --host-cpuinfo auto --torch 2.13
  pt2-inspect doctor sample_packages/cpu/jagged/jagged.pt2 --host-cpuinfo sample_packages/cpu/jagged/logs/cpuinfo_flags_no_amx.log --json
  pt2-inspect doctor sample_packages/cpu/embedding/embedding.pt2 --weights sample_packages/cpu/embedding/weights/half.pt
  pt2-inspect doctor sample_packages/harvest/timm_hf/timm_resnet18/timm_resnet18.pt2 --input 0=float32[64,3,224,224]

exit codes: 0 no error found, 1 an error found, 2 usage, 3 unreadable package
"""


def add_parser(sub):
    p = command_parser(sub, "doctor", "will this package run here (GPU, CPU, torch, weights)?", HELP, epilog=None)
    add_package(p)
    add_host(p)
    p.add_argument("--weights", metavar="FILE|DIR", help="weights to check against the constants (.safetensors, "
                   "a folder of shards, or a torch.save file)")
    add_model(p, MODEL_ONLY + " (needed with --weights when it holds several)")
    add_inputs(p, "an input's shape for the memory estimate, as `check` takes it: 0=float32[64,128] "
                  "(several: `--input A B` or `--input A --input B`)")
    add_json(p)
    add_wide(p)
    return p


def run(a) -> int:

    from ..package import open_package
    from ..parse.specs import parse_spec
    from ..queries.doctor import doctor

    cpuinfo = host_cpuinfo(a.host_cpuinfo)
    with open_package(a.package) as pkg:
        r = doctor(pkg, gpu=a.gpu, host_cpuinfo=cpuinfo, torch=a.torch, weights=a.weights, model=a.model,
                   inputs=[parse_spec(s) for s in a.input])
    if a.json:
        print(json.dumps(r.to_dict(), indent=2))
    else:
        from ..render.doctor import render_doctor

        render_doctor(console(a.wide), r)
    return 0 if r.ok else 1
