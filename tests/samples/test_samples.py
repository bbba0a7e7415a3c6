"""Every real sample package: `show` and `trace-assert` against the manifest and the package's own files.

The manifests were written by sample_packages/build.py from how each model was
built and from the real error its run printed; nothing in them comes from
pt2-inspect.  The grep recipe of PyTorch's AOTI debugging guide is re-done here
with a few regexes, and must reach the same input and dimension as the graph.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from _samples import SAMPLES, by_name

import inspector
from inspector.cli import main
from inspector.queries.show import summarize
from inspector import trace_assert

from known_gaps import TRACE


def test_every_sample_is_there():
    names = {(s.build, s.name) for s in SAMPLES}
    for dev in ("cpu", "cuda"):
        for n in ("embedding", "gather_dynamic", "jagged", "scatter_add", "transformer", "two_models"):
            assert (dev, n) in names


@functools.lru_cache(maxsize=None)
def show_json(pkg_path: Path) -> dict:
    """`show --json` of a package, once per session: several tests read it, each for one capability."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["show", str(pkg_path), "--json"]) == 0
    return json.loads(out.getvalue())


@pytest.mark.needs("cpu_isa")
def test_show_names_the_target(sample):
    models = show_json(sample.pkg)["models"]
    assert models
    for m in models:
        assert m["device"] == sample.manifest["device"]
        if m["device"] == "cuda":
            assert m["compute_capability"] == "90"
        else:
            assert m["cpu_isa"]


@pytest.mark.needs("input_dtypes")
def test_show_names_the_input_dtypes_of_the_export(sample):
    man = sample.manifest
    models = show_json(sample.pkg)["models"]
    assert models
    for m in models:
        spec = man["models"][m["name"]] if "models" in man else man
        assert [i["dtype"] for i in m["inputs"]] == [x["dtype"] for x in spec["inputs"]]


@pytest.mark.needs("split_files")
def test_show_json_matches_package_and_manifest(sample):
    """What show says, against the package's own files by grep and the manifest's export."""
    man, pkg_path = sample.manifest, sample.pkg
    s = show_json(pkg_path)
    assert s["format"] == "pt2"
    zf = zipfile.ZipFile(pkg_path)
    names = zf.namelist()
    wrappers = [n for n in names if n.endswith(".wrapper.cpp")]
    assert wrappers and len(s["models"]) == len(wrappers)  # a loop over no model would check nothing
    for m in s["models"]:
        assert m["device"] == man["device"]
        wrapper = zf.read(m["wrapper"]).decode()
        # Inputs: as many as inputs_info_ entries, ranks as the manifest's example inputs.
        assert len(m["inputs"]) == len(re.findall(r"inputs_info_\[\d+\]\.name", wrapper))
        spec = man["models"][m["name"]] if "models" in man else man
        assert [len(i["shape"]) for i in m["inputs"]] == [len(x["shape"]) for x in spec["inputs"]]
        # Symbols: each dynamic dim of the export has a symbol whose range is the guard's.
        syms = {(sy["input"], sy["dim"]): sy for sy in m["symbols"] if not sy["alias_of"]}
        for idx, dims in enumerate(spec["dynamic_shapes"]):
            for dim, rng in dims.items():
                sy = syms.get((idx, int(dim)))
                if sy is None:  # a dim equal to another input's dim shares that symbol
                    continue
                assert sy["max"] == rng["max"]
                assert sy["min"] == max(2, rng["min"])  # export specializes 0/1: the guard says >= 2
        # Kernels: as many as the package defines (Triton launchers or extern "C" CPU kernels).
        kernel_cpp = zf.read(m["kernel_cpp"]).decode() if m["kernel_cpp"] else ""
        n_triton = len(re.findall(r"static inline void call_triton_\w+\(", wrapper))
        n_cpp = len(re.findall(r'^extern "C"\s+void\s+cpp_\w+\(', kernel_cpp, re.M))
        assert len(m["kernels"]) == n_triton + n_cpp
        n_asserts = len(re.findall(r"tl\.device_assert\(", wrapper)) + len(re.findall(r"AOTI_TORCH_CHECK\(", kernel_cpp))
        assert m["assertions"] == n_asserts
        consts = len(set(re.findall(r"constants_info_\[(\d+)\]\.name", wrapper)))
        assert len(m["constants"]) == consts


@pytest.mark.needs(*TRACE)
def test_captured_error_traces_to_manifest(sample):
    man, pkg_path = sample.manifest, sample.pkg
    exp = man["expect"]
    if not sample.fired:
        pytest.skip("the trigger ran without any error on this build: nothing to trace")
    with inspector.open_package(pkg_path) as pkg:
        r = trace_assert(pkg, log=man["error"]["stderr"])
    assert r.matches, r.looked_for
    assert not r.ambiguous
    mt = r.matches[0]
    assert mt.exact
    assert mt.model == exp["model"]
    assert mt.kernel == exp["kernel"]
    assert mt.static_bound == exp["static_bound"]
    if exp["bound_input"]:
        assert mt.bound.input.index == exp["bound_input"]["index"]
        assert mt.bound.input.dim == exp["bound_input"]["dim"]
        assert mt.bound.min is not None and mt.bound.max is not None
    if len(exp.get("bound_terms") or []) > 1:  # a compound bound: every input dim in it
        terms = getattr(mt.bound, "terms", None) or []
        assert sorted((t.input.index, t.input.dim) for t in terms) == sorted(
            (t["index"], t["dim"]) for t in exp["bound_terms"])
    if exp.get("kernel_kind"):
        assert mt.kernel_kind == exp["kernel_kind"]
    assert {o.input.index for o in mt.index_origin if o.input} == {exp["index_input"]}
    assert any(exp["source_contains"] in n for n in mt.source_nodes + mt.aten_ops)
    assert mt.complete
    assert mt.hypotheses


def test_every_assertion_traces_completely(sample):
    """Not only the one that fired: every assertion in the package has a chain with no unknown hop."""
    traced = 0
    with inspector.open_package(sample.pkg) as pkg:
        for m in pkg.models:
            for k in m.kernels.values():
                for a in k.assertions:
                    r = trace_assert(pkg, line=a.line, kernel=k.name, model=m.name)
                    mt = next(x for x in r.matches if x.kernel == k.name)
                    assert mt.complete, (k.name, a.line, [o.unresolved for o in mt.index_origin])
                    traced += 1
    assert traced or sample.extern  # an ATen op checks its own indices: no Inductor check to trace


# --- the guide's grep recipe, as plain regexes -------------------------------------------------


def _split_args(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def grep_recipe(wrapper: str, kernel_cpp: str, kernel: str, bound: str):
    """Guide steps: kernel's call -> argument in the bound's position -> `int64_t sN = argK_1_size[d]` -> inputs[K]."""
    if kernel.startswith("triton_"):
        sig = re.search(r"static inline void call_" + kernel + r"\((.*?)\)\{", wrapper, re.S).group(1)
        params = [p.split()[-1] for p in _split_args(sig)]
        call = re.search(r"^\s*call_" + kernel + r"\((.*)\);", wrapper, re.M).group(1)
    else:
        sig = re.search(r'extern "C"\s+void\s+' + kernel + r"\((.*?)\)", kernel_cpp, re.S).group(1)
        params = [p.split()[-1] for p in _split_args(sig)]
        call = re.search(r"^\s*" + kernel + r"\((.*)\);", wrapper, re.M).group(1)
    arg = _split_args(call)[params.index(bound)]
    sym = re.search(r"\b(s\d+)\b", arg).group(1)
    while True:
        d = re.search(r"int64_t " + sym + r" = (\w+);", wrapper)
        if not d or not re.fullmatch(r"s\d+", d.group(1)):
            break
        sym = d.group(1)
    m = re.search(r"int64_t " + sym + r" = (\w+)_size\[(\d+)\];", wrapper)
    name, dim = m.group(1), int(m.group(2))
    k = int(re.search(r"auto " + name + r" = std::move\(inputs\[(\d+)\]\);", wrapper).group(1))
    return k, dim


TRITON_CLOSE = "''" + "', device_str"


def grep_assert_lines(wrapper: str, kernel_cpp: str, kernel: str) -> dict[int, str]:
    """Guide step 1, by grep: the line of each index check of ``kernel`` as its error names it, with its message.

    Triton: the N-th line of the embedded source, the `async_compile.triton('<kernel>', '''` line
    being 1; CPU: the kernel.cpp line, from the kernel's `extern "C"` signature to the next one.
    """
    out = {}
    if kernel.startswith("triton_"):
        lines = wrapper.split("\n")
        start = next(i for i, l in enumerate(lines) if f"async_compile.triton('{kernel}'," in l)
        end = next(i for i in range(start, len(lines)) if TRITON_CLOSE in lines[i])
        for i in range(start, end):
            m = re.search(r'tl\.device_assert\(.*"(index out of bounds:[^"]*)"\)', lines[i])
            if m:
                out[i - start + 1] = m.group(1)
    else:
        lines = kernel_cpp.split("\n")
        start = next(i for i, l in enumerate(lines) if re.search(r"\b" + kernel + r"\(", l) and "extern" in l)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith('extern "C"')), len(lines))
        for i in range(start, end):
            m = re.search(r'AOTI_TORCH_CHECK\(.*"(index out of bounds:[^"]*)"\);', lines[i])
            if m:
                out[i + 1] = m.group(1)
    return out


def grep_extern_calls(wrapper: str, fn: str) -> set[int]:
    """The wrapper lines that call the ATen op ``fn`` (bare, or inside AOTI_TORCH_ERROR_CODE_CHECK(...))."""
    return {i + 1 for i, line in enumerate(wrapper.split("\n"))
            if re.match(r"\s*(?:AOTI_TORCH_ERROR_CODE_CHECK\()?" + fn + r"\(", line)}


def test_grep_recipe_agrees_with_graph(sample):
    """Every index check of every sample, re-found by grep: same lines and messages; each size parameter
    of a bound (one, or several in a compound bound such as `ks0 + ks1`) reaches the same input and dim by
    the guide's recipe; a static bound is the number in the message.  The recipe alone, on the kernel the
    real error names, reaches the manifest's truth (its bound's input dims, or its static bound).  An
    extern-op sample (no Inductor check) is checked on the op's call lines instead.  Checking nothing fails."""
    exp = sample.expect
    checked = {"lines": 0, "size_bound": 0, "static_bound": 0, "extern_calls": 0}
    truth = set()  # what the recipe reaches on the failing kernel's checks: ("terms", ...) or ("static", n)
    with inspector.open_package(sample.pkg) as pkg, zipfile.ZipFile(sample.pkg) as zf:
        for m in pkg.models:
            wrapper = zf.read(m.wrapper_member).decode()
            kernel_cpp = zf.read(m.kernel_member).decode() if m.kernel_member else ""
            failing = m.name == exp["model"]
            if sample.extern and failing:
                lines = grep_extern_calls(wrapper, exp["kernel"])
                assert lines == {c.line for c in m.calls if c.kind == "extern" and c.target == exp["kernel"]}
                checked["extern_calls"] += len(lines)
            for k in m.kernels.values():
                if not k.assertions:
                    continue
                grep = grep_assert_lines(wrapper, kernel_cpp, k.name)
                assert {a.line: a.message for a in k.assertions} == grep
                checked["lines"] += len(grep)
                for a in k.assertions:
                    r = trace_assert(pkg, line=a.line, kernel=k.name, model=m.name)
                    mt = next(x for x in r.matches if x.file_line == a.line)
                    params = re.findall(r"\bks\d+\b", a.bound_expr or "")
                    if params:
                        terms = mt.bound.terms if len(params) > 1 else [mt.bound]
                        got = sorted((x.input.index, x.input.dim) for x in terms)
                        recipe = sorted(grep_recipe(wrapper, kernel_cpp, k.name, p) for p in params)
                        assert got == recipe
                        checked["size_bound"] += 1
                        reached = ("terms", *recipe)
                    else:
                        number = re.search(r"< \(?(\d+)L?\)?$", grep[a.line])
                        assert number, grep[a.line]
                        assert mt.static_bound == int(number.group(1))
                        checked["static_bound"] += 1
                        reached = ("static", int(number.group(1)))
                    if failing and k.name == exp["kernel"]:
                        truth.add(reached)
    assert checked["size_bound"] + checked["static_bound"] == checked["lines"]
    if sample.extern:  # an ATen op checks its own indices: no Inductor check, but its call is there
        assert checked["extern_calls"] >= 1, checked
        return
    assert checked["lines"] >= 1, checked  # every other sample holds at least one index check
    if exp["bound_terms"]:
        assert checked["size_bound"] >= 1, checked
        assert ("terms", *sorted((t["index"], t["dim"]) for t in exp["bound_terms"])) in truth, truth
    if exp.get("static_bound"):
        assert checked["static_bound"] >= 1, checked
        assert ("static", exp["static_bound"]) in truth, truth


def test_line_alone_lists_every_candidate_ranked():
    """`--line N` alone: every kernel with an assertion on that line, flagged ambiguous when several."""
    pkg_path = by_name("cuda/transformer").pkg
    with inspector.open_package(pkg_path) as pkg:
        lines = [a.line for k in pkg.model().kernels.values() for a in k.assertions]
        line = max(set(lines), key=lines.count)
        r = trace_assert(pkg, line=line)
    assert len(r.matches) == lines.count(line)
    if len(r.matches) > 1:
        assert r.ambiguous
    assert all(mt.file_line == line for mt in r.matches)


def test_cuda_log_names_the_noticing_call_as_context_only():
    s = by_name("cuda/transformer")
    man, pkg_path = s.manifest, s.pkg
    noticed = re.search(r"Error: (\w+)\(.*API call failed at .*line (\d+)", man["error"]["stderr"])
    assert noticed, "the captured CUDA log names a later call"
    with inspector.open_package(pkg_path) as pkg:
        r = trace_assert(pkg, log=man["error"]["stderr"])
    assert [mt.kernel for mt in r.matches] == [man["expect"]["kernel"]]
    assert any(noticed.group(1) in c and f"line {noticed.group(2)}" in c for c in r.context)


def test_two_models_are_both_listed(capsys):
    for dev in ("cpu", "cuda"):
        assert main(["show", str(by_name(f"{dev}/two_models").pkg), "--json"]) == 0
        s = json.loads(capsys.readouterr().out)
        assert sorted(m["name"] for m in s["models"]) == ["decoder", "encoder"]


def test_exported_program_is_listed():
    with inspector.open_package(by_name("cpu/gather_dynamic").pkg) as pkg:
        s = summarize(pkg)
    assert s.exported_programs and all(p.endswith(".json") for p in s.exported_programs)


def test_provenance_stack_traces_are_shown():
    s = by_name("cpu/jagged")
    man, pkg_path = s.manifest, s.pkg
    with inspector.open_package(pkg_path) as pkg:
        mt = trace_assert(pkg, log=man["error"]["stderr"]).matches[0]
    assert not mt.source_nodes_derived
    assert "index_copy" in mt.source_nodes
    assert any("values[idx]" in t for t in mt.stack_traces)


def test_transformer_has_many_kernels():
    for dev in ("cpu", "cuda"):
        with inspector.open_package(by_name(f"{dev}/transformer").pkg) as pkg:
            m = pkg.model()
            launches = [c for c in m.calls]
            assert len(m.kernels) + len({c.target for c in launches if c.kind == "extern"}) >= 20
            assert len(launches) >= 20


@pytest.mark.parametrize("fmt", ["dot", "graphml"])
def test_graph_export(fmt, tmp_path):
    out = tmp_path / f"g.{fmt}"
    pkg = by_name("cuda/jagged").pkg
    assert main(["graph", str(pkg), "--format", fmt, "-o", str(out)]) == 0
    text = out.read_text()
    assert "triton_per_fused_cumsum_0" in text and "input:1" in text
    if fmt == "dot":
        assert text.startswith("digraph") and "-> " in text


def test_json_keys_are_the_documented_ones(capsys):
    pkg = str(by_name("cuda/jagged").pkg)
    assert main(["show", pkg, "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert {"package", "format", "archive_version", "models"} <= set(s)
    m = s["models"][0]
    assert {"name", "device", "compute_capability", "cpu_isa", "inputs", "outputs", "symbols", "constants", "kernels"} <= set(m)
    assert {"index", "name", "dtype", "shape", "stride"} <= set(m["inputs"][0])
    assert {"name", "input", "dim", "min", "max"} <= set(m["symbols"][0])
    assert {"name", "kind", "assertions"} <= set(m["kernels"][0])
    assert main(["trace-assert", pkg, "--log", str(by_name("cuda/jagged").error_log), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    mt = r["matches"][0]
    assert {"model", "kernel", "kernel_kind", "file_line", "assertion", "static_bound", "bound", "index_origin",
            "source_nodes", "source_nodes_derived", "aten_ops", "hypotheses", "notes"} <= set(mt)
    assert {"message", "index_var", "bound_expr"} <= set(mt["assertion"])
    assert {"kernel_param", "call_arg", "symbol", "input", "min", "max"} <= set(mt["bound"])
    assert mt["bound"]["input"] == {"index": 0, "name": "arg0_1", "dim": 0, "user_name": None}
    assert {"input", "constant", "path"} <= set(mt["index_origin"][0])
    assert mt["index_origin"][0]["input"]["index"] == 1


def test_one_pasted_device_assert_line_is_enough():
    """A single line copied from the real log (as --message) finds the exact kernel by its .py path."""
    s = by_name("cuda/jagged")
    man, pkg_path = s.manifest, s.pkg
    line = next(l for l in man["error"]["stderr"].splitlines() if "Assertion" in l)
    with inspector.open_package(pkg_path) as pkg:
        r = trace_assert(pkg, message=line)
    assert [(m.kernel, m.exact) for m in r.matches] == [(man["expect"]["kernel"], True)]


def test_repeated_thread_lines_give_one_match_and_two_errors_two():
    """The CUDA log repeats the assert once per thread: one match. Two different failures: two matches."""
    s = by_name("cpu/transformer")
    man, pkg_path = s.manifest, s.pkg
    with inspector.open_package(pkg_path) as pkg:
        one = trace_assert(pkg, log=man["error"]["stderr"] * 3)
        assert len(one.matches) == 1
        # The same package's other real check (the position table), reported the way the kernel would.
        k = pkg.model().kernels[man["expect"]["kernel"]]
        other = next(a for a in k.assertions if a.message != one.matches[0].assertion.message)
        log = man["error"]["stderr"] + f"\nError: {other.message}\nException raised from {k.name} at /tmp/x/{Path(pkg.model().kernel_member).name}:{other.line} (most recent call first):\n"
        two = trace_assert(pkg, log=log)
    assert sorted(m.file_line for m in two.matches) == sorted({one.matches[0].file_line, other.line})
