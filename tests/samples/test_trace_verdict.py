"""Issue 6 §4: an answer people read in five seconds — the verdict first, each hypothesis once."""

from __future__ import annotations

import json
import re

import pytest

from inspector.cli import main

from _paths import S
from _samples import MANIFESTS, sample_of


def _fired(p):
    """The sample's real error fired and traces today (tests/known_gaps.py)."""
    return sample_of(p).traces


@pytest.mark.parametrize("manifest", [m for m in MANIFESTS if _fired(m)], ids=lambda p: f"{p.parent.parent.name}-{p.parent.name}")
def test_verdict_is_the_first_line_and_hypotheses_are_not_repeated(manifest, capsys):
    pkg = manifest.parent / f"{json.loads(manifest.read_text())['name']}.pt2"
    assert main(["trace-assert", str(pkg), "--log", str(manifest.parent / "error.log")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("verdict: ")
    assert main(["trace-assert", str(pkg), "--log", str(manifest.parent / "error.log"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    m = r["matches"][0]
    assert r["verdict"] == m["verdict"] and m["verdict"]
    texts = [h["text"] for h in m["hypotheses"]]
    assert len(texts) == len(set(texts))
    for h in texts + m["notes"]:
        for t in (m["bound"] or {}).get("terms", []):
            # whole names: torch 2.6's `ks0 = s0` is no repeat of s0 (its tail merely spells "s0 = s0")
            assert not re.search(rf"(?<!\w){re.escape(t['symbol'])} = {re.escape(t['symbol'])}\b", h), h


def test_static_table_verdict_leads_with_the_value_not_an_empty_input(capsys):
    # two_models' decoder: memory has 6 rows, idx holds 9 (the issue's example); embedding: id 1500, 1000 rows.
    pkg = S / "cpu/embedding/embedding.pt2"
    assert main(["trace-assert", str(pkg), "--log", str(S / "cpu/embedding/error.log"), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["matches"][0]
    assert m["verdict"].startswith("input 0 holds values ≥ 1000")
    assert "`emb.weight`" in m["verdict"]
    assert "empty" not in m["hypotheses"][0]["text"]


def test_value_from_an_input_ranks_before_an_empty_input(capsys):
    pkg = S / "cpu/two_models/two_models.pt2"
    assert main(["trace-assert", str(pkg), "--log", str(S / "cpu/two_models/error.log"), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["matches"][0]
    assert m["hypotheses"][0]["text"].startswith("input 1 holds a value outside")
    assert "empty" in m["hypotheses"][1]["text"]
    # no log evidence tells them apart (a CPU check prints no value, no thread): both possible, and a run tells;
    # the ids read straight from an int64 input may be of another dtype (issue 34 §4): possible, last
    assert [h["certainty"] for h in m["hypotheses"]] == ["possible", "possible", "possible"]
    assert "not of the dtype the package was compiled for" in m["hypotheses"][2]["text"]
    assert any(c.startswith("pt2-inspect sweep ") and c.endswith(" --run") for c in m["confirm"])


@pytest.mark.parametrize("flavour", ["cpu", "cpu-2.6"])
def test_a_cpu_check_without_evidence_lists_the_empty_input_without_ranking_it_by_rule(flavour, capsys):
    """Issue 20 (a), (b): jagged's real cause is an empty `values` (the index is computed by cumsum from the other
    input).  A CPU check prints no value and no thread, so no fixed rule may rank either cause first: both are
    'possible', the verdict names both, and the answer gives the commands that tell them apart.  torch 2.6 writes
    no input guards (min/max unknown): the empty-input cause must still be offered."""
    pkg = S / f"{flavour}/jagged/jagged.pt2"
    assert main(["trace-assert", str(pkg), "--log", str(S / flavour / "jagged/error.log"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    m = r["matches"][0]
    empty = [h for h in m["hypotheses"] if "empty input" in h["text"]]
    assert empty and "empty input" in m["verdict"]
    assert {h["certainty"] for h in m["hypotheses"]} == {"possible"} and len(m["hypotheses"]) == 2
    assert m["certainty"] == r["certainty"] == "possible"
    assert len(m["confirm"]) == 2 and all(str(pkg) in c for c in m["confirm"])


def test_thread_evidence_drops_the_empty_input_and_leaves_the_value_against_the_dtype(capsys):
    """cuda/gather_dynamic's real log lists thread [3,0,0] failing and not thread [0,0,0]: the bound is not 0, so the
    empty input is dropped; a value read from an int64 input is then likely, the input's dtype its one rival (issue
    34 §4: an int32 tensor read as int64 fails the same way; nothing in the log tells them apart)."""
    pkg = S / "cuda/gather_dynamic/gather_dynamic.pt2"
    assert main(["trace-assert", str(pkg), "--log", str(S / "cuda/gather_dynamic/error.log"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    m = r["matches"][0]
    assert m["certainty"] == "likely" and m["hypotheses"][0]["certainty"] == "likely"
    assert not any("empty input" in h["text"] for h in m["hypotheses"])
    assert "not of the dtype the package was compiled for" in m["hypotheses"][1]["text"]
    assert any("thread [0,0,0]" in e for e in m["hypotheses"][0]["evidence"]) and m["confirm"]


def test_a_one_row_buffer_is_named_by_the_dim_it_is_indexed_along():
    """Issue 15 §3: HF BERT's `embeddings.token_type_ids` is a [1, 512] buffer indexed along dim 1 with values read
    from `embeddings.position_ids`: never "1 rows"; and values read from a constant point at how it was loaded."""

    import inspector
    from inspector import trace_assert

    pkg_path = S / "harvest/timm_hf/hf_bert/hf_bert.pt2"
    with inspector.open_package(pkg_path) as pkg:
        t = trace_assert(pkg, message="index out of bounds: 0 <= tmp11 < 512",
                         kernel="triton_per_fused_add_embedding_expand_gather_native_layer_norm_slice_0")
    assert "1 rows" not in t.verdict
    assert "`embeddings.token_type_ids` (shape [1, 512]: indexed along dim 1, 512 long)" in t.verdict
    assert "values read from constant embeddings.position_ids hold values ≥ 512" in t.verdict
    assert "never loaded" in t.matches[0].hypotheses[0].sentence
