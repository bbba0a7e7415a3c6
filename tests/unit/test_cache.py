"""The on-disk index cache: same answers as a fresh index, stale entries never used, corrupt or foreign
files ignored with a warning, concurrent writers leave one whole file."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import inspector
from inspector.index import cache
from inspector.queries.show import summarize
from inspector import trace_assert

from _answers import answers
from _paths import ROOT, S
from _samples import SAMPLES as ALL_SAMPLES

# Samples whose real error log the tool traces today (tests/known_gaps.py), not an extern-op failure.
SAMPLES = [s.pkg for s in ALL_SAMPLES if s.traces and not s.extern]


def test_samples_found():
    assert len(SAMPLES) >= 12


def _copy_with_wrapper(src: Path, dst: Path, change) -> Path:
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for info in zi.infolist():
            data = zi.read(info)
            if info.filename.endswith(".wrapper.cpp"):
                data = change(data.decode()).encode()
            zo.writestr(info.filename, data)
    return dst


def test_a_changed_member_is_not_served_from_the_cache(tmp_path, cache_dir):
    """Same path, new content: the key follows the content, so the old entry is never used."""
    src = S / "cpu/jagged/jagged.pt2"
    pkg = _copy_with_wrapper(src, tmp_path / "p.pt2", lambda t: t)
    with inspector.open_package(pkg, cache=True) as p:
        assert [s.max for s in p.model().symbols.values() if s.name == "s59"] == [65536]
    _copy_with_wrapper(src, pkg, lambda t: t.replace("if (arg0_1_size[0] > 65536) {", "if (arg0_1_size[0] > 4096) {"))
    with inspector.open_package(pkg, cache=True) as p:
        assert [s.max for s in p.model().symbols.values() if s.name == "s59"] == [4096]
    assert len(list(cache_dir.glob("*.json"))) == 2


def test_another_tool_version_uses_another_key(monkeypatch):
    k1 = cache.make_key(["a"])
    monkeypatch.setattr(cache, "__version__", "9.9.9")
    assert cache.make_key(["a"]) != k1


def test_a_parser_change_uses_another_key(tmp_path, monkeypatch):
    """A fix in a parser or grammar changes what an index holds: same version, new key."""
    k1 = cache.make_key(["a"])
    assert len(cache._producer()) == 32
    root = tmp_path / "inspector"
    for sub in ("parse", "dialects", "index"):
        (root / sub).mkdir(parents=True)
    (root / "parse" / "wrapper.py").write_text("# another parser\n")
    monkeypatch.setattr(cache, "__file__", str(root / "index" / "cache.py"))
    cache._producer.cache_clear()
    try:
        assert cache.make_key(["a"]) != k1
    finally:
        cache._producer.cache_clear()


@pytest.mark.parametrize("damage", [
    lambda t: t[: len(t) // 2],  # truncated
    lambda t: "not json at all",
    lambda t: json.dumps({**json.loads(t), "tool": "someone else"}),  # foreign
    lambda t: json.dumps({**json.loads(t), "format": 999}),  # another format
    lambda t: json.dumps({**json.loads(t), "model": {"name": 3, "inputs": "x"}}),  # does not decode
    lambda t: "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),  # not UTF-8
], ids=["truncated", "not-json", "foreign", "format", "bad-model", "bytes"])
def test_corrupt_cache_is_ignored_with_a_warning(damage, cache_dir, capsys):
    pkg = S / "cpu/jagged/jagged.pt2"
    fresh = answers(pkg, use_cache=False)
    answers(pkg, use_cache=True)
    (f,) = cache_dir.glob("[0-9a-f]*.json")
    f.write_text(damage(f.read_text()), encoding="latin-1")
    with inspector.open_package(pkg, cache=True) as p:
        m = p.model()
        assert any(w.startswith("index cache ignored and rebuilt") for w in m.warnings)
    assert answers(pkg, use_cache=True) == fresh  # rebuilt, rewritten, whole again
    from inspector.cli import main

    assert main(["show", str(pkg)]) == 0
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("part", ["scan", "kernels", "sites", "calls", "k-", "s-", "constants"])
@pytest.mark.parametrize("damage", [
    lambda t: t[: len(t) // 2],  # truncated
    lambda t: json.dumps({**json.loads(t), "tool": "someone else"}),  # foreign
    lambda t: json.dumps({**json.loads(t), "payload": {"kernel": [1, 2], "eager": 3}}),  # does not decode
], ids=["truncated", "foreign", "bad-payload"])
def test_a_corrupt_part_of_the_lazy_index_is_ignored_with_a_warning(part, damage, cache_dir):
    """The lazy index's parts (<key>.lazy/: the scan's summary, a kernel, a slice, the constants) are each
    ignored with a warning when unusable, and the answer is the fresh one."""
    pkg = S / "cuda/jagged/jagged.pt2"
    fresh = answers(pkg, use_cache=False)
    answers(pkg, use_cache=True)
    files = [f for f in cache_dir.glob("*.lazy/*.json") if f.name.startswith(part)]
    assert files
    for f in files:
        f.write_text(damage(f.read_text()))
    log = (pkg.parent / "error.log").read_text()
    with inspector.open_package(pkg, cache=True) as p:
        summarize(p)
        r = trace_assert(p, log=log)
        assert any("index cache part ignored and rebuilt" in h for h in r.hints), r.hints
    assert answers(pkg, use_cache=True) == fresh


def test_unwritable_cache_dir_is_a_warning_not_a_failure(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("PT2_INSPECT_CACHE_DIR", str(blocker / "sub"))  # a folder under a file: cannot exist
    with inspector.open_package(S / "cpu/jagged/jagged.pt2", cache=True) as p:
        m = p.model()
    assert m.inputs and any("index cache not written" in w for w in m.warnings)


WRITER = """
import sys, inspector
from inspector.queries.show import summarize
for _ in range(3):
    with inspector.open_package(sys.argv[1], cache=True) as p:
        summarize(p, full=True)
"""


def test_concurrent_writers_leave_one_whole_file(tmp_path, cache_dir):
    """Several processes index the same package at once: each renames a whole file into place."""
    pkg = S / "cuda/transformer/transformer.pt2"
    env = dict(os.environ, PT2_INSPECT_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(pkg)], env=env, stderr=subprocess.PIPE)
             for _ in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    files = sorted(cache_dir.iterdir())
    # the whole model, and the lazy index's parts (the scan's summary): no temporary file left behind
    assert [f.suffix for f in files] == [".json", ".lazy"]
    parts = sorted(p.name for p in files[1].iterdir())
    # the scan's summary, and its kernel list, assert sites and calls (an index and its chunks), each read only
    # when a question needs it
    assert parts == ["calls-0.json", "calls.json", "kernels.json", "scan.json", "sites.json"]
    assert cache.read_part(files[1].stem, "kernels")
    doc = json.loads(files[0].read_text())
    assert doc["tool"] == cache.TOOL and cache.load_model(doc["model"]).name == "model"
    with inspector.open_package(pkg, cache=True) as p:
        assert not [w for w in p.model().warnings if "index cache" in w]


def test_no_cache_flag_writes_nothing(cache_dir, capsys):
    from inspector.cli import main

    assert main(["show", str(S / "cpu/jagged/jagged.pt2"), "--no-cache"]) == 0
    assert not cache_dir.exists() or not list(cache_dir.iterdir())
    from inspector.options import current

    assert current().cache is False  # main() leaves the library's default as it found it
    assert main(["show", str(S / "cpu/jagged/jagged.pt2")]) == 0
    assert list(cache_dir.glob("*.lazy/scan.json"))  # show reads the lazy index: its summary is kept


def test_folder_input_is_keyed_by_content(tmp_path, cache_dir):
    src = S / "cpu/jagged/jagged.pt2"
    with zipfile.ZipFile(src) as z:
        z.extractall(tmp_path / "x")
    folder = tmp_path / "x" / "jagged"
    with inspector.open_package(folder, cache=True) as p:
        p.model()
    (w,) = folder.glob("data/aotinductor/model/*.wrapper.cpp")
    w.write_text(w.read_text().replace("if (arg0_1_size[0] > 65536) {", "if (arg0_1_size[0] > 77) {"))
    with inspector.open_package(folder, cache=True) as p:
        assert [s.max for s in p.model().symbols.values() if s.name == "s59"] == [77]


def test_cached_parse_tables_parse_like_built_ones(cache_dir, monkeypatch, request):
    """Lark tables kept as JSON (shipped in grammars/tables.json, or built and cached when those are stale):
    the loaded parsers give the same trees on every statement of a real wrapper; a damaged file is rebuilt."""
    from inspector.parse import grammar, lark_loader
    from inspector.parse.wrapper_statements import STARTS

    from inspector.options import Options, using

    stack = contextlib.ExitStack()
    stack.enter_context(using(Options(cache=True)))  # the Lark tables cache is on when the options say cache
    request.addfinalizer(stack.close)
    grammar.parser.cache_clear()
    shipped = grammar.parser("wrapper", STARTS)  # from grammars/tables.json: nothing built, nothing written
    assert not list(cache_dir.glob("lark-*.json"))
    monkeypatch.setattr(lark_loader, "_shipped", lambda *a: None)  # as if the shipped tables were stale
    grammar.parser.cache_clear()
    built = grammar.parser("wrapper", STARTS)  # builds and writes the tables
    (tables,) = cache_dir.glob("lark-*.json")
    grammar.parser.cache_clear()
    loaded = grammar.parser("wrapper", STARTS)
    assert loaded is not built
    with zipfile.ZipFile(S / "cuda/transformer/transformer.pt2") as z:
        text = z.read(next(n for n in z.namelist() if n.endswith(".wrapper.cpp"))).decode()
    stmts = [l.strip() for l in text.split("\n") if l.strip().startswith(("constants_info_[", "AOTI_TORCH_ERROR_CODE_CHECK("))]
    assert len(stmts) > 1000
    for s in stmts:
        start = "assignment" if s.startswith("constants_info_[") else "checked_call"
        assert loaded.parse(s, start=start) == built.parse(s, start=start) == shipped.parse(s, start=start)
    tables.write_text('{"tool": "x"')
    grammar.parser.cache_clear()
    again = grammar.parser("wrapper", STARTS)
    assert again.parse(stmts[0], start="assignment") == built.parse(stmts[0], start="assignment")
    grammar.parser.cache_clear()


def test_indexing_reports_progress_to_whoever_asks(monkeypatch):
    """The CLI's bar hangs on this hook; the library itself never prints."""
    from inspector import package

    seen = []

    class Recorder:
        def __init__(self, label):
            seen.append(label)

        def __call__(self, done, total):
            seen.append((done, total))

        def close(self):
            seen.append("closed")

    with inspector.open_package(S / "cuda/transformer/transformer.pt2",
                                options=inspector.Options(progress=Recorder)) as p:
        m = p.model()
    assert seen[0] == "indexing model" and seen[-1] == "closed"
    ticks = [x for x in seen if isinstance(x, tuple)]
    # the scan ticks by wrapper lines, then the parse by kernels: both end at their total
    assert (m.wrapper_lines, m.wrapper_lines) in ticks
    assert len(ticks) > 10 and ticks[-1] == (len(m.kernels), len(m.kernels))
    cut = ticks.index((m.wrapper_lines, m.wrapper_lines)) + 1
    for phase in (ticks[:cut], ticks[cut:]):
        assert phase and [d for d, _ in phase] == sorted(d for d, _ in phase)


@pytest.mark.parametrize("rel", ["cpu/jagged/jagged.pt2", "cpu/embedding/embedding.pt2"])
def test_show_json_is_the_same_from_a_warm_cache(rel, cache_dir, capsys):
    """Found under xdist: after a text `show` warmed the cache, `show --json` answered coverage 0/0 (the scan its
    constants needed dropped the cached summary's counts), and from a cache `show --json` itself filled it left out
    the constants' parse (22 statements on cpu/embedding). Now cold, warmed by text, and warmed by JSON agree."""
    from _cli import run

    pkg = S / rel
    rc, cold, _ = run(capsys, ["show", pkg, "--json", "--no-cache"])
    assert rc == 0 and json.loads(cold)["models"][0]["coverage"]["total"] > 0
    run(capsys, ["show", pkg])  # the text answer warms this test's own cache
    assert cache_dir.exists()
    for _ in range(2):  # the first answers from the text's parts (and writes the constants'), the second from all
        rc, warm, _ = run(capsys, ["show", pkg, "--json"])
        assert warm == cold


def test_calls_near_a_line_read_from_the_cache_are_the_scans(cache_dir, monkeypatch):
    """A cached index answers `calls(lines=(lo, hi))` from the chunks of the ``calls`` part that hold those
    lines (a cached trace of an ``API call failed at …wrapper.cpp, line N`` decodes a chunk, not every call):
    the same calls the scan finds, for every window; a missing chunk is rebuilt from the scan."""
    from inspector.index import cache_parts

    monkeypatch.setattr(cache_parts, "CALLS_CHUNK", 3)  # many chunks on a small sample
    pkg = S / "cuda/hf_t5_encoder/hf_t5_encoder.pt2"

    def rows(calls):  # what a cached call brings back: everything the scan's says, its arguments' names too
        return [(c.line, c.checked, c.callee, c.target, c.kind, c.arg_names, c.fills) for c in calls]

    with inspector.open_package(pkg, cache=False) as p:
        ix = p.index(p.model_names[0])
        every = rows(ix.calls())
    assert len(every) > 3 * 2  # more than two chunks
    with inspector.open_package(pkg, cache=True) as p:
        p.index(p.model_names[0])  # writes the parts
    chunks = sorted(cache_dir.glob("*.lazy/calls-*.json"))
    assert len(chunks) == -(-len(every) // 3)
    windows = [(line + d, line + e) for line, *_ in every for d, e in ((-2, 2), (0, 0), (-9, 0), (0, 9))] + \
        [(0, 10 ** 9), (every[-1][0] + 1, every[-1][0] + 9)]
    for lo, hi in windows:
        with inspector.open_package(pkg, cache=True) as p:
            ix = p.index(p.model_names[0])
            assert rows(ix.calls((lo, hi))) == [r for r in every if lo <= r[0] <= hi]
            assert not ix.scanned  # answered from the cache, the wrapper not read
    chunks[1].unlink()
    with inspector.open_package(pkg, cache=True) as p:
        ix = p.index(p.model_names[0])
        assert rows(ix.calls()) == every
        assert rows(ix.calls((every[4][0], every[4][0]))) == [every[4]]


def test_sites_part_writes_each_text_once_and_refuses_a_bad_index():
    """The ``sites`` part names each distinct assert text by position (copies of a kernel share them); it reads
    back the same sites, and a row naming no text is refused (the part is then rebuilt), never guessed at."""
    from inspector.index.cache_parts import _DECODE, _ENCODE
    from inspector.index.records import AssertSite

    sites = [AssertSite(f"k{i}", 30 + i % 2, "tl.device_assert(tmp4 < 120)" if i % 2 else "x", 7 * i or None)
             for i in range(6)]
    doc = json.loads(json.dumps(_ENCODE["sites"](sites)))
    assert doc["texts"] == ["x", "tl.device_assert(tmp4 < 120)"]
    back = _DECODE["sites"](doc)
    assert [(s.kernel, s.line, s.statement, s.wrapper_line) for s in back] == \
        [(s.kernel, s.line, s.statement, s.wrapper_line) for s in sites]
    for bad in (2, -1, "0", None):
        doc["rows"][0][2] = bad
        with pytest.raises(ValueError):
            _DECODE["sites"](doc)
