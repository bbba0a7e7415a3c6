"""The sweeps recorded on the lent H200 (`sample_packages/cuda/*/logs/sweep_h200/`) and here on harvested CPU packages
(`harvest/*/*/logs/sweep_cpu213/`), checked here without a GPU or a run:
the plan this machine makes predicts what the recorded run predicted, case by case, and `diagnose` run here on each
case's captured output gives the recorded category; then prediction, observation and diagnosis agree on every row
except those tests/known_gaps.py lists under SWEEP (strict xfails naming their cause). A change to the plan, to a
prediction or to a diagnose rule that breaks a real GPU run fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.package import open_package
from inspector.queries.sweep import ingest, plan

from _samples import S
from known_gaps import SWEEP

# the H200 sweeps, and those of packages of code nobody here wrote, run on this machine (torch 2.13 CPU)
SWEEPS = sorted([*S.glob("cuda/*/logs/sweep_h200/sweep.json"), *S.glob("harvest/*/*/logs/sweep_cpu213/sweep.json")])
RECORDED = [p.parents[2] for p in SWEEPS]
FOLDER = {p.parents[2]: p.parent for p in SWEEPS}


def _key(sample: Path) -> str:
    """``cuda/embedding``, ``harvest/hf_ctx_cpu213/gpt2_positions``: the sample's name in known_gaps.SWEEP."""
    return str(sample.relative_to(S))


def _replayed(sample: Path):
    folder = FOLDER[sample]
    recorded = json.loads((folder / "sweep.json").read_text())
    pkg_path = next(iter(sorted(sample.glob("*.pt2"))))
    with open_package(pkg_path) as pkg:
        rows, _cases, m, _dev, _notes = plan(pkg, recorded.get("model"))
        results = {i: r["observed"] for i, r in enumerate(recorded["rows"])}
        ingest(pkg, m, rows, results, str(folder))
    return recorded, rows


def test_recorded_sweeps_exist():
    # four samples were swept on the H200 (session of 2026-12-01); a test over none would prove nothing
    assert {p.name for p in RECORDED} >= {"embedding", "index_select", "jagged", "topk_gather", "gpt2_positions"}


@pytest.mark.samples
@pytest.mark.parametrize("sample", RECORDED, ids=[p.name for p in RECORDED])
def test_plan_and_diagnosis_replay_the_recorded_run(sample):
    recorded, rows = _replayed(sample)
    assert len(rows) == len(recorded["rows"]) > 0
    for row, rec in zip(rows, recorded["rows"], strict=True):
        assert row.id == rec["id"]
        if (rec["prediction"]["kind"], row.prediction.kind) == ("fit", "may_fail") and row.prediction.kernel.startswith(
                "aoti_torch_"):  # since the recording, an extern op fed a size the package was not built for is
            assert row.agree or row.id in SWEEP.get(_key(sample), {}), row.id  # "may fail", not "fit"
            # (inspector/queries/check.py): its run still agrees, or the row is a known gap
        else:
            assert row.prediction.kind == rec["prediction"]["kind"], row.id
            assert row.prediction.kernel == rec["prediction"]["kernel"], row.id
        assert row.diagnosis["category"] == rec["diagnosis"]["category"], (row.id, row.diagnosis["verdict"])
    known = SWEEP.get(_key(sample), {})
    bad = [(r.id, r.why) for r in rows if not r.agree and r.id not in known]
    assert not bad


KNOWN = [pytest.param(p, rid, marks=pytest.mark.xfail(strict=True, reason=cause), id=f"{p.name}-{rid}")
         for p in RECORDED for rid, cause in SWEEP.get(_key(p), {}).items()]


@pytest.mark.samples
@pytest.mark.parametrize("sample,rid", KNOWN)
def test_known_recorded_disagreement(sample, rid):
    _recorded, rows = _replayed(sample)
    row = next(r for r in rows if r.id == rid)
    assert row.agree, row.why


def test_known_recorded_disagreements_are_listed():
    assert KNOWN
