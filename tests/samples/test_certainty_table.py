"""Issue 35 §4: each certainty level means something, measured on every real log whose truth is known
(bench/certainty.py): certain ≥ 99 % right, likely ≥ 80 %, and docs/certainty.md holds the table as it is today."""

from __future__ import annotations

import sys

import pytest

from _paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import certainty as bench  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def measured():
    return bench.measure()


def test_each_level_holds_its_bar(measured):
    rows, n, left = measured
    assert n >= 250 and left, "the truth table covers the samples, the harvest and the options"
    for level, answers, right, share in bench.table(rows):
        if level in bench.BARS:
            assert answers and share >= bench.BARS[level], (level, answers, right,
                                                             [r for r in rows if r["level"] == level and not r["right"]])


def test_the_docs_table_is_current(measured):
    rows, n, left = measured
    assert bench.doc_table(bench.DOC.read_text()) == bench.markdown(rows, n, len(left)), \
        "docs/certainty.md's table is stale: python bench/certainty.py --write-doc"


def test_the_nan_checks_own_message_is_certain_and_right(measured):
    """The Inf case: the check's own message verbatim, matched to one check, was "likely" (issue 35 §4)."""
    rows = [r for r in measured[0] if "nan_asserts_cpu" in r["log"] or "runtime_triton_nan_cuda/logs/nan_input" in r["log"]]
    own = [r for r in rows if r["basis"] == "own_message"]
    assert len(own) == 8 and all(r["level"] == "certain" and r["right"] for r in own)


def test_a_value_with_a_dtype_rival_stays_likely_since_the_int32_runs_are_not_values(measured):
    """Issue 34's dtype hypothesis lowered "certain" to "likely": the real int32 runs show it had to."""
    rival = [r for r in measured[0] if r["basis"] == "dtype_rival"]
    wrong = {r["log"] for r in rival if not r["right"]}
    assert wrong == {"harvest/issue34_cpu213/dtype_ids_cpu/logs/int32_ids.log", "harvest/issue34_gpu/gpt2_dyn/logs/int32_ids.log"}
    certain = [r for r in measured[0] if r["level"] == "certain"] + rival
    assert sum(r["right"] for r in certain) / len(certain) < bench.BARS["certain"]


NAN_CPU = ROOT / "sample_packages/harvest/issue15_cpu213/nan_asserts_cpu"


@pytest.mark.parametrize("edit,basis", [
    (lambda t: t, "own_message"),  # the real log: one check on arg2_1, at the line the log names
    (lambda t: t.replace("line 924", "line 999"), "log_line"),  # CRAFTED: a line where the package has no such check
    (lambda t: t.replace(".wrapper.cpp, line", ".other.cpp, line"), "log_line"),  # CRAFTED: another file's check
])
def test_a_cpu_nan_check_is_certain_only_where_the_message_matches_the_packages_one_check(edit, basis):
    import inspector
    from inspector import diagnose

    text = edit((NAN_CPU / "logs/inf_input.log").read_text())
    with inspector.open_package(NAN_CPU / "nan_asserts_cpu.pt2") as p:
        d = diagnose(p, text)
    assert d.category == "nan_inf" and d.nan_input == 0 and d.certainty_basis == basis
    assert d.certainty == ("certain" if basis == "own_message" else "likely")
