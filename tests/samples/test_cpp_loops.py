"""`loop_headers` reads one CPU kernel's own lines (`kernel_span`), not its whole kernel.cpp: on every CPU sample
each kernel's headers lie in its own body, and the kernels' headers together are the file's, each once (read
whole-file, every kernel got every kernel's loops: 1,480 headers for the 74 of cpu/transformer's 20 kernels)."""

from __future__ import annotations

import pytest

import inspector
from inspector.parse.cpp_loops import _LOOP, kernel_span, loop_headers

from _samples import PACKAGES

CPU = [p for p in PACKAGES if p.parent.parent.name.startswith("cpu")]


def _file_headers(lines: list[str]) -> list[int]:
    """Every self-testing ``for`` header of a whole file (its 1-based line numbers), read as loop_headers reads one."""
    return [i + 1 for i, t in enumerate(lines) if (mm := _LOOP.search(t)) and mm.group(1) == mm.group(2)]


@pytest.mark.parametrize("pkg", CPU, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in CPU])
def test_each_kernel_reads_its_own_loops(pkg):
    assert len(CPU) >= 25
    with inspector.open_package(pkg, cache=False) as p:
        for m in (p.model(n) for n in p.model_names):
            ks = sorted((k for k in m.kernels.values() if k.backend == "cpp"), key=lambda k: k.first_line)
            if not ks:
                continue
            lines = ks[0].lines()
            assert all(k.lines() is lines or k.lines() == lines for k in ks)  # one file, shared
            got = []
            for k, nxt in zip(ks, ks[1:] + [None], strict=True):
                span = kernel_span(k)
                assert span.start == k.first_line - k.line_base and lines[span.start].lstrip().startswith(
                    ('extern "C"', "inline void")), (k.name, lines[span.start])
                assert nxt is None or span.stop <= nxt.first_line - nxt.line_base, (k.name, span, nxt.name)
                hs = loop_headers(k)
                assert all(span.start < h.line - k.line_base < span.stop for h in hs), k.name
                got += [h.line for h in hs]
            assert sorted(got) == _file_headers(lines), pkg  # the file's headers, each in the one kernel it is in


def test_the_argmax_position_bound_is_its_own_kernels_loop():
    """The one real question that asks it: cpu/argmax_embedding's argmax runs x1 below ks1 (kernel.cpp line 20)."""
    pkg = next(p for p in CPU if p.parent.name == "argmax_embedding" and p.parent.parent.name == "cpu")
    with inspector.open_package(pkg, cache=False) as p:
        k = p.model().kernels["cpp_fused_argmax_embedding_mul_0"]
        hs = loop_headers(k)
    assert [(h.var, h.line) for h in hs] == [("x0", 15), ("x1", 20), ("x1", 38)]
    assert "ks1" in hs[1].bound.names and kernel_span(k) == range(3, 59)
