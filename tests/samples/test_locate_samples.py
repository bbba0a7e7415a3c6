"""The per-sample tests of test_locate.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.parse.exported_program import packaged_ep
from inspector.queries.locate import locate

from _samples import WITH_EP


@pytest.mark.parametrize("path", WITH_EP, ids=lambda p: p.parent.parent.name)
def test_every_user_line_of_the_packaged_exported_program_is_located(path):
    """Each line of the user's code the exported program's stack traces name (models/model.json, read as JSON)
    leads to a launch, and the launch's FX nodes (or its fused name) hold that line's nodes."""
    with inspector.open_package(path) as pkg:
        ep = packaged_ep(pkg)
        assert ep is not None
        lines = {(Path(loc.file).name, loc.line): n.name for n in ep.nodes.values() for loc in n.locations()}
        assert lines, "the exported program names no user line"
        for (file, line), node in lines.items():
            r = locate(pkg, source=f"{file}:{line}")
            assert r.found, (path, file, line)
            x = r.found[0]
            assert node in x.nodes or any(node in w for w in x.why), (x.nodes, x.why)
            assert x.wrapper_lines and all(isinstance(n, int) for n in x.wrapper_lines)
