"""A production-size package stays exact: cuda/jagged grown to 500 variants of each kernel (1,500 Triton
kernels, bench/make_large.py) answers the real error log exactly as the sample does, with one match."""

from __future__ import annotations

import json

import pytest

from _grow import grow
from _paths import S

import inspector
from inspector.queries.show import summarize
from inspector import trace_assert

pytestmark = pytest.mark.slow  # builds a 1,500-kernel package

SAMPLE = S / "cuda/jagged/jagged.pt2"
LOG = SAMPLE.parent / "error.log"
N = 500
# Wrapper line numbers move when variants are inserted above run_impl; everything else must not.
MOVING = {"wrapper_line", "definition_line", "call_sites", "line", "launch_lines"}  # wrapper lines move as it grows


def _stable(d):
    if isinstance(d, dict):
        # "confirm": the repro/sweep command lines name the package's path, as "package" does
        return {k: _stable(v) for k, v in d.items() if k not in MOVING and k not in ("package", "confirm")}
    if isinstance(d, list):
        return [_stable(x) for x in d]
    return d


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    out = tmp_path_factory.mktemp("large") / "jagged-x500.pt2"
    assert grow(SAMPLE, N, out) == 3 * N
    with inspector.open_package(out) as pkg:  # indexed once for the module
        yield pkg


def test_a_trace_parses_what_it_walks_not_the_package(large):
    """The lazy index: the trace parses the matched kernel and the two that write the buffers it reads (3 of 1,500),
    and a few dozen run_impl statements of the ~9,000; the answer is the full parse's."""
    log = LOG.read_text()
    with inspector.open_package(large.path, cache=False) as pkg:
        lazy = trace_assert(pkg, log=log).to_dict()
        ix = pkg.index()
        assert ix.parsed_kernels() == 3 and len(ix.kernel_names()) == 3 * N  # the writers of the buffers it reads
        run = ix.coverage["run_impl"]
        assert 0 < run.total < 100 and len(ix.wmap.run) > 10_000
        assert ix.coverage["triton"].total < 100
    with inspector.open_package(large.path, cache=False) as pkg:
        pkg.index().full()
        assert trace_assert(pkg, log=log).to_dict() == lazy


def test_large_package_traces_exactly_like_the_sample(large):
    log = LOG.read_text()
    with inspector.open_package(SAMPLE) as pkg:
        small = trace_assert(pkg, log=log).to_dict()
    big = trace_assert(large, log=log).to_dict()
    m = large.model()
    assert len(m.kernels) == 3 * N
    assert sum(len(k.assertions) for k in m.kernels.values()) == N  # one look-alike assert per variant
    assert m.skipped_statements == 0
    assert len(big["matches"]) == 1 and big["matches"][0]["exact"]
    assert big["matches"][0]["kernel"] == "triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2"
    assert _stable(big["matches"]) == _stable(small["matches"])


def test_large_package_show_counts_every_kernel(large):
    s = summarize(large, full=True).models[0]
    assert len(s.kernels) == 3 * N and s.assertions == N
    assert all(k.launches == 1 for k in s.kernels)
    assert s.coverage.understood == s.coverage.total > 30 * N
    assert s.dialect == "cpp-wrapper-gpu/call_triton"


def _kernel_rows(out: str, names: set[str]) -> list[str]:
    return [ln.split()[0] for ln in out.splitlines() if ln.split() and ln.split()[0] in names]


def test_large_package_show_draws_60_kernel_rows_those_with_assertions_first(large, capsys):
    """1,500 kernels: the table shows 60 (those holding assertions first, in package order) and says how many
    more there are; --wide keeps the cap, --all-kernels lifts it, --json lists all."""
    from inspector.cli import main
    from inspector.render.show import MAX_KERNEL_ROWS

    kernels = summarize(large).models[0].kernels
    names = [k.name for k in kernels]
    with_asserts = [k.name for k in kernels if k.assertions]
    assert len(names) == 3 * N and len(with_asserts) == N
    assert names[:MAX_KERNEL_ROWS] != with_asserts[:MAX_KERNEL_ROWS]  # package order does not put them first
    for extra in ([], ["--wide"]):
        assert main(["show", str(large.path), *extra]) == 0
        out = capsys.readouterr().out
        assert _kernel_rows(out, set(names)) == with_asserts[:MAX_KERNEL_ROWS]
        assert (f"… {3 * N - MAX_KERNEL_ROWS:,} more kernels not shown ({N - MAX_KERNEL_ROWS:,} of them with "
                "assertions") in out and "`show --json` lists all" in out
        assert f"kernels ({3 * N}; {N} assertions)" in out
    assert main(["show", str(large.path), "--all-kernels"]) == 0
    out = capsys.readouterr().out
    assert _kernel_rows(out, set(names)) == names and "more kernels not shown" not in out
    assert main(["show", str(large.path), "--json"]) == 0
    assert [k["name"] for k in json.loads(capsys.readouterr().out)["models"][0]["kernels"]] == names


def test_small_package_show_draws_every_kernel_in_package_order(capsys):
    from inspector.cli import main

    with inspector.open_package(SAMPLE) as pkg:
        names = [k.name for k in summarize(pkg).models[0].kernels]
    assert main(["show", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert names and _kernel_rows(out, set(names)) == names and "more kernels not shown" not in out


def test_a_cached_trace_reads_no_wrapper(large, cache_dir):
    """The second trace answers from the index cache's parts (the scan's summary, the kernels, the slice):
    the 1,500-kernel wrapper is not read at all, and the answer is the first one."""
    log = LOG.read_text()
    with inspector.open_package(large.path, cache=True) as pkg:
        first = trace_assert(pkg, log=log).to_dict()
        assert pkg.index().scanned
    with inspector.open_package(large.path, cache=True) as pkg:
        again = trace_assert(pkg, log=log).to_dict()
        assert not pkg.index().scanned
    assert again == first and first["matches"]
