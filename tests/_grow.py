"""Packages grown from a real sample by bench/make_large.py (its kernels copied under new names), for the tests of
what a large package costs: one import of the bench script, in one place."""

from __future__ import annotations

import sys
from pathlib import Path

from _paths import ROOT


def grow(sample: Path, variants: int, out: Path) -> int:
    """Write ``sample`` grown to ``variants`` copies at ``out``; the number of kernels it holds."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import make_large
    finally:
        sys.path.pop(0)
    return make_large.make(sample, variants, out)
