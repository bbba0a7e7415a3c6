"""Issue 35 §6: a package built without its weights (package_constants_in_so=False) segfaults on its first run
unless the caller loads them: `doctor` leads with it as a warning (not a green tick) and gives this package's loader
call, `show` says the constants are not in the package.  §5: a CPU package's memory answer speaks of what applies to
the CPU only (no cuBLAS, no GPU).  Real packages: harvest/issue15{,_cpu213}/weightless_*, built by harvest.py."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from _cli import run
from _paths import ROOT, S

H = S / "harvest"
WEIGHTLESS = [H / "issue15_cpu213/weightless_cpu/weightless_cpu.pt2", H / "issue15/weightless_cuda/weightless_cuda.pt2"]
DOCTOR_SCHEMA = json.loads((ROOT / "inspector/schemas/doctor.schema.json").read_text())
SHOW_SCHEMA = json.loads((ROOT / "inspector/schemas/show.schema.json").read_text())


@pytest.mark.parametrize("pkg", WEIGHTLESS, ids=lambda p: p.stem)
def test_doctor_leads_with_the_missing_weights_and_gives_the_loaders_call(pkg, capsys):
    rc, out, _ = run(capsys, ["--no-cache", "doctor", pkg])
    first = out.splitlines()[0]
    assert rc == 0, "a warning, as every doctor warning: only an error exits 1"
    assert not first.startswith("✓") and first.startswith("!") and "built without weights" in first
    assert "load_constants" in first and len(first) <= 120
    rc, js, _ = run(capsys, ["--no-cache", "doctor", pkg, "--json"])
    d = json.loads(js)
    jsonschema.validate(d, DOCTOR_SCHEMA)
    assert d["ok"] and d["lead"] == "weights_left_out"
    f = d["findings"][0]  # the warning it leads with comes first
    assert f["kind"] == "weights" and f["message"].startswith("built without weights")
    assert f"torch._inductor.aoti_load_package({str(pkg)!r})" in f["fix"]
    assert "m.load_constants(constants_map, check_full_update=True)" in f["fix"]  # torch 2.13's signature
    assert "named_buffers()" in f["fix"] and "get_constant_fqns()" in f["fix"]
    assert any("'lin.weight', 'lin.bias'" in e for e in f["evidence"]), f["evidence"]


def test_a_package_with_its_weights_keeps_its_tick(capsys):
    rc, out, _ = run(capsys, ["--no-cache", "doctor", S / "cpu/embedding/embedding.pt2", "--json"])
    d = json.loads(out)
    assert d["lead"] is None and not any(f["message"].startswith("built without weights") for f in d["findings"])


@pytest.mark.parametrize("pkg", WEIGHTLESS, ids=lambda p: p.stem)
def test_show_says_the_constants_are_not_in_the_package(pkg, capsys):
    rc, out, _ = run(capsys, ["--no-cache", "show", pkg])
    assert rc == 0 and "constants: not in the package (built with package_constants_in_so=False)" in out
    rc, js, _ = run(capsys, ["--no-cache", "show", pkg, "--json"])
    d = json.loads(js)
    jsonschema.validate(d, SHOW_SCHEMA)
    assert [m["constants_stored"] for m in d["models"]] == ["absent"]


def test_show_says_where_constants_are_kept(capsys):
    for pkg, stored in [(S / "cpu/embedding/embedding.pt2", "so"),
                        (H / "issue14_cpu213/pickle_weights_cpu/pickle_weights_cpu.pt2", "pickle_weights")]:
        rc, js, _ = run(capsys, ["--no-cache", "show", pkg, "--json"])
        assert [m["constants_stored"] for m in json.loads(js)["models"]] == [stored], pkg


GPU_WORDS = re.compile(r"cuBLAS|cuDNN|GPU|H200|CUDA|max_memory_allocated|cublas", re.I)


@pytest.mark.parametrize("pkg", [H / "issue15_cpu213/weightless_cpu/weightless_cpu.pt2",
                                 S / "cpu/transformer/transformer.pt2",
                                 H / "memory_cpu213/bert_pool/bert_pool.pt2"], ids=lambda p: p.stem)
def test_a_cpu_packages_memory_answer_says_only_what_applies_to_the_cpu(pkg, capsys):
    rc, js, _ = run(capsys, ["--no-cache", "doctor", pkg, "--json", "--input", "0=int64[2,16]"] if "bert" in pkg.stem
                    else ["--no-cache", "doctor", pkg, "--json"])
    d = json.loads(js)
    mem = [f for f in d["findings"] if f["kind"] == "memory"]
    assert mem and "on cpu" in mem[0]["message"]
    assert not GPU_WORDS.search(json.dumps(mem)), mem
    facts = d["facts"]["model"]["memory"]
    assert not any(GPU_WORDS.search(k) for k in facts) and "first_run_bytes" not in facts, sorted(facts)
