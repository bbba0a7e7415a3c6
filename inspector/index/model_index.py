"""One model of a package, indexed lazily: a cheap scan up front, Lark only where a query walks.

`ModelIndex` reads the wrapper once with plain string search (`inspector.parse.regions`: `scan_wrapper`,
`scan_kernel_cpp`): the regions (launchers with their embedded Triton
source, CPU kernels, the constructor, the input checks, run_impl's statements) and the assert sites.
Nothing is parsed until asked:

* `kernel(name)` parses one kernel's region (its launcher parameters, Triton source, cubin);
* `assert_sites()` lists every assert by kernel, line and raw text, parsed by nobody;
* `eager()` is the model's interface (inputs, symbols, guards, outputs): the statements that define them
  and the names those need; `constants()` every entry of constants_info_;
* `slice(kernels)` is a `Model` with just the run_impl statements a trace of those kernels needs: their
  launches, the definitions of every name in them and, for each buffer, the earlier calls that name it
  (the writers), closed transitively, and the constants those calls name; the kernels those calls launch
  are parsed, no others;
* `full()` parses everything (what `show --full`, `graph`, `check`, `report` and `pkg.model()` use).

With a cache key, the scan's summary and every kernel, slice and constants list parsed are kept as parts
(`inspector.index.cache_parts`: what each part holds), so a later process need not read the wrapper at all.

Each statement is parsed once per index (memoized: `inspector.index.statement_parser`) and counted once in the
coverage, whichever models are built from it.  A slice is a plain `Model`: the graph and the walks do not know it
is partial.  A name's statements are found by `inspector.index.postings`; the typed records queries read instead of
statement text come from `inspector.index.tier` (a mixin of this class) and `inspector.index.records`.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from itertools import compress, count
import os

from ..archive import Archive, ModelFiles
from ..model import Constant, Coverage, Kernel, KernelParam, Model, ProvenanceEntry
from ..dialects.metadata import WrapperMetadata, provenance_entries
from ..parse.declared import declared_names
from ..parse.kernel_scan import check_statement, kernel_heuristic, scan_kernel_cpp
from ..parse.regions import constant_totals, scan_warnings, scan_wrapper
from ..parse.tokens import NAME
from ..parse.wrapper_map import WrapperMap
from .name_closure import grow
from .cache_parts import FACTS, CacheParts, Summary, add_coverage, coverage_since, slice_part
from .postings import HOT, _Postings, _TextPostings
from .records import AssertSite, Call, CallComment
from .statement_parser import StatementParser
from .tier import TypedTier
from .gc_pause import gc_paused as _gc_paused

_first = operator.itemgetter(0)
_DECLARES = frozenset({"declaration", "handle_decl"})  # the statement kinds that declare a name


class ModelIndex(TypedTier):
    """``key``: the index cache key (None: no cache).  With a key, what the scan found (kernels, assert sites,
    calls, the interface) and every kernel and slice parsed are kept as parts under ``<cache>/<key>.lazy/``:
    a later process answers from them without reading the wrapper at all, and scans it only to parse a
    region no earlier run parsed."""

    @_gc_paused
    def __init__(self, archive: Archive, f: ModelFiles, progress=None, key: str | None = None):
        self.name = f.name
        self.files = f
        self.archive = archive
        self.key = key
        self._progress = progress
        self.coverage: dict[str, Coverage] = {}
        # What answers may lack, and notes about the index cache; shared by every model built here.
        self.warnings: list[str] = []
        self._parse = None
        self._cubins = {os.path.basename(c): c for c in f.cubins}
        self._wmap: WrapperMap | None = None
        self._kernels: dict[str, Kernel] = {}
        self._launcher_params: dict[str, list[KernelParam]] = {}
        self._eager: Model | None = None
        self._full: Model | None = None
        self._calls_at = None  # `_call_index`
        self._names = None  # (declared name -> statement indices, token postings, prologue end)
        self._cpp = None  # (kernel.cpp lines, regions)
        self._slices: dict[str, Model] = {}
        self._eager_stmts: set[int] | None = None
        self._globals_: set[str] | None = None
        self._constants: list[Constant] | None = None
        self._scan_parts: dict = {}  # "kernels", "sites", "calls": see `_scan_part`
        self._live = False  # True once `full` ran: every kernel parsed here, none read from the cache
        self._missing: list[tuple[int, str]] = []  # (first call's wrapper line, kernel) of kernels with no source
        self._records: list | None = None  # `statements`
        self._call_comments: dict[int, CallComment] | None = None
        self._at_line: dict[int, int] | None = None  # `_line_index`
        self._parts = CacheParts(key, self._note, lambda: self.dialect)
        summary = self._parts.load_summary()
        if summary is not None:
            self._load_summary(summary)
            return
        self._summarize()
        if key is None:  # no cache: encoding the parts only to drop them cost 0.05 s on the dense 20k package
            return
        self._parts.save_summary(Summary(
            metadata=self.metadata, warnings=self.warnings, eager=self._eager, eager_aliases=self._eager_aliases,
            coverage=self.coverage, constant_totals=self._constant_totals, missing=self._missing))
        self._scan_parts["calls"] = self._calls()
        for part in FACTS:
            self._parts.save_fact(part, self._scan_parts[part])

    @property
    def parse(self) -> StatementParser:
        if self._parse is None:
            self._parse = StatementParser(self.coverage)
        return self._parse

    # -- what the scan found ---------------------------------------------------------------------
    @property
    def scanned(self) -> bool:
        """Whether this process read and scanned the wrapper (a cached index may answer without)."""
        return self._wmap is not None

    @property
    def wmap(self) -> WrapperMap:
        """The wrapper's regions (scanned on first use: a cached index may never need them)."""
        if self._wmap is None:
            self._scan()
        return self._wmap

    @_gc_paused
    def _scan(self) -> None:
        if self._wmap is None:
            # Coverage counts the statements parsed in this process: the counts a cached summary brought
            # are dropped, whatever is parsed now counts again (a slice re-reads the interface too).
            self.coverage.clear()
            self._count_missing()
            self._wmap = scan_wrapper(self.archive.read_text(self.files.wrapper), self.files.wrapper,
                                      progress=self._progress)
        return self._wmap

    @property
    def cpp_lines(self) -> list[str]:
        return self._cpp_scan()[0]

    @property
    def cpp_regions(self) -> dict:
        return self._cpp_scan()[1]

    def _cpp_scan(self):
        if self._cpp is None:
            f = self.files
            if not f.kernel_cpp:
                self._cpp = ([], {})
            else:
                lines = self.wmap.lines if f.kernel_cpp == f.wrapper else self.archive.read_text(f.kernel_cpp).split("\n")
                self._cpp = (lines, scan_kernel_cpp(lines))
        return self._cpp

    def _summarize(self) -> None:
        f, archive, wm = self.files, self.archive, self.wmap
        raw = archive.read_json(f.wrapper_metadata) if f.wrapper_metadata else None
        wmeta = WrapperMetadata.read(raw, launches_gpu_kernels=bool(wm.launchers or f.cubins),
                                     member=f"{archive.path}: {f.wrapper_metadata}")
        self.metadata: dict = wmeta.filled(raw)
        self.warnings += scan_warnings(wm)
        if wmeta.device_guessed:
            self.warnings.append("no wrapper_metadata.json: device guessed from the kernels")
        for name, n in archive.duplicates.items():
            if name.startswith(f.folder):
                self.warnings.append(f"{name} is listed {n} times in the zip: the last is read here; which one torch's "
                                     "loader reads is not defined (it finds a name by a search of a sorted directory)")
        self.warnings += [f"{name}: a member name with bytes past ASCII and no UTF-8 flag (read as code page 437): "
                          "not a name torch wrote" for name in archive.odd_names if name.startswith(f.folder)]
        self.provenance: dict[str, ProvenanceEntry] = {}
        if f.kernel_information:
            entries = provenance_entries(archive.read_json(f.kernel_information), f"{archive.path}: {f.kernel_information}")
            self.provenance = {key: ProvenanceEntry(key=key, **lists) for key, lists in entries.items()}
        self._constant_totals = constant_totals(wm)
        kinds, sites = self._scan_kernel_parts()
        self._scan_parts.update(kernels=kinds, sites=sites)
        missing = {}
        at = wm.run.line
        for i, t, kind in self._call_index():
            if kind == "kernel" and t not in kinds:
                missing.setdefault(t, at[i])
        self.warnings += [f"kernel {n} is called in run_impl but its source was not found" for n in missing]
        self._missing = [(line, n) for n, line in missing.items()]
        self._count_missing()
        self.eager()

    def _count_missing(self) -> None:
        """A kernel run_impl calls whose source is in no member counts as skipped (region "kernel sources", one per
        kernel, at its first call's wrapper line): coverage is not full, and --strict fails, while a kernel is unread."""
        if self._missing:
            cov = self.coverage["kernel sources"] = Coverage()
            for line, name in self._missing:
                cov.skip(line, f"{name}(…): called in run_impl, its source was not found")

    def _scan_kernel_parts(self):
        """(kernel kinds, assert sites): what the scan says about the kernels, nothing parsed."""
        wm = self.wmap
        kinds = {n: ("triton", kernel_heuristic(n, r.decorator)) for n, r in wm.launchers.items()}
        for n in self.cpp_regions:
            kinds.setdefault(n, ("cpp", "cpp"))
        sites = []
        base = wm.dialect.triton_line_base
        for r in wm.launchers.values():
            if r.triton is not None:
                sites += [AssertSite(r.name, j - r.triton[0] + base, wm.lines[j].strip(), j + 1) for j in r.asserts]
        for name, (_, _, checks) in self.cpp_regions.items():
            sites += [AssertSite(name, j + 1, check_statement(self.cpp_lines, j), None) for j in checks]
        return kinds, sites

    def _calls(self, lo: int = 0, hi: int | None = None) -> list[Call]:
        """The "calls" part from the scan (each a `records.Call`, made here: 70,000 on the dense 20k package,
        so a question that asks about a few wrapper lines ``lo``..``hi`` gets only the calls there)."""
        run = self.wmap.run
        calls = self._call_index()
        at = run.line
        if hi is not None:
            first = bisect.bisect_left(calls, lo, key=lambda c: at[c[0]])
            last = bisect.bisect_right(calls, hi, key=lambda c: at[c[0]])
            calls = calls[first:last]
        texts, kinds, callees, d = run.text, run.kind, run.callee, self.wmap.dialect
        return [Call(at[i], t, kind, callees[i], kinds[i] == "checked_call", texts[i], d) for i, t, kind in calls]

    def _call_index(self) -> list[tuple[int, str, str]]:
        """(run_impl index, target, "kernel"|"extern") of every kernel launch and extern op call, in order: the
        statements that `consumes_comments`, found in one pass over run_impl and shared by every question."""
        if self._calls_at is None:
            wm = self.wmap
            alloc, target, cpp, launchers = wm.dialect.allocation_prefix, wm.dialect.call_target, wm.cpp_kernels, wm.launchers
            out, known = [], {}  # (each distinct callee asked once: allocations and extern ops recur by the thousand)
            callees = wm.run.callee
            for i in compress(count(), callees):  # (the statements with a callee only)
                c = callees[i]
                tk = known.get(c, ())
                if tk == ():
                    tk = known[c] = None if c.startswith(alloc) else target(c, cpp, launchers)
                if tk:
                    out.append((i, tk[0], tk[1]))
            self._calls_at = out
        return self._calls_at

    # The scan's facts about kernels, each its own cache part, read only when a question needs it: a cached
    # trace of one kernel reads the assert sites, not the list of 20,000 kernels nor run_impl's calls.
    def _scan_part(self, part: str):
        v = self._scan_parts.get(part)
        if v is not None:
            return v
        v = self._parts.load_fact(part)
        if v is not None:
            self._scan_parts[part] = v
            return v
        if part == "calls":
            self._scan_parts[part] = self._calls()
        else:
            kinds, sites = self._scan_kernel_parts()
            self._scan_parts.update(kernels=kinds, sites=sites)
        self._parts.save_fact(part, self._scan_parts[part])
        return self._scan_parts[part]

    @property
    def _kinds(self) -> dict[str, tuple[str, str]]:
        return self._scan_part("kernels")

    def _load_summary(self, s: Summary) -> None:
        self.metadata = s.metadata
        self.warnings += s.warnings
        self.coverage.update(s.coverage)
        self._eager = s.eager
        self._eager_aliases = s.eager_aliases
        self._constant_totals = s.constant_totals
        self._missing = s.missing
        self.provenance = self._eager.provenance
        self._share(self._eager)

    def _share(self, m: Model) -> Model:
        m.metadata, m.provenance, m.warnings, m.coverage = self.metadata, self.provenance, self.warnings, self.coverage
        return m

    # -- the index cache's parts (`inspector.index.cache_parts`) -----------------------------------
    def _note(self, note: str) -> None:
        if note not in self.warnings:
            self.warnings.append(note)

    # -- kernels -----------------------------------------------------------------------------
    def kernel_names(self) -> list[str]:
        """Every kernel, in wrapper order (Triton launchers), then kernel.cpp order (CPU)."""
        return list(self._kinds)

    def kernel_backend(self, name: str) -> str | None:
        k = self._kinds.get(name)
        return k[0] if k else None

    def kernel_heuristic(self, name: str) -> str:
        """What `Kernel.heuristic` will say, from the scan: the Triton decorator or name; "cpp" for CPU kernels."""
        return self._kinds[name][1]

    def calls(self, lines: tuple[int, int] | None = None) -> list[Call]:
        """Every run_impl kernel launch and extern op call, from the scan, in wrapper order (`records.Call`); with
        ``lines`` (lo, hi), only those at wrapper lines lo..hi (a cached index then reads only the calls stored
        near there, not all of them)."""
        if lines is None:
            return self._scan_part("calls")
        lo, hi = lines
        v = self._scan_parts.get("calls")
        if v is None:
            near = self._parts.load_calls(lines)
            if near is not None:
                return near
            if self.key is None:  # nothing to save: only the calls asked about are made
                return self._calls(lo, hi)
            v = self._scan_part("calls")
        at = bisect.bisect_left(v, lo, key=lambda c: c.line)
        out = []
        for c in itertools.islice(v, at, None):
            if c.line > hi:
                break
            out.append(c)
        return out

    def assert_sites(self) -> list[AssertSite]:
        """Every assert of every kernel, found by the scan (nothing parsed)."""
        return self._scan_part("sites")

    # -- the typed statement tier (`inspector.index.records`) -----------------------------------

    @property
    def parsed_whole(self) -> bool:
        """Whether `full` ran on this index (every statement parsed: a lazy answer would save nothing)."""
        return self._full is not None

    def parsed_kernels(self) -> int:
        """How many kernels this index has parsed (or read back from the index cache) so far."""
        return len(self._kernels)

    @_gc_paused
    def kernel(self, name: str) -> Kernel | None:
        """One kernel, parsed from its region on first use (or read from the index cache)."""
        if name in self._kernels:
            return self._kernels[name]
        # its cached part first: a kernel parsed by an earlier run needs not the list of every kernel
        cached = None if self._live else self._parts.load_kernel(name)
        if cached is not None:
            k = self._load_kernel(*cached)
            self._kernels[name] = k
            return k
        kind = self.kernel_backend(name)
        if kind is None:
            return None
        from ..parse.cpp_kernel import parse_kernel_region
        from ..parse.wrapper import parse_launcher

        if kind == "triton":
            k, params = parse_launcher(self.wmap, self.wmap.launchers[name], self.parse)
            self._launcher_params[name] = params
            if k.cubin:
                k.cubin = self._cubins.get(os.path.basename(k.cubin))
        else:
            start, end, _ = self.cpp_regions[name]
            k = parse_kernel_region(self.cpp_lines, start, end, self.files.kernel_cpp, self.parse.cov("kernel.cpp"))
            if k is None:
                return None
        self._kernels[name] = k
        if not self._live and self.key is not None:  # the whole parse is cached whole (`inspector.index.cache.write`)
            self._parts.save_kernel(k, self._launcher_params.get(k.name))
        return k

    def cubin(self, name: str) -> str | None:
        """The cubin member a Triton kernel loads, reading only its launcher's ``loadKernel(`` statement
        (or the parsed kernel, when it is): enough to tell 20,000 look-alike kernels apart by the file
        their device assert names, before any of them is parsed."""
        if name in self._kernels:
            return self._kernels[name].cubin
        if not self._live and self._parts.has_kernel(name):  # parsed by an earlier run: no need to scan the wrapper for one line
            k = self.kernel(name)
            return k.cubin if k is not None else None
        if self.kernel_backend(name) != "triton":
            return None
        r = self.wmap.launchers.get(name)
        if r is None or r.load_line is None:
            return None
        p = self.parse("launcher", r.load_line, self.wmap.lines[r.load_line].strip(), "load_kernel", r.load_line + 1)
        return self._cubins.get(os.path.basename(p.member)) if p and p.member is not None else None  # a LoadKernel

    def _load_kernel(self, k: Kernel, params: list[KernelParam] | None, source: list[str] | None) -> Kernel:
        if params is not None:
            self._launcher_params[k.name] = params
        if source is not None:
            k.source = source
        elif k.source_file:
            k.source_loader = lambda: self.archive.read_text(k.source_file).split("\n")
        return k

    # -- run_impl: which statements a question needs -----------------------------------------------
    def _name_tables(self):
        """(declared name -> its statements, postings, prologue end).  The postings (every statement a name
        appears in) are built on first use (`_postings`): the interface follow declarations only."""
        if self._names is None:
            run = self.wmap.run
            # name -> the indices of its declarations, in order: a tuple (48 bytes for the usual one declaration,
            # where a list took 88: ~11 MB on 284,000 declarations)
            calls = self._call_index()
            prologue_end = calls[0][0] if calls else len(run)
            at = list(compress(count(), map(_DECLARES.__contains__, run.kind)))
            texts = run.text
            names = declared_names([texts[i] for i in at])  # one loop over them all
            # Built at C speed (no Python loop over 284,000 declarations): each name keyed where first declared,
            # holding its last declaration; then the few names declared more than once get all of theirs.
            decls: dict = dict(zip(names, zip(at)))
            again: dict[str, list[int]] = {}  # a name's declarations before its last, in order
            for i, n in itertools.compress(zip(at, names), map(operator.ne, at, map(_first, map(decls.__getitem__, names)))):
                if n:
                    again.setdefault(n, []).append(i)
            for n, earlier in again.items():
                decls[n] = (*earlier, *decls[n])
            decls.pop(None, None)  # a declaration whose name the scan did not find
            decls.pop("", None)
            self._names = (decls, None, prologue_end)
        return self._names

    def _postings(self) -> "_Postings | _TextPostings":
        decls, postings, prologue_end = self._name_tables()
        if postings is None:
            wm = self.wmap
            postings = _TextPostings(wm.run, wm.lines) if wm.lines.text and len(wm.run) else _Postings(wm.run)
            self._names = (decls, postings, prologue_end)
        return postings

    def _eager_statements(self) -> set[int]:
        """The run_impl statements of the interface: their seeds and the declarations those need."""
        if self._eager_stmts is None:
            self._eager_stmts = self._closure(self._eager_seeds(), follow_calls=False)
        return self._eager_stmts

    def _globals(self) -> set[str]:
        """Names a declaration before the first call binds to no buffer (inputs, symbols, constants, `kernels`…):
        every slice holds those statements already, so a slice does not follow them.  Handles
        (``AtenTensorHandle buf1_handle;``) are always followed: the call that fills one comes later."""
        if self._globals_ is None:
            decls, _, prologue_end = self._name_tables()
            m = self.eager()
            bufs = set(m.buffers) | {b + "_handle" for b in m.buffers} | set(self._eager_aliases)
            run = self.wmap.run
            kinds = run.kind
            self._globals_ = {n for n, idx in decls.items()
                              if idx and idx[0] < prologue_end and kinds[idx[0]] == "declaration" and n not in bufs}
        return self._globals_

    def _closure(self, seeds, follow_calls: bool, globals_=frozenset()) -> set[int]:
        """``seeds`` plus, for every declared name they mention, the statements before that declare it and
        (``follow_calls``) every earlier statement that names it (its writers among them), transitively."""
        run = self.wmap.run
        decls = self._name_tables()[0]
        postings = self._postings() if follow_calls else {}

        def earlier(t: str):
            if t not in decls or t in globals_:
                return ()
            return postings[t] if follow_calls and len(postings[t]) <= HOT else decls[t]

        included = grow(run.text, seeds, earlier)
        included.update(self._comments_of(included))
        return included

    def _comments_of(self, statements) -> list[int]:
        """The comments each of ``statements`` that takes comments (a call `_call_index` lists: Source Nodes,
        provenance) takes: those since the previous such call.  Found per call asked, between it and the one
        before, not for all 70,000 calls of the dense 20k package up front."""
        calls, kinds, out = self._call_index(), self.wmap.run.kind, []
        for i in statements:
            k = bisect.bisect_left(calls, i, key=_first)
            if k < len(calls) and calls[k][0] == i:
                out += [j for j in range(calls[k - 1][0] + 1 if k else 0, i) if kinds[j] == "comment"]
        return out

    def _eager_seeds(self) -> list[int]:
        run = self.wmap.run
        _, _, prologue_end = self._name_tables()
        # (comments travel with the call they sit above: `_closure` adds them only for calls it includes)
        # Constant bindings (`auto& w = constants_->at(3);`, one per weight) are no part of the interface: a slice reads them.
        skip = self._constant_bindings()
        kinds, texts = run.kind, run.text
        seeds = [i for i in range(prologue_end) if kinds[i] != "comment" and i not in skip]
        for i, kind in enumerate(itertools.islice(kinds, prologue_end, None), prologue_end):
            if kind == "size_stride" or kind == "assignment":
                seeds.append(i)
            elif kind == "declaration":
                text = texts[i]
                if text.startswith(("int64_t ", "int32_t ")) and ("_size[" in text or text.count("=") == 1 and
                                                                  NAME.fullmatch(text.split("=", 1)[1].strip(" ;"))):
                    seeds.append(i)  # a symbol (`int64_t s2 = arg3_1_size[0];`) or its alias (`int64_t s23 = s2;`)
        return seeds

    def _constant_bindings(self) -> set[int]:
        """The prologue's constant bindings (``[[maybe_unused]] auto& w = constants_->at(3);``), by plain search."""
        run, marker = self.wmap.run, self.wmap.dialect.constant_binding
        _, _, prologue_end = self._name_tables()
        kinds, texts = run.kind, run.text
        return {i for i in range(prologue_end) if kinds[i] == "declaration" and marker in texts[i]}

    # -- models --------------------------------------------------------------------------------
    def _model(self, statements, kernels, scanner_out=None, all_constants: bool = False, uses=()) -> Model:
        """A model of these run_impl statements and kernels.  Its constants: every one with ``all_constants``,
        else those bound (``constants_->at(i)``) to a name that the statements ``uses`` (indices into run_impl:
        the calls a slice is about) mention; the interface alone read none (`constants` reads them all)."""
        from ..parse.wrapper import WrapperScanner

        f = self.files
        m = self._share(Model(name=f.name, wrapper_member=f.wrapper, kernel_member=f.kernel_cpp))
        sc = WrapperScanner(m, self.wmap, self.parse)
        sc.read_interface(constants=None if all_constants else set())
        sc.run_statements(sorted(statements))
        if not all_constants:
            texts = self.wmap.run.text
            named = {t for i in uses for t in NAME.findall(texts[i])}
            sc.read_constants({idx for name, idx in m.constant_bindings.items() if name in named})
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

    @_gc_paused
    def eager(self) -> Model:
        """Inputs, symbols, guards and outputs; no kernel parsed, no call read, no constant (`constants`)."""
        if self._eager is None:
            out = []
            self._eager = self._model(self._eager_statements(), (), out)
            self._eager_aliases = dict(out[0].aliases)
        return self._eager

    @_gc_paused
    def constants(self) -> list[Constant]:
        """Every entry of constants_info_ (the interface and slices hold only the constants they bind)."""
        if self._full is not None:
            return self._full.constants
        if self._constants is None:
            got = self._parts.load_constants()
            if got is not None:  # the part brings the counts its parse made, so the coverage is a cold run's
                self._constants, counts = got
                add_coverage(self.coverage, counts)
            else:
                from ..parse.wrapper import WrapperScanner

                if self._wmap is None:
                    # The summary came from the cache: the scan drops its counts, so the interface is parsed
                    # (and counted) again, as a cold run counts them, before the constants' own parse.
                    _ = self.wmap
                    self._parse, self._eager = None, None
                    self.eager()
                before = {r: (c.understood, c.total, len(c.skipped)) for r, c in self.coverage.items()}
                m = Model(name=self.name, wrapper_member=self.files.wrapper)
                sc = WrapperScanner(m, self.wmap, self.parse)
                sc.read_constants(None)
                sc.finish()
                self._constants = m.constants
                if self.key is not None:  # (no cache: nothing to encode)
                    self._parts.save_constants(self._constants, coverage_since(self.coverage, before))
        return self._constants

    def constant_totals(self) -> dict:
        """How many constants, their bytes by dtype and device, from the scan (`inspector.parse.regions.constant_totals`):
        nothing parsed, where `constants` parses every entry."""
        return self._constant_totals

    @_gc_paused
    def slice(self, kernels=(), call_lines=()) -> Model:
        """What a trace of ``kernels`` (and of the run_impl calls at wrapper lines ``call_lines``) needs."""
        if self._full is not None:
            return self._full
        want = sorted(set(kernels))
        lines = sorted(set(call_lines))
        part = slice_part(want, lines)
        if part in self._slices:
            return self._slices[part]
        cached = self._parts.load_slice(part)
        if cached is not None:
            m = self._slices[part] = self._load_slice(*cached)
            return m
        run = self.wmap.run
        want_set, line_set = set(want), set(lines)
        alloc = self.wmap.dialect.allocation_prefix
        if line_set or any(n.startswith(alloc) for n in want_set):
            callees, at = run.callee, run.line
            calls = {i for i in compress(count(), callees)
                     if at[i] in line_set or self.wmap.call_target(callees[i]) in want_set}
        else:  # the launches of these kernels: among the calls the scan found (allocations are none of them)
            calls = {i for i, target, _ in self._call_index() if target in want_set}
        # the interface (as `eager` reads them) and, for the calls asked about, their buffers' writers
        around = self._closure(calls, follow_calls=True, globals_=self._globals())
        included = self._eager_statements() | self._constant_bindings() | around
        callees = run.callee
        targets = [self.wmap.call_target(callees[i]) for i in sorted(included) if callees[i]]
        names = [n for n in dict.fromkeys([*kernels, *targets]) if n and self.kernel_backend(n)]
        m = self._slices[part] = self._model(included, names, uses=around)
        if self.key is not None:  # (no cache: nothing to encode)
            self._parts.save_slice(part, m)
        return m

    def _load_slice(self, m: Model, kernels: list[str]) -> Model:
        self._share(m)
        for name in kernels:
            k = self.kernel(name)  # its own part (written when it was parsed)
            if k is not None:
                m.kernels[name] = k
                if name in self._launcher_params:
                    m.launcher_params[name] = self._launcher_params[name]
        return m

    @_gc_paused
    def full(self, progress=None) -> Model:
        """Every statement and every kernel parsed."""
        if self._full is None:
            # The whole parse is exact on its own: every statement parsed and counted here, nothing from parts.
            self._live = True
            _ = self.wmap
            self.coverage.clear()
            self._count_missing()
            # each statement is read once below (and every later question answered from the model): no memo
            self._parse = StatementParser(self.coverage, remember=False)
            self._kernels.clear()
            self._slices.clear()
            names = self.kernel_names()
            for i, n in enumerate(names):
                self.kernel(n)
                if progress is not None:
                    progress(i + 1, len(names))
            self._full = self._model(range(len(self.wmap.run)), names, all_constants=True)
        return self._full
