"""`pt2-inspect repro`: the script it writes (standalone, no data of the run, no path of this machine), the case it
plans (every guard kept, one violation), and the oracle: run, the case reproduces the real traced failure of
every CPU sample whose trigger fired, on the packages this host can run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from _cli import run_child
from _paths import ROOT
from _samples import SAMPLES, S

sys.path.insert(0, str(ROOT))

from inspector.explain import repro_script as say  # noqa: E402
from inspector.package import open_package  # noqa: E402
from inspector.queries.repro import repro  # noqa: E402

CPU = [s for s in SAMPLES if s.build == "cpu" and s.manifest and (s.manifest.get("expect") or {}).get("fired")]


# Samples whose top-ranked hypothesis's case does not reproduce the log (the run re-ranks it: test_confirm.py): the
# hypothesis whose case does, and why.
TOP_REFUTED = {
    "scatter_add": (2, "the index is keys // 4: input 1 holding the bound (4) makes bucket 1, inside the table; the "
                       "trace words it as input 1's own value"),
}


def _runkit() -> dict:
    """The script's own helpers (``matches``, ``build_inputs``…), as the written script runs them."""
    ns: dict = {}
    exec(compile(say.RUNKIT, "runkit", "exec"), ns)  # noqa: S102 - our own template text
    return ns


def _runs_here(pkg: Path) -> bool:
    """doctor finds no CPU-ISA error for this host (a package built with -march=native elsewhere dies with SIGILL)."""
    from inspector.queries.doctor import doctor

    with open_package(pkg) as p:
        d = doctor(p, host_cpuinfo=Path("/proc/cpuinfo").read_text())
    return not any(f.severity == "error" and f.kind == "cpu_isa" for f in d.findings)


def _repro(s, **kw):
    with open_package(s.pkg) as p:
        return repro(p, log=s.error_log.read_text(), **kw)


def test_some_cpu_samples_fired():
    assert len(CPU) >= 15, [s.name for s in CPU]


@pytest.mark.parametrize("s", CPU, ids=[s.id for s in CPU])
def test_script_is_standalone_and_carries_nothing_of_this_machine(s):
    r = _repro(s)
    compile(r.script, "repro.py", "exec")
    for where in ("/work", "/tmp/", "/home", "/root", str(ROOT)):
        assert where not in r.script, (where, s.name)
    assert f"DEFAULT_PACKAGE = {s.pkg.name!r}" in r.script
    for line in s.error_log.read_text().splitlines():  # nothing of the failing run's output either
        if "/tmp/" in line or "0x" in line:
            assert line.strip() not in r.script
    assert r.expect and r.expect["all_of"] or r.expect["any_of"]


def test_the_violation_is_the_one_the_trace_names():
    kinds = {s.name: _repro(s).violation for s in CPU if s.name in ("index_select", "jagged", "argmax_embedding")}
    assert kinds["index_select"] == {"kind": "value", "input": 1, "value": 4, "bound": 4}
    assert kinds["jagged"]["kind"] == "empty" and (kinds["jagged"]["input"], kinds["jagged"]["dim"]) == (0, 0)
    assert kinds["argmax_embedding"]["kind"] == "ramp" and kinds["argmax_embedding"]["bound"] == 100
    r = _repro(next(s for s in CPU if s.name == "index_select"))
    table = r.case["inputs"][0]  # every other input keeps the contract: the table has its guard's rows
    assert table["shape"][0] >= 2 and r.case["inputs"][1]["fill"] == "range" and r.case["inputs"][1]["bound"] == 4
    assert r.case["env"]["OMP_NUM_THREADS"] == "1" and "AOTI_RUNTIME_CHECK_INPUTS" in r.case["unset_env"]


def test_multi_model_package_names_its_model():
    s = next(s for s in CPU if s.name == "two_models")
    r = _repro(s)
    assert r.model == "decoder" and r.case["model"] == "decoder"


def test_match_needs_the_same_assertion_and_kernel():
    kit = _runkit()
    expect = {"kind": "assert", "all_of": ["index out of bounds: 0 <= tmp7 < ks1", "cpp_fused_index_select_mul_0"]}
    real = (S / "cpu/index_select/error.log").read_text()
    assert kit["matches"](expect, real, 1)
    assert not kit["matches"](expect, real.replace("cpp_fused_index_select_mul_0", "cpp_fused_other_0"), 1)
    assert not kit["matches"](expect, "PT2_REPRO_CALL_RETURNED\n", 0)
    assert kit["matches"](None, "PT2_REPRO_CALL_RETURNED\n", 0)


def test_given_inputs_expect_what_check_predicts():
    s = next(s for s in CPU if s.name == "jagged")
    from inspector.queries.check import parse_spec

    with open_package(s.pkg) as p:
        r = repro(p, inputs=[parse_spec("0=float32[0,8]"), parse_spec("1=int64[3]")])
    assert r.expect["kind"] == "assert" and r.case["inputs"][0]["shape"] == [0, 8]
    with open_package(s.pkg) as p:
        r = repro(p, inputs=[parse_spec("0=float32[1,8]")])  # below the guard: the runtime check, switched on
    assert r.expect["kind"] == "check_inputs" and r.case["env"]["AOTI_RUNTIME_CHECK_INPUTS"] == "1"


def test_json_validates_and_run_without_torch_is_a_usage_error(tmp_path, capsys, monkeypatch):
    jsonschema = pytest.importorskip("jsonschema")
    from inspector.cli import main

    schema = json.loads((ROOT / "inspector/schemas/repro.schema.json").read_text())
    pkg, log = S / "cpu/index_select/index_select.pt2", S / "cpu/index_select/error.log"
    out = tmp_path / "r.py"
    assert main(["repro", str(pkg), "--log", str(log), "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert out.read_text().startswith("#!/usr/bin/env python3")
    import inspector.queries.repro as q

    monkeypatch.setattr(q, "torch_python", lambda: None)
    assert main(["repro", str(pkg), "--log", str(log), "-o", str(out), "--run"]) == 2
    assert "needs torch" in capsys.readouterr().err


@pytest.mark.samples
@pytest.mark.slow
def test_every_cpu_sample_that_fired_is_reproduced(tmp_path):
    """The oracle: each sample's repro case, run (one forked child per case, as the script's child runs it),
    shows the real failure's assertion and kernel (or the ATen op's check)."""
    pytest.importorskip("torch")
    from inspector.queries.sweep import write_plan

    cases, names, skipped = [], [], []
    for s in CPU:
        if not _runs_here(s.pkg):
            skipped.append(s.name)
            continue
        r = _repro(s, hypothesis=TOP_REFUTED.get(s.name, (None,))[0])
        case = dict(r.case, package=str(s.pkg), timeout=120)
        cases.append(case)
        names.append(s.name)
    assert len(cases) >= 10, (names, skipped)
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps({"cases": cases, "timeout": 120}))
    runner = tmp_path / "runner.py"
    runner.write_text(say.sweep_runner())
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, str(runner), str(plan_path), "-", str(tmp_path)], capture_output=True,
                       text=True, env=env, timeout=600)
    results = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    kit = _runkit()
    missed = []
    for name, case, res in zip(names, cases, results, strict=True):
        text = (tmp_path / f"case_{res['case']:03d}.log").read_text(errors="replace")
        if not kit["matches"](case["expect"], text, res["rc"]):
            missed.append((name, res["what"], res["first_error"]))
    assert not missed


@pytest.mark.samples
def test_repro_run_end_to_end(tmp_path):
    pytest.importorskip("torch")
    pkg, log = S / "cpu/index_select/index_select.pt2", S / "cpu/index_select/error.log"
    out = tmp_path / "repro.py"
    p = run_child("repro", pkg, "--log", log, "-o", out, "--run", timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines()[0].startswith("input 1 holds 4")
    assert "hypotheses 1, 2 and 3 all reproduce the log's assert" in p.stdout
    assert f"run it with `python {out} {pkg}`" in p.stdout


def test_the_loader_fits_how_the_package_keeps_its_weights():
    """Weights beside the code (pickle_weights): load_pt2 from disk; none at all: random constants of the right
    names, shapes and dtypes, said so (both ran with `sweep --run`: every row agreed)."""
    from inspector.queries.repro import loader_of

    H = S / "harvest"
    with open_package(H / "issue14_cpu213/pickle_weights_cpu/pickle_weights_cpu.pt2") as p:
        loader, notes = loader_of(p, "model", None)
    assert loader == {"kind": "load_pt2_disk"} and "load_weights_from_disk=True" in notes[0]
    with open_package(H / "issue15_cpu213/weightless_cpu/weightless_cpu.pt2") as p:
        loader, notes = loader_of(p, "model", None)
        consts = p.index("model").constants()
    specs = loader["constants"]["specs"]
    assert loader["kind"] == "aoti_load_package" and len(specs) == len(consts) >= 1
    assert all(s["shape"] == list(c.shape) for s, c in zip(specs, consts, strict=True))
    assert any("random constants" in n for n in notes)
    with open_package(H / "issue15_cpu213/weightless_cpu/weightless_cpu.pt2") as p:
        loader, notes = loader_of(p, "model", "/some/where/weights.pt")
    assert loader["constants"] == {"file": "weights.pt"}  # the name only: no path of this machine in the script
