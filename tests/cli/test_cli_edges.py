"""The CLI's rough edges (issue 9), each on the real sample packages and real pipes/terminals.

Closed pipes and terminals are real: a subprocess whose stdout is a pipe we close, or a pty.
"""

from __future__ import annotations

import json
import os
import pty
import re
import resource
import shutil
import subprocess
import sys
import time

import pytest

from _cli import CHILD, one_error_line, run, run_child
from _paths import ROOT, S

CUDA_JAGGED = S / "cuda/jagged/jagged.pt2"
CUDA_JAGGED_LOG = S / "cuda/jagged/error.log"
CPU_JAGGED = S / "cpu/jagged/jagged.pt2"
CPU_TRANSFORMER = S / "cpu/transformer/transformer.pt2"
CUDA_ASSERTING = "triton_poi_fused_ge_index_index_copy_mul_sub_where_zeros_like_2"
CUDA_OTHER = "triton_poi_fused_ge_index_copy_mul_sub_where_zeros_like_1"


def on_pty(*argv, columns: int = 80) -> str:
    """Run the CLI with stdout and stderr on one pseudo-terminal; return all it printed."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "xterm"}
    p = subprocess.Popen([*CHILD, *map(str, argv)], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=120)
    os.close(master)
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", b"".join(chunks).decode("utf-8", "replace")).replace("\r", "")


# -- -o that cannot be written: one line, exit 2 -------------------------------------------


@pytest.mark.parametrize("command", ["graph", "report"])
def test_output_in_a_missing_folder(capsys, command):
    rc, out, err = run(capsys, [command, CPU_JAGGED, "-o", "/nonexistent/dir/x.out"])
    assert rc == 2
    one_error_line(err, "/nonexistent/dir", "does not exist")


@pytest.mark.parametrize("command", ["graph", "report"])
def test_output_is_a_directory(capsys, tmp_path, command):
    rc, out, err = run(capsys, [command, CPU_JAGGED, "-o", tmp_path])
    assert rc == 2
    one_error_line(err, "is a directory")


# -- closed pipes: quiet exit 0 ----------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    pytest.param(["show", CUDA_JAGGED], id="show"),
    pytest.param(["show", CUDA_JAGGED, "--json"], id="show-json"),
    pytest.param(["trace-assert", CUDA_JAGGED, "--log", CUDA_JAGGED_LOG], id="trace-assert"),
    pytest.param(["source", CUDA_JAGGED, "--wrapper"], id="source"),
])
def test_reader_gone_before_the_first_write(argv):
    # The pipe is closed before the child has even imported: its first write must hit EPIPE.
    p = subprocess.Popen([*CHILD, *map(str, argv)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 0
    assert err == ""


@pytest.mark.parametrize("argv, keep", [
    pytest.param(["show", CUDA_JAGGED], 1, id="show|head -1"),
    pytest.param(["trace-assert", CUDA_JAGGED, "--log", CUDA_JAGGED_LOG], 2, id="trace-assert|head -2"),
    pytest.param(["source", CPU_TRANSFORMER, "--wrapper"], 1, id="source|head -1"),  # ~300 KB: the pipe fills
])
def test_head_closes_the_pipe(argv, keep):
    cmd = " ".join(f"'{a}'" for a in [*CHILD, *map(str, argv)])
    r = subprocess.run(["bash", "-c", f"{cmd} | head -{keep}; echo \"rc=${{PIPESTATUS[0]}}\" >&2"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert len(r.stdout.splitlines()) == keep
    assert r.stderr.strip() == "rc=0", r.stderr


# -- full names when piped, COLUMNS and --wide on terminals ---------------------------------------


def test_piped_show_keeps_whole_kernel_names():
    r = run_child("show", CUDA_JAGGED, env={**os.environ, "COLUMNS": "80"})
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    for name in (CUDA_ASSERTING, CUDA_OTHER):
        assert any(name in line for line in lines), name
    assert not any("…" in line and "triton_" in line for line in lines)


def test_terminal_show_tells_the_kernels_apart_at_80_columns():
    text = on_pty("show", CUDA_JAGGED, columns=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    rows = [line for line in text.splitlines() if "triton_poi" in line]
    assert rows and not any("…" in line.split("│")[0] for line in rows)
    # folded, the names differ from their first line on
    assert len({line.split("│")[0].strip() for line in rows}) == len(rows)


def test_terminal_wide_prints_whole_names():
    text = on_pty("show", CUDA_JAGGED, "--wide", columns=80)
    assert CUDA_ASSERTING in text and CUDA_OTHER in text


# -- what trace-assert is given --------------------------------------------------------------------


def test_empty_stdin_without_options_is_a_usage_error():
    r = run_child("trace-assert", CUDA_JAGGED, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    one_error_line(r.stderr, "nothing on stdin")


def test_empty_log_file_is_a_usage_error(capsys, tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("\n\n")
    rc, out, err = run(capsys, ["trace-assert", CUDA_JAGGED, "--log", empty])
    assert rc == 2
    one_error_line(err, "is empty")


def test_the_package_itself_as_log_is_refused(capsys):
    rc, out, err = run(capsys, ["trace-assert", CUDA_JAGGED, "--log", CUDA_JAGGED])
    assert rc == 2
    line = one_error_line(err, "binary file", "zip")
    assert line.isprintable()
    assert out == ""


def test_binary_on_stdin_is_refused():
    r = run_child("trace-assert", CUDA_JAGGED, "--log", "-", input=CUDA_JAGGED.read_bytes(), text=False)
    assert r.returncode == 2
    assert r.stdout == b""
    one_error_line(r.stderr.decode(), "stdin is a binary file")


def test_unknown_kernel_lists_the_kernels(capsys):
    rc, out, err = run(capsys, ["trace-assert", CUDA_JAGGED, "--kernel", "nope"])
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pt2-inspect: nothing found:")
    assert "no kernel 'nope'" in lines[0] and CUDA_ASSERTING in lines[0]


def test_misspelt_kernel_gets_a_suggestion(capsys):
    rc, out, err = run(capsys, ["trace-assert", CUDA_JAGGED, "--kernel", CUDA_ASSERTING[:-1] + "9"])
    assert rc == 1
    assert f"did you mean {CUDA_ASSERTING}" in err


def test_unknown_line_lists_the_lines(capsys):
    rc, out, err = run(capsys, ["trace-assert", CUDA_JAGGED, "--line", "999"])
    assert rc == 1
    assert f"assertion lines there are: 38 ({CUDA_ASSERTING})" in err


def test_nothing_found_is_said_once_on_a_terminal():
    text = on_pty("trace-assert", CUDA_JAGGED, "--line", "999", columns=200)
    assert text.count("999") == 1, text
    assert "nothing found" in text


# -- graph ------------------------------------------------------------------------------------------


def test_graph_json_is_format_json(capsys):
    rc, a, _ = run(capsys, ["graph", CUDA_JAGGED, "--json"])
    rc2, b, _ = run(capsys, ["graph", CUDA_JAGGED, "--format", "json"])
    assert rc == rc2 == 0 and a == b
    doc = json.loads(a)
    ids = {n["id"] for n in doc["nodes"]}
    assert f"kernel:{CUDA_ASSERTING}" in ids and "input:0" in ids
    assert doc["edges"] and all(e["source"] in ids and e["target"] in ids for e in doc["edges"])


def test_graph_around_an_assertion(capsys):
    rc, out, err = run(capsys, ["graph", CUDA_JAGGED, "--around", f"{CUDA_ASSERTING}:38", "--depth", "4", "--json"])
    assert rc == 0 and err == ""
    doc = json.loads(out)
    ids = {n["id"] for n in doc["nodes"]}
    assert doc["around"] == f"assert:{CUDA_ASSERTING}:38"
    # the bound's chain: assertion -> ks0 -> s59 -> input 0 dim 0
    assert {f"param:{CUDA_ASSERTING}:ks0", "sym:s59", "dim:0:0"} <= ids
    assert "kernel:triton_per_fused_cumsum_0" not in ids  # far away: not drawn


@pytest.mark.parametrize("thing, node", [("0", "input:0"), ("arg1_1", "input:1"), ("s59", "sym:s59"),
                                         ("buf0", "buf:buf0"), (CUDA_OTHER, f"kernel:{CUDA_OTHER}")])
def test_graph_around_names(capsys, thing, node):
    rc, out, err = run(capsys, ["graph", CUDA_JAGGED, "--around", thing, "--depth", "1", "--json"])
    assert rc == 0
    assert json.loads(out)["around"] == node


def test_graph_around_unknown_suggests(capsys):
    rc, out, err = run(capsys, ["graph", CUDA_JAGGED, "--around", "s5", "--depth", "1"])
    assert rc == 2
    one_error_line(err, "--around s5", "did you mean", f"{CUDA_ASSERTING}:38")


def test_whole_big_graph_says_its_size(capsys):
    rc, out, err = run(capsys, ["graph", CPU_TRANSFORMER, "--format", "dot"])
    assert rc == 0 and out.startswith("digraph")
    assert re.search(r"the whole graph has \d{4} nodes", err) and "--around" in err
    rc, out, err = run(capsys, ["graph", CUDA_JAGGED])
    assert err == ""  # a small package draws fine as it is


@pytest.mark.skipif(not shutil.which("dot") and os.environ.get("CI") != "true", reason="graphviz not installed")
@pytest.mark.parametrize("pkg", ["cpu/transformer/transformer.pt2", "cuda/transformer/transformer.pt2"])
def test_dot_renders_a_trace_neighbourhood_in_under_2s(tmp_path, pkg):
    import inspector
    from inspector.graph.export import neighbourhood, to_dot
    from inspector import trace_assert

    path = S / pkg
    log = (path.parent / "error.log").read_text()
    took = {}
    with inspector.open_package(path) as p:
        mt = trace_assert(p, log=log).matches[0]
        g = p.graph()
        for around in (f"{mt.kernel}:{mt.file_line}", mt.kernel, str(mt.index_origin[0].input.index)):
            for depth in (2, 3, 4):
                out = tmp_path / "n.dot"
                out.write_text(to_dot(neighbourhood(g, around, depth)))
                # dot's own CPU seconds, not the wall clock: under xdist (or any load) the other worker shares
                # the cores, and what is held is the cost of drawing the neighbourhood
                t = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(["dot", "-Tsvg", str(out), "-o", str(tmp_path / "n.svg")], check=True, timeout=60)
                u = resource.getrusage(resource.RUSAGE_CHILDREN)
                took[around, depth] = (u.ru_utime - t.ru_utime) + (u.ru_stime - t.ru_stime)
    assert len(took) == 9 and sum(took.values()) > 0  # dot ran, and was measured
    assert max(took.values()) < 2.0, took


# -- source -----------------------------------------------------------------------------------------


def test_source_kernel_line(capsys):
    rc, out, err = run(capsys, ["source", CUDA_JAGGED, "--kernel", CUDA_ASSERTING, "--line", "38", "--context", "2"])
    assert rc == 0
    lines = out.splitlines()
    assert len(lines) == 1 + 5
    marked = [l for l in lines if l.startswith("→")]
    assert len(marked) == 1 and "38" in marked[0] and "tl.device_assert" in marked[0] and "tmp9 < ks0" in marked[0]


def test_source_cpu_kernel_numbers_like_kernel_cpp(capsys):
    rc, out, err = run(capsys, ["source", CPU_JAGGED, "--kernel", "cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0",
                                "--line", "52", "--json"])
    assert rc == 0
    doc = json.loads(out)
    assert doc["file"].endswith(".kernel.cpp")
    assert next(x["text"] for x in doc["lines"] if x["line"] == 52).strip().startswith("AOTI_TORCH_CHECK")


def test_source_wrapper_line_is_the_call_trace_assert_cites(capsys):
    rc, out, err = run(capsys, ["source", CUDA_JAGGED, "--wrapper", "--line", "1029", "--context", "0"])
    assert rc == 0
    assert out.splitlines()[1].startswith("→ 1029") and f"call_{CUDA_ASSERTING}(" in out


@pytest.mark.parametrize("argv, fragment", [
    (["--kernel", "nope"], "no kernel 'nope'"),
    (["--kernel", CUDA_ASSERTING + "x"], "did you mean"),
    (["--wrapper", "--line", "999999"], "outside wrapper.cpp"),
])
def test_source_bad_arguments(capsys, argv, fragment):
    rc, out, err = run(capsys, ["source", CUDA_JAGGED, *argv])
    assert rc == 2
    one_error_line(err, fragment)


# -- the library's face -------------------------------------------------------------------------------


def test_repr_is_short():
    import inspector

    with inspector.open_package(CUDA_JAGGED) as pkg:
        m = pkg.model()
        k = m.kernels[CUDA_ASSERTING]
        for r in (repr(m), repr(k)):
            assert "\n" not in r and len(r) < 200, r
        assert repr(m) == f"<Model 'model' cuda: 2 inputs, 2 symbols, 3 kernels, {len(m.calls)} calls>"
        assert repr(k).startswith(f"<Kernel {CUDA_ASSERTING} triton/pointwise:") and "1 assertions" in repr(k)


@pytest.mark.parametrize("doc", ["README.md", "docs/api.md"])
def test_api_example_runs_and_leaves_no_file_open(doc):
    text = (ROOT / doc).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    r = subprocess.run([sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c", blocks[0]],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "ResourceWarning" not in r.stderr
    assert "arg1_1" in r.stdout or "input" in r.stdout


# -- extract ------------------------------------------------------------------------------------------


def test_extract_copies_the_text_members(capsys, tmp_path):
    import zipfile

    out = tmp_path / "src"
    rc, text, err = run(capsys, ["extract", CUDA_JAGGED, "-o", out, "--json"])
    assert rc == 0
    names = json.loads(text)["members"]
    with zipfile.ZipFile(CUDA_JAGGED) as z:
        everything = [i.filename for i in z.infolist() if not i.is_dir()]
        wrapper = next(n for n in everything if n.endswith(".wrapper.cpp"))
        assert (out / wrapper).read_bytes() == z.read(wrapper)
    assert wrapper in names and not [n for n in names if n.endswith((".so", ".cubin"))]
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(names)
    rc, text, err = run(capsys, ["extract", CUDA_JAGGED, "-o", tmp_path / "all", "--all", "--json"])
    assert rc == 0 and sorted(json.loads(text)["members"]) == sorted(everything)


def test_extract_never_overwrites(capsys, tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    rc, out, err = run(capsys, ["extract", CUDA_JAGGED, "-o", tmp_path])
    assert rc == 2
    one_error_line(err, "not an empty folder")
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_extract_refuses_a_member_that_climbs_out(capsys, tmp_path):
    import zipfile

    bad = tmp_path / "bad.pt2"
    with zipfile.ZipFile(CUDA_JAGGED) as src, zipfile.ZipFile(bad, "w") as dst:
        for i in src.infolist():
            dst.writestr(i.filename, src.read(i))
        dst.writestr("jagged/../../evil.json", "{}")
    rc, out, err = run(capsys, ["extract", bad, "-o", tmp_path / "out"])
    assert rc == 0  # the package's own members are copied; the climbing one never is
    assert "refused 1 member(s)" in err and "jagged/../../evil.json" in err
    assert not list(tmp_path.parent.rglob("evil.json"))
    assert (tmp_path / "out/jagged/archive_format").exists()


def test_utf16_log_is_text_not_binary(capsys, tmp_path):
    # PowerShell's `>` writes UTF-16 with a BOM: full of NUL bytes, yet a text log.
    log = tmp_path / "utf16.log"
    log.write_text(CUDA_JAGGED_LOG.read_text(), encoding="utf-16")
    assert b"\0" in log.read_bytes()[:100]
    rc, out, err = run(capsys, ["trace-assert", CUDA_JAGGED, "--log", log, "--json"])
    assert rc == 0
    assert json.loads(out)["matches"][0]["kernel"] == CUDA_ASSERTING
