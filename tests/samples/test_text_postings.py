"""`_TextPostings` (a name's run_impl statements found in the wrapper's own text) says what `_Postings` (the same
search over a joined copy of every statement) says, for every name in run_impl, on every model of every real
package: the CPU wrappers, whose lines the scan keeps as a list, are read through a view over their text too."""

from __future__ import annotations

from array import array

import pytest
from _samples import PACKAGES

import inspector
from inspector.index import postings
from inspector.index.postings import _Postings, _TextPostings
from inspector.parse.tokens import NAME as TOKEN
from inspector.parse.regions import WrapperLines, scan_wrapper


def _views(text: str, member: str):
    wm = scan_wrapper(text, member)
    lines = wm.lines if wm.lines.text else WrapperLines(text, len(wm.lines), array("q", [0]), array("q", [0]))
    return wm.run, lines


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_text_postings_equal_the_joined_ones(pkg, monkeypatch):
    monkeypatch.setattr(postings, "TEXT_NAMES", 10**9)  # every name from the text (not the joined copy after a few)
    asked = 0
    with inspector.open_package(pkg, cache=False) as p:
        for name in p.model_names:
            f = p.files(name)
            run, lines = _views(p.archive.read_text(f.wrapper), f.wrapper)
            if not len(run):
                continue
            joined, text = _Postings(run), _TextPostings(run, lines)
            # every name a statement holds (comments and unread lines included), and words that cross the cut
            # of a size check (`assert_size_stride` and the guard's own `_check_aoti_runtime_check_inputs_env`)
            names = {t for s in run.text for t in TOKEN.findall(s)}
            names |= {t for i in range(len(run)) for t in TOKEN.findall(lines[run.line[i] - 1])}
            for n in sorted(names):
                assert text[n] == joined[n], n
                asked += 1
            assert text.joined is None
    assert asked > 20
