"""Where things are, for every test file and helper (issue 33 §7: the repository's root was spelled 72 times).

``ROOT``: the repository's root; ``TESTS``: ``tests/``; ``S``: ``sample_packages/``, the real packages and logs
(tests/_samples.py lists what is in it)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
S = ROOT / "sample_packages"
