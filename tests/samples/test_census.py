"""The census (issue 16): every package here — the samples and the harvested packages of code nobody here wrote
(torch_geometric, timm, Hugging Face, PyTorch's own AOTI test models) — is read with every statement understood
(`pt2-inspect --strict show --full` exits 0), and every cubin it ships belongs to a kernel `show` lists."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

import inspector
from inspector.cli import main

from _paths import S

PACKAGES = sorted(p for p in S.glob("**/*.pt2") if p.parent.name != "ep" and p.name != "exported_program.pt2")
IDS = [str(p.relative_to(S).parent) for p in PACKAGES]
pytestmark = pytest.mark.samples


def test_the_census_covers_the_harvest():
    assert len(PACKAGES) >= 95 and sum("harvest" in p.parts for p in PACKAGES) >= 35


@pytest.mark.parametrize("pkg", PACKAGES, ids=IDS)
def test_every_statement_is_understood(pkg, capsys):
    rc = main(["--strict", "--no-cache", "show", str(pkg), "--full", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err[-600:]
    doc = json.loads(out.out)
    for m in doc["models"]:
        cov = m["coverage"]
        assert cov["understood"] == cov["total"] > 0, {r: v["skipped"][:3] for r, v in cov["regions"].items() if v["skipped"]}


_CUBIN = re.compile(r"(\w+\.cubin)")


@pytest.mark.parametrize("pkg", [p for p in PACKAGES if any(n.endswith(".cubin") for n in zipfile.ZipFile(p).namelist())],
                         ids=lambda p: str(p.relative_to(S).parent))
def test_every_cubin_belongs_to_a_listed_kernel(pkg):
    with zipfile.ZipFile(pkg) as z:
        shipped = {Path(n).name for n in z.namelist() if n.endswith(".cubin")}
    with inspector.open_package(pkg) as p:
        owned = {}  # cubin -> the kernel whose launcher loads it
        for name in p.model_names:
            ix = p.index(name)
            wm = ix.wmap
            mine = {}
            for kernel, region in wm.launchers.items():
                if region.load_line is not None:
                    for c in _CUBIN.findall(wm.lines[region.load_line]):
                        mine[c] = kernel
            assert set(mine.values()) <= set(ix.kernel_names()), "a launcher's kernel is missing from show's list"
            owned.update(mine)
    assert shipped, pkg
    missing = sorted(shipped - set(owned))
    assert not missing, f"cubins no listed kernel loads: {missing[:5]}"
