"""`show --json` of every real sample (and of a bare wrapper and an unknown dialect) validates against the
published schema inspector/schemas/show.schema.json."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main

jsonschema = pytest.importorskip("jsonschema")

from _paths import ROOT, S
from _samples import PACKAGES, sample_of

SCHEMA = json.loads((ROOT / "inspector/schemas/show.schema.json").read_text())
SAMPLES = sorted(S.glob("*/*/*.pt2"))


def test_schema_is_valid():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("pkg", SAMPLES, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in SAMPLES])
def test_show_json_validates(pkg, capsys):
    rc = main(["show", str(pkg), "--json"])
    if rc != 0:
        gap = sample_of(pkg).gap("read")
        assert gap, capsys.readouterr().err  # only a sample tests/known_gaps.py says is unreadable may fail
        pytest.skip(f"known gap: {gap}")
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert doc["models"]


def test_samples_found():
    assert len(SAMPLES) >= 12


def test_schema_catches_drift():
    """A key the schema does not know is an error: the schema is kept in step with summarize()."""
    pkg = S / "cpu/jagged/jagged.pt2"
    import inspector
    from inspector.queries.show import summarize

    with inspector.open_package(pkg) as p:
        doc = summarize(p).to_dict()
    doc["models"][0]["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)


ALL_SAMPLES = PACKAGES


@pytest.mark.parametrize("pkg", ALL_SAMPLES, ids=[str(p.relative_to(S)) for p in ALL_SAMPLES])
def test_typed_show_result_is_what_show_json_prints(pkg, capsys):
    """`summarize` returns a typed ShowResult; its to_dict() is exactly `show --json` (keys, order, values),
    once `annotate_summary` has added the exported program's names as `show` does."""
    import inspector
    from inspector.parse.exported_program import annotate_summary
    from inspector.queries.show import KernelSummary, ModelSummary, ShowResult, summarize

    # No index cache on either side: the lazy coverage counts the statements parsed in this process.
    assert main(["show", str(pkg), "--json", "--no-cache"]) == 0
    printed = capsys.readouterr().out
    with inspector.open_package(pkg, cache=False) as p:
        s = summarize(p)
        assert isinstance(s, ShowResult) and all(isinstance(m, ModelSummary) for m in s.models)
        assert all(isinstance(k, KernelSummary) for m in s.models for k in m.kernels)
        if not s.exported_programs:  # nothing to annotate: the defaults are what show prints
            assert json.dumps(s.to_dict(), indent=2) + "\n" == printed
        annotate_summary(p, s)
    doc = s.to_dict()
    assert json.dumps(doc, indent=2) + "\n" == printed  # the same text: same keys in the same order
    assert doc == json.loads(printed)
    jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)


def test_typed_samples_found():
    assert len(ALL_SAMPLES) >= 60 and any(p.parent.name == "package" for p in ALL_SAMPLES)
    # one carries its exported program (models/*.json), so annotate_summary's fields are checked filled in too
    assert S / "cpu/gather_dynamic/gather_dynamic.pt2" in ALL_SAMPLES
