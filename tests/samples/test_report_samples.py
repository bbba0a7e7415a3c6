"""The per-sample tests of test_report.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import json

import pytest

import inspector
from inspector.cli import main
from inspector.queries.report_chain import trace_chain
from inspector.render.html.layout import layout
from inspector import trace_assert

from _browser import open_page
from _paths import S
from _samples import SAMPLES as ALL_SAMPLES, error_log_text, sample_of

CUDA_JAGGED = S / "cuda/jagged/jagged.pt2"
TRACED = [s.dir for s in ALL_SAMPLES]  # every sample with a manifest, its package and its real error.log


@pytest.mark.parametrize("case", TRACED, ids=lambda d: f"{d.parent.name}/{d.name}")
def test_every_sample_chain_reaches_what_the_manifest_says(case, request):
    manifest = json.loads((case / "manifest.json").read_text())
    if not manifest["expect"].get("fired", True):
        pytest.skip("the trigger ran without any error on this build: nothing to trace")
    with inspector.open_package(sample_of(case).pkg) as pkg:
        r = trace_assert(pkg, log=error_log_text(case))
        assert r.matches
        c = trace_chain(pkg, r.matches[0])
    labels = [n.label for n in c.nodes.values()]
    # An extern op's line is the wrapper.cpp line of its call, not a kernel's assert line.
    where = "extern call, wrapper.cpp line" if r.matches[0].kernel_kind == "extern" else "assert line"
    assert labels[0].startswith(f"{where} {r.matches[0].file_line}: ")
    pos = layout(c)
    assert len(set(pos.values())) == len(pos)  # no two boxes on one spot
    # Every edge joins known nodes and every node but the assertion has a way in.
    assert all(a in c.nodes and b in c.nodes for a, b, _ in c.edges)
    assert {b for _, b, _ in c.edges} == set(c.nodes) - {c.root}
    expect = manifest["expect"]
    nodes = list(c.nodes.values())
    assert nodes[0].detail.startswith(expect["kernel"] + ",")
    if expect["static_bound"] is not None:
        assert any(n.kind == "constant" and f"= {expect['static_bound']} (a constant)" in n.label for n in nodes), labels
    else:  # every input dim the bound is made of (one, or several for a compound bound such as `ks0 + ks1`)
        terms = expect.get("bound_terms") or [expect["bound_input"]]
        assert terms and all(terms), expect
        for b in terms:
            assert any(n.kind == "input" and n.key == f"input:{b['index']}:dim{b['dim']}" for n in nodes), (b, labels)
    # The index origin ends at the input the manifest names.
    assert any(n.kind == "input" and n.key == f"input:{expect['index_input']}" for n in nodes), labels


@pytest.mark.parametrize("pkg,log", [
    (CUDA_JAGGED, CUDA_JAGGED.parent / "error.log"),
    (S / "cuda/embedding_noassert/embedding_noassert.pt2",
     S / "cuda/embedding_noassert/logs/ima_async.log"),
    (S / "cpu/transformer/transformer.pt2", S / "cpu/transformer/error.log"),
])
def test_the_page_never_scrolls_sideways_at_1400px(browser, tmp_path, pkg, log, capsys):
    """issue 22 §5: the code panes (the kernel source, the launches, the evidence of a non-assert log) made the
    page scroll sideways at 1400 px; each pane scrolls on its own instead."""
    out = tmp_path / "r.html"
    main(["report", str(pkg), "--log", str(log), "-o", str(out)])
    capsys.readouterr()
    page, _took, errors, _requests = open_page(browser, out)
    for node in page.locator("svg.chain .node").all()[:6]:  # fill the side panel with sources
        node.click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    assert not errors, errors
    page.close()
