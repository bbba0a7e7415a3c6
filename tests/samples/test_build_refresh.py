"""The sample builder reproduces its manifests.

`build.py --refresh` recomputes every manifest's `expect` from the sample's spec (specs.py), its saved
error and its package, without torch (truth.py); on a copy of each build folder whose `expect` was
wiped, it must write back the checked-in manifest byte for byte.  With torch, the rest of each manifest
(description, trigger, model class and source, example inputs, dims) must be what the spec builds.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from _samples import S, SAMPLES

sys.path.insert(0, str(S))
from specs import SPECS  # noqa: E402

BUILDS = sorted({s.build for s in SAMPLES})


# Specs whose CUDA twin is not built yet: sample_packages/confirm_gpu.py builds cuda/two_index on a GPU (issue 35 §2;
# not run yet). Each must be built for the CPU; the list may only shrink.
CUDA_PENDING = {"two_index"}


def test_every_spec_is_built_for_cpu_and_cuda():
    assert {s.name for s in SAMPLES if s.build == "cpu"} == set(SPECS), "cpu"
    assert {s.name for s in SAMPLES if s.build == "cuda"} == set(SPECS) - CUDA_PENDING, "cuda"
    assert not CUDA_PENDING & {s.name for s in SAMPLES if s.build == "cuda"}  # built: take it off the list
    assert {s.name for s in SAMPLES} <= set(SPECS)  # older torch builds hold a subset


@pytest.mark.samples
@pytest.mark.parametrize("build", BUILDS)
def test_refresh_reproduces_every_checked_in_manifest(build, tmp_path):
    out = tmp_path / build
    mine = [s for s in SAMPLES if s.build == build]
    assert mine
    for s in mine:
        (out / s.name).mkdir(parents=True)
        (out / s.name / s.pkg.name).symlink_to(s.pkg)
        man = json.loads(s.manifest_path.read_text())
        man["expect"] = {}  # the refresh must rebuild the truth, not keep it
        (out / s.name / "manifest.json").write_text(json.dumps(man, indent=2) + "\n")
    r = subprocess.run([sys.executable, "-X", "importtime", str(S / "build.py"), "--refresh", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    imported = [line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")]
    assert "truth" in imported and "specs" in imported  # the listing is real
    assert not [m for m in imported if m == "torch" or m.startswith("torch.")]
    assert r.stdout.count("(rewritten)") == len(mine)
    for s in mine:
        assert (out / s.name / "manifest.json").read_text() == s.manifest_path.read_text(), s.id


def _build_module():
    spec = importlib.util.spec_from_file_location("sample_build", S / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow  # imports torch (the spec's inputs and dims are torch objects); builds nothing
def test_manifest_is_what_its_spec_builds(sample):
    pytest.importorskip("torch")
    build = _build_module()
    man, spec = sample.manifest, SPECS[sample.name]
    assert man["description"] == build.description(sample.name)
    assert man["trigger"] == spec["trigger_doc"]
    classes = build.model_classes(sample.name)
    assert man["model_class"] == ", ".join(c.__name__ for c in classes)
    assert man["model_source"] == "\n\n".join(build._source(c) for c in classes)
    parts = {m: man["models"][m] for m in spec["models"]} if "models" in spec else {None: man}
    for model_name, part in parts.items():
        args, dims = build.example(sample.name, "cpu", model_name)
        assert part["inputs"] == build._inputs_json(args)
        assert part["dynamic_shapes"] == build._dims_json(dims)
    # Build-dependent: an option this torch lacks is left out; the compile adds aot_inductor.package.
    allowed = {**(spec.get("inductor_configs") or {}), "aot_inductor.package": True}
    assert all(allowed.get(k, object()) == v for k, v in man["inductor_configs"].items())
    assert not man["exported_program_packaged"] or spec.get("with_exported_program")
