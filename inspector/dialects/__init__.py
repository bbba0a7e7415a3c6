"""Wrapper dialects: what one family of AOTInductor wrappers looks like, in one place.

Every torch release moves something in the generated ``wrapper.cpp`` (where the Triton
source sits, how a kernel is launched, which comments come with a call).  Each family
is one `Dialect` object: the plain-string markers that slice the wrapper into regions,
the launch style, where the Source Nodes comments sit, how the Triton ``.py`` line is
numbered, and how a run_impl statement picks its grammar rule.  `sniff` chooses one by
looking at the wrapper text; ``show --json`` reports its name per model.

Adding a family is one module here holding its `Dialect(...)` (`base.Dialect` says what each
field means), one line in `DIALECTS` (most specific first), the grammar rules its new statements
need and a sample (or a snippet test in tests/unit/test_dialect_registry.py).  `members` says which archive
member is what (wrapper, kernel.cpp, metadata, cubins).  Nothing here parses: the scanners in
`inspector.parse` ask the dialect, the grammars in ``grammars/`` do the parsing.
"""

from __future__ import annotations

from .base import FALLBACK, Dialect
from .cpu_inline import CPU_INLINE
from .cpu_kernel_cpp import CPU_KERNEL_CPP
from .cpu_standalone import CPU_STANDALONE
from .cpu_standalone import for_class as _for_class
from .cpu_standalone import for_text as _standalone_for
from .cpu_standalone import model_class as _model_class
from .cuda_call_triton import CUDA_CALL_TRITON

__all__ = ["Dialect", "DIALECTS", "FALLBACK", "CUDA_CALL_TRITON", "CPU_KERNEL_CPP", "CPU_INLINE", "CPU_STANDALONE", "sniff",
           "by_name",
           "embedded_source"]

# The registry, most specific first: `sniff` takes the first whose markers the wrapper carries.
DIALECTS: tuple[Dialect, ...] = (CUDA_CALL_TRITON, CPU_STANDALONE, CPU_KERNEL_CPP, CPU_INLINE)


def embedded_source(lines: list[str], start: int, end: int) -> list[str]:
    """A Triton kernel's lines as the wrapper comment at ``lines[start:end]`` holds them, the indent of
    the ``async_compile.triton(`` line removed (the kernel's ``.py`` text, line for line)."""
    first = lines[start]
    indent = len(first) - len(first.lstrip())
    return [l[indent:] if l[:indent].strip() == "" else l.lstrip() for l in lines[start:end]]


def sniff(text: str, member: str = "") -> Dialect:
    """The first registered dialect whose markers the wrapper text (of archive member ``member``, when
    known) carries, else `FALLBACK`."""
    seen: dict[str, bool] = {}  # each marker searched for once, whichever dialects ask

    def has(marker: str) -> bool:
        found = seen.get(marker)
        if found is None:
            # run_impl's own line comes after every kernel, two thirds into a big CUDA wrapper: searched from the end
            found = seen[marker] = (text.rfind(marker) >= 0) if "::run_impl(" in marker else marker in text
        return found

    for d in DIALECTS:
        if d.matches(text, member, has):
            return _standalone_for(text) if d is CPU_STANDALONE else d
    cls = _model_class(text)  # compile_standalone on CUDA: the family's markers, run_impl of `AOTInductorModel<name>`
    if cls and cls != "AOTInductorModel":
        for d in DIALECTS:
            named = _for_class(d, cls)
            if d is not CPU_STANDALONE and named.matches(text, member, has):
                return named
    return FALLBACK


def by_name(name: str) -> Dialect:
    for d in (*DIALECTS, FALLBACK):
        if d.name == name:
            return d
    raise KeyError(name)
