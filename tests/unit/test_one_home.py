"""Facts written once (issue 33 §3): each lives in one module, the others import it, and a second copy fails here."""

from __future__ import annotations

import re
from pathlib import Path

from inspector import naming

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "inspector").rglob("*.py"))


def _holders(literal: str) -> list[str]:
    """The modules of inspector/ whose source holds ``literal``."""
    return sorted(str(p.relative_to(ROOT)) for p in SOURCES if literal in p.read_text())


def test_the_shim_calls_that_run_no_op_are_named_once_in_naming():
    assert SOURCES
    # (`"aoti_torch_empty"` is also the dialect's allocation prefix: another fact, spelled the same)
    for name in ('"aoti_torch_clone"', '"aoti_torch_copy"', '"aoti_torch_assign_tensors"'):
        assert _holders(name) == ["inspector/naming.py"], name


def test_the_two_sets_say_what_they_hold():
    alloc, no_kernel = naming.ALLOC_OR_COPY_SHIMS, naming.NO_KERNEL_SHIMS
    for target in ("aoti_torch_empty_strided", "aoti_torch_clone_preserve_strides", "aoti_torch_copy_"):
        assert target.startswith(alloc) and target.startswith(no_kernel)
    # assigning a handle runs no kernel (divisions skip it) but is no allocation or copy (guards still count it)
    assert "aoti_torch_assign_tensors_out".startswith(no_kernel)
    assert not "aoti_torch_assign_tensors_out".startswith(alloc)
    for op in ("aoti_torch_cuda_index_put_out", "aoti_torch_cpu_gather_out", "aoti_torch_proxy_executor_call_function"):
        assert not op.startswith(no_kernel)
    assert set(alloc) < set(no_kernel)


def test_the_identifier_is_spelled_once_in_parse_tokens():
    spelled = r"[A-Za-z_]\w*"
    # logs/patterns.py is the home of every pattern over users' logs (a C++ frame's function name there)
    assert _holders(spelled) == ["inspector/logs/patterns.py", "inspector/parse/tokens.py"]


def test_the_two_readings_of_an_identifier():
    from inspector.parse import tokens

    assert tokens.identifiers("tmp3 < 64L + ks0") == ["tmp3", "ks0"]
    assert tokens.identifiers_and_suffixes("tmp3 < 64L + ks0") == ["tmp3", "L", "ks0"]
    assert tokens.NAME.pattern == r"\b" + tokens.IDENTIFIER


def test_graph_build_applies_no_pattern():
    text = (ROOT / "inspector/graph/build.py").read_text()
    assert not re.search(r"^\s*(import re\b|from re )", text, re.M) and not re.search(r"\bre\.\w", text)


def test_node_kinds_are_asked_of_ids_only():
    from inspector.graph import ids

    assert ids.kind_of(ids.tmp("k", 12)) == ids.TMP and ids.kind_of(ids.input_(0)) == ids.INPUT
    assert ids.kind_of(ids.assertion_at("k:38")) == ids.ASSERT and ids.assertion_at("k:38") == ids.assertion("k", 38)
    assert ids.kind_of("buf3") == "" and ids.kind_of("tmpx:1") != ids.TMP
    assert ids.names_in("param:k0:ks0") == {"k0", "ks0"} and ids.numbers_in("call:1011") == {1011}
    words = "|".join(sorted(ids.PREFIXES))
    tested = re.compile(rf"""(startswith|==)\(?\s*\(?f?["']({words}):""")
    outside = [str(p.relative_to(ROOT)) for p in SOURCES if p.name != "ids.py" and tested.search(p.read_text())]
    assert outside == []
