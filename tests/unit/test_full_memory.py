"""The whole parse (`ModelIndex.full`, what `show --full` reads) holds what the model keeps, not every statement's
parse (issue 21 §5): no memo of run_impl's statements, and records that look-alike kernels repeat are one object."""

from __future__ import annotations

import pytest

from _grow import grow
from _paths import S

import inspector
from inspector.parse import STATEMENTS

SAMPLE = S / "cuda/jagged/jagged.pt2"
T5 = S / "cuda/hf_t5_encoder/hf_t5_encoder.pt2"


def test_the_whole_parse_keeps_no_parse_of_run_impl_statements():
    with inspector.open_package(T5, cache=False) as pkg:
        ix = pkg.index()
        eager = ix._eager_statements()  # parsed (and remembered) by the interface, before the whole parse
        m = ix.full()
        assert ix._parse.memo is None
        texts = {k[3] for k in STATEMENTS if len(k) == 4 and k[0] == "wrapper"}
        rest = [st.text for i, st in enumerate(ix.wmap.run) if st.kind not in (None, "comment") and i not in eager]
        assert len(rest) > 20 and m.calls  # the sample has a run_impl worth the name
        assert not texts.intersection(rest)
        assert ix.coverage["run_impl"].total >= len(rest)  # each still parsed and counted


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    out = tmp_path_factory.mktemp("grown") / "jagged-x3.pt2"
    assert grow(SAMPLE, 3, out) == 9
    return out


def test_look_alike_kernels_share_their_tmps_and_launcher_parameters(grown):
    with inspector.open_package(grown, cache=False) as pkg:
        m = pkg.index().full()
        by_body: dict[tuple, list] = {}
        for k in m.kernels.values():
            by_body.setdefault(tuple((t.name, t.expr.text, t.line) for t in k.tmps), []).append(k)
        groups = [ks for body, ks in by_body.items() if body and len(ks) > 1]
        # each real kernel's two copies (a copy's body sits a line lower than the original's: it shares with the other)
        assert len(groups) == 3 and all(len(ks) == 2 for ks in groups)
        for ks in groups:
            first, *others = ks
            for k in others:
                assert all(a is b for a, b in zip(first.tmps, k.tmps, strict=True))
                lp, kp = m.launcher_params[first.name], m.launcher_params[k.name]
                assert lp and all(a is b for a, b in zip(lp, kp, strict=True))


def test_canonical_renumbers_as_the_one_reading_of_names_does():
    """`grammar.canonical` (splits) gives the shape `grammar._each_name` (the reference reading of which digit runs
    are a generated name's) gives, on every line of a real wrapper."""
    from inspector.parse import grammar

    def reference(text):
        digits: dict[str, str] = {}

        def run(d):
            return digits.setdefault(d.group(0), str(len(digits)))

        shape = grammar._each_name(text, run)
        return shape, ({c: d for d, c in digits.items()} if shape != text else {})

    with inspector.open_package(T5, cache=False) as pkg:
        lines = [line.strip() for line in pkg.index().wmap.lines]
    renamed = 0
    for text in lines:
        got = grammar.canonical(text)
        assert got == reference(text), text
        renamed += bool(got[1])
    assert renamed > 500, renamed  # 685 of its 2,031 lines have a name to renumber
