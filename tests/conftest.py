"""Every test runs with its own index cache folder: nothing is written to the user's cache dir."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("PT2_INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("pt2-inspect-cache")))
    yield
    mp.undo()
