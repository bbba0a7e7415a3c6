"""The text scan against the line-by-line reference where the text is not what torch writes: cut anywhere (a
download that stopped), cut at each marker, and with a region that runs past the next launcher's line (read
again line by line: the one place the scan falls back), so its searches cannot drift from the reference."""

from __future__ import annotations

import random

import pytest
from _paths import S
from _scan_check import same_scan

import inspector
import inspector.parse.regions as regions
from inspector.dialects import sniff

CUDA = ["cuda/jagged/jagged.pt2", "cuda/hf_t5_encoder/hf_t5_encoder.pt2"]
MARKERS = ["static inline void call_", "){", "async_compile.triton(", "tl.device_assert(", "''', device_str",
           "loadKernel(", "run_impl(", "} // AOTInductorModel::run_impl", "check_input_", "\n}"]


def _wrapper(rel):
    with inspector.open_package(S / rel, cache=False) as p:
        f = p.files(p.model_names[0])
        text = p.archive.read_text(f.wrapper)
    return text, f.wrapper, sniff(text, f.wrapper)


@pytest.mark.parametrize("rel", CUDA)
def test_cut_anywhere(rel):
    text, member, d = _wrapper(rel)
    rnd = random.Random(rel)
    marks = [k for m in MARKERS for k in (text.find(m), text.rfind(m)) if k >= 0]
    cuts = [rnd.randrange(len(text)) for _ in range(60)] + [k + dk for k in marks for dk in (-1, 0, 1, 6)]
    compared = [same_scan(text[:c], member, d) for c in cuts]
    assert sum(1 for x in compared if x) > len(cuts) // 2  # most cuts scan (a cut launcher line fails in both)


@pytest.mark.parametrize("rel", CUDA)
def test_sources_and_blocks_moved(rel):
    text, member, d = _wrapper(rel)
    o = text.find("async_compile.triton(")
    e = text.find("''', device_str", o)
    assert same_scan(text[:o] + text[e + 20:], member, d)  # a launcher whose source lost its opening
    assert same_scan(text.replace(d.triton_open_marker, "async_compile.other("), member, d)  # no launcher has one
    assert same_scan(text.replace("\n}", "\n}\n", 5), member, d)
    assert same_scan(text + "\n", member, d) and same_scan(text.rstrip("\n"), member, d)


def test_a_region_past_the_next_launcher_is_read_line_by_line(monkeypatch):
    text, member, d = _wrapper("cuda/jagged/jagged.pt2")
    a = text.find("void AOTInductorModel::run_impl(")
    b = text.find("} // AOTInductorModel::run_impl", a)
    first = text.find("static inline void call_")
    launcher = text[first: text.find("\n}\n", first) + 3]
    mid = text.find("\n", (a + b) // 2) + 1
    ci = text.find("\n", text.find("AOTI_NOINLINE static void check_input_")) + 1
    cases = {"a launcher's lines inside run_impl": text[:mid] + launcher + text[mid:],
             "a run_impl with no end before the launchers": text[:first] + text[a:mid] + "\n" + text[first:],
             "a launcher's lines inside a check_input": text[:ci] + launcher + text[ci:]}
    seen = []
    piece = regions._scan_piece

    def spy(*args):
        r = piece(*args)
        seen.append(r)
        return r

    monkeypatch.setattr(regions, "_scan_piece", spy)
    for why, t in cases.items():
        seen.clear()
        assert same_scan(t, member, d), why
        assert any(r is not None for r in seen), f"{why}: the scan did not fall back"


def _insert_after(text: str, marker: str, line: str, start: int = 0) -> str:
    """``text`` with ``line`` inserted after the line holding the first ``marker`` from ``start``."""
    k = text.find("\n", text.find(marker, start)) + 1
    return text[:k] + line + "\n" + text[k:]


@pytest.mark.parametrize("rel", CUDA)
def test_markers_inside_lines(rel):
    """Each marker where a line holds it but does not start with it (or the reverse): only a line's start counts."""
    text, member, d = _wrapper(rel)
    first = text.find("static inline void call_")
    close = d.triton_close
    noisy = {
        "a `){` inside a parameter line": _insert_after(text, "static inline void call_", "    int x){ y,", first),
        "an assert and a close inside source lines": _insert_after(
            text, "def ", f"    x = 1  # {d.device_assert}no\n    y = 2  # {close} no", first),
        "two heuristic decorators, one in a comment": _insert_after(
            text, d.triton_open_marker, "    # @triton_heuristics.commented(\n    @triton_heuristics.other(", first),
        "a `def ` inside the decorator": _insert_after(text, d.triton_open_marker, "    'x': 'undef y',", first),
        "a second loadKernel( line": _insert_after(text, d.load_kernel_marker, "    // loadKernel(again", first),
        "a `}` line inside the source": _insert_after(text, "def ", "}", first),
        "a launcher marker inside a line": _insert_after(text, d.load_kernel_marker, "    // static inline void call_x(", first),
        "a source opening on a `}` line": text.replace("    " + d.triton_open_marker, "}   " + d.triton_open_marker, 1),
    }
    for why, t in noisy.items():
        assert t != text and same_scan(t, member, d), why


def test_run_impl_read_from_the_text_and_its_fall_backs(monkeypatch):
    """run_impl after the last launcher is read from the text (`_run_impl_at`); where its body line or end line is
    not where that search looks, or a region before it runs past its line, the text is read line by line. Each
    case equals the reference, and each takes the path it is here for."""
    text, member, d = _wrapper("cuda/hf_t5_encoder/hf_t5_encoder.pt2")
    a = text.find("void AOTInductorModel::run_impl(")
    body = text.find("\n", text.find("\n" + d.run_impl_body, a) + 1) + 1  # the first statement line
    end = text.find("\n" + d.run_impl_end, a) + 1
    ci = text.find("\n", text.find("AOTI_NOINLINE static void check_input_")) + 1
    read_from_text = {
        "as torch writes it": text,
        "an empty body": text[:body] + text[end:],
        "a body of one empty line": text[:body] + "\n" + text[end:],
        "an end line naming another class": text[:end] + text[end:].replace(d.run_impl_end, "} // AOTInductorModelx::run_impl", 1),
        "a `}` line and an end look-alike inside the body": _insert_after(text, "RAIIAtenTensorHandle", "}\n} // AOTInductorModel::run_implx_\n  }", a),
        "empty lines, a last line with no newline": text[:body] + "\n\n" + text[body:end] + d.run_impl_end,
        "a run_impl look-alike before it": text[:a] + "// void AOTInductorModel::run_impl( in a comment\n" + text[a:],
        "chunks of a few lines": text,
    }
    line_by_line = {
        "no end line": text[:end],
        "no body line": text[:a] + text[a:].replace(d.run_impl_body, "  {", 1),
        "a check_input open across it": text[:ci] + text[a:],
    }
    calls = []
    real = regions._run_impl_at

    def spy(*args):
        calls.append(real(*args))
        return calls[-1]

    monkeypatch.setattr(regions, "_run_impl_at", spy)
    for why, t in {**read_from_text, **line_by_line}.items():
        calls.clear()
        if why == "chunks of a few lines":
            monkeypatch.setattr(regions, "RUN_CHUNK", 64)
        assert same_scan(t, member, d), why
        monkeypatch.setattr(regions, "RUN_CHUNK", 1 << 22)
        if why in read_from_text:
            assert calls and calls[-1] is not None, f"{why}: not read from the text"
        else:
            assert not calls or calls[-1] is None, f"{why}: read from the text"
