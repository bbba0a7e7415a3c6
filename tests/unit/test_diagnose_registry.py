"""diagnose's category list exists once (queries/diagnose/rules/: RULES, CATEGORIES): the JSON schema's enum,
the words (explain/diagnose.py), the docstring and the log patterns' categories are checked against it; log
text is matched only in inspector/logs/patterns.py; the rules hold no sentence; the import arrows point one way.
doctor's checks (queries/doctor/: CHECKS) are held to the same: no regular expression, no sentence, every
finding code with its words in explain/doctor.py.  Fast: no package is opened."""

from __future__ import annotations

import ast
import json

import pytest

import inspector.queries.diagnose as diagnose_pkg
from inspector import explain
from inspector.explain import diagnose as say
from inspector.logs import patterns as P
from inspector.queries.diagnose import CATEGORIES, RULES

from _paths import ROOT

PKG = ROOT / "inspector"


def test_schema_enum_is_the_rules_categories():
    schema = json.loads((PKG / "schemas/diagnose.schema.json").read_text())
    assert schema["properties"]["category"]["enum"] == list(CATEGORIES), \
        "the schema enum is inspector.queries.diagnose.CATEGORIES, in order: write that list there"


def test_one_rule_per_category_and_unknown_last():
    assert len(set(CATEGORIES)) == len(CATEGORIES) == len(RULES)
    assert CATEGORIES[-1] == "unknown"


def test_every_category_has_its_words_and_is_in_the_docstring():
    assert list(say.CATEGORY_DOC) == list(CATEGORIES)
    doc = diagnose_pkg.__doc__
    assert [c for c in CATEGORIES if f"``{c}``" in doc] == list(CATEGORIES)
    assert sorted(CATEGORIES, key=lambda c: doc.index(f"``{c}``")) == list(CATEGORIES)


def test_every_pattern_points_to_a_category_or_a_role():
    names = [p.name for p in [*P.LOCATED, P.BARE_MSG, *P.PATTERNS, *P.MENTIONS, *P.DETAILS]]
    assert len(names) == len(set(names)) == len(P.REGISTRY)
    for p in P.REGISTRY.values():
        assert p.category in CATEGORIES or p.category in P.ROLES, (p.name, p.category)
        assert p.doc, p.name


def test_every_category_is_recognised_by_a_pattern():
    """A category is claimed from what the log says: some line pattern points to it, except the rules that say
    they are claimed from the package ("unknown"; "weights_not_loaded": a segfault on a weightless package)."""
    pointed = {p.category for p in [*P.LOCATED, *P.PATTERNS]}
    assert set(CATEGORIES) - pointed == {r.category for r in RULES if r.by_package} == {"unknown", "weights_not_loaded", "foreign_log"}


def test_log_hints_are_keyed_by_pattern_names():
    assert set(explain.LOG_HINTS) <= set(P.REGISTRY)


def _tree(rel: str) -> ast.Module:
    return ast.parse((PKG / rel).read_text())


def _imports(rel: str) -> set[str]:
    """Every module ``rel`` imports, at the top or inside a function (absolute, dotted)."""
    here = ("inspector/" + rel[:-3]).replace("/__init__", "").split("/")
    if rel.endswith("__init__.py"):
        here.append("__init__")
    out = set()
    for node in ast.walk(_tree(rel)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


def _modules(folder: str) -> list[str]:
    out = sorted(str(p.relative_to(PKG)) for p in (PKG / folder).glob("*.py"))
    assert out, folder
    return out


RULE_MODULES = _modules("queries/diagnose/rules")
DOCTOR_MODULES = _modules("queries/doctor")

# and every rendering module but show's (its plain tables strip rich's emoji codes with one regex)
MATCHES_NO_TEXT = [*RULE_MODULES, "queries/diagnose/results.py", "queries/diagnose/__init__.py",
                   *DOCTOR_MODULES, "explain/doctor.py", "logs/parse.py", "explain/diagnose.py",
                   *[f"render/{n}.py" for n in ("trace", "diagnose", "check", "sweep", "doctor", "scan", "locate")]]


def test_log_text_is_matched_only_in_the_pattern_registry():
    for rel in MATCHES_NO_TEXT:
        assert "re" not in _imports(rel), f"{rel} imports re: name the pattern in inspector/logs/patterns.py"


def _prose(rel: str) -> list[str]:
    """The string literals of ``rel`` (f-strings' literal parts too) that read as prose: three words or more, not a
    docstring."""
    tree = _tree(rel)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs and len(n.value.split()) >= 3]


# The trace queries' strings are names and data too; their sentences live in inspector/explain/trace.py.
TRACE_MODULES = ["queries/trace.py", "queries/walk.py", "queries/bound_walk.py", "queries/index_walk.py",
                 "queries/suspects.py", "queries/match.py"]


@pytest.mark.parametrize("rel", RULE_MODULES + DOCTOR_MODULES + TRACE_MODULES)
def test_rules_and_checks_hold_no_sentence(rel):
    """Every sentence a person reads is in inspector/explain/ (diagnose.py, doctor.py): the rules' and the checks'
    strings are names and data."""
    assert _prose(rel) == [], rel


def test_the_prose_test_can_fail():
    """The words module it points to is prose, so the test above would catch a sentence moved back."""
    assert len(_prose("explain/doctor.py")) > 50 and len(_prose("explain/diagnose.py")) > 50
    assert len(_prose("explain/trace.py")) > 10


def test_the_order_rules_are_tried_in():
    """Splitting rules.py by family kept RULES' order (issue 21 §4): the first rule that claims a log answers it."""
    assert list(CATEGORIES) == [
        "index_assert", "extern_op", "foreign_log", "deprecated_api", "symbolic_assert", "nan_inf", "printer",
        "constants", "out_of_memory", "custom_op", "torch_version", "wrong_artifact", "input_check", "device_mismatch", "arithmetic_fault",
        "weights_not_loaded", "illegal_memory_access", "device_assert", "load", "no_failure", "unknown"]
    # each rule lives in its family's module, none at the package's top
    assert all(type(r).__module__.startswith("inspector.queries.diagnose.rules.") for r in RULES)


def test_doctor_checks_in_their_order():
    """CHECKS is the order doctor's findings are made in (the answer then sorts them by severity, stably)."""
    from inspector.queries.doctor import CHECKS

    assert [c.name for c in CHECKS] == [
        "metadata", "duplicate_members", "gpu_arch", "device_index", "cpu_isa", "torch_abi", "layout", "weights", "cmake_project",
        "complete", "compiled_checks", "unchecked", "custom_ops", "memory", "constant_nan", "weights_file"]
    assert len({type(c) for c in CHECKS}) == len(CHECKS)


def _finding_codes(rel: str) -> list[str]:
    """The codes ``rel`` makes findings with: ``m.finding(kind, severity, CODE, …)``, ``finding(severity, CODE, …)``."""
    out = []
    for n in ast.walk(_tree(rel)):
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
            if name == "finding":
                at = 2 if isinstance(n.func, ast.Attribute) else 1
                code = n.args[at] if len(n.args) > at else None
                if isinstance(code, ast.Constant):
                    out.append(code.value)
                elif isinstance(code, ast.Name):  # a local chosen from constants: all its values are in WORDS too
                    out.append(code.id)
    return out


def test_every_finding_code_has_its_words():
    from inspector.explain import doctor as say_doctor

    codes = [c for rel in DOCTOR_MODULES for c in _finding_codes(rel) if c != "code"]
    assert len(codes) > 40
    assert set(codes) <= set(say_doctor.WORDS), set(codes) - set(say_doctor.WORDS)
    assert set(say_doctor.WORDS) <= set(codes) | {"weights_blob_truncated", "weights_blob_beside"}, \
        set(say_doctor.WORDS) - set(codes)


def test_doctor_reads_the_one_metadata_record_and_the_one_isa_table():
    """No check reads the metadata's keys itself (issue 21 §3): the device and AOTI_CPU_ISA come from
    WrapperMetadata, the CPU features from inspector.cpu_isa; the host from inspector.host."""
    for rel in DOCTOR_MODULES + RULE_MODULES:
        text = (PKG / rel).read_text()
        for key in ("AOTI_DEVICE_KEY", "AOTI_CPU_ISA", "AOTI_COMPUTE_CAPABILITY", "nvidia-smi", "/proc/cpuinfo",
                    "confstr", "libc_ver"):
            code = [ln for ln in text.splitlines() if key in ln and not ln.strip().startswith(("#", '"""'))
                    and '"' + key in ln]
            assert not code, (rel, key, code)
        assert '"AVX512"' not in text and '"avx512f"' not in text, f"{rel}: a CPU feature table beside cpu_isa.py"


def test_import_arrows_point_one_way():
    assert not any(m.startswith("inspector.queries.diagnose") for m in _imports("queries/trace.py"))
    assert not any(m.startswith("inspector.queries.diagnose") for m in _imports("queries/candidates.py"))
    # the commands' drawings import only the drawing they share (common; diagnose draws trace's tree too)
    for rel in ("render/show.py", "render/trace.py", "render/check.py", "render/sweep.py", "render/doctor.py",
                "render/scan.py", "render/locate.py"):
        assert not {m for m in _imports(rel) if m.startswith("inspector.render.")} - {
            "inspector.render.common", *(f"inspector.render.common.{n}" for n in ("_Table", "_bytes", "_fmt_shape",
                                                                                   "render_candidates"))}, rel
    assert not any(m.startswith(("inspector.render.", "inspector.queries")) for m in _imports("render/common.py"))
    for rel in ("logs/parse.py", "logs/patterns.py", "logs/__init__.py", "explain/__init__.py", "explain/diagnose.py",
                "explain/doctor.py", "host.py", "parse/wrapper_text.py", "explain/trace.py"):
        assert not any(m.startswith(("inspector.queries", "inspector.package", "inspector.render")) for m in _imports(rel)), rel
    assert not any(m.startswith("inspector.logs") for m in _imports("explain/__init__.py") | _imports("explain/diagnose.py"))
