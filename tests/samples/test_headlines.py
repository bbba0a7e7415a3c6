"""Issue 35 §7: every answer's first line is its verdict in plain words, at most 120 characters with the mark and
label the text prints before it, over every real log in the samples (diagnose and trace-assert), and the first line of
the text is that headline.  The full verdict stays in the JSON (``verdict``) and below the first line."""

from __future__ import annotations

import pytest

import inspector
from inspector.explain.headline import WIDTH
from inspector.package import open_package
from inspector.errors import InspectorError

from _cli import run
from _paths import S


def _pairs():
    """(package, log) for every real log beside a package: the log's folder or its parent holds one .pt2."""
    out = []
    for log in sorted(S.rglob("*.log")):
        if log.name == "build.log":
            continue
        for folder in (log.parent, log.parent.parent, log.parent.parent.parent):
            pkgs = sorted(folder.glob("*.pt2"))
            if len(pkgs) == 1:
                out.append((pkgs[0], log))
                break
    return out


PAIRS = _pairs()


def test_the_samples_hold_hundreds_of_real_logs():
    assert len(PAIRS) > 300, len(PAIRS)


@pytest.mark.slow
def test_every_first_line_fits_120_characters():
    long, seen = [], 0
    by_pkg: dict = {}
    for pkg, log in PAIRS:
        by_pkg.setdefault(pkg, []).append(log)
    for pkg, logs in by_pkg.items():
        try:
            p = open_package(pkg)
        except InspectorError:  # a damaged sample is another test's
            continue
        with p:
            for log in logs:
                text = log.read_text(errors="replace")
                d = inspector.diagnose(p, text)
                first = f"✗ {d.category}: {d.headline}"
                seen += 1
                if not d.headline or len(first) > WIDTH:
                    long.append((str(log.relative_to(S)), first))
                t = inspector.trace_assert(p, text)
                if t.verdict and (not t.headline or len(f"verdict: {t.headline}") > WIDTH):
                    long.append((str(log.relative_to(S)), f"verdict: {t.headline or t.verdict}"))
    assert seen > 300
    assert not long, "\n".join(f"{n}: {len(x)}: {x}" for n, x in long[:20])


CASES = [
    ("cpu/topk_gather/topk_gather.pt2", "cpu/topk_gather/error.log"),
    ("cuda/topk_gather/topk_gather.pt2", "cuda/topk_gather/error.log"),
    ("cpu/take/take.pt2", "cpu/take/error.log"),
    ("cpu/adv_index_2d/adv_index_2d.pt2", "cpu/adv_index_2d/error.log"),
]


@pytest.mark.parametrize("pkg,log", CASES)
def test_the_text_opens_with_the_headline_and_keeps_the_verdict_in_the_json(capsys, pkg, log):
    import json

    def out(*argv):
        return run(capsys, argv)[1]

    text = out("diagnose", S / pkg, "--log", S / log)
    js = json.loads(out("diagnose", S / pkg, "--log", S / log, "--json"))
    first = text.splitlines()[0]
    assert first == f"✗ {js['category']}: {js['headline']}" and len(first) <= WIDTH
    assert len(js["verdict"]) > len(js["headline"])  # the long sentence is kept, not cut
    assert "arg" not in js["headline"]  # internals (arg0_1) are named below, not in the first line
    tr = out("trace-assert", S / pkg, "--log", S / log).splitlines()
    assert tr[0] == f"verdict: {js['headline']}"
    full = out("trace-assert", S / pkg, "--log", S / log, "--verbose")
    assert f"in full: {js['verdict']}" in full and len(full.splitlines()) > len(tr)


def test_check_and_doctor_open_with_a_short_verdict(capsys):
    out = run(capsys, ["check", S / "cpu/take/take.pt2", "--input", "0=float32[0,4]", "1=int64[3]"])[1]
    assert out.splitlines()[0] == "✗ 1 violation(s), 2 predicted failure(s): input 0 dim 0 is 0 (an empty input), outside 2..1024"
    doc = run(capsys, ["doctor", S / "cpu/take/take.pt2"])[1].splitlines()
    assert len(doc[0]) <= WIDTH and doc[2].startswith("not checked: the host's CPU features")
