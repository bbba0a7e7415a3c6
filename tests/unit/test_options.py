"""How a package is read is an `Options` object passed to `Package`, not module globals; the index cache
does not import the package root; every wrapper family is one module of `inspector.dialects`."""

from __future__ import annotations

import importlib
import pkgutil

import inspector
from inspector import dialects, package
from inspector.dialects import members
from inspector.index import cache
from inspector.options import Options, current, using

from _paths import ROOT, S

PKG = S / "cpu/jagged/jagged.pt2"


def test_no_module_globals_configure_the_library():
    assert not hasattr(cache, "ENABLED")
    assert not hasattr(package, "PROGRESS") and not hasattr(package, "SEEN")


def test_cache_argument_and_options_agree(cache_dir):
    with inspector.open_package(PKG, cache=True) as p:
        assert p.options.cache and p.use_cache
    with inspector.open_package(PKG, options=Options(cache=True)) as p:
        assert p.use_cache
    with inspector.open_package(PKG) as p:
        assert not p.use_cache  # the library's default: no cache


def test_using_makes_options_the_default_and_collects_coverage():
    opts = Options()
    with using(opts):
        assert current() is opts
        with inspector.open_package(PKG) as p:
            assert p.options is opts
            p.index()
    assert current() is not opts
    assert [(m, n) for _, m, n in opts.skipped()] == [] and opts.seen  # read, nothing skipped


def test_index_cache_does_not_import_the_package_root():
    src = (ROOT / "inspector/index/cache.py").read_text()
    assert "from .. import __version__" not in src and "from .._version import __version__" in src
    assert inspector.__version__ == importlib.import_module("inspector._version").__version__


def test_each_dialect_family_is_a_module_and_registered():
    mods = {m.name for m in pkgutil.iter_modules(dialects.__path__)}
    assert {"base", "members", "cuda_call_triton", "cpu_kernel_cpp", "cpu_inline"} <= mods
    for d in dialects.DIALECTS:
        assert dialects.by_name(d.name) is d


def test_member_roles():
    assert members.role("abc.wrapper.cpp") == "wrapper"
    assert members.role("abc.kernel.cpp") == "kernel_cpp"
    assert members.role("abc.cpp") == "inline_cpp"
    assert members.role("abc_metadata.json") == "inline_metadata"
    assert members.role("x.cubin") == "cubin"
    assert members.role("weight_0") == "weights"
