"""An index that is the kernel's own loop position (an arange: a language model's position ids) checked against a
table: every sequence longer than the table fails, whatever the values.  Three real packages, each with the real
logs of runs at both sides of the edge:

- ``harvest/hf_ctx_cpu213/gpt2_positions``: Hugging Face's GPT2LMHeadModel (n_positions=32), sequence exported for
  2..128, torch 2.13 CPU: `index out of bounds: tmp6 < 32L`, ``tmp6`` a copy of the loop variable ``x1``, whose
  loop runs below ``ks0`` = input 0 dim 1;
- ``harvest/hf_ctx/gpt2_positions_cuda``: the same model built and run on an H200 (torch 2.11): `x0 < 32` with
  ``x0 = (xindex % ks0)`` in a Triton kernel;
- ``options/sdpa_bf16_dyn_cuda``: a 128-row position table, sequence exported for 2..1024, torch 2.11 on an H200:
  `y0 < 128` with ``y0 = (yindex % ks0)``.

What the package alone says (trace, diagnose, check) is held to what the runs did: predicted == observed ==
diagnosed."""

from __future__ import annotations

import json
import re

import pytest

from _samples import S

import inspector
from inspector.explain import diagnose as diagnose_words
from inspector.queries.loop_checks import loop_limits
from inspector import diagnose

pytestmark = pytest.mark.samples

GPT2 = S / "harvest/hf_ctx_cpu213/gpt2_positions"
GPT2_CUDA = S / "harvest/hf_ctx/gpt2_positions_cuda"
SDPA = S / "options/sdpa_bf16_dyn_cuda"

# (folder, model input holding the sequence, the table's rows, the dim's exported max, device suffix of a spec)
CASES = [(GPT2, 0, 32, 128, ""), (GPT2_CUDA, 0, 32, 128, "@cuda"), (SDPA, 0, 128, 1024, "@cuda")]
IDS = ["gpt2_cpu", "gpt2_cuda", "sdpa_cuda"]


def _runs(folder):
    """(sequence length, exit code, log) of every recorded run: its inputs say ``[2, N]``."""
    doc = json.loads((folder / "index.json").read_text())
    out = []
    for run in doc["runs"]:
        m = re.search(r"\[2, (\d+)\]", run["inputs"])
        if m:
            out.append((int(m.group(1)), run["rc"], (folder / run["log"]).read_text()))
    assert out
    return out


@pytest.mark.parametrize("folder,inp,rows,top,dev", CASES, ids=IDS)
def test_the_trace_names_the_sequence_not_a_value(folder, inp, rows, top, dev):
    failing = [(n, log) for n, rc, log in _runs(folder) if rc != 0]
    assert failing
    with inspector.open_package(next(folder.glob("*.pt2"))) as pkg:
        for n, log in failing:
            t = inspector.trace_assert(pkg, log)
            m = t.matches[0]
            assert m.position is not None and m.position.op == "loop", m.verdict
            assert (m.position.input, m.position.dim, m.position.max) == (inp, 1, top)
            assert m.static_bound == rows and m.certainty == "certain"
            assert m.verdict.startswith(f"input {inp} dim 1 is larger than {rows}")
            assert "(or < 0)" not in m.verdict  # a one-sided check: no negative value reaches it
            assert not any("negative indices" in x for x in m.notes)
            assert m.hypotheses[0].certainty == "certain" and "whatever the values" in m.hypotheses[0].sentence
            d = diagnose(pkg, log)
            assert d.category == "index_assert" and d.verdict == m.verdict
            assert d.steps[0].do == diagnose_words.TRACE_LOOP_POSITION


@pytest.mark.parametrize("folder,inp,rows,top,dev", CASES, ids=IDS)
def test_check_predicts_each_recorded_run(folder, inp, rows, top, dev):
    """For every real run: check with its shape says fail exactly when the run failed, and names the check the
    log printed."""
    runs = _runs(folder)
    assert {rc == 0 for _, rc, _ in runs} == {True, False}  # runs on both sides of the edge
    with inspector.open_package(next(folder.glob("*.pt2"))) as pkg:
        assert loop_limits(pkg, pkg.model_names[0]) == {(inp, 1): rows}
        for n, rc, log in runs:
            c = inspector.check(pkg, [f"{inp}=int64[2,{n}]{dev}"])
            assert c.ok == (rc == 0), (n, c.verdict)
            if rc:
                first = c.predicted_assertions[0]
                assert first["message"] in log and c.certainty == "certain"
                assert f"reaches {n - 1}, past the bound {rows}" in first["why"]
        # the edge itself, which the recorded runs bracket
        assert inspector.check(pkg, [f"{inp}=int64[2,{rows}]{dev}"]).ok
        assert not inspector.check(pkg, [f"{inp}=int64[2,{rows + 1}]{dev}"]).ok


def test_the_sweep_plans_the_edge():
    from inspector.queries.sweep import plan

    with inspector.open_package(GPT2 / "gpt2_positions.pt2") as pkg:
        rows, *_ = plan(pkg)
    by_id = {r.id: r for r in rows}
    assert by_id["s70=loop-bound"].prediction.kind == "fit"
    assert by_id["s70=past-loop-bound"].prediction.kind == "assert"
    assert by_id["s70=max"].prediction.kind == "assert"  # the exported max (128) is past the table too


def test_an_index_read_from_a_tensor_is_no_loop_position():
    """The same kernel's token-id check (`0 <= tmp2 < 100L`, tmp2 loaded from input 0) is a value, not a position."""
    from inspector.queries.positions import cpu_loop_position

    with inspector.open_package(GPT2 / "gpt2_positions.pt2") as pkg:
        m = pkg.model()
        found = {a.message: cpu_loop_position(m, k, a) for k in m.kernels.values() for a in k.assertions}
    assert found["index out of bounds: 0 <= tmp2 < 100L"] is None
    assert found["index out of bounds: tmp6 < 32L"].op == "loop"
