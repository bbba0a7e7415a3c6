"""`show` leads with the models and counts constants from the scan; it lists them only with --constants
(and always in --json).  The scan's count must agree with the grammar's reading of every constant."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import inspector
from inspector.cli import main

from _paths import S

PACKAGES = sorted(S.glob("*/*/*.pt2"))


@pytest.mark.parametrize("pkg", PACKAGES, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in PACKAGES])
def test_scan_counts_the_constants_the_grammar_reads(pkg):
    with inspector.open_package(pkg, cache=False) as p:
        assert p.model_names  # a loop over none would compare nothing
        for name in p.model_names:
            ix = p.index(name)
            tot = ix.constant_totals()
            parsed = ix.constants()
            assert tot["count"] == len(parsed)
            assert tot["nbytes"] == sum(c.nbytes or 0 for c in parsed)
            by_dtype = Counter()
            for dt, _dev, _count, nbytes in tot["by"]:
                by_dtype[dt] += nbytes
            want = Counter()
            for c in parsed:
                want[c.dtype] += c.nbytes or 0
            assert {k: v for k, v in by_dtype.items() if v} == {k: v for k, v in want.items() if v}


def _show(capsys, *args) -> str:
    assert main(["show", *args, "--no-cache"]) == 0
    return capsys.readouterr().out


def test_show_lists_constants_only_when_asked(capsys):
    pkg = str(S / "cuda/two_models/two_models.pt2")
    out = _show(capsys, pkg)
    assert out.index("models (2)") < out.index("model decoder")  # the models lead
    assert "constants 3 (17.5 kB): float32 on cuda 3 (17.5 kB); `show --constants` lists them" in out
    assert "emb_weight" not in out
    listed = _show(capsys, pkg, "--constants")
    assert "emb_weight" in listed and "`show --constants` lists them" not in listed
    doc = json.loads(_show(capsys, pkg, "--json"))  # --json lists every constant, with or without the flag
    assert [c["name"] for c in doc["models"][1]["constants"]] == ["emb_weight", "proj_weight", "proj_bias"]
    assert "constant_totals" not in doc["models"][0]


def test_constant_table_is_capped_like_kernels(capsys):
    pkg = str(S / "cpu/transformer/transformer.pt2")
    with inspector.open_package(pkg, cache=False) as p:
        n = len(p.index(p.model_names[0]).constants())
    if n <= 60:
        pytest.skip(f"only {n} constants")
    out = _show(capsys, pkg, "--constants")
    assert f"… {n - 60:,} more constants not shown" in out
