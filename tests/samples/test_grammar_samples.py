"""The per-sample tests of test_grammar.py, split out of it so that tests/unit/ holds no sample loop.  See that
file's docstring for what the whole covers."""

from __future__ import annotations

import json
import re

import pytest

from inspector.parse.cpp_kernel import parse_kernel_cpp

from _members import texts as member_texts
from _parses import full_parse
from _paths import ROOT, S

CPU_PACKAGES = sorted((S / "cpu").glob("*/*.pt2"))


@pytest.mark.parametrize("pkg", CPU_PACKAGES, ids=lambda p: p.parent.name)
def test_real_kernel_cpp_every_check_found(pkg):
    members = member_texts(pkg, ".kernel.cpp")
    assert members, f"{pkg} has no kernel.cpp"
    total = 0
    for name, text in members:
        kernels = parse_kernel_cpp(text, name)
        assert kernels
        want = [i + 1 for i, l in enumerate(text.split("\n")) if re.match(r"\s*AOTI_TORCH_CHECK\(", l)]
        got = sorted(a.line for k in kernels.values() for a in k.assertions)
        assert got == want
        for k in kernels.values():
            for a in k.assertions:
                assert k.source_line(a.line).strip().startswith("AOTI_TORCH_CHECK(")
                assert a.index_var is not None and a.bound_expr is not None
        total += len(want)
    if json.loads((pkg.parent / "manifest.json").read_text())["expect"].get("kernel_kind") != "extern":
        assert total >= 1  # a sample that fails inside an extern ATen op may hold no generated check


@pytest.mark.samples
def test_unchecked_extern_calls_agree_with_the_manifests():
    """A sample's manifest says whether its wrapper calls an extern op bare (`unchecked_extern`, absent: no)."""
    import json

    import inspector

    seen = 0
    for manifest in sorted(S.glob("*/*/manifest.json")):
        man = json.loads(manifest.read_text())
        if man.get("torch", "").startswith("2.6."):
            continue  # that layout is not read yet (issue 8)
        with inspector.open_package(manifest.parent / f"{man['name']}.pt2") as pkg:
            calls = [c for m in pkg.models for c in m.calls if c.kind == "extern"]
        seen += len(calls)
        unchecked = [c.target for c in calls if not c.checked]
        assert bool(unchecked) == bool(man["expect"].get("unchecked_extern")), (manifest, unchecked)
        if unchecked:
            assert man["expect"]["kernel"] in unchecked
    assert seen >= 100  # 61 in each transformer alone


@pytest.mark.slow
def test_shape_shared_parses_equal_the_plain_parse_on_every_statement():
    """`parse_one` parses a statement once per shape (names ending in digits renumbered) and puts the names back:
    on every statement of every sample and harvested package, that equals parsing the text as it is."""
    from inspector.parse import grammar

    seen = full_parse()[0]  # every statement of every sample's whole parse (tests/_parses.py)
    checked = renamed = 0
    done = set()
    for g, starts, tr, text, start, r in seen:
        if (g, start, text) in done:
            continue
        done.add((g, start, text))
        assert r == grammar.parse_plain(g, starts, tr, text, start), (g, start, text)
        checked += 1
        renamed += bool(grammar.canonical(text)[1])
    # 17,423 and 9,892 at stop 18; 11,244 and 10,409 once the constructor's indexed assignments were read in two
    # parts (their own test below holds those equal to the plain parse)
    assert checked > 10_000 and renamed > 8_000, (checked, renamed)


@pytest.mark.slow
def test_indexed_assignments_read_in_two_parts_equal_the_plain_parse():
    """`wrapper_statements.indexed_assignment` reads `target[i].attr = value;` (the constructor's thousands of facts)
    as a target and a value, the value as a literal or in a fixed frame: on every constructor statement of
    every sample and harvested package, and on the multi-model benchmark package, that equals the grammar's
    plain parse of the whole statement."""
    import inspector
    from inspector.parse import grammar, wrapper_statements as wrapper
    from _samples import PACKAGES

    checked = literal = 0
    for p in [*PACKAGES, ROOT / "bench" / "multi_model.pt2"]:
        with inspector.open_package(p) as pkg:
            for n in pkg.model_names:
                for _line, text in pkg.index(n).wmap.constructor:
                    r = wrapper.indexed_assignment(text)
                    if r is wrapper._NOT_INDEXED:
                        continue
                    plain = grammar.parse_plain("wrapper", wrapper.STARTS, wrapper._TRANSFORMER, text, "assignment")
                    assert r == plain, text
                    checked += 1
                    literal += wrapper._literal(text.split(" = ", 1)[1][:-1]) is not None
    assert checked > 30_000 and literal > checked // 2, (checked, literal)


def test_load_kernel_lines_read_in_a_frame_equal_the_plain_parse():
    """`wrapper_statements.load_kernel` parses a launcher's ``loadKernel(`` line with its string literals framed (one
    shape for every launcher): on every launcher of every real CUDA package that equals the plain parse."""
    import inspector
    from inspector.parse import grammar, wrapper_statements as wrapper
    from _samples import PACKAGES

    checked = 0
    for p in PACKAGES:
        with inspector.open_package(p, cache=False) as pkg:
            for n in pkg.model_names:
                wm = pkg.index(n).wmap
                for r in wm.launchers.values():
                    if r.load_line is None:
                        continue
                    text = wm.lines[r.load_line].strip()
                    plain = grammar.parse_plain("wrapper", wrapper.STARTS, wrapper._TRANSFORMER, text, "load_kernel")
                    assert wrapper.load_kernel(text) == plain, text
                    checked += plain is not None
    assert checked > 300, checked
