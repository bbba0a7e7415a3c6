"""Facts written once (issue 33 §3): each lives in one module, the others import it, and a second copy fails here."""

from __future__ import annotations

import re
from pathlib import Path

from inspector import naming

from _paths import ROOT  # noqa: E402
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


def test_the_two_dtype_numberings_disagree_and_each_is_read_by_its_name():
    c10, export = naming.C10_SCALAR_TYPES, naming.EXPORT_SCALAR_TYPES
    # the same code, two dtypes: what a generic SCALAR_TYPES would have mixed up
    assert (c10[0], export[0]) == ("uint8", "unknown")
    assert (c10[4], export[4]) == ("int64", "int32")
    assert (c10[5], export[5]) == ("float16", "int64")
    assert (c10[15], export[13]) == ("bfloat16", "bfloat16") and 15 not in export
    assert (c10[27], export[28]) == ("uint16", "uint16") and (c10[28], c10[29]) == ("uint32", "uint64")
    assert (c10[24], export[29]) == ("float8_e4m3fn", "float8_e4m3fn")
    assert not _holders("SCALAR_TYPES as ") and not _holders("SCALAR_TYPES = C10") and not _holders("SCALAR_TYPES = EXPORT")


_C10_WORDS = {"Byte": "uint8", "Char": "int8", "Short": "int16", "Int": "int32", "Long": "int64", "Half": "float16",
              "Float": "float32", "Double": "float64", "ComplexHalf": "complex32", "ComplexFloat": "complex64",
              "ComplexDouble": "complex128"}
_EXPORT_WORDS = {"UNKNOWN": "unknown", **{k.upper(): v for k, v in _C10_WORDS.items()}}


def _torch_source(rel: str) -> str | None:
    import importlib.util

    spec = importlib.util.find_spec("torch")  # finds the package, imports nothing
    path = Path(spec.origin).parent / rel if spec and spec.origin else None
    return path.read_text() if path and path.exists() else None


def test_the_dtype_tables_are_torchs():
    header = _torch_source("include/torch/headeronly/core/ScalarType.h") or _torch_source("include/c10/core/ScalarType.h")
    schema = _torch_source("_export/serde/schema.py")
    if header is None or schema is None:
        import pytest

        pytest.skip("no torch sources to compare with (the pinned codes above still hold)")
    c10 = {int(n): _C10_WORDS.get(w, w.lower()) for w, n in re.findall(r"_\([^()]+?, (\w+)\) /\* (\d+) \*/", header)}
    assert len(c10) >= 30 and c10 == naming.C10_SCALAR_TYPES
    block = schema.split("class ScalarType(IntEnum):", 1)[1].split("\n\n", 1)[0]
    export = {int(n): _EXPORT_WORDS.get(w, w.lower().replace("float8e", "float8_e"))
              for w, n in re.findall(r"^\s+(\w+) = (\d+)$", block, re.M)}
    assert len(export) >= 14 and export == naming.EXPORT_SCALAR_TYPES
