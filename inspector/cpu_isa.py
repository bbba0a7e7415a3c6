"""The one table of CPU features (issue 21 §3, issue 22 §2): what an ``AOTI_CPU_ISA`` word and a compile command's
``-m`` flag need from the host, in ``/proc/cpuinfo``'s flag names.  `doctor` (against a cpuinfo) and `diagnose`
(against the flags line a log holds) both read it, so the two commands never disagree on what AVX512 means.

``AVX512`` is Inductor's ``VecAVX512``: it compiles with ``-mavx512f -mavx512dq -mavx512vl -mavx512bw``
(torch/_inductor/cpu_vec_isa.py), so a host needs all four.
"""

from __future__ import annotations

# AOTI_CPU_ISA words (the wrapper metadata) -> the /proc/cpuinfo flags they need, every one of them
ISA_CPUINFO: dict[str, tuple[str, ...]] = {
    "AVX2": ("avx2",), "AVX512": ("avx512f", "avx512dq", "avx512vl", "avx512bw"),
    "AVX512_VNNI": ("avx512_vnni",), "AVX512_BF16": ("avx512_bf16",), "AMX_TILE": ("amx_tile",),
    "AMX_BF16": ("amx_bf16",), "AMX_INT8": ("amx_int8",), "AMX_FP16": ("amx_fp16",),
    "NEON": ("asimd",), "SVE": ("sve",),
}

# An AOTI_CPU_ISA word names the host's best vector ISA, not every feature it has: a host torch calls "AVX512"
# runs AVX2 code (Inductor's VecAVX512 hosts are VecAVX2 hosts); what a word implies, transitively.
ISA_IMPLIES: dict[str, tuple[str, ...]] = {"AVX512": ("AVX2",), "AVX512_VNNI": ("AVX512",), "AVX512_BF16": ("AVX512",),
                                           "AMX_TILE": ("AVX512",)}


def isa_words_with_implied(words) -> set[str]:
    """``words`` with every word they imply (AVX512 -> AVX2)."""
    out, todo = set(), list(words)
    while todo:
        w = todo.pop()
        if w not in out:
            out.add(w)
            todo += ISA_IMPLIES.get(w, ())
    return out


# gcc -m flags of an Inductor compile command -> the /proc/cpuinfo flag each needs
M_FLAG_CPUINFO: dict[str, str] = {
    "avx2": "avx2", "fma": "fma", "f16c": "f16c", "avx512f": "avx512f", "avx512dq": "avx512dq",
    "avx512vl": "avx512vl", "avx512bw": "avx512bw", "avx512vnni": "avx512_vnni", "avx512bf16": "avx512_bf16",
    "amx-tile": "amx_tile", "amx-bf16": "amx_bf16", "amx-int8": "amx_int8", "avx512fp16": "avx512_fp16",
}


def isa_flags(words) -> set[str]:
    """The cpuinfo flags a list of AOTI_CPU_ISA words needs."""
    return {c for w in words for c in ISA_CPUINFO.get(w, ())}


def isa_words_missing(words, host_flags: set[str]) -> tuple[str, ...]:
    """The AOTI_CPU_ISA words a host (its cpuinfo flags) cannot run: one of the word's flags is absent."""
    return tuple(w for w in words if w in ISA_CPUINFO and not set(ISA_CPUINFO[w]) <= host_flags)
