"""The parts of a lazily filled index cache: what each part holds and how it is written and read back.

`inspector.index.cache` keeps the files (``<cache>/<key>.lazy/<part>.json``, written atomically, checked for
tool, format and key); this module knows the parts a `ModelIndex` keeps there:

* ``scan``: the summary (metadata, warnings, the small facts, coverage, constant totals, missing sources);
* ``kernels``, ``sites``, ``calls``: the scan's facts about kernels, each its own part, read only when a
  question needs it (a cached trace of one kernel reads the assert sites, not the list of 20,000 kernels);
  ``calls`` is an index of chunks (``calls-0``, ``calls-1``…, `CALLS_CHUNK` calls each, in wrapper order, with
  each chunk's first and last wrapper line), so the calls near one wrapper line (a log's ``API call failed at
  …wrapper.cpp, line N``) are read without decoding the other 90,000;
* ``k-<digest of name>``: one parsed kernel, its launcher parameters, and the trees of its expressions
  (`kernel_expr_texts`), so that a query of a cached kernel loads no parser;
* ``s-<digest of kernels and lines>``: one slice (a `Model` without kernels, metadata or coverage);
* ``constants``: every entry of constants_info_.

A part that is there but unusable (foreign, corrupt, does not decode) is a note in the index's warnings
("index cache part ignored and rebuilt: …") and the caller rebuilds it; a part that cannot be written is a
note too ("index cache not written to …"), never an error.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

from ..model import Constant, Coverage, Kernel, KernelParam, Model
import inspector.index.cache as cache
from .records import AssertSite, Call
from .cache import CacheError

# kept out of the stored summary: they describe this process's cache, not the package
CACHE_NOTES = ("index cache part ignored", "index cache not written")

_UNUSABLE = (CacheError, KeyError, TypeError, ValueError)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def kernel_part(name: str) -> str:
    return "k-" + digest(name)


def slice_part(kernels: list[str], lines: list[int]) -> str:
    return "s-" + digest(json.dumps([kernels, lines]))


def _decode_call(dialect, line, rule, callee, target, kind, text=""):
    """One cached call (an older cache wrote no text: then the statement says nothing more)."""
    if not isinstance(line, int) or not isinstance(text, str):
        raise ValueError("a cached call is not [line, rule, callee, target, kind, text]")
    return Call(line, target, kind, callee, rule == "checked_call", text, dialect)


# The scan's facts about kernels, each its own part.
FACTS = ("kernels", "sites", "calls")
_ENCODE = {
    "kernels": lambda v: [[n, k, fl] for n, (k, fl) in v.items()],
    "sites": lambda v: _encode_sites(v),
    # the statement too: a `Call` reads what it names from it (an unbacked symbol's `&u0_raw`, a printed launch's
    # arguments)
    "calls": lambda v: [c.encoded() for c in v],
}
_DECODE = {
    "kernels": lambda d: {n: (k, fl) for n, k, fl in d},
    "sites": lambda d: _decode_sites(d),
}


def _encode_sites(sites) -> dict:
    """The sites with each distinct assert text written once (``texts``) and named by its position: copies of one
    kernel share their asserts' texts (the dense 20k package's 10,000 sites hold 5 texts: 2.1 MB -> 0.4 MB, and
    a cached trace, which reads every site, decodes a fifth of it)."""
    at: dict[str, int] = {}
    rows = [[s.kernel, s.line, at.setdefault(s.statement, len(at)), s.wrapper_line] for s in sites]
    return {"texts": list(at), "rows": rows}


def _decode_sites(doc) -> list[AssertSite]:
    texts = doc["texts"]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError("a cached sites part's texts are not strings")
    out = []
    for kernel, line, i, wrapper_line in doc["rows"]:
        if type(i) is not int or not 0 <= i < len(texts):
            raise ValueError("a cached site names no text of its part")
        out.append(AssertSite(kernel, line, texts[i], wrapper_line))
    return out


# Calls a chunk of the ``calls`` part holds: a cached trace decodes one or two chunks, not 66,000 calls (29 MB)
CALLS_CHUNK = 1024


@dataclasses.dataclass
class Summary:
    """What the ``scan`` part holds: enough for an index to answer the small facts without the wrapper."""

    metadata: dict
    warnings: list[str]
    eager: Model
    eager_aliases: dict
    coverage: dict[str, Coverage]
    constant_totals: dict
    missing: list[tuple[int, str]]


class CacheParts:
    """The parts of one index (``key``; None: no cache, every read misses and every write is dropped).
    ``note(text)`` records what went wrong with the cache (an unusable part, a folder not writable)."""

    def __init__(self, key: str | None, note, dialect=None):
        self.key = key
        self.note = note
        self.dialect = dialect  # () -> the wrapper's `Dialect`: a cached call reads its statement with it

    # -- any part ------------------------------------------------------------------------------
    def read(self, part: str):
        if self.key is None:
            return None
        try:
            return cache.read_part(self.key, part)
        except CacheError as e:
            self.note(f"index cache part ignored and rebuilt: {e}")
            return None

    def write(self, part: str, payload) -> None:
        if self.key is None:
            return
        try:
            cache.write_part(self.key, part, payload)
        except OSError as e:
            self.note(f"index cache not written to {cache.cache_dir()}: {e.strerror or e}")

    def _decoded(self, part: str, decode):
        """``decode(payload)`` of a part, or None when it is not there or does not decode (noted)."""
        doc = self.read(part)
        if doc is None:
            return None
        try:
            return decode(doc)
        except _UNUSABLE as e:
            self.note(f"index cache part ignored and rebuilt: {e}")
            return None

    # -- the summary -----------------------------------------------------------------------------
    def load_summary(self) -> Summary | None:
        def decode(doc):
            return Summary(metadata=doc["metadata"], warnings=doc["warnings"],
                           eager=cache.load(Model, doc["eager"]), eager_aliases=dict(doc["eager_aliases"]),
                           coverage=cache.load(dict[str, Coverage], doc["coverage"]),
                           constant_totals=dict(doc["constant_totals"]),
                           missing=[(int(line), str(name)) for line, name in doc["missing_sources"]])

        return self._decoded("scan", decode)

    def save_summary(self, s: Summary) -> None:
        if self.key is None:
            return  # no cache: nothing encoded only to be dropped
        self.write("scan", {"metadata": s.metadata,
                            "warnings": [w for w in s.warnings if not w.startswith(CACHE_NOTES)],
                            "eager": cache.dump(s.eager), "eager_aliases": s.eager_aliases,
                            "coverage": cache.dump(s.coverage), "constant_totals": s.constant_totals,
                            "missing_sources": [list(x) for x in s.missing]})

    # -- the scan's facts about kernels ----------------------------------------------------------
    def load_fact(self, part: str):
        if part == "calls":
            return self.load_calls()
        return self._decoded(part, _DECODE[part])

    def save_fact(self, part: str, value) -> None:
        if self.key is None:
            return
        if part != "calls":
            self.write(part, _ENCODE[part](value))
            return
        rows = _ENCODE["calls"](value)
        chunks = [rows[k:k + CALLS_CHUNK] for k in range(0, len(rows), CALLS_CHUNK)]
        for j, chunk in enumerate(chunks):
            self.write(f"calls-{j}", chunk)
        # the index last: a reader that finds it finds every chunk (each part is written whole)
        self.write("calls", {"count": len(rows), "lines": [[c[0][0], c[-1][0]] for c in chunks]})

    def load_calls(self, lines: tuple[int, int] | None = None):
        """The cached calls (`records.Call`), in wrapper order: all of them, or (``lines``) those at
        wrapper lines ``lo..hi`` only, decoding only the chunks that hold such lines.  None when the index or a
        chunk it names is not there or does not decode (noted)."""
        def index(doc):
            spans = [(int(lo), int(hi)) for lo, hi in doc["lines"]]
            if not isinstance(doc["count"], int):
                raise ValueError("a cached calls index has no count")
            return doc["count"], spans

        got = self._decoded("calls", index)
        if got is None:
            return None
        count, spans = got
        want = range(len(spans)) if lines is None else \
            [j for j, (lo, hi) in enumerate(spans) if lo <= lines[1] and hi >= lines[0]]
        out = []
        dialect = self.dialect()

        def decode(rows):
            return [_decode_call(dialect, *x) for x in rows]

        for j in want:
            chunk = self._decoded(f"calls-{j}", decode)
            if chunk is None:
                return None
            out += chunk
        if lines is None:
            if len(out) != count:
                self.note("index cache part ignored and rebuilt: calls: the chunks hold "
                          f"{len(out)} calls, the index says {count}")
                return None
            return out
        return [c for c in out if lines[0] <= c.line <= lines[1]]

    # -- kernels -------------------------------------------------------------------------------
    def has_kernel(self, name: str) -> bool:
        """Whether an earlier run parsed this kernel (its part is there and ours)."""
        return self.read(kernel_part(name)) is not None

    def load_kernel(self, name: str) -> tuple[Kernel, list[KernelParam] | None, list[str] | None] | None:
        """(kernel, its launcher parameters, its Triton source) as an earlier run parsed them; the trees of its
        expressions go to `expr_tree.remember` (a query that reads them then loads no parser)."""
        def decode(doc):
            k = cache.load(Kernel, doc["kernel"])
            params = cache.load(list[KernelParam], doc["params"]) if doc["params"] is not None else None
            trees = doc["trees"]
            if not isinstance(trees, dict):
                raise ValueError("a cached kernel's trees are not a table")
            from ..parse import expr_tree  # here, not at the top: a cached `show` reads no kernel and no tree

            expr_tree.remember(trees)
            return k, params, (list(doc["source"]) if doc["source"] is not None else None)

        return self._decoded(kernel_part(name), decode)

    def save_kernel(self, k: Kernel, params: list[KernelParam] | None) -> None:
        if self.key is None:
            return  # no cache: not even the trees are worth building
        from ..parse import expr_tree

        self.write(kernel_part(k.name), {"kernel": cache.dump(k), "params": cache.dump(params),
                                         "source": k.source if k.backend == "triton" else None,
                                         "trees": {t: expr_tree.encode(expr_tree.parse_expr(t))
                                                   for t in kernel_expr_texts(k)}})

    # -- slices --------------------------------------------------------------------------------
    def load_slice(self, part: str) -> tuple[Model, list[str]] | None:
        """(the slice without its kernels, the names of its kernels)."""
        return self._decoded(part, lambda doc: (cache.load(Model, doc["model"]), list(doc["kernels"])))

    def save_slice(self, part: str, m: Model) -> None:
        if self.key is None:
            return
        bare = dataclasses.replace(m, metadata={}, provenance={}, warnings=[], coverage={}, kernels={})
        self.write(part, {"model": cache.dump(bare), "kernels": list(m.kernels)})

    # -- constants -----------------------------------------------------------------------------
    def load_constants(self) -> tuple[list[Constant], dict[str, Coverage]] | None:
        """Every constant, and the coverage counts their parse made (added to the index's on load)."""
        return self._decoded("constants", lambda doc: (cache.load(list[Constant], doc["constants"]),
                                                       cache.load(dict[str, Coverage], doc["coverage"])))

    def save_constants(self, constants: list[Constant], coverage: dict[str, Coverage]) -> None:
        if self.key is None:
            return  # no cache: 2,900 constants of a model not encoded only to be dropped
        self.write("constants", {"constants": cache.dump(constants), "coverage": cache.dump(coverage)})


def kernel_expr_texts(k: Kernel) -> list[str]:
    """The texts whose trees the queries read of a kernel (`model.Expr.tree`, `Assertion.condition_tree` and
    ``bound_tree``, the addresses of `access.kernel_accesses`, a CPU kernel's `cpp_loops.loop_headers`), each once: what a kernel part stores trees of."""
    texts = [t.expr.text for t in k.tmps] + [s.value.text for s in k.stores] + [u.value.text for u in k.acc_updates]
    for a in k.assertions:
        texts += [a.condition, a.bound_expr or ""]
    from ..parse.access import kernel_accesses
    from ..parse.cpp_loops import loop_headers

    texts += [a.address.text for a in kernel_accesses(k)]
    if k.backend == "cpp":
        texts += [h.bound.text for h in loop_headers(k)]
    return [t for t in dict.fromkeys(texts) if t.strip()]


def coverage_since(coverage: dict[str, Coverage], before: dict[str, tuple[int, int, int]]) -> dict[str, Coverage]:
    """What was counted in ``coverage`` since ``before`` (region -> understood, total, skipped kept)."""
    out = {}
    for region, c in coverage.items():
        u, t, k = before.get(region, (0, 0, 0))
        if c.total > t:
            out[region] = Coverage(understood=c.understood - u, total=c.total - t, skipped=list(c.skipped[k:]))
    return out


def add_coverage(coverage: dict[str, Coverage], counts: dict[str, Coverage]) -> None:
    """Count ``counts`` in ``coverage`` too (the first `Coverage.KEEP` skipped statements kept)."""
    for region, c in counts.items():
        mine = coverage.setdefault(region, Coverage())
        mine.understood += c.understood
        mine.total += c.total
        mine.skipped += c.skipped[:max(Coverage.KEEP - len(mine.skipped), 0)]
