"""`report --json` of every sample (with its real error.log; without a log; with a log no assertion of the package
matches, where diagnose answers) validates against inspector/schemas/report.schema.json, a closed object: a key
the schema does not list fails, and so does a key it requires that the answer lacks."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from inspector.cli import main

jsonschema = pytest.importorskip("jsonschema")

from _paths import ROOT, S
from _samples import SAMPLES

SCHEMA = json.loads((ROOT / "inspector/schemas/report.schema.json").read_text())


def _valid(doc, schema=SCHEMA):
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def _report(capsys, tmp_path: Path, pkg: Path, log: Path | None) -> tuple[int, dict, Path]:
    out = tmp_path / "report.html"
    rc = main(["report", str(pkg), *(["--log", str(log)] if log else []), "-o", str(out), "--json"])
    doc = json.loads(capsys.readouterr().out)
    return rc, doc, out


def test_schema_is_valid():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.id for s in SAMPLES])
def test_report_json_of_every_sample_validates(sample, capsys, tmp_path):
    assert len(SAMPLES) >= 40
    log = sample.error_log if sample.fired else None  # an unfired trigger left an empty log: a usage error
    rc, doc, out = _report(capsys, tmp_path, sample.pkg, log)
    _valid(doc)
    assert rc in (0, 1), rc
    # what the answer says of the page is the page
    assert doc["output"] == str(out) and doc["bytes"] == len(out.read_text(encoding="utf-8").encode("utf-8"))
    assert (doc["looked_for"] is None) == (log is None)
    if sample.traces:  # a real error the tool traces: drawn
        assert doc["traces"] >= 1, doc


def test_report_json_without_a_log_and_when_diagnose_answers(capsys, tmp_path):
    pkg = S / "cpu/jagged/jagged.pt2"
    rc, doc, _ = _report(capsys, tmp_path, pkg, None)
    _valid(doc)
    assert (rc, doc["traces"], doc["looked_for"]) == (0, 0, None) and doc["kernels"] >= 1
    # the CUDA build's log on the CPU build: no assertion matches, the page leads with diagnose's answer
    rc, doc, _ = _report(capsys, tmp_path, pkg, S / "cuda/jagged/error.log")
    _valid(doc)
    assert doc["traces"] == 0 and doc["looked_for"] and doc["verdict"].startswith("✗ foreign_log: ")


def test_the_schema_holds_each_field(capsys, tmp_path):
    """Can fail: the real answer fails against the schema with any one field taken out of it (the object is
    closed), and an answer that lacks a field, or has one more, fails the schema as it is."""
    _, doc, _ = _report(capsys, tmp_path, S / "cuda/jagged/jagged.pt2", S / "cuda/jagged/error.log")
    _valid(doc)
    fields = list(SCHEMA["properties"])
    assert fields == list(doc) and set(SCHEMA["required"]) == set(fields)
    for f in fields:
        narrower = copy.deepcopy(SCHEMA)
        del narrower["properties"][f]
        narrower["required"].remove(f)
        with pytest.raises(jsonschema.ValidationError):
            _valid(doc, narrower)
        with pytest.raises(jsonschema.ValidationError):
            _valid({k: v for k, v in doc.items() if k != f})
    with pytest.raises(jsonschema.ValidationError):
        _valid({**doc, "surprise": 1})
    with pytest.raises(jsonschema.ValidationError):
        _valid({**doc, "traces": "1"})
