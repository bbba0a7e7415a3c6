"""The report's source panels show the lines of the kernel they name: a CPU kernel's signature panel starts at its
own signature.  A CPU kernel's lines are its whole kernel.cpp (torch 2.6: the whole `<hash>.cpp`); read from the
file's top, a kernel but the first showed the first kernel's signature (cpu/bucketize_index, hf_llama, hf_roberta)
and every torch 2.6 kernel the file's `extern "C" {` block, 50 lines above it."""

from __future__ import annotations

import pytest

import inspector
from inspector.queries.report_chain import trace_chain
from inspector import trace_assert

from _samples import SAMPLES

CPU = [s for s in SAMPLES if s.device == "cpu" and s.fired]


@pytest.mark.parametrize("sample", CPU, ids=[s.id for s in CPU])
def test_signature_panels_show_their_own_kernel(sample):
    assert len(CPU) >= 20
    with inspector.open_package(sample.pkg) as pkg:
        r = trace_assert(pkg, log=sample.error_log.read_text())
        if not r.matches:
            pytest.skip("no assertion matches this sample's log")
        panels = [n.source for mt in r.matches[:3] for n in trace_chain(pkg, mt).nodes.values()
                  if n.source is not None and n.source.view == "signature"]
    for p in panels:
        assert p.lines and f" {p.kernel}(" in p.lines[0][1], (p.kernel, p.lines[0])


def test_the_three_samples_that_showed_another_kernel():
    """The real cases: each one's signature panel used to show the file's first kernel."""
    seen = {}
    for s in CPU:
        if s.key not in ("cpu/bucketize_index", "cpu/hf_llama", "cpu/hf_roberta"):
            continue
        with inspector.open_package(s.pkg) as pkg:
            mt = trace_assert(pkg, log=s.error_log.read_text()).matches[0]
            c = trace_chain(pkg, mt)
        heads = [n.source for n in c.nodes.values() if n.source is not None and n.source.view == "signature"]
        assert heads, s.key
        seen[s.key] = [(p.kernel, p.lines[0][1]) for p in heads]
        assert all(f" {k}(" in line for k, line in seen[s.key]), seen[s.key]
    assert len(seen) == 3, seen
