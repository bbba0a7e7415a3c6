"""The per-sample tests of test_certainty.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

import inspector
from inspector.cli import main
from inspector import trace_assert

from _samples import TRACED_MANIFESTS, sample_of

CERTAINTY = {"certain", "likely", "possible"}


def _ids(p: Path) -> str:
    return f"{p.parent.parent.name}-{p.parent.name}"


def _in_order(text: str, parts: list[str]) -> bool:
    at = 0
    for p in parts:
        i = text.find(p, at)
        if i < 0:
            return False
        at = i + len(p)
    return True


@pytest.mark.parametrize("manifest", TRACED_MANIFESTS, ids=_ids)
def test_text_json_report_and_api_say_the_same_things_in_the_same_order(manifest, capsys, tmp_path):
    """On every sample whose real error traces: the verdict, each hypothesis (with its certainty) and each note,
    in one order, in the Python API, the --json answer, the text answer and the HTML report."""
    assert TRACED_MANIFESTS
    pkg, log = sample_of(manifest).pkg, manifest.parent / "error.log"
    with inspector.open_package(pkg) as p:
        api = trace_assert(p, log=log.read_text(errors="replace"))
    assert api.matches and api.certainty in CERTAINTY
    mt = api.matches[0]
    assert mt.hypotheses, "a traced failure offers at least one cause"
    parts = [mt.verdict] + [h.sentence for h in mt.hypotheses] + mt.notes
    assert main(["trace-assert", str(pkg), "--log", str(log), "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    jm = js["matches"][0]
    assert "explanation" not in jm  # one ranked list only
    assert [jm["verdict"]] + [h["text"] for h in jm["hypotheses"]] + jm["notes"] == parts
    assert [h["certainty"] for h in jm["hypotheses"]] == [h.certainty for h in mt.hypotheses]
    assert js["certainty"] == api.certainty and jm["certainty"] == mt.certainty
    assert main(["trace-assert", str(pkg), "--log", str(log), "--verbose"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == f"verdict: {api.headline}" and js["headline"] == api.headline
    assert _in_order(text, parts), "the text answer holds the verdict, hypotheses and notes in the API's order"
    assert _in_order(text, [f"[{h.certainty}] {h.sentence}" for h in mt.hypotheses])
    out = tmp_path / "r.html"
    assert main(["report", str(pkg), "--log", str(log), "-o", str(out)]) == 0
    capsys.readouterr()
    page = html.unescape(out.read_text())
    assert _in_order(page, parts), "the report holds them in the same order"


@pytest.mark.parametrize("manifest", TRACED_MANIFESTS, ids=_ids)
def test_every_hypothesis_carries_certainty_and_evidence(manifest):
    with inspector.open_package(sample_of(manifest).pkg) as p:
        r = trace_assert(p, log=(manifest.parent / "error.log").read_text(errors="replace"))
    hyps = [h for mt in r.matches for h in mt.hypotheses]
    assert hyps
    for h in hyps:
        assert h.certainty in CERTAINTY and h.evidence and all(e for e in h.evidence), h
    for mt in r.matches:
        # `certain` needs evidence that excludes the alternatives: no other cause stands beside a certain first one
        if mt.hypotheses[0].certainty == "certain":
            assert all(h.certainty == "certain" for h in mt.hypotheses), mt.hypotheses
        # without it, the answer gives the commands that tell the causes apart
        if len(mt.hypotheses) > 1 and mt.certainty != "certain":
            assert any(" sweep " in c for c in mt.confirm) and any(" repro " in c for c in mt.confirm)


def test_no_cpu_check_ranks_an_empty_input_first_by_rule():
    """Issue 20 (a): a CPU check prints no thread and no value: on no CPU sample does an empty input come first
    as anything more than 'possible'."""
    seen = 0
    cpu = [m for m in TRACED_MANIFESTS if m.parent.parent.name.startswith("cpu")]
    assert cpu
    for manifest in cpu:
        with inspector.open_package(sample_of(manifest).pkg) as p:
            r = trace_assert(p, log=(manifest.parent / "error.log").read_text(errors="replace"))
        for mt in r.matches:
            seen += sum("empty input" in h.sentence for h in mt.hypotheses)
            if mt.hypotheses and "empty input" in mt.hypotheses[0].sentence:
                assert mt.hypotheses[0].certainty == "possible", (manifest, mt.hypotheses[0])
    assert seen > 0, "the CPU samples hold empty-input causes (jagged): the rule was exercised"
