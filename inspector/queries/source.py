"""The generated lines the other commands cite (``pt2-inspect source``), from the lazy index: only the kernel
asked for is read.  Kernel lines use the kernel's own numbering (the Triton .py line a device assert names,
the kernel.cpp line a CPU check names); wrapper lines are wrapper.cpp lines, as `trace-assert` prints them."""

from __future__ import annotations


def source_lines(pkg, *, kernel: str | None = None, wrapper: bool = False, line: int | None = None,
                 context: int = 10, model: str | None = None) -> dict:
    """{"model", "kernel", "file", "line", "lines": [{"line", "text"}]}: the Python twin of the command."""
    from ..errors import UsageError

    ix = pkg.index(model)  # the scan: only the kernel asked for is parsed
    if wrapper:
        file = ix.files.wrapper
        text = pkg.archive.read_text(file).splitlines()
        first = 1
    else:
        k = ix.kernel(kernel)
        if k is None:
            import difflib

            names = ix.kernel_names()
            close = difflib.get_close_matches(kernel, names, n=3, cutoff=0.6)
            listing = ", ".join(names[:20]) + (f" … ({len(names)} in all)" if len(names) > 20 else "")
            raise UsageError(f"no kernel {kernel!r} in model {ix.name!r}"
                             + (f"; did you mean {', '.join(close)}?" if close else f"; kernels: {listing or 'none'}"))
        file, text, first = k.source_file, k.lines(), k.line_base
    last = first + len(text) - 1
    own = None  # a CPU kernel's lines are its whole kernel.cpp: without --line, its own span only
    if not wrapper:
        from ..parse.cpp_loops import kernel_span

        span = kernel_span(k)
        own = (first + span.start, first + span.stop - 1) if span else None
    if line is not None:
        if not first <= line <= last:
            raise UsageError(f"--line {line} is outside {'wrapper.cpp' if wrapper else kernel} (lines {first}..{last})")
        lo, hi = max(first, line - max(context, 0)), min(last, line + max(context, 0))
    else:
        lo, hi = own or (first, last)
    return {"model": ix.name, "kernel": None if wrapper else kernel, "file": file, "line": line,
            "lines": [{"line": n, "text": text[n - first]} for n in range(lo, hi + 1)]}
