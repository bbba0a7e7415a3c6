"""The report shows wrapper lines from the index's own split of the wrapper (issue 21 §5: a second copy of a
177 MB wrapper's lines was ~470 MB of `report --log`'s peak), read as `str.splitlines` reads them."""

from __future__ import annotations

import pytest

from inspector.archive import Archive
import inspector
from inspector.cli.report import build_report
from inspector.index.records import AssertSite
from inspector.queries.report_panels import _Lines

from _paths import S

CUDA_T5 = S / "cuda/hf_t5_encoder"


@pytest.mark.parametrize("text", ["a\nb\n", "a\nb", "", "\n", "x\n\ny\n\n", "only"])
def test_lines_read_as_splitlines(text):
    want, got = text.splitlines(), _Lines(text.split("\n"))
    assert len(got) == len(want) and bool(got) == bool(want)
    assert [got[i] for i in range(len(got))] == want
    if want:
        assert got[-1] == want[-1]
    with pytest.raises(IndexError):
        got[len(want)]


def test_real_wrapper_lines_match_splitlines():
    with inspector.open_package(CUDA_T5 / "hf_t5_encoder.pt2", cache=False) as pkg:
        ix = pkg.index()
        text = pkg.archive.read_text(ix.files.wrapper)
        want, got = text.splitlines(), _Lines(pkg.scanned_lines(ix.name, ix.files.wrapper))
    assert len(want) > 1000
    assert [got[i] for i in range(len(got))] == want


def test_report_reads_the_wrapper_once(monkeypatch):
    reads = []
    orig = Archive.read_text

    def counted(self, name):
        reads.append(name)
        return orig(self, name)

    monkeypatch.setattr(Archive, "read_text", counted)
    with inspector.open_package(CUDA_T5 / "hf_t5_encoder.pt2", cache=False) as pkg:
        html = build_report(pkg, (CUDA_T5 / "error.log").read_text())
        wrapper = pkg.index().files.wrapper
    assert "index out of bounds" in html
    assert reads.count(wrapper) == 1


def assert_message(statement: str) -> str:
    """An assert site's message, as the scan reads it from the statement (`records.AssertSite.message`)."""
    return AssertSite("k", 1, statement, None).message


def test_assert_message_reads_the_last_string_literal():
    assert assert_message('tl.device_assert(((0 <= tmp9) & (tmp9 < ks0)) | ~(xmask), "index out of bounds: 0 <= tmp9 < ks0")') \
        == "index out of bounds: 0 <= tmp9 < ks0"
    assert assert_message('AOTI_TORCH_CHECK((0 <= tmp2) & (tmp2 < 64L), "index out of bounds: 0 <= tmp2 < 64L");') \
        == "index out of bounds: 0 <= tmp2 < 64L"
    assert assert_message("tl.device_assert(x < 3, 'single quotes')") == "single quotes"
    assert assert_message("tl.device_assert(x)") == ""
