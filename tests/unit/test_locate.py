"""locate on real packages: user lines, FX nodes, modules and kernels back to the launches that came from them,
checked against the packaged exported program's stack traces and kernel_information.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import inspector
from inspector.errors import UsageError
from inspector.parse.exported_program import load_ep
from inspector.queries.locate import locate

from _paths import ROOT, S


def test_kernel_information_stack_traces_are_located_back():
    """cpu/jagged carries kernel_information.json: every user line it names locates the launch it came from."""
    path = S / "cpu" / "jagged" / "jagged.pt2"
    with inspector.open_package(path) as pkg:
        info = pkg.archive.read_json(pkg.files("model").kernel_information)
        checked = 0
        for key, entry in info.items():
            target = key.rsplit(":", 1)[0]
            for st in entry["stack_traces"]:
                m = re.search(r'File "([^"]+)", line (\d+)', st)
                r = locate(pkg, source=f"{Path(m.group(1)).name}:{m.group(2)}")
                assert target in [x.target for x in r.found], (key, m.groups())
                checked += 1
        assert checked >= 5
        r = locate(pkg, source="build.py:84")
        (x,) = r.found
        assert x.target == "cpp_fused_ge_index_index_copy_mul_sub_where_zeros_like_0" and x.wrapper_lines == [907]
        assert r.printer_filter == x.target
        r = locate(pkg, node="cumsum")
        assert [(x.target, x.kind, x.wrapper_lines) for x in r.found] == [("aoti_torch_cpu_cumsum", "extern", [891])]


def test_module_through_an_exported_program_file():
    ep = load_ep(str(S / "cpu" / "transformer" / "ep" / "transformer_ep.pt2"))
    with inspector.open_package(S / "cpu" / "transformer" / "transformer.pt2") as pkg:
        r = locate(pkg, module="blocks.0.qkv", ep=ep)
        assert r.found and all(x.kind == "extern" and len(x.wrapper_lines) == 1 for x in r.found)
        assert r.found[0].target == "aoti_torch_cpu_addmm_out"
        with pytest.raises(UsageError, match="exported program"):
            locate(pkg, module="blocks.0.qkv")


def test_cuda_source_nodes_without_kernel_information():
    with inspector.open_package(S / "cuda" / "transformer" / "transformer.pt2") as pkg:
        r = locate(pkg, node="embedding")
        assert r.source == "source nodes comments" and r.found
        assert r.found[0].target == "triton_per_fused_add_arange_embedding_native_layer_norm_0"


def test_usage_errors_and_nothing_found(capsys):
    from inspector.cli import main

    path = str(S / "cpu" / "jagged" / "jagged.pt2")
    assert main(["locate", path, "--source", "build.py"]) == 2
    assert main(["locate", path, "--kernel", "nope"]) == 2
    assert "cpp_fused_ge_index" in capsys.readouterr().err
    assert main(["locate", path]) == 2
    assert main(["locate", path, "--source", "build.py:1"]) == 1
    assert capsys.readouterr().out.startswith("✗ nothing in the package came from line build.py:1")


@pytest.mark.parametrize("argv", [["--source", "build.py:84"], ["--node", "cumsum"], ["--kernel", "aoti_torch_cpu_cumsum"],
                                  ["--source", "build.py:2"]])
def test_locate_json_matches_its_schema(argv, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from inspector.cli import main

    schema = json.loads((ROOT / "inspector" / "schemas" / "locate.schema.json").read_text())
    rc = main(["locate", str(S / "cpu" / "jagged" / "jagged.pt2"), *argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert rc == (0 if doc["found"] else 1)
