"""The renames of issue 21 §4 "Names" (round 27, branch reshape), as a script the lead can re-run after merging
other branches that touched the same files: ``python tools/rename_r27.py kernel`` / ``… facts`` / ``… rules``
(``--check``: say what would change, write nothing).

Each rule is a regular expression over one file, one folder (a ``where`` ending in "/") or every Python file of
inspector/, tests/, tools/ and bench/ (families kernel and facts never read queries/doctor*, queries/diagnose/:
helper doctor's then; family rules is theirs, round 27, branch twins).  Rules
only match the old names, so a second run changes nothing.  JSON keys are not renamed: a dataclass serialized by
``asdict`` keeps its field (TraceMatch.kernel_kind, KernelSummary.kind/flavor, KernelRow.kind), and string
literals ("kernel_kind", graph attributes kind=/flavor=) are left as they are.  After a run, the script lists
what still spells an old name, for a person to judge.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = ("inspector/queries/doctor", "inspector/queries/diagnose/", "tools/rename_r27.py")
# family "rules" is doctor's and diagnose's own (round 27, branch twins): it reads those folders, and only them.
SKIP_BY_FAMILY = {"rules": ("tools/rename_r27.py",)}
ALL = "*"
DIAGNOSE = "inspector/queries/diagnose/"  # a folder: every Python file under it, the rule modules added later too

# family -> [(file or ALL, pattern, replacement)]
RULES: dict[str, list[tuple[str, str, str]]] = {
    # Kernel.kind is the code generator (triton | cpp; a trace's "extern" is an ATen op): its backend.
    # Kernel.flavor is the @triton_heuristics.<name> decorator (pointwise, reduction, template, …; "cpp"): its
    # heuristic.
    "kernel": [
        (ALL, r"\bkernel_flavor\b", "kernel_heuristic"),
        (ALL, r"\bdecorator_flavor\b", "decorator_heuristic"),
        (ALL, r"\.kernel_kind\(", ".kernel_backend("),
        (ALL, r"\bdef kernel_kind\(self", "def kernel_backend(self"),
        (ALL, r"(\bKernel\([^()]*?)\bkind=", r"\1backend="),
        (ALL, r"(\bKernel\([^()]*?)\bflavor=", r"\1heuristic="),
        ("inspector/model.py", r'^(\s+)kind: str  # "triton" \| "cpp"$',
         r'\1backend: str  # "triton" | "cpp": the code generator (an "extern" match is an ATen op)'),
        ("inspector/model.py", r'^(\s+)flavor: str  # "pointwise"', r'\1heuristic: str  # "pointwise"'),
        ("inspector/model.py", r"\{self\.kind\}/\{self\.flavor\}", "{self.backend}/{self.heuristic}"),
        ("inspector/package.py", r'\bk\.kind == "triton"', 'k.backend == "triton"'),
        ("inspector/graph/build.py", r"kind=k\.kind, flavor=k\.flavor", "kind=k.backend, flavor=k.heuristic"),
        ("inspector/parse/triton.py", r"\bk\.flavor\b", "k.heuristic"),
        ("inspector/parse/triton.py", r"\bflavor\b", "heuristic"),
        ("inspector/parse/regions.py", r"\bflavor\b", "heuristic"),
        ("inspector/index/model_index.py", r'\bk\.kind == "triton"', 'k.backend == "triton"'),
        ("inspector/index/cache_parts.py", r'\bk\.kind == "triton"', 'k.backend == "triton"'),  # perf's, from model_index
        ("inspector/index/model_index.py", r"`Kernel\.flavor`", "`Kernel.heuristic`"),
        ("inspector/queries/report.py", r"\bk\.kind == 'triton'", "k.backend == 'triton'"),
        ("inspector/queries/show.py", r"\(k\.name, k\.kind, k\.flavor,", "(k.name, k.backend, k.heuristic,"),
        ("inspector/queries/explanation.py", r"kernel_kind=k\.kind\b", "kernel_kind=k.backend"),
        ("inspector/queries/suspects.py", r'"kernel_kind": k\.kind\b', '"kernel_kind": k.backend'),
        ("inspector/queries/trace.py", r'c\[1\]\.kind != "triton"', 'c[1].backend != "triton"'),
        ("inspector/queries/match.py", r'lambda k, a: k\.kind == "triton"', 'lambda k, a: k.backend == "triton"'),
        ("inspector/queries/positions.py", r'\bk\.kind != "cpp"', 'k.backend != "cpp"'),
        ("inspector/queries/kernels.py", r'"triton <flavor>"', '"triton <heuristic>"'),
        # IndexFact (repro, sweep: not serialized) copies the match's kernel_kind: its backend too.
        ("inspector/queries/repro.py", r"^    kernel_kind: str$",
         '    kernel_backend: str  # TraceMatch.kernel_kind: "triton" | "cpp" | "extern"'),
        ("inspector/queries/repro.py", r"\bkernel_kind=mt\.kernel_kind\b", "kernel_backend=mt.kernel_kind"),
        ("inspector/queries/repro.py", r"\bf\.kernel_kind\b", "f.kernel_backend"),
        ("inspector/queries/sweep.py", r"\bf\.kernel_kind\b", "f.kernel_backend"),
        ("tests/samples/test_report_scale.py", r'k\.kind if k\.kind != "triton" else f"triton \{k\.flavor\}"',
         'k.backend if k.backend != "triton" else f"triton {k.heuristic}"'),
        ("tests/unit/test_user_triton.py", r"\bk\.flavor\b", "k.heuristic"),
        ("tests/unit/test_grammar.py", r"\bk\.flavor\b", "k.heuristic"),
        ("tests/unit/test_grammar.py", r'assert k\.kind == "cpp"', 'assert k.backend == "cpp"'),
    ],
    # "facts" meant five things.  Three are named here for what they are; diagnose's `Facts` (what a rule reads)
    # and doctor's `Report.facts` (what was probed, per model) are helper doctor's, and `Finding.facts` stays.
    "facts": [
        # repro/sweep: one assertion's bound and index source, what a case fills or violates: a bounds check.
        (ALL, r"\bIndexFact\b", "BoundsCheck"),
        (ALL, r"\bindex_facts\b", "bounds_checks"),
        (ALL, r"\bfact_of\b", "bounds_check_of"),
        ("inspector/queries/repro.py", r"\bfacts\b", "asserts"),
        ("inspector/queries/sweep.py", r"\bfacts\b", "asserts"),
        ("inspector/queries/repro.py", r"# The contract and the index asserts", "# The contract and the bounds checks"),
        # ModelIndex: the scan's per-kernel parts ("kernels", "sites", "calls"), each its own cache part.
        ("inspector/index/model_index.py", r"\bself\._facts\b", "self._scan_parts"),
        ("inspector/index/model_index.py", r"\b_scan_facts\(", "_scan_kernel_parts("),
        ("inspector/index/model_index.py", r"\b_fact\(", "_scan_part("),
        ("inspector/index/model_index.py", r"see `_fact`", "see `_scan_part`"),
        # The constructor's info statements (inputs_info_, constants_info_, specs) and the input guards: the
        # model's interface, read eagerly.
        (ALL, r"\bconstructor_facts\b", "constructor_info_starts"),
        (ALL, r"\bconstant_facts\b", "constant_infos"),
        (ALL, r"\b_constructor_fact\(", "_constructor_info("),
        ("inspector/parse/wrapper.py", r"\bdef facts\(self, constants=None\):", "def read_interface(self, constants=None):"),
        ("inspector/parse/wrapper.py", r"after `facts\(constants=\.\.\.\)`", "after `read_interface(constants=...)`"),
        ("inspector/parse/wrapper.py", r"`facts` reads the constructor and guards", "`read_interface` reads the constructor and guards"),
        ("inspector/index/model_index.py", r"\bsc\.facts\(", "sc.read_interface("),
        ("inspector/parse/regions.py", r"\bconstructor facts\b", "constructor's info statements"),
        ("inspector/parse/regions.py", r"\bfacts\b", "infos"),
        ("inspector/parse/wrapper.py", r"The constructor's facts and the input guards\.",
         "The model's interface: the constructor's info statements and the input guards."),
        # ... and the prose that called that interface "the small facts" (docstrings and comments only: the
        # words `show` prints, render/show.py's "(the small facts; …", are an answer and stay).
        *((f, r"\bthe small facts\b", "the interface") for f in (
            "inspector/index/closure.py", "inspector/index/model_index.py", "inspector/queries/kernels.py",
            "inspector/queries/show.py", "tests/unit/test_cache.py")),
        ("inspector/index/model_index.py", r"is the model's small facts \(", "is the model's interface ("),
        ("inspector/index/model_index.py", r"are no small fact:", "are no part of the interface:"),
        ("inspector/index/model_index.py", r"\(the eager facts and slices", "(the interface and slices"),
        ("inspector/index/closure.py", r"the small\n(\s+)facts,", r"the\n\1interface,"),
    ],
    # "facts" and `f` in doctor and diagnose (issue 21 §4 "Names").  Diagnose's `Facts` is what a rule observes of
    # the failure (the log read once, the models' interfaces, the trace when first asked): `Observations`; its
    # `f` parameter (and the one it is built into) is `obs`.  In diagnose, `f` means nothing else (f-strings and a
    # `{x:f}` format are not matched).  Doctor's `DoctorResult.facts` is what its checks read of each model (the
    # checks already fill `Subject.readings`): `DoctorResult.readings`; its JSON key stays "facts".
    # `Finding.facts` stays (the issue names it), and so do the words of `explain/` and every JSON key.
    "rules": [
        (DIAGNOSE, r"\bFacts\b", "Observations"),
        (DIAGNOSE, r"(?<![%:.\w])\bf\b(?![\"'}\w])", "obs"),
        (DIAGNOSE, r"\bthe models' small facts\b", "the models' interfaces"),
        (DIAGNOSE, r"\bthe package's small facts\b", "the package's interface"),
        ("inspector/queries/doctor/results.py", r"^(    )facts: dict = field\(default_factory=dict\)$",
         r"\1readings: dict = field(default_factory=dict)"),
        ("inspector/queries/doctor/results.py", r'"facts": self\.facts,', '"facts": self.readings,'),
        ("inspector/queries/doctor/__init__.py", r"^(    )facts: dict = \{\}$", r"\1readings: dict = {}"),
        ("inspector/queries/doctor/__init__.py", r"^(        )facts\[name\] = m\.readings$", r"\1readings[name] = m.readings"),
        ("inspector/queries/doctor/__init__.py", r"\bany\(facts\[n\]\.get\(", "any(readings[n].get("),
        ("inspector/queries/doctor/__init__.py", r"\bnames, findings, facts, unchecked\)", "names, findings, readings, unchecked)"),
        ("inspector/queries/doctor/base.py", r"\bDoctorResult\.facts\b", "DoctorResult.readings"),
        ("inspector/queries/doctor/weights.py", r"\bDoctorResult\.facts\b", "DoctorResult.readings"),
        *((t, r"\br\.facts\[", "r.readings[") for t in (
            "tests/unit/test_doctor.py", "tests/unit/test_memory.py", "tests/unit/test_packaging_options_cuda.py",
            "tests/unit/test_certainty.py")),
        ("tests/unit/test_doctor.py", r'(\.pt2"\))\.facts\["model"\]', r'\1.readings["model"]'),
    ],
}

# What still spells an old name after a run (to read, not to rewrite blindly).
LEFT = {
    "kernel": [r"\bflavor\b", r"\bkernel_kind\b", r"\bk\.kind\b"],
    "facts": [r"\b_?facts?\b", r"Fact\b"],
    "rules": [r"\bFacts\b", r"\bf\b(?![\"'])", r"\bfacts\b"],
}
# Where the listing looks (all files when a family is not named here).
LEFT_WHERE = {"rules": ("inspector/queries/doctor", DIAGNOSE)}


def _files(family: str) -> list[Path]:
    out = []
    for top in ("inspector", "tests", "tools", "bench"):
        out += sorted((ROOT / top).rglob("*.py"))
    skip = SKIP_BY_FAMILY.get(family, SKIP)
    return [p for p in out if not p.relative_to(ROOT).as_posix().startswith(skip)]


def _applies(where: str, rel: str) -> bool:
    """A rule's ``where``: ALL, one file (or one of that name where it moved), or a folder ending in "/"."""
    return where in (ALL, rel) or (where.endswith("/") and rel.startswith(where)) or _moved(where, rel)


def _moved(where: str, rel: str) -> bool:
    """A per-file rule whose file is not there any more also applies to a file of the same name elsewhere
    (helper tests moves tests/test_<name>.py to tests/unit/test_<name>.py, tests/samples/…)."""
    return (where != ALL and not where.endswith("/") and not (ROOT / where).exists()
            and rel.rsplit("/", 1)[-1] == where.rsplit("/", 1)[-1])


def apply(family: str, write: bool) -> int:
    files = _files(family)
    changed = 0
    after: dict[Path, str] = {}
    for p in files:
        rel = p.relative_to(ROOT).as_posix()
        text = new = p.read_text()
        for where, pat, rep in RULES[family]:
            if _applies(where, rel):
                new = re.sub(pat, rep, new, flags=re.M)
        after[p] = new
        if new != text:
            changed += 1
            n = sum(a != b for a, b in zip(text.splitlines(), new.splitlines(), strict=False))
            print(f"{rel}: {n} line(s)")
            if write:
                p.write_text(new)
    for where, pat, _ in RULES[family]:  # a per-file rule that matches nothing: its file moved or changed
        if where != ALL and not where.endswith("/") and not (ROOT / where).exists() and not any(_moved(where, p.relative_to(ROOT).as_posix())
                                                                     for p in files):
            print(f"note: {where} is not there (rule {pat!r}): nothing to do, unless its code went elsewhere", file=sys.stderr)
    print(f"{changed} file(s) {'changed' if write else 'would change'}")
    seen = set()
    for pat in LEFT.get(family, []):
        for p in files:
            if family in LEFT_WHERE and not p.relative_to(ROOT).as_posix().startswith(LEFT_WHERE[family]):
                continue
            for i, line in enumerate(after[p].splitlines(), 1):
                if re.search(pat, line) and (p, i) not in seen:
                    seen.add((p, i))
                    print(f"  left: {p.relative_to(ROOT)}:{i}: {line.strip()[:110]}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("family", choices=sorted(RULES))
    ap.add_argument("--check", action="store_true", help="say what would change; write nothing")
    a = ap.parse_args()
    return apply(a.family, write=not a.check)


if __name__ == "__main__":
    sys.exit(main())
