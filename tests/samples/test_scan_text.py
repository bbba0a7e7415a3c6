"""`scan_wrapper` (launchers read by searches over the text, `WrapperLines` in place of a list of every line) finds
exactly what the line-by-line reference scan finds, on the wrapper of every model of every real package."""

from __future__ import annotations

import pytest
from _samples import PACKAGES
from _scan_check import same_scan

import inspector


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_the_scan_equals_the_reference(pkg):
    with inspector.open_package(pkg, cache=False) as p:
        for name in p.model_names:
            f = p.files(name)
            assert same_scan(p.archive.read_text(f.wrapper), f.wrapper) > 0
