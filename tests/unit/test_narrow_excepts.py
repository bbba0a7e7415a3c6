"""The four handlers that caught every exception (issue 33 §4) now catch what they are for: an unreadable member or
a model the package does not hold (an `InspectorError`) is still a missing fact; a bug of ours (a TypeError inside)
is no longer swallowed, it reaches the CLI's exit 4."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from inspector.errors import UnreadablePackage, UsageError


def _raising(exc):
    def f(*_a, **_k):
        raise exc
    return f


def _subject():
    return SimpleNamespace(pkg=object(), name="model", device="cuda", readings={},
                           finding=lambda *a, **k: pytest.fail("no finding without an answer"))


def test_constant_nan_check(monkeypatch):
    import inspector.queries.nan_constants as nc
    from inspector.queries.doctor.guards import ConstantNan

    monkeypatch.setattr(nc, "constant_nan_kernels", _raising(UnreadablePackage("kernel member damaged")))
    assert ConstantNan().run(_subject(), None) == []
    monkeypatch.setattr(nc, "constant_nan_kernels", _raising(TypeError("a bug of ours")))
    with pytest.raises(TypeError):
        ConstantNan().run(_subject(), None)


def test_memory_check(monkeypatch):
    import inspector.queries.memory as mem
    from inspector.queries.doctor.footprint import Memory

    monkeypatch.setattr(mem, "memory_plan", _raising(UnreadablePackage("wrapper damaged")))
    assert Memory().run(_subject(), None) == []
    monkeypatch.setattr(mem, "memory_plan", _raising(TypeError("a bug of ours")))
    with pytest.raises(TypeError):
        Memory().run(_subject(), None)


def test_explanation_allocation_sizes():
    from inspector.queries.explanation import _allocation_sizes

    m = SimpleNamespace(name="hand_made")
    assert _allocation_sizes(SimpleNamespace(index=_raising(UsageError("no model hand_made"))), m)("buf0", 3) is None
    with pytest.raises(TypeError):
        _allocation_sizes(SimpleNamespace(index=_raising(TypeError("a bug of ours"))), m)("buf0", 3)


def test_printer_call_site(monkeypatch):
    import inspector.queries.locate as loc
    from inspector.errors import NothingFound
    from inspector.queries.printer import PrintedCall, _Run

    run = _Run.__new__(_Run)
    run.pkg, run.model = object(), "model"
    pc = PrintedCall("triton_poi_fused_0", 1, 1, 1, 12, ["buf0"])
    monkeypatch.setattr(loc, "locate", _raising(NothingFound("nothing located")))
    run._site(pc)
    assert pc.nodes == [] and pc.frames == []
    monkeypatch.setattr(loc, "locate", _raising(TypeError("a bug of ours")))
    with pytest.raises(TypeError):
        run._site(pc)


def test_none_of_the_four_catches_everything():
    from _paths import ROOT

    root = ROOT / "inspector/queries"
    for rel in ("doctor/guards.py", "doctor/footprint.py", "explanation.py", "printer.py"):
        text = (root / rel).read_text()
        assert "except InspectorError" in text and "except Exception" not in text, rel
