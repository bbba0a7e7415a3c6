"""The lazy index answers exactly as the whole parse does, on every real sample.

`ModelIndex.slice` parses only the run_impl statements a trace needs (the closure of the matched
kernels' launches over the names they use and the writers of their buffers), and `show` on a large
wrapper is summarized from the scan.  Both are checked here against the full parse of the same
package: the call sites a slice holds, every trace of every real log, and `show`'s whole output.
"""

from __future__ import annotations

import dataclasses

import pytest

import inspector
from inspector.queries.show import summarize
from inspector import trace_assert

from _paths import S
from _samples import LOGS, PACKAGES, pkg_for

IDS = [str(p.relative_to(S).parent) for p in PACKAGES]


def test_there_is_something_to_compare():
    assert len(PACKAGES) >= 50 and len(LOGS) >= 60


def _site(c):
    d = dataclasses.asdict(c)
    d["args"] = [(a["text"], a["base"]) for a in d["args"]]
    return d


@pytest.mark.parametrize("pkg_path", PACKAGES, ids=IDS)
def test_a_slice_holds_the_calls_the_full_parse_holds(pkg_path):
    compared = 0
    with inspector.open_package(pkg_path, cache=False) as lazy, inspector.open_package(pkg_path, cache=False) as whole:
        for name in lazy.model_names:
            full = whole.model(name)
            launched = list(dict.fromkeys(c.target for c in full.calls if c.kind == "kernel"))
            assert launched or not full.kernels
            for kernel in launched:
                s = lazy.index(name).slice(kernels=[kernel])
                mine = [c for c in s.calls if c.target == kernel]
                theirs = [c for c in full.calls if c.target == kernel]
                assert [_site(c) for c in mine] == [_site(c) for c in theirs]
                # every buffer a launch names is what the full parse says it is, with the same writers
                for c in mine:
                    for a in c.args:
                        if a.base in full.buffers:
                            assert s.buffers[a.base] == full.buffers[a.base]
                            writers = [x.line for x in full.calls if a.base in x.writes and x.line < c.line]
                            assert [x.line for x in s.calls if a.base in x.writes and x.line < c.line] == writers
                assert s.kernels[kernel] is lazy.index(name).kernel(kernel)
                compared += 1
    assert compared or not launched


_pkg_for = pkg_for  # logs/index.json names the package each log was made with


@pytest.mark.parametrize("log", LOGS, ids=[str(p.relative_to(S)) for p in LOGS])
def test_a_trace_through_slices_equals_the_trace_through_the_full_parse(log):
    text = log.read_text(errors="replace")
    with inspector.open_package(_pkg_for(log), cache=False) as lazy, \
            inspector.open_package(_pkg_for(log), cache=False) as whole:
        for name in whole.model_names:
            whole.index(name).full()  # a slice of a fully parsed index is the full model
        a = trace_assert(lazy, log=text).to_dict()
        b = trace_assert(whole, log=text).to_dict()
        assert a == b
        parsed = sum(len(lazy.index(n)._kernels) for n in lazy.model_names)
        total = sum(len(lazy.index(n).kernel_names()) for n in lazy.model_names)
        assert parsed <= total


@pytest.mark.parametrize("pkg_path", PACKAGES, ids=IDS)
def test_show_from_the_scan_equals_show_from_the_full_parse(pkg_path):
    with inspector.open_package(pkg_path, cache=False) as p:
        lazy = summarize(p, full=False).to_dict()
    with inspector.open_package(pkg_path, cache=False) as p:
        full = summarize(p, full=True).to_dict()
    assert full["models"]  # every package has a model: the zip compares at least one
    for a, b in zip(lazy["models"], full["models"], strict=True):
        assert a.pop("coverage")["read"] == "lazy" and b.pop("coverage")["read"] == "all"
        assert a == b


@pytest.mark.parametrize("pkg_path", PACKAGES, ids=IDS)
def test_check_through_slices_equals_check_through_the_full_parse(pkg_path):
    """`check` predicts failures from a slice of the asserting kernels (and parses every kernel only when a
    given dim is 0, for unchecked loads): with every dynamic dim 0, 1 and 7, it says what the full parse says."""
    from inspector.queries.check import InputSpec, check

    compared = 0
    for size in (0, 1, 7):
        with inspector.open_package(pkg_path, cache=False) as p:
            names = p.model_names
        for name in names:
            with inspector.open_package(pkg_path, cache=False) as lazy, \
                    inspector.open_package(pkg_path, cache=False) as whole:
                whole.index(name).full()
                inputs = lazy.index(name).eager().inputs
                specs = [InputSpec(who=str(i.index), dtype=i.dtype,
                                   shape=[d if isinstance(d, int) else size for d in i.shape]) for i in inputs]
                a = check(lazy, specs, model=name).to_dict()
                b = check(whole, specs, model=name).to_dict()
                assert a == b
                compared += 1
                if pkg_path.parent.name == "jagged" and size == 0:  # an empty input: the real bug, predicted
                    assert a["predicted_assertions"], a
    assert compared
