"""`_TextPostings` at the edges the real packages never reach: a size check whose kept part follows a word
character, a name in a comment, in an unread line, before and after the statements, and at the text's ends."""

from array import array

from inspector.index import postings
from inspector.index.postings import _Postings, _TextPostings
from inspector.parse.wrapper_map import RunColumns, WrapperLines

LINES = [
    "buf0 before",
    "    auto buf0 = 1;",
    "    if (g()) {zassert_size_stride(buf0, {1L}, {1L});} buf0 tailword",
    "    // buf0 in a comment",
    "    }buf0",
    "    call(buf0, xbuf0, buf0x);",
    "buf0 after",
]
STATEMENTS = [  # (1-based line, text, kind): as the scan leaves them
    (2, "auto buf0 = 1;", "declaration"),
    (3, "assert_size_stride(buf0, {1L}, {1L});", "size_stride"),
    (4, "// buf0 in a comment", "comment"),
    (5, "}buf0", None),
    (6, "call(buf0, xbuf0, buf0x);", "call"),
]


def _both():
    run = RunColumns()
    for line, text, kind in STATEMENTS:
        run.line.append(line)
        run.text.append(text)
        run.kind.append(kind)
        run.callee.append(None)
    text = "\n".join(LINES)
    return _Postings(run), _TextPostings(run, WrapperLines(text, len(LINES), array("q", [0]), array("q", [0])))


def test_the_edges_agree(monkeypatch):
    monkeypatch.setattr(postings, "TEXT_NAMES", 10**9)
    joined, text = _both()
    for name in ("buf0", "assert_size_stride", "assert", "size_stride", "g", "zassert_size_stride", "1L", "call",
                 "xbuf0", "buf0x", "auto", "before", "after", "comment", "tailword"):
        assert text[name] == joined[name], name
    assert text["buf0"] == [0, 1, 4]  # not the comment, nor the unread line, nor outside run_impl
    assert text["assert_size_stride"] == [1]  # the kept part's first word, though a `z` comes before it
    assert text["zassert_size_stride"] == [] and text["g"] == [] and text["tailword"] == []  # outside the kept part


def test_after_a_few_names_the_joined_copy_answers():
    joined, text = _both()
    names = ["buf0", "assert_size_stride", "g", "call", "xbuf0", "auto", "tailword"]
    assert [text[n] for n in names] == [joined[n] for n in names]
    assert text.joined is not None and len(text.memo) == postings.TEXT_NAMES
