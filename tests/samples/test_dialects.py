"""Wrapper dialects: every real sample is recognised as the family it was built as, `show --json`
says which, and an unknown wrapper is read with a warning instead of a wrong claim."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

import inspector
from inspector.cli import main
from inspector.dialects import CPU_INLINE, CPU_KERNEL_CPP, CUDA_CALL_TRITON, FALLBACK, sniff

from _paths import S
from _samples import MANIFESTS


def expected_dialect(man: dict) -> str | None:
    """The family a sample was built as, from its manifest (device, torch build)."""
    if man["device"] == "cuda":
        return CUDA_CALL_TRITON.name
    if man.get("torch", "").startswith("2.6."):
        return CPU_INLINE.name  # one <hash>.cpp holding kernels and run_impl
    return CPU_KERNEL_CPP.name


def _wrappers(pkg: Path):
    """(member, text) of each model's wrapper: `*.wrapper.cpp`, or torch 2.6's `<hash>.cpp`."""
    with zipfile.ZipFile(pkg) as zf:
        names = [n for n in zf.namelist() if n.endswith(".wrapper.cpp")]
        names = names or [n for n in zf.namelist() if n.endswith(".cpp") and "." not in Path(n).name[:-4]]
        return [(n, zf.read(n).decode()) for n in names]


@pytest.mark.parametrize("manifest", MANIFESTS, ids=[f"{p.parent.parent.name}-{p.parent.name}" for p in MANIFESTS])
def test_every_sample_sniffs_as_its_family(manifest):
    man = json.loads(manifest.read_text())
    want = expected_dialect(man)
    texts = _wrappers(manifest.parent / f"{man['name']}.pt2")
    assert texts
    for member, text in texts:
        assert sniff(text, member).name == want


def test_samples_were_found():
    assert len(MANIFESTS) >= 12
    assert {expected_dialect(json.loads(m.read_text())) for m in MANIFESTS} >= {CPU_KERNEL_CPP.name, CUDA_CALL_TRITON.name}


def test_show_json_reports_the_dialect(capsys):
    pkg = S / "cuda/two_models/two_models.pt2"
    assert main(["show", str(pkg), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert len(s["models"]) == 2
    assert {m["dialect"] for m in s["models"]} == {CUDA_CALL_TRITON.name}


def test_unknown_wrapper_is_read_with_a_warning(tmp_path):
    """A real CPU wrapper whose run_impl marker was renamed by a future torch: not a known family."""
    text = _wrappers(S / "cpu/jagged/jagged.pt2")[0][1]
    changed = text.replace("void AOTInductorModel::run_impl(", "void AOTInductorModel::run_impl_v2(")
    assert sniff(changed) is FALLBACK
    w = tmp_path / "x.wrapper.cpp"
    w.write_text(changed)
    with inspector.open_package(w) as pkg:
        m = pkg.model()
        assert m.dialect == "unknown"
        assert any("no wrapper dialect" in x for x in m.warnings)


# -- torch 2.6: no root folder, `version`, one <hash>.cpp with the kernels inline above run_impl -----

SAMPLES_26 = sorted(S.glob("cpu-2.6/*/manifest.json"))


def _as_26_layout(tmp_path: Path) -> Path:
    """The real 2.13 cpu/jagged package laid out as torch 2.6 writes one: its kernel.cpp text above its
    wrapper's in one `<hash>.cpp` (2.6 writes no kernel declarations into it), `<hash>_metadata.json`,
    `version` and `archive_format` at the top, no root folder, no `.data/`."""
    with zipfile.ZipFile(S / "cpu/jagged/jagged.pt2") as z:
        names = z.namelist()
        wname = next(n for n in names if n.endswith(".wrapper.cpp"))
        kernel = z.read(next(n for n in names if n.endswith(".kernel.cpp"))).decode()
        wrapper = z.read(wname).decode()
        meta = z.read(next(n for n in names if n.endswith(".wrapper_metadata.json")))
    wrapper = "\n".join(l for l in wrapper.split("\n") if not l.startswith('extern "C"  void  cpp_'))
    stem = Path(wname).name[: -len(".wrapper.cpp")]
    out = tmp_path / "jagged26.pt2"
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("version", "0")
        z.writestr("archive_format", "pt2")
        z.writestr(f"data/aotinductor/model/{stem}.cpp", kernel + "\n" + wrapper)
        z.writestr(f"data/aotinductor/model/{stem}_metadata.json", meta)
    return out, kernel.count("\n") + 1


def test_26_layout_is_read_as_the_inline_dialect(tmp_path):
    from inspector import trace_assert

    pkg_path, offset = _as_26_layout(tmp_path)
    with inspector.open_package(pkg_path) as pkg:
        m = pkg.model()
        assert pkg.archive_version == "0" and pkg.format == "pt2"
        assert m.dialect == CPU_INLINE.name
        assert m.kernel_member == m.wrapper_member and m.wrapper_member.endswith(".cpp")
        (k,) = m.kernels.values()
        assert [a.line for a in k.assertions] == [52]  # kernel.cpp line 52 of the 2.13 package, first in the file
        assert m.skipped_statements == 0 and [i.name for i in m.inputs] == ["arg0_1", "arg1_1"]
        r = trace_assert(pkg, line=52, kernel=k.name)
    assert r.matches[0].bound.input.index == 0 and r.matches[0].bound.input.dim == 0


@pytest.mark.parametrize("manifest", SAMPLES_26, ids=[p.parent.name for p in SAMPLES_26])
def test_real_26_samples_trace_their_logs_exactly(manifest):
    """The samples branch's real torch 2.6 packages (present once it is merged)."""
    from inspector import trace_assert

    man = json.loads(manifest.read_text())
    exp = man["expect"]
    with inspector.open_package(manifest.parent / f"{man['name']}.pt2") as pkg:
        m = pkg.model()
        assert m.dialect == CPU_INLINE.name and m.skipped_statements == 0
        r = trace_assert(pkg, log=(manifest.parent / "error.log").read_text())
    if exp.get("kernel_kind") == "extern":
        return  # failures inside extern ATen ops: issue 8's extern work
    (mt,) = r.matches
    assert mt.exact and mt.kernel == exp["kernel"]
    assert [o.input.index for o in mt.index_origin if o.input] == [exp["index_input"]]
    if exp.get("bound_input"):
        assert (mt.bound.input.index, mt.bound.input.dim) == (exp["bound_input"]["index"], exp["bound_input"]["dim"])
