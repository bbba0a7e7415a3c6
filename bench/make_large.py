"""Grow a real CUDA sample package into a production-size one: N variants of every Triton kernel.

    python bench/make_large.py --variants 6670 -o /tmp/large.pt2     # 3 kernels x 6670 = 20,010 kernels
    python bench/make_large.py --sample sample_packages/cuda/transformer/transformer.pt2 --variants 1177 -o big.pt2

Variant v of kernel K is K_v<v>, renamed everywhere the generated wrapper names it: its
`call_triton_K_v<v>` launcher (a copy of K's, with `kernels_.K_v<v>`, `async_compile.triton('K_v<v>'`,
`def K_v<v>(`, `'kernel_name': 'K_v<v>'` and its own cubin file name in `loadKernel`), its
`CUfunction` slot, and a copy of run_impl's body (allocations, Source Nodes comments, calls) whose
buffers are renamed too (`buf3` -> `buf3_v<v>`), so no variant writes a buffer the original reads.
Each variant's Triton source carries one comment line more (`# variant <v> of K`), right after the
`'''` line: distinct text, and its asserts sit one `.py` line lower than the original's.  The
original kernels, calls, inputs, guards and outputs are untouched, so the sample's real error log
still resolves to exactly one kernel.  Variant cubins are named but not shipped (a trace never
needs them to tell the original apart).  Every other member is copied as is (stored, like torch).

`--weights-mb M` adds a member of M MiB of zeros under data/weights/ (never read by the tool).
"""

from __future__ import annotations

import argparse
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SAMPLE = ROOT / "sample_packages" / "cuda" / "jagged" / "jagged.pt2"
_LAUNCHER = re.compile(r"^static inline void call_(triton_\w+)\($")
_TRITON_OPEN = "async_compile.triton('"


def _rename(text: str, names: list[str], v: int) -> str:
    for k in sorted(names, key=len, reverse=True):
        text = re.sub(re.escape(k) + r"(?!\w)", f"{k}_v{v}", text)
    return text


def _launchers(lines: list[str]) -> list[tuple[str, int, int]]:
    """(kernel, first line index incl. the `template <` line, index after the closing `}`)."""
    out = []
    for i, line in enumerate(lines):
        m = _LAUNCHER.match(line)
        if not m:
            continue
        start = i - 1 if i and lines[i - 1].startswith("template <") else i
        end = next(j for j in range(i, len(lines)) if lines[j] == "}")
        out.append((m.group(1), start, end + 1))
    return out


def _variant_launcher(block: list[str], kernel: str, names: list[str], v: int) -> list[str]:
    text = _rename("\n".join(block), names, v)
    text = re.sub(r"(\w+)\.cubin\"", lambda m: f'{m.group(1)}_v{v}.cubin"', text)
    out = text.split("\n")
    at = next(i for i, l in enumerate(out) if _TRITON_OPEN in l)
    indent = out[at][: len(out[at]) - len(out[at].lstrip())]
    out.insert(at + 1, f"{indent}# variant {v} of {kernel}")
    return out


def _body(lines: list[str]) -> tuple[int, int]:
    """run_impl's body after the stream guard, up to the first `output_handles[` line."""
    start = next(i for i, l in enumerate(lines) if l.strip().startswith("AOTICudaStreamGuard ")) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("output_handles["))
    return start, end


def grow(wrapper: str, variants: int) -> tuple[str, int]:
    lines = wrapper.split("\n")
    launchers = _launchers(lines)
    names = [k for k, _, _ in launchers]
    if not names:
        raise SystemExit("no call_triton_ launchers: pass a CUDA sample")
    extra_after: dict[int, list[str]] = {}
    for k, s, e in launchers:
        block = lines[s:e]
        extra_after[e - 1] = [l for v in range(1, variants) for l in ["", *_variant_launcher(block, k, [k], v)]]
    for i, l in enumerate(lines):
        m = re.match(r"^(\s*)CUfunction (triton_\w+)\{nullptr\};$", l)
        if m and m.group(2) in names:
            extra_after[i] = [f"{m.group(1)}CUfunction {m.group(2)}_v{v}{{nullptr}};" for v in range(1, variants)]
    bs, be = _body(lines)
    body = "\n".join(lines[bs:be])
    copies = []
    for v in range(1, variants):
        t = _rename(body, names, v)
        t = re.sub(r"\b(buf\d+)(_handle)?\b", lambda m: f"{m.group(1)}_v{v}{m.group(2) or ''}", t)
        t = re.sub(r"\bint_array_(\d+)\b", lambda m: f"int_array_{m.group(1)}_v{v}", t)
        copies.extend(t.split("\n"))
    extra_after[be - 1] = extra_after.get(be - 1, []) + copies
    out = []
    for i, l in enumerate(lines):
        out.append(l)
        out.extend(extra_after.get(i, []))
    return "\n".join(out), len(names) * variants


def make(sample: Path, variants: int, output: Path, weights_mb: int = 0) -> int:
    with zipfile.ZipFile(sample) as src, zipfile.ZipFile(output, "w", zipfile.ZIP_STORED, allowZip64=True) as dst:
        kernels = 0
        root = ""
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith(".wrapper.cpp"):
                text, n = grow(data.decode("utf-8"), variants)
                kernels += n
                data = text.encode("utf-8")
            if info.filename.endswith("archive_format"):
                root = info.filename[: -len("archive_format")]
            dst.writestr(info.filename, data)
        if weights_mb:
            with dst.open(f"{root}data/weights/weight_big", "w", force_zip64=True) as f:
                chunk = b"\0" * (1 << 20)
                for _ in range(weights_mb):
                    f.write(chunk)
    return kernels


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sample", type=Path, default=DEFAULT_SAMPLE, help="a real CUDA sample .pt2 (default: cuda/jagged)")
    p.add_argument("--variants", type=int, required=True, help="copies of every kernel, the original included")
    p.add_argument("--weights-mb", type=int, default=0, help="add a weights member of this many MiB")
    p.add_argument("-o", "--output", type=Path, required=True)
    a = p.parse_args(argv)
    n = make(a.sample, a.variants, a.output, a.weights_mb)
    print(f"{a.output}: {n} Triton kernels, {a.output.stat().st_size / 1e6:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
