"""Issue 35 §7: answers a person reads at a glance: `scan` opens with its summary, `source --kernel K` prints that
kernel (not its whole kernel.cpp), `sweep`'s table fits 120 columns, a default trace fits about 30 lines and
`--verbose` gives the rest."""

from __future__ import annotations

from _cli import run
from _paths import S

TAKE = S / "cpu/take/take.pt2"


def test_scan_opens_with_its_summary(capsys):
    rc, out, _ = run(capsys, ["scan", S / "cpu/take", S / "cpu/topk_gather"])
    lines = out.splitlines()
    assert lines[0].startswith("2 package(s), 2 model(s): ")
    assert any(x.startswith("✓ ") and "take.pt2" in x for x in lines[1:])


def test_source_kernel_prints_that_kernel_of_a_cpu_kernel_cpp(capsys):
    rc, out, _ = run(capsys, ["source", TAKE, "--kernel", "cpp_fused_add_take_0"])
    body = out.splitlines()[1:]
    assert rc == 0 and 'extern "C"' in body[0] and "cpp_fused_add_take_0" in body[0]  # from its signature
    assert body[-1].split(maxsplit=1)[1] == "}"  # to the brace that closes it
    assert not any("Link cmd" in x or "#include" in x for x in body)  # not the rest of the file


def test_sweep_table_fits_120_columns(capsys):
    rc, out, _ = run(capsys, ["sweep", S / "cpu/index_select/index_select.pt2"])
    table = [x for x in out.splitlines() if x[:1] in "┏┃┡│└"]
    assert table and max(len(x) for x in table) <= 120
    assert any(x.startswith("[1] the kernel wraps negative indices") for x in out.splitlines())  # the row's note


def test_default_trace_is_short_and_verbose_gives_the_rest(capsys):
    log = S / "cpu/topk_gather/error.log"
    _, short, _ = run(capsys, ["trace-assert", S / "cpu/topk_gather/topk_gather.pt2", "--log", log])
    _, full, _ = run(capsys, ["trace-assert", S / "cpu/topk_gather/topk_gather.pt2", "--log", log, "--verbose"])
    assert len(short.splitlines()) <= 30 < len(full.splitlines())
    assert "in full: " in full and "in full: " not in short
    assert "symbol s" in full  # the bound hop by hop
