"""One model of a package, indexed lazily: a cheap scan up front, Lark only where a query walks.

`ModelIndex` reads the wrapper once with plain string search (`inspector.parse.wrapper.scan_wrapper`,
`inspector.parse.cpp_kernel.scan_kernel_cpp`): the regions (launchers with their embedded Triton
source, CPU kernels, the constructor, the input checks, run_impl's statements) and the assert sites.
Nothing is parsed until asked:

* `kernel(name)` parses one kernel's region (its launcher parameters, Triton source, cubin);
* `assert_sites()` lists every assert by kernel, line and raw text, parsed by nobody;
* `eager()` is the model's small facts (inputs, symbols, guards, constants, outputs): the statements
  that define them and the names those need;
* `slice(kernels)` is a `Model` with just the run_impl statements a trace of those kernels needs: their
  launches, the definitions of every name in them and, for each buffer, the earlier calls that name it
  (the writers), closed transitively; the kernels those calls launch are parsed, no others;
* `full()` parses everything (what `show --full`, `graph`, `check` and `report` use).

Each statement is parsed once per index (memoized) and counted once in the coverage, whichever models
are built from it.  A slice is a plain `Model`: the graph and the walks do not know it is partial.
"""

from __future__ import annotations

import os
from collections import defaultdict

from ..archive import Archive, ModelFiles
from ..dialects import embedded_source
from ..model import Coverage, Kernel, KernelParam, Model, ProvenanceEntry
from ..parse.cpp_kernel import parse_kernel_region, scan_kernel_cpp
from ..parse.triton import kernel_flavor
from ..parse.wrapper import (TOKEN, LauncherRegion, RunStatement, WrapperMap, WrapperScanner, consumes_comments, declared_name,
                             parse_launcher, parse_statement, scan_warnings, scan_wrapper)

# A name mentioned by more run_impl statements than this (`kernels`, `stream`, a dtype) is followed to its
# declaration only, not to every call that names it.
HOT = 256


class StatementParser:
    """Parses one wrapper statement once (memoized by region and index) and counts it in coverage once."""

    def __init__(self, coverage: dict[str, Coverage]):
        self.coverage = coverage
        self.memo: dict[tuple, object] = {}

    def cov(self, region: str) -> Coverage:
        return self.coverage.setdefault(region, Coverage())

    def __call__(self, region: str, idx: int, text: str, rule: str, line: int):
        key = (region, idx, rule)
        if key not in self.memo:
            self.memo[key] = parse_statement(text, rule, self.cov(region), line)
        return self.memo[key]


class AssertSite:
    """An assert found by the scan: its kernel, line in the kernel's file numbering, and raw text."""

    __slots__ = ("kernel", "line", "text", "wrapper_line")

    def __init__(self, kernel: str, line: int, text: str, wrapper_line: int | None):
        self.kernel, self.line, self.text, self.wrapper_line = kernel, line, text, wrapper_line

    def __repr__(self) -> str:
        return f"<AssertSite {self.kernel}:{self.line}>"


class ModelIndex:
    def __init__(self, archive: Archive, f: ModelFiles, progress=None):
        self.name = f.name
        self.files = f
        self.archive = archive
        self.metadata: dict = {}
        if f.wrapper_metadata:
            meta = archive.read_json(f.wrapper_metadata)
            if isinstance(meta, dict):
                self.metadata = meta
        self.wmap: WrapperMap = scan_wrapper(archive.read_text(f.wrapper), f.wrapper, progress=progress)
        self.coverage: dict[str, Coverage] = {}
        self.parse = StatementParser(self.coverage)
        self.warnings: list[str] = scan_warnings(self.wmap)
        if f.kernel_cpp:
            self.cpp_lines = self.wmap.lines if f.kernel_cpp == f.wrapper else archive.read_text(f.kernel_cpp).split("\n")
            self.cpp_regions = scan_kernel_cpp(self.cpp_lines)
        else:
            self.cpp_lines, self.cpp_regions = [], {}
        if not self.metadata.get("AOTI_DEVICE_KEY"):
            self.metadata["AOTI_DEVICE_KEY"] = "cuda" if self.wmap.launchers else "cpu"
            self.warnings.append("no wrapper_metadata.json: device guessed from the kernels")
        self.provenance: dict[str, ProvenanceEntry] = {}
        if f.kernel_information:
            info = archive.read_json(f.kernel_information)
            for key, v in (info or {}).items():
                if isinstance(v, dict):
                    self.provenance[key] = ProvenanceEntry(
                        key=key, stack_traces=list(v.get("stack_traces") or []),
                        pre_grad_nodes=list(v.get("pre_grad_nodes") or []),
                        post_grad_nodes=list(v.get("post_grad_nodes") or []))
        self._cubins = {os.path.basename(c): c for c in f.cubins}
        self._kernels: dict[str, Kernel] = {}
        self._launcher_params: dict[str, list[KernelParam]] = {}
        self._eager: Model | None = None
        self._full: Model | None = None
        self._names = None  # (declared name -> statement indices, token postings, globals, prologue end)
        missing = {}
        for st in self.wmap.run:
            tk = self.wmap.dialect.call_target(st.callee, self.wmap.cpp_kernels) if st.callee else None
            if tk and tk[1] == "kernel" and not self.kernel_kind(tk[0]):
                missing.setdefault(tk[0], None)
        self.warnings += [f"kernel {n} is called in run_impl but its source was not found" for n in missing]

    # -- kernels -----------------------------------------------------------------------------
    def kernel_names(self) -> list[str]:
        """Every kernel, in wrapper order (Triton launchers), then kernel.cpp order (CPU)."""
        names = list(self.wmap.launchers)
        names += [n for n in self.cpp_regions if n not in self.wmap.launchers]
        return names

    def kernel_kind(self, name: str) -> str | None:
        if name in self.wmap.launchers:
            return "triton"
        return "cpp" if name in self.cpp_regions else None

    def kernel(self, name: str) -> Kernel | None:
        """One kernel, parsed from its region on first use."""
        if name in self._kernels:
            return self._kernels[name]
        k = None
        if name in self.wmap.launchers:
            k, params = parse_launcher(self.wmap, self.wmap.launchers[name], self.parse)
            self._launcher_params[name] = params
            if k.cubin:
                k.cubin = self._cubins.get(os.path.basename(k.cubin))
        elif name in self.cpp_regions:
            start, end, _ = self.cpp_regions[name]
            k = parse_kernel_region(self.cpp_lines, start, end, self.files.kernel_cpp, self.parse.cov("kernel.cpp"))
        if k is not None:
            self._kernels[name] = k
        return k

    def assert_sites(self) -> list[AssertSite]:
        """Every assert of every kernel, found by the scan (nothing parsed)."""
        out = []
        lines, base = self.wmap.lines, self.wmap.dialect.triton_line_base
        for r in self.wmap.launchers.values():
            if r.triton is None:
                continue
            for j in r.asserts:
                out.append(AssertSite(r.name, j - r.triton[0] + base, lines[j].strip(), j + 1))
        for name, (_, _, checks) in self.cpp_regions.items():
            for j in checks:
                out.append(AssertSite(name, j + 1, self.cpp_lines[j].strip(), None))
        return out

    def kernel_flavor(self, name: str) -> str:
        """What `Kernel.flavor` will say, from the scan: the Triton decorator or name; "cpp" for CPU kernels."""
        r = self.wmap.launchers.get(name)
        if r is None:
            return "cpp"
        return kernel_flavor(name, r.decorator)

    def calls(self) -> list[tuple[RunStatement, str, str]]:
        """Every run_impl kernel launch and extern op call, from the scan: (statement, target, "kernel"|"extern")."""
        wm, out = self.wmap, []
        for st in wm.run:
            if st.callee and not st.callee.startswith("aoti_torch_empty"):
                tk = wm.dialect.call_target(st.callee, wm.cpp_kernels)
                if tk:
                    out.append((st, tk[0], tk[1]))
        return out

    def kernel_source(self, name: str) -> list[str]:
        """The kernel's lines as `Kernel.source` holds them, without parsing it."""
        r = self.wmap.launchers.get(name)
        if r is not None and r.triton is not None:
            return embedded_source(self.wmap.lines, *r.triton)
        return self.cpp_lines if name in self.cpp_regions else []

    # -- run_impl: which statements a question needs -----------------------------------------------
    def _name_tables(self):
        if self._names is None:
            run, wm = self.wmap.run, self.wmap
            decls: dict[str, list[int]] = defaultdict(list)
            postings: dict[str, list[int]] = defaultdict(list)
            prologue_end = next((i for i, st in enumerate(run) if consumes_comments(wm, st)), len(run))
            for i, st in enumerate(run):
                if st.kind in (None, "comment"):
                    continue
                n = declared_name(st)
                if n:
                    decls[n].append(i)
                for t in set(TOKEN.findall(st.text)):
                    postings[t].append(i)
            self._names = (decls, postings, prologue_end)
        return self._names

    def _globals(self) -> set[str]:
        """Names a declaration before the first call binds to no buffer (inputs, symbols, constants, `kernels`…):
        every slice holds those statements already, so a slice does not follow them.  Handles
        (``AtenTensorHandle buf1_handle;``) are always followed: the call that fills one comes later."""
        decls, _, prologue_end = self._name_tables()
        m = self.eager()
        bufs = set(m.buffers) | {b + "_handle" for b in m.buffers} | set(self._eager_aliases)
        run = self.wmap.run
        return {n for n, idx in decls.items()
                if idx and idx[0] < prologue_end and run[idx[0]].kind == "declaration" and n not in bufs}

    def _closure(self, seeds, follow_calls: bool, globals_=frozenset()) -> set[int]:
        """``seeds`` plus, for every declared name they mention, the statements before that declare it and
        (``follow_calls``) every earlier statement that names it (its writers among them), transitively."""
        run = self.wmap.run
        decls, postings, _ = self._name_tables()
        included = set(seeds)
        work = list(included)
        while work:
            i = work.pop()
            for t in set(TOKEN.findall(run[i].text)):
                if t not in decls or t in globals_:
                    continue
                cands = postings[t] if follow_calls and len(postings[t]) <= HOT else decls[t]
                for j in cands:
                    if j < i and j not in included:
                        included.add(j)
                        work.append(j)
        # The comments above each included call (Source Nodes, provenance) since the previous call that took some.
        comments: list[int] = []
        for i, st in enumerate(run):
            if st.kind == "comment":
                comments.append(i)
            elif consumes_comments(self.wmap, st):
                if i in included:
                    included.update(comments)
                comments = []
        return included

    def _eager_seeds(self) -> list[int]:
        run = self.wmap.run
        _, _, prologue_end = self._name_tables()
        seeds = list(range(prologue_end))
        for i in range(prologue_end, len(run)):
            st = run[i]
            if st.kind in ("size_stride", "assignment"):
                seeds.append(i)
            elif st.kind == "declaration" and st.text.startswith(("int64_t ", "int32_t ")) and \
                    ("_size[" in st.text or st.text.count("=") == 1 and TOKEN.fullmatch(st.text.split("=", 1)[1].strip(" ;"))):
                seeds.append(i)  # a symbol (`int64_t s2 = arg3_1_size[0];`) or its alias (`int64_t s23 = s2;`)
        return seeds

    # -- models --------------------------------------------------------------------------------
    def _model(self, statements, kernels, scanner_out=None) -> Model:
        f = self.files
        m = Model(name=f.name, wrapper_member=f.wrapper, kernel_member=f.kernel_cpp, metadata=self.metadata,
                  provenance=self.provenance, warnings=self.warnings, coverage=self.coverage)
        sc = WrapperScanner(m, self.wmap, self.parse)
        sc.facts()
        sc.run_statements(sorted(statements))
        sc.finish()
        if scanner_out is not None:
            scanner_out.append(sc)
        for name in kernels:
            k = self.kernel(name)
            if k is not None:
                m.kernels[name] = k
                if name in self._launcher_params:
                    m.launcher_params[name] = self._launcher_params[name]
        return m

    def eager(self) -> Model:
        """Inputs, symbols, guards, constants and outputs; no kernel parsed, no call read."""
        if self._eager is None:
            out = []
            self._eager = self._model(self._closure(self._eager_seeds(), follow_calls=False), (), out)
            self._eager_aliases = dict(out[0].aliases)
        return self._eager

    def slice(self, kernels=(), call_lines=()) -> Model:
        """What a trace of ``kernels`` (and of the run_impl calls at wrapper lines ``call_lines``) needs."""
        if self._full is not None:
            return self._full
        run = self.wmap.run
        want = set(kernels)
        seeds = set(self._eager_seeds())
        seeds.update(i for i, st in enumerate(run) if st.callee and (st.line in call_lines or self.wmap.call_target(st.callee) in want))
        included = self._closure(seeds, follow_calls=True, globals_=self._globals())
        targets = [self.wmap.call_target(run[i].callee) for i in sorted(included) if run[i].callee]
        names = [n for n in dict.fromkeys([*kernels, *targets]) if n and self.kernel_kind(n)]
        return self._model(included, names)

    def full(self, progress=None) -> Model:
        """Every statement and every kernel parsed."""
        if self._full is None:
            names = self.kernel_names()
            for i, n in enumerate(names):
                self.kernel(n)
                if progress is not None:
                    progress(i + 1, len(names))
            self._full = self._model(range(len(self.wmap.run)), names)
        return self._full
