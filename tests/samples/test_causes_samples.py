"""The decisions of inspector.queries.causes on every real log's trace: each answer's verdict, hypotheses, notes and
certainty are the words of the last decision made for its match (explain words them, nothing else changes them),
and the decisions follow the module's rules on real matches too.  The rules one by one: tests/unit/test_causes.py."""

from __future__ import annotations

import pytest

import inspector
import inspector.explain as words
from inspector.queries import causes as C
from inspector.queries import explanation

from _samples import LOGS, pkg_for


def _id(p) -> str:
    return f"{p.parents[1].name}-{p.parent.name}-{p.stem}" if p.parent.name == "logs" else f"{p.parents[1].name}-{p.parent.name}"


@pytest.mark.parametrize("log", LOGS, ids=_id)
def test_each_answer_is_the_words_of_its_decision(log, monkeypatch):
    made = {}
    decide = C.decide

    def spy(t, n_sites, first_thread_failed=None, thread_line=None, dtypes=None):
        made[id(t)] = (d := decide(t, n_sites, first_thread_failed, thread_line, dtypes))
        return d

    monkeypatch.setattr(explanation.causes, "decide", spy)
    with inspector.open_package(pkg_for(log)) as p:
        r = inspector.trace_assert(p, log=log.read_text(errors="replace"))
    for mt in r.matches:  # (a log no match of this package explains has nothing to compare)
        d = made[id(mt)]
        assert d.verdict.case in C.VERDICT_CASES
        assert mt.verdict == words.verdict_words(d.verdict, mt)
        assert [(h.sentence, h.certainty, h.evidence) for h in mt.hypotheses] == [
            (words.cause_words(c, mt), c.certainty, [words.evidence_words(e, mt) for e in c.evidence]) for c in d.causes]
        assert mt.notes == [words.note_words(n, mt) for n in d.notes]
        assert mt.certainty == d.certainty == C.verdict_certainty(d.causes) and d.certainty in C.CERTAINTY
        assert bool(mt.confirm) == d.confirm
        for c in d.causes:  # the module's rules hold on real matches
            assert c.kind in C.CAUSE_KINDS and c.certainty in C.CERTAINTY
            assert all(e.kind in C.EVIDENCE_KINDS for e in c.evidence)
        if d.causes and d.causes[0].certainty == C.CERTAIN:
            assert all(c.certainty == C.CERTAIN for c in d.causes), "a certain cause leaves no uncertain rival"
        if mt.kernel_kind != "extern" and mt.static_bound is not None and mt.assertion.checks == "index":
            assert d.causes and all(c.kind != "empty_input" for c in d.causes), "a fixed bound is never 0"

