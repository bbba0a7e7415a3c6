"""Bad input to the CLI and the archive reader: the exit code, one readable line, never a traceback.

Every bad file is made here, in tmp_path; only the real sample packages are read
from the source tree (and never written).
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from inspector.archive import Archive
from inspector.cli import main
from inspector.errors import UnreadablePackage

from _cli import one_error_line, run
from _paths import S

CPU_JAGGED = S / "cpu" / "jagged" / "jagged.pt2"
CUDA_JAGGED = S / "cuda" / "jagged" / "jagged.pt2"
CPU_TWO_MODELS = S / "cpu" / "two_models" / "two_models.pt2"

# Each bad file goes through each command that opens a package.
COMMANDS = [
    pytest.param(lambda p: ["show", p], id="show"),
    pytest.param(lambda p: ["trace-assert", p, "--line", "52"], id="trace-assert"),  # an assert that exists: the trace parses
    pytest.param(lambda p: ["graph", p], id="graph"),
]


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def real_members(pkg: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(pkg) as z:
        return {i.filename: z.read(i) for i in z.infolist() if not i.is_dir()}


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch):
    # PT2_INSPECT_DEBUG makes the CLI re-raise; these tests check the user-facing behaviour.
    monkeypatch.delenv("PT2_INSPECT_DEBUG", raising=False)


def test_samples_present():
    for p in (CPU_JAGGED, CUDA_JAGGED, CPU_TWO_MODELS):
        assert p.is_file(), p


# -- unreadable input: exit 3 ----------------------------------------------------


@pytest.mark.parametrize("argv", COMMANDS)
def test_missing_path(tmp_path, capsys, argv):
    p = tmp_path / "does-not-exist.pt2"
    rc, out, err = run(capsys, argv(p))
    assert rc == 3
    one_error_line(err, str(p), "no such file")


@pytest.mark.parametrize("argv", COMMANDS)
def test_directory_without_model(tmp_path, capsys, argv):
    d = tmp_path / "pkg"
    (d / "data" / "weights").mkdir(parents=True)
    (d / "archive_format").write_text("pt2")
    (d / "data" / "weights" / "w.bin").write_bytes(b"\0" * 16)
    rc, out, err = run(capsys, argv(d))
    assert rc == 3
    one_error_line(err, "no AOTInductor model")


@pytest.mark.parametrize("argv", COMMANDS)
def test_empty_directory(tmp_path, capsys, argv):
    d = tmp_path / "empty"
    d.mkdir()
    rc, out, err = run(capsys, argv(d))
    assert rc == 3
    one_error_line(err, "no AOTInductor model")


@pytest.mark.parametrize("argv", COMMANDS)
def test_text_file_named_pt2(tmp_path, capsys, argv):
    p = tmp_path / "x.pt2"
    p.write_text("hello")
    rc, out, err = run(capsys, argv(p))
    assert rc == 3
    one_error_line(err, "not a zip")


def test_empty_file_named_pt2(tmp_path, capsys):
    p = tmp_path / "empty.pt2"
    p.write_bytes(b"")
    rc, out, err = run(capsys, ["show", p])
    assert rc == 3
    one_error_line(err, "not a zip")


@pytest.mark.parametrize("argv", COMMANDS)
def test_truncated_zip(tmp_path, capsys, argv):
    data = CPU_JAGGED.read_bytes()
    p = tmp_path / "truncated.pt2"
    p.write_bytes(data[: len(data) // 2])
    assert p.read_bytes()[:2] == b"PK"  # still looks like a zip from the front
    rc, out, err = run(capsys, argv(p))
    assert rc == 3
    one_error_line(err, "damaged or truncated")


@pytest.mark.parametrize("argv", COMMANDS)
def test_zip_without_aoti_model(tmp_path, capsys, argv):
    p = write_zip(tmp_path / "nomodel.pt2", {
        "pkg/archive_format": b"pt2",
        "pkg/archive_version": b"0",
        "pkg/data/aotinductor/model/readme.txt": b"a model folder, but no wrapper.cpp in it",
        "pkg/data/weights/w.bin": b"\0" * 8,
    })
    rc, out, err = run(capsys, argv(p))
    assert rc == 3
    one_error_line(err, "no AOTInductor model", "wrapper.cpp")


def test_zip_with_exported_program_only_says_so(tmp_path, capsys):
    p = write_zip(tmp_path / "ep.pt2", {"pkg/archive_format": b"pt2", "pkg/models/model.json": b"{}"})
    rc, out, err = run(capsys, ["show", p])
    assert rc == 3
    one_error_line(err, "no AOTInductor model", "exported program")


@pytest.mark.parametrize("argv", COMMANDS)
def test_zip_wrapper_not_utf8(tmp_path, capsys, argv):
    p = write_zip(tmp_path / "badtext.pt2", {
        "pkg/archive_format": b"pt2",
        "pkg/data/aotinductor/model/x.wrapper.cpp": b"\xff\xfe\x00bad",
    })
    rc, out, err = run(capsys, argv(p))
    assert rc == 3
    one_error_line(err, "not UTF-8", "x.wrapper.cpp")


@pytest.mark.parametrize("argv", COMMANDS)
def test_bare_wrapper_not_utf8(tmp_path, capsys, argv):
    p = tmp_path / "foo.wrapper.cpp"
    p.write_bytes(b"\xff\xfe\x00bad")
    rc, out, err = run(capsys, argv(p))
    assert rc == 3
    one_error_line(err, "not UTF-8")


def test_bare_cpp_that_is_not_a_wrapper(tmp_path, capsys):
    p = tmp_path / "foo.kernel.cpp"
    p.write_text("int x;\n")
    rc, out, err = run(capsys, ["show", p])
    assert rc == 3
    one_error_line(err, "wrapper.cpp")


@pytest.mark.parametrize("argv", COMMANDS)
def test_symlink_to_real_package(tmp_path, capsys, argv):
    link = tmp_path / "link.pt2"
    link.symlink_to(CPU_JAGGED)
    rc, out, err = run(capsys, argv(link))
    assert rc == 3
    one_error_line(err, "symbolic link")


def test_dangling_symlink(tmp_path, capsys):
    link = tmp_path / "dangling.pt2"
    link.symlink_to(tmp_path / "nowhere.pt2")
    rc, out, err = run(capsys, ["trace-assert", link, "--line", "3"])
    assert rc == 3
    one_error_line(err, "symbolic link")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_fifo_is_not_read(tmp_path, capsys):
    p = tmp_path / "pipe.pt2"
    os.mkfifo(p)
    rc, out, err = run(capsys, ["show", p])  # must not block reading the pipe
    assert rc == 3
    one_error_line(err, "not a regular file")


# -- usage errors: exit 2 ----------------------------------------------------------


def test_no_arguments(capsys):
    rc, out, err = run(capsys, [])
    assert rc == 2
    assert "usage: pt2-inspect" in out


def test_show_without_package(capsys):
    rc, out, err = run(capsys, ["show"])
    assert rc == 2
    assert "PKG" in err and "required" in err


def test_unknown_command(capsys):
    rc, out, err = run(capsys, ["frobnicate", str(CPU_JAGGED)])
    assert rc == 2
    assert "invalid choice" in err


def test_line_must_be_an_integer(capsys):
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED, "--line", "three"])
    assert rc == 2
    assert "--line" in err


class _TtyStdin(io.StringIO):
    def isatty(self):
        return True


def test_trace_assert_without_query_on_a_tty(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", _TtyStdin(""))
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED])
    assert rc == 2
    one_error_line(err, "--line", "--message", "--log")


def test_trace_assert_reads_stdin_when_not_a_tty(monkeypatch, capsys):
    # The counterpart of the test above: piped text is read as the log, so it is no usage error.
    monkeypatch.setattr(sys, "stdin", io.StringIO("nothing useful in this log\n"))
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED])
    assert rc == 1
    assert "nothing found" in err


@pytest.mark.parametrize("argv", [
    pytest.param(["show", CPU_JAGGED, "--model", "nosuch"], id="show"),
    pytest.param(["trace-assert", CPU_JAGGED, "--line", "3", "--model", "nosuch"], id="trace-assert"),
    pytest.param(["graph", CPU_JAGGED, "--model", "nosuch"], id="graph"),
])
def test_unknown_model_names_the_models(capsys, argv):
    rc, out, err = run(capsys, argv)
    assert rc == 2
    one_error_line(err, "'nosuch'", "it holds: model")


def test_unknown_model_in_two_model_package_lists_both(capsys):
    rc, out, err = run(capsys, ["show", CPU_TWO_MODELS, "--model", "nosuch"])
    assert rc == 2
    one_error_line(err, "decoder", "encoder")


def test_log_file_missing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED, "--log", "missing.txt"])
    assert rc == 2
    one_error_line(err, "--log missing.txt", "no such file")


def test_log_is_a_directory(tmp_path, capsys):
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED, "--log", tmp_path])
    assert rc == 2
    one_error_line(err, "--log", "no such file")


# -- nothing found: exit 1 -----------------------------------------------------------


def test_line_that_matches_nothing(capsys):
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED, "--line", "99999"])
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("pt2-inspect: nothing found:")
    assert "99999" in lines[0]
    assert "no assertion" in lines[0]


def test_line_that_matches_nothing_json(capsys):
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED, "--line", "99999", "--json"])
    assert rc == 1
    import json

    assert json.loads(out)["matches"] == []


def test_real_line_matches(capsys):
    # The counterpart: the CPU jagged kernel's check sits on kernel.cpp line 52.
    rc, out, err = run(capsys, ["trace-assert", CPU_JAGGED, "--line", "52"])
    assert rc == 0, err
    assert "cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0" in out


# -- --version / --help ---------------------------------------------------------------


def test_version(capsys):
    rc, out, err = run(capsys, ["--version"])
    assert rc == 0
    assert out.startswith("pt2-inspect ")


@pytest.mark.parametrize("command", ["show", "trace-assert", "graph"])
def test_subcommand_help(capsys, command):
    rc, out, err = run(capsys, [command, "--help"])
    assert rc == 0
    assert "example" in out
    assert "exit codes" in out


def test_main_help(capsys):
    rc, out, err = run(capsys, ["--help"])
    assert rc == 0
    assert "examples:" in out and "trace-assert" in out


# -- the archive reader refuses unsafe members -------------------------------------------


def _unsafe_zip(tmp_path: Path) -> Path:
    """A real CPU package plus ``../evil.txt``, ``/abs.txt`` and a symlink member."""
    p = tmp_path / "zips" / "unsafe.pt2"
    p.parent.mkdir()
    members = real_members(CPU_JAGGED)
    with zipfile.ZipFile(p, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
        z.writestr(zipfile.ZipInfo("../evil.txt"), b"escaped")
        z.writestr(zipfile.ZipInfo("/abs.txt"), b"absolute")
        z.writestr(zipfile.ZipInfo("jagged/../../evil2.txt"), b"escaped too")
        link = zipfile.ZipInfo("jagged/data/aotinductor/model/link.kernel.cpp")
        link.create_system = 3
        link.external_attr = 0o120777 << 16
        z.writestr(link, "/etc/passwd")
    with zipfile.ZipFile(p) as z:  # the names really are stored as written
        names = z.namelist()
    assert "../evil.txt" in names and "/abs.txt" in names
    return p


UNSAFE = {"../evil.txt", "/abs.txt", "jagged/../../evil2.txt", "jagged/data/aotinductor/model/link.kernel.cpp"}


def test_unsafe_members_are_skipped(tmp_path):
    p = _unsafe_zip(tmp_path)
    with Archive.open(p) as a:
        members = set(a.members())
        assert not members & UNSAFE
        assert set(a.skipped) == UNSAFE
        # The real model is still there, untouched by the bad members.
        models = a.model_files()
        assert [m.name for m in models] == ["model"]
        assert models[0].kernel_cpp and not models[0].kernel_cpp.endswith("link.kernel.cpp")
        assert a.root == "jagged/"
        for bad in UNSAFE:
            with pytest.raises(KeyError):
                a.read_bytes(bad)


def test_symlink_member_alone_is_skipped(tmp_path):
    p = tmp_path / "link.pt2"
    with zipfile.ZipFile(p, "w") as z:
        info = zipfile.ZipInfo("pkg/data/aotinductor/model/x.wrapper.cpp")
        info.create_system = 3
        info.external_attr = 0o120777 << 16
        z.writestr(info, "/etc/passwd")
    with Archive.open(p) as a:
        assert a.members() == []
        assert a.skipped == ["pkg/data/aotinductor/model/x.wrapper.cpp"]
        assert a.model_files() == []


def test_extract_stays_in_a_fresh_temp_dir(tmp_path, monkeypatch):
    p = _unsafe_zip(tmp_path)
    tmproot = tmp_path / "tmproot"
    tmproot.mkdir()
    work = tmp_path / "work" / "deeper"
    work.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(tmproot))
    monkeypatch.chdir(work)

    def snapshot():
        return {q for q in tmp_path.rglob("*") if not q.is_relative_to(tmproot)}

    before = snapshot()
    abs_existed = os.path.lexists("/abs.txt")
    with Archive.open(p) as a:
        out1 = a.extract()
        out2 = a.extract()
        wanted = set(a.members())
    assert out1 != out2  # fresh each time
    for out in (out1, out2):
        assert out.parent == tmproot and out.name.startswith("pt2-inspect-")
        got = {q.relative_to(out).as_posix() for q in out.rglob("*") if q.is_file()}
        assert got == wanted
        assert not any(q.is_symlink() for q in out.rglob("*"))
    assert sorted(tmproot.iterdir()) == sorted([out1, out2])
    assert snapshot() == before  # nothing written beside the zip or in the working folder
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "evil2.txt").exists()
    assert os.path.lexists("/abs.txt") == abs_existed
    shutil.rmtree(out1)
    shutil.rmtree(out2)


@pytest.mark.parametrize("name", sorted(UNSAFE))
def test_extract_refuses_unsafe_names_when_asked(tmp_path, name):
    p = _unsafe_zip(tmp_path)
    with Archive.open(p) as a:
        with pytest.raises(UnreadablePackage, match="refusing to extract"):
            a.extract([name])


def test_package_with_unsafe_members_still_shows(tmp_path, capsys):
    p = _unsafe_zip(tmp_path)
    rc, out, err = run(capsys, ["show", p])
    assert rc == 0, err
    assert "cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0" in out
    assert "evil" not in out


# -- statements no rule understands: counted, shown, --strict exit 1 ---------------------


def _mutated_wrapper(tmp_path: Path, old: str, new: str) -> Path:
    """The real CPU jagged wrapper (and its kernel.cpp beside it) with one statement changed."""
    members = real_members(CPU_JAGGED)
    wname = next(n for n in members if n.endswith(".wrapper.cpp"))
    kname = next(n for n in members if n.endswith(".kernel.cpp"))
    text = members[wname].decode()
    assert text.count(old) == 1
    w = tmp_path / Path(wname).name
    w.write_text(text.replace(old, new))
    (tmp_path / Path(kname).name).write_bytes(members[kname])
    return w


def test_skipped_statement_is_counted_and_shown(tmp_path, capsys, cache_dir):
    # A guard a future torch might write with a cast no rule knows.  Its own index cache: a warm one (another test
    # showed the same text) answers `show --json` with coverage 0/0 (tests/unit/test_cache.py, the strict xfail).
    w = _mutated_wrapper(tmp_path, "if (arg1_1_size[0] > 1024) {", "if (arg1_1_size[0] > (int64_t)1024) {")
    rc, out, err = run(capsys, ["show", w, "--json"])
    assert rc == 0
    import json

    cov = json.loads(out)["models"][0]["coverage"]
    assert cov["total"] - cov["understood"] == 1
    skipped = cov["regions"]["check_input"]["skipped"]
    assert [s["statement"] for s in skipped] == ["if (arg1_1_size[0] > (int64_t)1024) {"]
    assert skipped[0]["line"] > 0
    rc, out, err = run(capsys, ["show", w])
    assert rc == 0
    assert f"statements understood {cov['understood']:,}/{cov['total']:,}" in out


def test_strict_turns_a_skip_into_exit_1(tmp_path, capsys):
    w = _mutated_wrapper(tmp_path, "if (arg1_1_size[0] > 1024) {", "if (arg1_1_size[0] > (int64_t)1024) {")
    rc, out, err = run(capsys, ["show", w, "--strict"])
    assert rc == 1
    assert "--strict" in err and "1" in err
    rc, out, err = run(capsys, ["--strict", "trace-assert", w, "--line", "52"])
    assert rc == 1
    # The unchanged sample has nothing skipped: --strict passes.
    rc, out, err = run(capsys, ["show", CPU_JAGGED, "--strict"])
    assert rc == 0, err


# -- a bug in pt2-inspect: exit 4, one line, --debug for the traceback ---------------------


def _break_transformer(monkeypatch):
    from inspector.parse import grammar, wrapper_statements

    def boom(self, c):
        raise KeyError("a bug")

    monkeypatch.setattr(wrapper_statements._WrapperTransformer, "declaration", boom)
    # The inline parsers bind the transformer's methods when built: the ones built with `boom` go with this
    # test's own table, so a later test in this process (under xdist, one that parses without opening a
    # package first) never gets a parser that still raises.
    monkeypatch.setattr(grammar, "INLINE_PARSERS", {})


@pytest.mark.parametrize("argv", COMMANDS)
def test_transformer_bug_is_an_internal_error_not_a_bad_package(argv, monkeypatch, capsys):
    _break_transformer(monkeypatch)
    rc, out, err = run(capsys, [*argv(CPU_JAGGED), "--no-cache"])
    assert rc == 4
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("pt2-inspect: internal error (VisitError")
    assert "--debug" in lines[0] and "could not read" not in lines[0]


def test_debug_shows_the_traceback(monkeypatch):
    _break_transformer(monkeypatch)
    from lark.exceptions import VisitError

    with pytest.raises(VisitError):
        main(["show", str(CPU_JAGGED), "--debug", "--no-cache"])
