"""The user's own code: exported programs read as JSON (packaged in the .pt2, or --ep FILE)."""

from __future__ import annotations

import json
import zipfile
from _samples import S

import inspector
from inspector.cli import main
from inspector.parse.exported_program import load_ep, packaged_ep

EP_FILE = S / "cpu/gather_dynamic/ep/gather_dynamic_ep.pt2"  # torch.export.save of the same model (make_ep.py)


def test_packaged_exported_program_is_read():
    with inspector.open_package(S / "cpu/gather_dynamic/gather_dynamic.pt2") as p:
        ep = packaged_ep(p)
    assert [(i.position, i.name, i.dtype) for i in ep.user_inputs] == [(0, "x", "float32"), (1, "idx", "int64")]
    assert ep.user_inputs[1].shape == ["s77", "s75"]
    locs = ep.nodes["gather"].locations()
    assert [(l.line, l.code) for l in locs] == [(70, "return torch.gather(x, 1, idx) * 2.0 + 1.0")]
    assert locs[0].file.endswith("sample_packages/build.py")  # where the model classes were when it was built
    assert ep.ranges["s27"] == (2, 4096)


def test_ep_file_is_read_without_unpickling():
    ep = load_ep(str(EP_FILE))
    assert [i.name for i in ep.user_inputs] == ["x", "idx"]
    # The archive holds a pickled sample input; the reader only opens models/*.json.
    with zipfile.ZipFile(EP_FILE) as z:
        assert any(n.endswith("sample_inputs/model.pt") for n in z.namelist())


def test_trace_json_gains_user_names_and_source_locations(capsys):
    pkg = str(S / "cpu/gather_dynamic/gather_dynamic.pt2")
    assert main(["trace-assert", pkg, "--log", str(S / "cpu/gather_dynamic/error.log"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    m = r["matches"][0]
    assert m["bound"]["input"]["user_name"] == "x"
    assert [o["input"]["user_name"] for o in m["index_origin"]] == ["idx"]
    assert m["source_locations"] and m["source_locations"][0]["line"] == 70
    assert {"node", "file", "line", "code", "module"} <= set(m["source_locations"][0])
    assert m["verdict"].startswith("input 1 `idx` holds values ≥ `x`.size(1)")


def test_ep_option_names_inputs_of_a_package_without_one(capsys):
    pkg = str(S / "cuda/gather_dynamic/gather_dynamic.pt2")
    log = str(S / "cuda/gather_dynamic/error.log")
    assert main(["trace-assert", pkg, "--log", log, "--ep", str(EP_FILE), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["matches"][0]
    assert m["bound"]["input"]["user_name"] == "x" and m["index_origin"][0]["input"]["user_name"] == "idx"
    assert main(["show", pkg, "--ep", str(EP_FILE), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert [i["user_name"] for i in s["models"][0]["inputs"]] == ["x", "idx"]


def test_disagreeing_exported_program_is_said_and_not_used(capsys):
    pkg = str(S / "cpu/jagged/jagged.pt2")  # values [s, 8], lengths [s]: idx has rank 2, lengths rank 1
    assert main(["trace-assert", pkg, "--log", str(S / "cpu/jagged/error.log"), "--ep", str(EP_FILE), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert any("exported program says idx has rank 2, the package 1" in h for h in r["hints"])
    pkg = str(S / "cpu/two_models/two_models.pt2")
    assert main(["show", pkg, "--model", "encoder", "--ep", str(EP_FILE), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["models"][0]["exported_program_disagreements"]
    assert all(i["user_name"] is None for i in s["models"][0]["inputs"])


def test_ep_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "x.pt2"
    bad.write_bytes(b"not a zip")
    pkg = str(S / "cpu/jagged/jagged.pt2")
    assert main(["trace-assert", pkg, "--line", "52", "--ep", str(bad)]) == 3
    assert main(["trace-assert", pkg, "--line", "52", "--ep", str(S / "cpu/jagged/jagged.pt2")]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "no exported program inside" in err


TRANSFORMER_EP = S / "cpu/transformer/ep/transformer_ep.pt2"  # build.py's TinyTransformer, torch.export.save (make_ep.py)


def test_nested_modules_and_parameter_fqns():
    ep = load_ep(str(TRANSFORMER_EP))
    assert [i.name for i in ep.user_inputs] == ["ids"]
    assert ep.parameters["p_tok_weight"] == "tok.weight" and len(ep.parameters) >= 100
    assert ep.nodes["layer_norm"].module == "blocks.0.ln1"
    assert ep.nodes["embedding"].module == "tok"
    # The innermost frame is torch's sparse.py; the user's line is the one before it.
    (loc,) = ep.locations(["embedding"])
    assert (loc.line, loc.code, loc.module) == (138, "h = self.tok(ids) + self.pos(pos)", "tok")
    assert loc.file.endswith("sample_packages/build.py")


def test_trace_reads_the_users_line_with_ep(capsys):
    pkg = str(S / "cpu/transformer/transformer.pt2")
    log = str(S / "cpu/transformer/error.log")
    assert main(["trace-assert", pkg, "--log", log, "--ep", str(TRANSFORMER_EP), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    m = r["matches"][0]
    assert r["exported_program"].endswith("transformer_ep.pt2:transformer_ep/models/model.json")
    assert m["index_origin"][0]["input"]["user_name"] == "ids"
    assert m["source_locations"][0]["line"] == 138 and m["source_locations"][0]["module"] == "tok"
    assert m["notes"][-1] == ("In your code: the index comes from `ids`, used at build.py:138  "
                                    "`h = self.tok(ids) + self.pos(pos)` in `tok`.")
    assert not any("exported program" in h for h in r["hints"])  # it agrees with the package
    assert main(["trace-assert", pkg, "--log", log, "--ep", str(TRANSFORMER_EP)]) == 0
    assert "In your code: the index comes from `ids`" in capsys.readouterr().out


def test_check_and_diagnose_take_ep(capsys):
    pkg = str(S / "cpu/transformer/transformer.pt2")
    assert main(["check", pkg, "--ep", str(TRANSFORMER_EP), "--input", "ids=int64[2,600]@cpu", "--json"]) == 1
    r = json.loads(capsys.readouterr().out)
    assert r["checked"][0]["user_name"] == "ids" and [v["kind"] for v in r["violations"]] == ["range"]
    assert main(["diagnose", pkg, "--ep", str(TRANSFORMER_EP), "--log", str(S / "cpu/transformer/error.log"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["trace"]["matches"][0]["source_locations"][0]["line"] == 138


def test_differences_are_typed_records():
    """check and show decide on the record's kind, not on a sentence they read back (issue 21 §3)."""
    from inspector.package import open_package
    from inspector.parse.exported_program import differences, disagreement_text, load_ep

    ep = load_ep(str(EP_FILE))
    ix = open_package(S / "cpu/jagged/jagged.pt2", cache=False).index(None)
    ds = differences(ep, ix.eager(), ix.constants())
    assert [(d.kind, d.index, d.name, d.ep_value, d.pkg_value) for d in ds if d.kind == "rank"] == [
        ("rank", 1, "idx", 2, 1)]
    assert not any(d.names_unusable for d in ds)
    assert "exported program says idx has rank 2, the package 1" in disagreement_text(ds[-1])
    ix = open_package(S / "cpu/two_models/two_models.pt2", cache=False).index("encoder")
    ds = differences(ep, ix.eager(), ix.constants())
    assert [d.kind for d in ds] == ["input_count"] and ds[0].names_unusable
