"""Issue 35 §2, run the ranking: `repro` writes the case of the top-ranked hypothesis (the ranking diagnose prints,
one source: the trace's typed causes), `--hypothesis N` / `--all` the others; `repro --run` and `diagnose --confirm`
run every hypothesis's case in a child process, read each run's output into the LogReport the log went into,
compare category, kernel, line and message with the log's, re-rank, and rerun with AOTI_RUNTIME_CHECK_INPUTS=1
where it tells a shape/dtype case from a value one.  The running tests are real runs (CPU, torch 2.13: marked slow,
as the sweep --run tests are): predicted (the case's kind) == observed (the run) == diagnosed (its reading)."""

from __future__ import annotations

import json
import os
import sys

import pytest

from _paths import ROOT
from _samples import S

sys.path.insert(0, str(ROOT))

from inspector.package import open_package  # noqa: E402
from inspector.queries.repro import repro  # noqa: E402

TOPK = S / "cpu/topk_gather"
TWO = S / "cpu/two_index"


def _repro(folder, name, **kw):
    with open_package(folder / f"{name}.pt2") as p:
        return repro(p, log=(folder / "error.log").read_text(), **kw)


@pytest.mark.parametrize("dev", ["cpu", "cuda"])
def test_repro_writes_the_top_ranked_hypothesis(dev):
    """On topk_gather the verdict ranks the top-k positions first; main's repro wrote the second (an empty table)."""
    r = _repro(S / dev / "topk_gather", "topk_gather")
    assert r.hypothesis == 1 and r.hypotheses[0]["kind"] == "position"
    assert r.violation["kind"] == "ramp" and r.violation["input"] == 0 and r.violation["dim"] == 1
    assert r.case["inputs"][0]["fill"] == "ramp" and r.case["inputs"][0]["shape"][1] > r.case["inputs"][1]["shape"][1]


def test_the_ranking_is_the_traces():
    """Each planned hypothesis is the trace's hypothesis of that rank (its words and certainty), one source."""
    from inspector.logs import parse_log
    from inspector.queries.trace import trace_assert

    with open_package(TWO / "two_index.pt2") as p:
        t = trace_assert(p, report=parse_log((TWO / "error.log").read_text()))
    r = _repro(TWO, "two_index", every=True)
    assert [h["text"] for h in r.hypotheses] == [h.sentence for h in t.matches[0].hypotheses]
    assert [h["kind"] for h in r.hypotheses] == ["bound_value", "empty_input", "input_dtype"]
    assert [h["violation"]["kind"] for h in r.hypotheses] == ["value", "empty", "dtype"]


def test_hypothesis_n_and_all():
    r2 = _repro(TOPK, "topk_gather", hypothesis=2)
    assert r2.hypothesis == 2 and r2.violation["kind"] == "empty" and r2.case["inputs"][1]["shape"][1] == 0
    every = _repro(TOPK, "topk_gather", every=True)
    assert every.hypothesis is None and "NUMBERS = ['1', '2']" in every.script
    compile(every.script, "repro.py", "exec")
    from inspector.errors import UsageError

    with pytest.raises(UsageError, match="ranks 2 hypotheses"):
        _repro(TOPK, "topk_gather", hypothesis=3)


def test_without_o_nothing_is_written_and_o_prints_the_package_as_given(tmp_path, capsys, monkeypatch):
    """Main wrote repro.py into the current folder unasked, and printed `python repro.py topk_gather.pt2` (a bare
    name that fails from any other folder)."""
    from inspector.cli import main

    monkeypatch.chdir(tmp_path)
    pkg = os.path.relpath(TOPK / "topk_gather.pt2", tmp_path)
    log = os.path.relpath(TOPK / "error.log", tmp_path)
    assert main(["repro", pkg, "--log", log]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("#!/usr/bin/env python3") and "no file written" in out.err
    assert os.listdir(tmp_path) == []
    assert main(["repro", pkg, "--log", log, "-o", "x.py"]) == 0
    assert f"`python x.py {pkg}`" in capsys.readouterr().out


def test_crafted_rerank_when_the_top_fails_elsewhere():
    """The words of a run where the top hypothesis's case fails elsewhere and the second reproduces (the GPU
    case of sample_packages/confirm_gpu.py: thread [0,0,0] ranks the empty table first)."""
    from inspector.explain.confirm import confirmation_words
    from inspector.queries.confirm import Confirmation, Failure, Outcome

    log = Failure("index_assert", "k", 60, "index out of bounds: 0 <= tmp7 < ks1")
    other = Failure("index_assert", "k", 32, "index out of bounds: 0 <= tmp7 < ks1")
    outs = [Outcome(1, None, "exit 1", 1.0, other, other.differs(log)), Outcome(2, None, "exit 1", 1.0, log, [])]
    c = Confirmation(log, outs, [2, 1], [2], [], [], None, {"version": "x", "path": "p", "python": "py"})
    verdict, _ = confirmation_words(c, {})
    assert verdict.startswith("re-ranked: hypothesis 2 reproduces the log's assert")
    assert "hypothesis 1 fails elsewhere (`index out of bounds: 0 <= tmp7 < ks1` in k line 32)" in verdict


# --- real runs (torch 2.13, CPU) ------------------------------------------------------------------------------

_RUNS: dict = {}


def _confirmed(folder, name):
    pytest.importorskip("torch")
    from inspector.queries.repro import confirm_ranking

    if name not in _RUNS:
        with open_package(folder / f"{name}.pt2") as p:
            r = repro(p, log=(folder / "error.log").read_text())
            confirm_ranking(p, r, timeout=120)
        _RUNS[name] = r
    return _RUNS[name]


def _agree(r):
    """predicted == observed == diagnosed, for every run: a case that breaks the contract (an empty dim under its
    guard, the other dtype) is predicted rejected by the input check when it is on, any other to fail the check
    it plans; the observed run, read by diagnose, says the same."""
    c = r.confirmation
    planned = {h["n"]: h for h in r.hypotheses}
    for o in c.outcomes:
        kind = planned[o.hypothesis]["violation"]["kind"]
        if o.switch == "AOTI_RUNTIME_CHECK_INPUTS" and kind in ("empty", "dtype"):
            assert o.failure.category == "input_check", (o.hypothesis, o.failure)
        else:
            assert o.failure.category == "index_assert", (o.hypothesis, o.switch, o.failure, o.first_error)


@pytest.mark.slow
def test_topk_gather_both_reproduce_and_the_input_check_tells_them_apart():
    r = _confirmed(TOPK, "topk_gather")
    c = r.confirmation
    assert c.reproduced == [1, 2] and c.ranking == [1, 2]
    assert c.separated_by == "AOTI_RUNTIME_CHECK_INPUTS"
    checked = {o.hypothesis: o for o in c.outcomes if o.switch == "AOTI_RUNTIME_CHECK_INPUTS"}
    assert checked[1].reproduced and checked[2].failure.category == "input_check" and checked[2].failure.input == 1
    assert "AOTI_RUNTIME_CHECK_INPUTS=1 tells them apart" in c.verdict
    assert c.torch["version"].startswith("2.") and c.torch["path"].endswith("torch")
    _agree(r)
    assert r.run["reproduced"] is True  # the written case (hypothesis 1)


@pytest.mark.slow
def test_two_index_an_empty_table_fails_elsewhere_and_is_ranked_down():
    """b's check failed; an empty table fails a's check first (the same message, another line): the run excludes it,
    and the dtype hypothesis (which reproduces) moves above it."""
    r = _confirmed(TWO, "two_index")
    c = r.confirmation
    plain = {o.hypothesis: o for o in c.outcomes if o.switch is None}
    assert c.log.line == plain[1].failure.line != plain[2].failure.line
    assert plain[2].differs == ["line"] and plain[1].reproduced and plain[3].reproduced
    assert c.reproduced == [1, 3] and c.ranking == [1, 3, 2]
    assert "hypothesis 2 fails elsewhere" in c.verdict and c.separated_by == "AOTI_RUNTIME_CHECK_INPUTS"
    _agree(r)


@pytest.mark.slow
def test_scatter_add_the_top_hypothesis_does_not_reproduce_and_is_ranked_last():
    """index_add(0, keys // 4, …): the trace ranks "input 1 holds a value outside the table" first, but its case
    (keys holding the bound, 4: bucket 1) returns; an empty table and int32 keys reproduce the log's assert (both
    break the contract, so the input check rejects both and tells them not apart).  Main wrote the empty table's
    case and never ran the others."""
    r = _confirmed(S / "cpu/scatter_add", "scatter_add")
    c = r.confirmation
    plain = {o.hypothesis: o for o in c.outcomes if o.switch is None}
    assert plain[1].failure.returned and not plain[1].reproduced
    assert c.reproduced == [2, 3] and c.ranking == [2, 3, 1] and c.separated_by is None
    assert "hypothesis 1's call returned" in c.verdict and "no switch tells them apart" in c.verdict
    assert r.run["reproduced"] is False  # the written (top) case did not: `repro --run` exits 1


@pytest.mark.slow
def test_diagnose_confirm_json_validates_and_writes_nothing_here(capsys, tmp_path, monkeypatch):
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("torch")
    from inspector.cli import main

    monkeypatch.chdir(tmp_path)
    rc = main(["diagnose", str(TWO / "two_index.pt2"), "--log", str(TWO / "error.log"), "--confirm", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["confirmation"]["ranking"] == [1, 3, 2]
    assert os.listdir(tmp_path) == []  # the runs' plan, runner and logs went to a temporary folder
    for name in ("diagnose", "repro"):
        schema = json.loads((ROOT / f"inspector/schemas/{name}.schema.json").read_text())
        d = doc if name == "diagnose" else dict(_confirmed(TWO, "two_index").to_dict(), script=None)
        jsonschema.validate(d, schema, cls=jsonschema.Draft202012Validator)


def test_confirm_without_torch_is_a_usage_error(capsys, monkeypatch):
    import inspector.host as host
    from inspector.cli import main

    monkeypatch.setattr(host, "torch_python", lambda: None)
    assert main(["diagnose", str(TWO / "two_index.pt2"), "--log", str(TWO / "error.log"), "--confirm"]) == 2
    assert "needs torch" in capsys.readouterr().err
