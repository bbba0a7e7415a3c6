"""inspector/host.py is the one home of the host probes (issue 21 §2): what each reads, on real texts, and that no
other module probes the host itself.  The wrapper-text reads doctor needs (parse/wrapper_text.py), on real
wrappers.  Fast: two small packages opened."""

from __future__ import annotations

import ast
import json

import pytest

import inspector
from inspector import host
from inspector.parse.wrapper_text import compile_flags, device_index_use, loaded_image_names

from _paths import ROOT, S

PKG = ROOT / "inspector"
NO_AMX = S / "cpu" / "jagged" / "logs" / "cpuinfo_flags_no_amx.log"
CUDA = S / "cuda" / "jagged" / "jagged.pt2"
CPU = S / "cpu" / "jagged" / "jagged.pt2"


def test_cpu_flags_of_a_real_cpuinfo_line():
    """The saved flags line of a host without AMX (a tab before the colon, as /proc/cpuinfo writes it)."""
    flags = host.host_cpu_flags(NO_AMX.read_text())
    assert {"avx2", "avx512f", "avx512_vnni"} <= flags and not {f for f in flags if f.startswith("amx")}
    assert "flags" not in flags and ":" not in flags
    assert host.host_cpu_flags("avx2 fma") == {"avx2", "fma"}  # a bare list of flags
    text = "processor\t: 0\nmodel name\t: X\nflags\t\t: sse avx2\nbugs\t\t: spectre\nflags\t\t: avx512f\n"
    assert host.host_cpu_flags(text) == {"sse", "avx2"}  # the first flags line, no other field


def test_this_hosts_cpuinfo_and_glibc():
    try:
        text = host.read_cpuinfo()
    except OSError:
        pytest.skip("no /proc/cpuinfo here")
    assert host.host_cpu_flags(text)
    g = host.host_glibc()
    assert g is None or (g.startswith("glibc ") and len(host.version_key(g)) >= 2)


@pytest.mark.parametrize("text, sm", [("sm_80", 80), ("sm80", 80), ("8.0", 80), ("80", 80), ("sm_90a", 90),
                                      ("SM_100", 100), ("sm_100f", 100), (" 9.0 ", 90)])
def test_gpu_architecture_spellings(text, sm):
    assert host.gpu_sm(text) == sm


@pytest.mark.parametrize("text", ["ampere", "sm_", "9", "", "sm_9", "9.0.1"])
def test_not_a_gpu_architecture(text):
    assert host.gpu_sm(text) is None


def test_version_order_and_release_numbers():
    assert host.version_key("GLIBC_2.34") == (2, 34) > host.version_key("GLIBC_2.17") == (2, 17)
    assert host.version_key("GLIBCXX_3.4.29") == (3, 4, 29)
    assert host.version_key("glibc 2.35") > host.version_key("GLIBC_2.34")
    assert host.release_numbers("2.13") == ("2", "13") == host.release_numbers("2.13.0")
    assert host.release_numbers("2.13.0a0") is None and host.release_numbers("two") is None


def test_the_hosts_torch():
    import importlib.util
    import sys

    assert host.torch_python() == (sys.executable if importlib.util.find_spec("torch") else None)


def test_no_smi_no_gpu(monkeypatch):
    monkeypatch.setattr(host.shutil, "which", lambda name: None)
    assert host.nvidia_smi_sm() is None


def test_nothing_else_probes_the_host():
    """nvidia-smi, /proc/cpuinfo, the C library's version: read in inspector/host.py alone."""
    probes = ("nvidia-smi", "/proc/cpuinfo", "confstr", "libc_ver", "CS_GNU_LIBC_VERSION")
    seen = []
    for path in sorted(PKG.rglob("*.py")):
        rel = str(path.relative_to(PKG))
        if rel == "host.py" or rel.startswith("explain/"):  # the words may name a probe ("nvidia-smi found none")
            continue
        tree = ast.parse(path.read_text())
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                # a probe is a bare string naming it (a path, a command, a confstr name), not a sentence about it
                if n.value.strip() in probes or n.value.startswith(("/proc/cpuinfo", "nvidia-smi")):
                    seen.append((rel, n.value))
            elif isinstance(n, ast.Attribute) and n.attr in ("confstr", "libc_ver"):
                seen.append((rel, n.attr))
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "find_spec"
                  and n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value == "torch"):
                seen.append((rel, "find_spec('torch')"))  # is torch here: host.torch_python
    assert seen == []
    assert "nvidia-smi" in (PKG / "host.py").read_text()  # the test looks for what host.py does


def _wrapper(path):
    with inspector.open_package(path) as pkg:
        f = pkg.files(pkg.model_names[0])
        texts = [(f.wrapper, pkg.archive.read_text(f.wrapper))]
        if f.kernel_cpp and f.kernel_cpp != f.wrapper:
            texts.append((f.kernel_cpp, pkg.archive.read_text(f.kernel_cpp)))
        return f, texts


def test_compile_flags_of_real_builds():
    """cpu/jagged was compiled on an AMX host (-march=native … -mamx-tile in its compile command)."""
    f, texts = _wrapper(CPU)
    c = compile_flags(texts)
    assert c.native and {"avx512f", "amx-tile"} <= c.flags and c.member in (f.wrapper, f.kernel_cpp)
    assert not {x for x in c.flags if x.startswith(("arch", "tune"))}
    assert compile_flags([("x.cpp", "int main() {}\n")]) == type(c)(frozenset(), False, None)


def test_the_cubins_a_real_wrapper_loads_and_its_device_index():
    f, texts = _wrapper(CUDA)
    wrapper = texts[0][1]
    names = loaded_image_names(wrapper, "loadKernel(")
    assert names and names == {m.rsplit("/", 1)[-1] for m in f.cubins}
    assert loaded_image_names(wrapper, None) == set()
    use = device_index_use(wrapper)
    assert use.runner_lines and all(ln > 0 and "this->device_idx_" in wrapper.split("\n")[ln - 1]
                                    for ln in use.runner_lines)
    assert use.fixed == ()
    assert device_index_use('auto d = "cuda:1"; x = "xpu:0";').fixed == ('"cuda:1"', '"xpu:0"')


def test_doctor_findings_hold_plain_facts():
    """A Finding is (kind, severity, code, facts): its facts plain values (what JSON could hold, tuples too), the
    sentences only made from them by explain/doctor.py."""
    from inspector.queries.doctor import doctor

    def plain(v):
        if isinstance(v, (list, tuple)):
            return all(plain(x) for x in v)
        if isinstance(v, dict):
            return all(isinstance(k, str) and plain(x) for k, x in v.items())
        return v is None or isinstance(v, (str, int, float, bool))

    n = 0
    for path, kw in ((CUDA, {"gpu": "sm_80", "torch": "2.6"}), (CPU, {"host_cpuinfo": NO_AMX.read_text()})):
        with inspector.open_package(path) as pkg:
            r = doctor(pkg, **kw)
        assert r.findings
        for f in r.findings:
            n += 1
            assert plain(f.facts), (f.code, f.facts)
            assert json.dumps(f.to_dict())  # the words are made from them
    assert n > 5
