"""`pt2-inspect sweep`: the plan (cases and predictions, no torch) and the oracle: run, every row's prediction
(`check` for dims, the trace for index values), observation and diagnosis agree, except the rows
tests/known_gaps.py lists under SWEEP with their cause (strict xfails: a fixed row fails the run until its
entry goes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from inspector.package import open_package
from inspector.queries.sweep import plan, sweep

from _paths import ROOT
from _samples import S, by_name
from known_gaps import SWEEP

# The CPU samples the suite sweeps: every one rebuilt for a portable ISA (AVX2, no -march), so every one that runs
# on any x86-64 host CI may get (5-6 s each on 2 quiet cores).  two_models is swept model by model.
SWEPT = ("adv_index_2d", "argmax_embedding", "bucketize_index", "cat_index", "embedding_bag", "index_put_acc",
         "index_select", "scatter_add", "take", "topk_gather", "two_models:encoder", "two_models:decoder")


def test_plan_has_every_case_and_predicts_each():
    with open_package(by_name("cpu/index_select").pkg) as p:
        rows, cases, m, dev, notes = plan(p)
    ids = [r.id for r in rows]
    assert len(rows) == len(cases) == 24 and len(set(ids)) == len(ids)
    for sym in ("s77", "s95"):  # every dynamic dim at 0, 1, min, max, with and without the runtime checks
        for v in ("0", "1", "min", "max"):
            assert f"{sym}={v}" in ids and f"{sym}={v}+checks" in ids
    for v in ("largest", "bound", "-1", "below-N"):
        assert f"input1={v}" in ids
    by = {r.id: r for r in rows}
    assert by["s77=0"].prediction.kind == "assert" and by["s77=0+checks"].prediction.kind == "guard"
    assert by["s77=1"].prediction.kind == "fit" and by["s77=1+checks"].prediction.kind == "guard"
    assert by["input1=bound"].prediction.kind == "assert" and by["input1=largest"].prediction.kind == "fit"
    assert by["input1=-1"].prediction.kind == "fit" and "wraps" in by["input1=-1"].note  # x < 0 ? x + N : x
    assert by["input1=below-N"].prediction.kind == "assert"
    assert cases[ids.index("s77=0+checks")].env["AOTI_RUNTIME_CHECK_INPUTS"] == "1"
    assert "AOTI_RUNTIME_CHECK_INPUTS" in cases[ids.index("s77=0")].unset_env


def test_vectorized_kernels_wrap_too():
    """adv_index_2d's kernel is vectorized: the wrap is `blendv(x, x + N, VecMask(x < 0))` (its sweep ran: -1 passes)."""
    with open_package(by_name("cpu/adv_index_2d").pkg) as p:
        rows, *_ = plan(p)
    by = {r.id: r for r in rows}
    for i in (1, 2):
        assert by[f"input{i}=-1"].prediction.kind == "fit" and "wraps" in by[f"input{i}=-1"].note
        assert by[f"input{i}=bound"].prediction.kind == "assert"


def test_embedding_does_not_wrap_so_minus_one_fails():
    with open_package(by_name("cpu/embedding").pkg) as p:
        rows, *_ = plan(p)
    by = {r.id: r for r in rows}
    assert by["input0=-1"].prediction.kind == "assert" and "does not wrap" in by["input0=-1"].note


def test_a_guard_maximum_is_capped_to_fit_and_said(monkeypatch):
    import inspector.queries.sweep as q

    monkeypatch.setattr(q, "MAX_ELEMENTS", 10_000)  # scatter_add's rows go to 100000 (x 4 columns)
    with open_package(by_name("cpu/scatter_add").pkg) as p:
        rows, cases, *_ = plan(p)
    capped = [r for r in rows if r.note and "capped" in r.note]
    assert capped and all("maximum 100000 capped to" in r.note for r in capped)
    numel = [eval("*".join(map(str, i["shape"])) or "1") for c in cases for i in c.inputs]  # noqa: S307
    assert numel and max(numel) <= 10_000


def test_plan_json_validates(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from inspector.cli import main

    assert main(["sweep", str(by_name("cpu/index_select").pkg), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, json.loads((ROOT / "inspector/schemas/sweep.schema.json").read_text()),
                        cls=jsonschema.Draft202012Validator)
    assert not doc["ran"] and all(r["observed"] is None for r in doc["rows"])


_RUNS: dict[str, object] = {}
# Swept through `sweep(run=True)` itself, as a user's script calls it (the CLI's `sweep --run` is run by
# cli/test_help_examples.py); the other samples share one runner (`_sweep_together`).
ALONE = "index_select"


def _swept(name: str):
    pytest.importorskip("torch")
    if name not in _RUNS:
        if name == ALONE:
            with open_package(by_name(f"cpu/{name}").pkg) as p:
                _RUNS[name] = sweep(p, run=True, timeout=60)
        else:
            _RUNS.update(_sweep_together([n for n in SWEPT if n != ALONE], timeout=60))
    return _RUNS[name]


def _sweep_together(names: list[str], timeout: int) -> dict[str, object]:
    """What ``sweep(p, model, run=True, timeout=timeout)`` answers for each of ``names`` (``sample`` or
    ``sample:model``), with every sample's cases run by one runner: its parent imports torch and probes the CPU
    once for all of them (about 4.5 CPU-seconds a runner), and forks one child per case as `sweep --run` does,
    each child loading its own package (the runner takes a case's ``package``).  The plan, the runner script,
    the reading of each case's log and the verdict are sweep's own (``plan``, ``write_plan``, ``ingest``,
    ``ran_verdict``); only the plan file joins the samples' cases."""
    import contextlib
    import os
    import subprocess
    import tempfile
    import time

    from inspector.queries.sweep import SweepResult, ingest, ran_verdict, write_plan

    out: dict[str, object] = {}
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="pt2-sweep-") as tmp:
        planned, cases = [], []
        for name in names:
            sample, _, model = name.partition(":")
            p = stack.enter_context(open_package(by_name(f"cpu/{sample}").pkg))
            rows, own, m, dev, notes = plan(p, model or None)
            assert dev == "cpu" and len(rows) == len(own), (name, dev)
            planned.append((name, p, rows, m, dev, notes, len(cases)))
            cases += [(c, str(by_name(f"cpu/{sample}").pkg.resolve())) for c in own]
        plan_path, runner = write_plan([c for c, _ in cases], tmp, timeout)
        doc = json.loads(Path(plan_path).read_text())
        for case, (_, path) in zip(doc["cases"], cases, strict=True):
            case["package"] = path
        Path(plan_path).write_text(json.dumps(doc))
        t0 = time.time()
        run = subprocess.run([sys.executable, runner, plan_path, cases[0][1], tmp], capture_output=True, text=True,
                             env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=60 + timeout * len(cases))
        results = {}
        for line in run.stdout.splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                r = json.loads(line)
                results[r["case"]] = r
        seconds = round(time.time() - t0, 1)
        for name, p, rows, m, dev, notes, start in planned:
            own = Path(tmp) / name.replace(":", "-")  # ingest reads case_NNN.log by the sample's own numbering
            own.mkdir()
            mine = {}
            for i in range(len(rows)):
                if start + i in results:
                    mine[i] = dict(results[start + i], case=i)
                    os.link(Path(tmp) / f"case_{start + i:03d}.log", own / f"case_{i:03d}.log")
            ingest(p, m, rows, mine, str(own), run.stderr)
            res = SweepResult(package=str(p.path), model=m.name, device=dev, ran=True, verdict="", rows=rows,
                              notes=notes, seconds=seconds)
            out[name] = ran_verdict(res)
    return out


@pytest.mark.samples
@pytest.mark.slow
@pytest.mark.parametrize("name", SWEPT)
def test_prediction_observation_and_diagnosis_agree(name):
    r = _swept(name)
    assert r.ran and r.rows
    known = SWEEP.get(f"cpu/{name.partition(':')[0]}", {})
    bad = [(x.id, x.why) for x in r.disagreements if x.id not in known]
    assert not bad


KNOWN = [pytest.param(name, rid, marks=pytest.mark.xfail(strict=True, reason=cause), id=f"{name}-{rid}")
         for key, rows in SWEEP.items() for name in [key.split("/", 1)[1]] if key.startswith("cpu/") and name in SWEPT
         for rid, cause in rows.items()]  # the CPU rows this suite sweeps (the CUDA ones: test_sweep_recorded.py)


if KNOWN:  # none since round 28 (every CPU row this suite sweeps agrees): a test over zero cases would prove nothing
    @pytest.mark.samples
    @pytest.mark.slow
    @pytest.mark.parametrize("name,rid", KNOWN)
    def test_known_disagreement(name, rid):
        r = _swept(name)
        row = next(x for x in r.rows if x.id == rid)
        assert row.agree, row.why


def test_known_disagreements_are_listed():
    # the oracle found some (issue 20 §4); the CPU ones this suite sweeps have all closed since (topk_gather s69=0/1
    # in round 28), the recorded CUDA ones remain: the table is read, not empty
    assert SWEEP and all(rows for rows in SWEEP.values())


@pytest.mark.slow
def test_cuda_cases_run_in_fresh_processes(tmp_path):
    """A CUDA case is never a fork of the runner (after torch's import CUDA fails in a forked child with 'CUDA error:
    initialization error', as the first GPU sweep did): it is its own process, whose log and exit code come back."""
    pytest.importorskip("torch")
    import subprocess

    from inspector.explain import repro_script as say
    from inspector.queries.sweep import write_plan

    with open_package(S / "cuda/jagged/jagged.pt2") as p:
        rows, cases, *_ = plan(p)
    plan_path, runner = write_plan(cases[:1], str(tmp_path), 120)
    assert "--case" in say.sweep_runner()
    out = subprocess.run([sys.executable, runner, plan_path, str(S / "cuda/jagged/jagged.pt2"), str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    res = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    assert len(res) == 1 and res[0]["rc"] is not None and (tmp_path / "case_000.log").exists()
    import torch

    if not torch.cuda.is_available():  # this torch has no CUDA: the case's own process says so
        assert res[0]["rc"] == 1 and "CUDA" in (tmp_path / "case_000.log").read_text()
    assert "initialization error" not in (tmp_path / "case_000.log").read_text()
