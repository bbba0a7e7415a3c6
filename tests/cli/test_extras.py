"""Each extra's command says which `pip install` to run when the extra is missing (one line, exit 2), and
`pip install pt2-inspect` itself depends on lark, networkx and rich only."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from _paths import ROOT


def _without(modules: list[str], argv: list[str]):
    """The CLI in a fresh interpreter where importing ``modules`` fails as if they were not installed."""
    code = ("import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
            + f"from inspector.cli import main\nsys.exit(main({argv!r}))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("modules,argv,pip", [
    (["fsspec"], ["show", "https://example.invalid/m.pt2"], "pip install 'pt2-inspect[remote]'"),
    (["s3fs"], ["show", "s3://bucket/m.pt2"], "pip install 'pt2-inspect[remote]'"),
    (["mcp", "mcp.server", "mcp.server.lowlevel", "mcp_types"], ["mcp"], "pip install 'pt2-inspect[mcp]'"),
    (["distributed"], ["scan", "sample_packages/cpu/jagged/jagged.pt2", "--scheduler", "tcp://127.0.0.1:1"],
     "pip install 'pt2-inspect[dask]'"),
], ids=["remote", "s3", "mcp", "dask"])
def test_a_missing_extra_says_which_pip_install(modules, argv, pip):
    p = _without(modules, argv)
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and pip in lines[0], p.stderr


def test_the_base_install_stays_lean_and_every_extra_is_pinned():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert sorted(d.split(">")[0].split("=")[0] for d in meta["dependencies"]) == ["lark", "networkx", "rich"]
    extras = meta["optional-dependencies"]
    for name in ("mcp", "remote", "dask"):
        assert extras[name] and all("==" in d for d in extras[name]), name
        assert any(f"pt2-inspect[" in d and name in d for d in extras["test"])  # the README's test command has it
    assert meta["scripts"] == {"pt2-inspect": "inspector.cli:entry"}  # what `pipx run pt2-inspect` runs
