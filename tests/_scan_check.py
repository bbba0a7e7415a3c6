"""The wrapper scan checked against its line-by-line reference (tests/_scan_reference.py): every region, run_impl
statement and line equal, and the same error where the reference fails."""

from __future__ import annotations

import random

from _scan_reference import reference_scan

from inspector.parse.regions import scan_wrapper

FIELDS = ("launchers", "cpp_kernels", "constructor", "check_inputs", "run", "saw_run_impl")


def same_scan(text: str, member: str, dialect=None) -> int:
    """Assert that `scan_wrapper` finds what `reference_scan` finds in ``text``; the number of lines compared."""
    try:
        want = reference_scan(text, member, dialect)
    except Exception as e:  # noqa: BLE001 - the same failure, then (a cut launcher line names no kernel)
        try:
            scan_wrapper(text, member, dialect)
        except Exception as e2:  # noqa: BLE001
            assert type(e2) is type(e), (e, e2)
            return 0
        raise AssertionError(f"the reference raised {e!r}, the scan did not") from None
    got = scan_wrapper(text, member, dialect)
    for f in FIELDS:
        assert getattr(got, f) == getattr(want, f), f"{member}: {f} differs"
    lines = want.lines
    assert len(got.lines) == len(lines) and list(got.lines) == lines
    rnd = random.Random(len(text))
    for _ in range(200):  # single lines and slices, from anchors and between them
        i = rnd.randrange(len(lines))
        j = rnd.randrange(i, min(len(lines), i + 120) + 1)
        assert got.lines[i] == lines[i] and got.lines[i:j] == lines[i:j] and got.lines[-1 - i] == lines[-1 - i]
    for r in want.launchers.values():
        assert got.lines[r.start:r.end + 1] == lines[r.start:r.end + 1]
        assert [got.lines[j] for j in r.asserts] == [lines[j] for j in r.asserts]
    return len(lines)
