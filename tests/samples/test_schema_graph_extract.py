"""`graph --json` (the whole graph and one neighbourhood) and `extract --json` of every sample validate against
inspector/schemas/graph.schema.json and extract.schema.json: a node type or edge kind the schema does not list fails,
and so does a key the answer lacks."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main

jsonschema = pytest.importorskip("jsonschema")

from _paths import ROOT
from _samples import SAMPLES

GRAPH = json.loads((ROOT / "inspector/schemas/graph.schema.json").read_text())
EXTRACT = json.loads((ROOT / "inspector/schemas/extract.schema.json").read_text())
pytestmark = pytest.mark.samples


def _valid(doc, schema):
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def _model(sample) -> list[str]:
    """``--model NAME`` for a package of several models (graph needs one), else nothing."""
    import inspector

    with inspector.open_package(sample.pkg) as pkg:
        names = pkg.model_names
    return ["--model", names[0]] if len(names) > 1 else []


def _json(capsys, argv) -> tuple[int, dict]:
    rc = main(argv)
    return rc, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("schema", [GRAPH, EXTRACT], ids=["graph", "extract"])
def test_schemas_are_valid(schema):
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.id for s in SAMPLES])
def test_graph_and_extract_json_validate(sample, capsys, tmp_path):
    model = _model(sample)
    rc, doc = _json(capsys, ["graph", str(sample.pkg), *model, "--json"])
    assert rc == 0 and doc["nodes"] and doc["edges"]
    _valid(doc, GRAPH)
    kernel = next(n["name"] for n in doc["nodes"] if n["type"] == "kernel")
    rc, near = _json(capsys, ["graph", str(sample.pkg), *model, "--around", kernel, "--json"])
    assert rc == 0 and near["around"] and 0 < len(near["nodes"]) <= len(doc["nodes"])
    _valid(near, GRAPH)
    rc, ex = _json(capsys, ["extract", str(sample.pkg), "-o", str(tmp_path / "x"), "--json"])
    assert rc == 0 and ex["members"]
    _valid(ex, EXTRACT)


def test_the_schemas_can_fail(capsys):
    sample = SAMPLES[0]
    model = _model(sample)
    _, doc = _json(capsys, ["graph", str(sample.pkg), *model, "--json"])
    doc["nodes"][0]["type"] = "no_such_type"
    with pytest.raises(jsonschema.ValidationError):
        _valid(doc, GRAPH)
    with pytest.raises(jsonschema.ValidationError):
        _valid({"output": "x"}, EXTRACT)
