"""The sweep's judge: a row agrees when prediction, observation and diagnosis name the same thing, and says what
disagrees when they do not (the sweeps themselves: tests/samples/test_sweep.py)."""

from __future__ import annotations

from inspector.queries.sweep import Row, judge


def test_judge_names_what_disagrees():
    from inspector.queries.sweep import Prediction

    r = Row(id="x", case="x", checks=False, prediction=Prediction("fit", "check", words="fit"),
            observed={"rc": -6, "what": "killed by SIGABRT", "returned": False, "first_error": "boom", "seconds": 1,
                      "timed_out": False}, diagnosis={"category": "unknown", "kernel": None, "input": None, "verdict": ""})
    ok, why = judge(r)
    assert not ok and "predicted fit" in why and "SIGABRT" in why
    r.prediction = Prediction("assert", "check", kernel="k", message="m", words="`m` in k")
    r.diagnosis = {"category": "index_assert", "kernel": "k", "input": None, "verdict": ""}
    assert judge(r) == (True, None)
