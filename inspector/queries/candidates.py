"""Candidate assertions: which checks may have fired when the log shows only the symptom of a device-side
assert (its ``Assertion`` line is missing).  Used by `diagnose` (category device_assert) and by `trace-assert`.

Imports only downward (match, and the per-assertion ``explain`` of inspector.queries.explanation); the words are in inspector.explain.diagnose.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import inspector.explain as words
from ..explain import diagnose as say
from ..logs import LogReport
from ..model import Model
from ..naming import strip_overload
from ..package import Package
from .fused import extern_op_name
from .match import INDEXING_OPS, index_args, site_for_noticed
from .bound_walk import index_span, shape_reachable


class JsonKeys:
    """Read access by the JSON's keys (``c["kernel"]``, ``s.get("env")``), for code written when these were dicts."""

    def __getitem__(self, key: str):
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default=None):
        return getattr(self, key) if key in self.__dataclass_fields__ else default


@dataclass
class Candidate(JsonKeys):
    """An assertion that may have fired when the log lacks its ``Assertion`` line (most likely first)."""

    model: str
    kernel: str
    message: str
    line: int
    launched_at: int
    reason: str
    bound: str | None
    bound_input: object | None  # an InputRef (inspector.queries.walk)
    index_origin: list[str]
    verdict: str

    def to_dict(self) -> dict:
        return asdict(self)


# Kernels (and extern indexing ops) a missing Assertion line is looked for in, at most: the nearest launched
# before the call that noticed the error (or the first ones of the package).  Each is a slice and a walk.
MAX_CANDIDATE_KERNELS = 64


def _op(target: str) -> str:
    """The ATen op an extern call runs, without its overload suffix.  (A naming rule: inspector.naming's.)"""
    return strip_overload(extern_op_name(target))


def _indexing(op: str) -> bool:
    return op in INDEXING_OPS or op.lstrip("_") in INDEXING_OPS


def _candidates_slice(pkg: Package, name: str, limit: int | None) -> Model:
    """The slice of model ``name`` holding the launches of every kernel with an assert launched before ``limit``
    and the extern ops that index a tensor (found by the scan; when there are more than `MAX_CANDIDATE_KERNELS`, the
    nearest before ``limit``, or the earliest launched without one)."""
    ix = pkg.index(name)
    asserting = {s.kernel for s in ix.assert_sites()}
    last: dict[str, int] = {}
    for c in ix.calls():
        if limit is not None and c.line >= limit:
            continue
        if c.kind == "kernel" and c.target in asserting:
            last[c.target] = c.line
        elif c.kind == "extern":
            if _indexing(_op(c.target)):
                last[f"{c.target}@{c.line}"] = c.line
    chosen = sorted(last, key=lambda t: -last[t] if limit is not None else last[t])[:MAX_CANDIDATE_KERNELS]
    kernels = [k for k in ix.kernel_names() if k in set(chosen)]
    return ix.slice(kernels=kernels, call_lines=[last[t] for t in chosen if "@" in t])


def _bound(t) -> str | None:
    return t.bound.limit if t.bound else (str(t.static_bound) if t.static_bound is not None else None)


def assert_candidates(pkg: Package, rep: LogReport, model: str | None) -> list[Candidate]:
    """Assertions that may have fired when the ``Assertion`` line is missing, most likely first.

    With a ``… API call failed at …wrapper.cpp, line N`` in the log: the assertions of kernels launched
    before line N, nearest first (CUDA reports at a later call).  Otherwise every assertion, input-fed first."""
    from .explanation import explain, explain_extern  # here: `diagnose` of an input check needs none of it

    limit = None
    noticed_model = None
    for n in rep.noticed:
        hit = site_for_noticed(pkg, n, model)
        if hit:
            noticed_model, site = hit
            limit = site.line
            break
    # (candidate, its index is read from a model input, the allowed shapes alone push its index past the bound)
    out: list[tuple[Candidate, bool, bool]] = []
    for name in [noticed_model.name] if noticed_model else ([model] if model else pkg.model_names):
        m = _candidates_slice(pkg, name, limit)
        launches = {}
        for c in m.calls:
            if c.kind == "kernel" and (limit is None or c.line < limit):
                launches.setdefault(c.target, []).append(c.line)
        for k in m.kernels.values():
            if not k.assertions or k.name not in launches:
                continue
            last = max(launches[k.name])
            for a in k.assertions:
                t = explain(pkg, m, k, a, exact=False, how="candidate")
                fed = [o.input for o in t.index_origin if o.input]
                # A loop-index position (y0 = yindex % ks0) whose input dim's allowed range passes the bound:
                # the shapes alone make it fire, where a value read from an input needs a bad value.
                reach = not fed and shape_reachable(index_span(m, pkg.graph_of(m), k, a, next(
                    (c for c in m.calls if c.kind == "kernel" and c.target == k.name), None)), t.static_bound)
                out.append((Candidate(
                    model=m.name, kernel=k.name, message=a.message, line=a.line, launched_at=last,
                    reason=say.candidate_reason(last, limit), bound=_bound(t),
                    bound_input=t.bound.input if t.bound and t.bound.input else None,
                    index_origin=[words.who_named(i) for i in fed] or [o.constant or o.computed or o.unresolved or "?"
                                                                for o in t.index_origin],
                    verdict=t.verdict), bool(fed), reach))
        # Extern ATen ops that index a tensor assert on their own (EmbeddingBag.cu, IndexKernel.cu …).
        for c in m.calls:
            if c.kind != "extern" or (limit is not None and c.line >= limit) or m.device != "cuda":
                continue
            op = _op(c.target)
            if not _indexing(op) or not index_args(c)[1]:
                continue
            t = explain_extern(pkg, m, c, "candidate", say.EXTERN_CANDIDATE_HOW)
            fed = [o.input for o in t.index_origin if o.input]
            out.append((Candidate(
                model=m.name, kernel=c.target, message=say.extern_candidate_message(op), line=c.line,
                launched_at=c.line, reason=say.extern_candidate_reason(op, c.line, limit), bound=_bound(t),
                bound_input=t.bound.input if t.bound and t.bound.input else None,
                index_origin=[words.who_named(i) for i in fed] or ["?"], verdict=t.verdict), bool(fed), False))
    if limit is not None:
        out.sort(key=lambda x: (-x[0].launched_at, not x[2], not x[1]))
    else:
        out.sort(key=lambda x: (not x[2], not x[1], x[0].launched_at))
    return [c for c, _, _ in out]
