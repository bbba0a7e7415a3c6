"""End to end, as a user meets it: build a CPU package with torch, run it with a bad input in a
subprocess, feed the real stderr to `pt2-inspect trace-assert`, check input, dim and kernel.

Needs torch (the CPU build, torch==2.13.0); skipped where torch is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

# Found, not imported: collecting this file (the fast lane too) does not pay for importing torch.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

MODEL = textwrap.dedent('''
    import sys, torch
    from torch.export import Dim

    class Pick(torch.nn.Module):
        def forward(self, table, idx):
            return table[idx] * 3.0

    pkg = sys.argv[1]
    if sys.argv[2] == "build":
        ep = torch.export.export(Pick(), (torch.randn(10, 4), torch.tensor([1, 2, 3])),
                                 dynamic_shapes=({0: Dim("rows", min=2, max=1000)}, {0: Dim("n", min=1, max=64)}))
        torch._inductor.aoti_compile_and_package(ep, package_path=pkg)
    else:
        m = torch._inductor.aoti_load_package(pkg)
        m(torch.randn(5, 4), torch.tensor([0, 7, 1]))   # 7 is past the 5 rows
''')


@pytest.mark.slow
def test_real_cpu_failure_traces_to_input(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(MODEL)
    pkg = tmp_path / "pick.pt2"
    env = dict(os.environ, OMP_NUM_THREADS="1", TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    subprocess.run([sys.executable, str(script), str(pkg), "build"], check=True, env=env, capture_output=True, timeout=900)
    run = subprocess.run([sys.executable, str(script), str(pkg), "run"], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    assert "index out of bounds" in run.stderr
    # -X importtime lists every module the tool imports (on stderr): torch must not be one of them.
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "inspector.cli", "trace-assert", str(pkg),
                          "--log", "-", "--json"], input=run.stderr, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert len(r["matches"]) == 1
    mt = r["matches"][0]
    assert mt["kernel_kind"] == "cpp"
    assert mt["kernel"] in run.stderr  # "Exception raised from <kernel> at …"
    assert mt["bound"]["input"]["index"] == 0 and mt["bound"]["input"]["dim"] == 0
    assert mt["bound"]["min"] == 2 and mt["bound"]["max"] == 1000
    assert [o["input"]["index"] for o in mt["index_origin"]] == [1]
    imported = [line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")]
    assert "inspector.queries.trace" in imported and "lark" in imported  # the listing is real and complete
    assert not [m for m in imported if m == "torch" or m.startswith("torch.")]
