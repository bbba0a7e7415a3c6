"""The per-sample tests of test_doctor.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import json

import pytest

from _cli import run
from _paths import ROOT, S
from _queries import MULTI, doctor_pkg


@pytest.mark.samples
def test_a_package_built_by_2_15_loads_with_2_13():
    """Checked for real: every cpu-2.15 sample loads with the torch 2.13 of the tests (aoti_load_package)."""
    pkgs = sorted((S / "cpu-2.15").glob("*/*.pt2"))
    assert pkgs  # a loop over none would check nothing
    for pkg in pkgs:
        assert not [f for f in doctor_pkg(pkg, torch="2.13").errors if f.kind == "torch_abi"], pkg


@pytest.mark.samples
def test_every_sample_gets_an_answer_and_json():
    seen = 0
    for pkg in sorted(S.glob("*/*/*.pt2")):
        d = doctor_pkg(pkg).to_dict()
        json.dumps(d)
        assert d["verdict"] and d["findings"] and all(f["kind"] and f["message"] for f in d["findings"])
        seen += 1
    assert seen >= 60


@pytest.mark.samples
def test_doctor_json_matches_its_schema_on_every_sample(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "inspector" / "schemas" / "doctor.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    seen = 0
    for pkg in sorted(S.glob("*/*/*.pt2")) + [MULTI]:
        rc, out, _ = run(capsys, ["doctor", str(pkg), "--gpu", "sm_90", "--torch", "2.13", "--json"])
        doc = json.loads(out)
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
        assert rc == (0 if doc["ok"] else 1)
        seen += 1
    assert seen >= 60
    doc["findings"][0]["severity"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def test_a_kernel_that_stores_a_nan_constant_is_an_error_and_no_other_package_has_one():
    """Real (torch 2.11, H200): a user-defined Triton kernel taking TMA descriptors was dropped at export; the
    package's relu stores relu(NaN) and its real run printed `max error nan`. Every other package: none."""

    import inspector
    from inspector.queries.doctor import doctor
    from inspector.queries.nan_constants import constant_nan_kernels
    from _samples import PACKAGES

    folder = S / "harvest/aoti_tests/test_triton_kernel_tma_descriptor"
    assert "max error nan" in (folder / "logs/good.log").read_text()
    with inspector.open_package(folder / "test_triton_kernel_tma_descriptor.pt2") as pkg:
        r = doctor(pkg)
    f = next(x for x in r.findings if "NaN constant" in x.message)
    assert f.severity == "error" and f.message.startswith("triton_poi_fused_relu_0") and not r.ok
    others = [p for p in PACKAGES if p.parent != folder]
    assert len(others) > 100
    for p in others:
        with inspector.open_package(p) as pkg:
            assert all(not constant_nan_kernels(pkg, n) for n in pkg.model_names), p
