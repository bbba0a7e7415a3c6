"""An asynchronous CUDA error (an illegal memory access, `unspecified launch failure`, a cuBLAS internal error after
one) is reported by a later call, not by the launch that made it.  What could have made it, decided from the log's
one reading and the package's typed calls (`records.Call`, in run_impl's order), ranked by evidence:

* ``named_custom_op``: the log names a function of a custom op the package calls through the proxy executor
  (`Exception raised from roi_align_forward_kernel at …`, or a native frame): with CUDA_LAUNCH_BLOCKING=1 the
  launch that made the error is the one that reports it, so that call is ``likely``; without it, ``possible``;
* ``host_input``: an input on the CPU.  A kernel handed a host pointer prints exactly the same text, and nothing
  in the log names a device.  ``likely`` only when the package itself rules out the rest (no unchecked indirect
  access, no custom op, its weights in it); else ``possible``;
* ``custom_op``: each proxy-executor call launched before the reporting call (the package cannot show the op's
  bounds checks), those handed a model input first, then nearest first;
* ``unchecked_access``: the package's unchecked indirect accesses (`inspector.queries.suspects`);
* ``assert_candidate``: a device-side assert whose Assertion line is missing (only when the log has no
  illegal-access text: an assert prints `device-side assert triggered`, not an illegal access);
* ``launch``: the nearest other launches before the reporting call.

Nothing here words anything: inspector.explain.diagnose does (``async_hypothesis``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InspectorError
from ..logs import LogReport
from ..naming import ALLOC_OR_COPY_SHIMS, PROXY_CALL
from ..package import Package
from ..parse import expr_tree as E
from .causes import LIKELY, POSSIBLE
from .match import site_for_noticed

HYPOTHESIS_KINDS = ("named_custom_op", "host_input", "custom_op", "unchecked_access", "assert_candidate", "launch")

# How many of the other launches before the reporting call are named (nearest first).
NEAREST_LAUNCHES = 3


@dataclass(frozen=True)
class Arg:
    """A tensor a call is handed: its run_impl name, and the model input it is (None: a buffer or a constant)."""

    name: str
    input: int | None = None


@dataclass(frozen=True)
class AsyncHypothesis:
    """One place that could have made the error (``kind``: `HYPOTHESIS_KINDS`), its certainty and the codes of
    what it rests on (``evidence``): "launch_blocking" (the run was synchronous), "named_in_log" (the log names
    the op's function: ``function``), "swallowed_before_report" (a blocking run printed the error as a swallowed
    shim exception before the reporting call: the nearest unchecked call before it), "before_report" (launched
    before the reporting call), "no_unchecked_access",
    "no_custom_op", "weights_in_package", "no_device_in_log", "no_bounds_check_known", "unchecked_index"."""

    kind: str
    certainty: str
    model: str | None = None
    target: str | None = None  # the kernel, the extern op, or the proxy call's op (``torchvision::roi_align``)
    line: int | None = None  # its wrapper line
    args: tuple[Arg, ...] = ()
    function: str | None = None  # the function the log names
    evidence: tuple[str, ...] = ()
    suspect: dict | None = None  # unchecked_access: the suspect (inspector.queries.suspects)


@dataclass
class AsyncError:
    """What the log says and what could have made the error, likeliest first."""

    kind: str  # the CUDA error as read: "illegal_memory_access" | "launch_failure" | … | "cublas"
    reported_by: str | None = None  # the call that reported it
    reported_line: int | None = None
    blocking: bool = False  # the log shows CUDA_LAUNCH_BLOCKING=1
    hypotheses: list[AsyncHypothesis] = field(default_factory=list)
    custom_ops: int = 0  # proxy-executor calls before the reporting call
    launches_before: int = 0  # launches (kernels and extern ops) before it
    candidates: list = field(default_factory=list)  # assert_candidate's `Candidate`s (inspector.queries.candidates)

    def first(self, kind: str) -> AsyncHypothesis | None:
        return next((h for h in self.hypotheses if h.kind == kind), None)


def proxy_ops(pkg: Package, name: str) -> list[str | None]:
    """The ops of model ``name``'s proxy-executor calls, by their extern node index (``<hash>.wrapper.json``'s
    ``nodes``, in order; an entry is None where the member is missing or names none)."""
    out: list[str | None] = []
    for member in [x for x in pkg.files(name).other if x.endswith(".wrapper.json")]:
        try:
            doc = pkg.archive.read_json(member)
        except InspectorError:  # not JSON, not UTF-8: the loader says so; the calls are still named by line
            continue
        for n in (doc or {}).get("nodes", []):
            out.append(((n or {}).get("node") or {}).get("target"))
    return out


def _node_index(call) -> int | None:
    """A proxy call's extern node index (its second argument, torch 2.11 and 2.13: ``aoti_torch_proxy_executor_
    call_function(proxy_executor, 0, <n ints>, <ints>, <n tensors>, <tensors>)``; the index into the
    ``.wrapper.json``'s nodes)."""
    if len(call.args) < 2:
        return None
    tree = call.args[1].tree
    return tree.value if isinstance(tree, E.Int) else None


def tensor_args(call, inputs: dict[str, int], constants: frozenset[str]) -> tuple[Arg, ...]:
    """The tensors a call names (the model's inputs, its buffers, its constants), in order, each once."""
    return tuple(Arg(n, inputs.get(n)) for n in call.arg_names
                 if n in inputs or n in constants or (n.startswith("buf") and n[3:].isdigit()))


def _functions(rep: LogReport) -> list[str]:
    """The functions the log names as raising or on its native stack (innermost first)."""
    raised = [e.fn for e in rep.events if e.pattern == "raised_from"]
    return raised + [f.function for f in rep.native_frames if f.function]


def async_error(pkg: Package, rep: LogReport, models, model: str | None = None, weightless: bool = False,
                suspects: list[dict] | None = None) -> AsyncError:
    """The places that could have made the log's asynchronous CUDA error (the module's rules), likeliest first.
    ``models``: the diagnosed models' interfaces; ``suspects``: their unchecked indirect accesses, found already."""
    from .candidates import assert_candidates

    ev = rep.first("illegal_memory_access") or rep.first("cublas_error")
    err = ev.kind if ev is not None and hasattr(ev, "kind") else "unknown"
    res = AsyncError(kind=err, blocking=rep.mentions("launch_blocking"))
    reported = None
    noticed_at = None  # the log line of the call that reported it
    for n in rep.noticed:
        hit = site_for_noticed(pkg, n, model)
        if hit:
            reported = (hit[0].name, hit[1])
            res.reported_by, res.reported_line = hit[1].target, hit[1].line
            noticed_at = n.line_no
            break
    functions = _functions(rep)
    # With CUDA_LAUNCH_BLOCKING=1 each launch reports its own error; one printed as a swallowed shim exception
    # (`Exception in aoti_torch: … an illegal memory access …`) before the reporting call, which run_impl went on
    # past, came from an unchecked call before it: a proxy-executor call is one (Inductor checks none of them).
    cuda_lines = {e.line_no for e in rep.events if e.pattern == "illegal_memory_access"}
    swallowed = res.blocking and any(e.pattern == "exception_in_aoti_torch" and e.line_no in cuda_lines
                                     and (noticed_at is None or e.line_no < noticed_at) for e in rep.events)
    named: list[AsyncHypothesis] = []
    ops: list[AsyncHypothesis] = []
    nearest: list[AsyncHypothesis] = []
    for m in models:
        ix = pkg.index(m.name)
        inputs = {i.name: i.index for i in m.inputs}
        constants = frozenset(c.name for c in ix.constants())
        limit = reported[1].line if reported and reported[0] == m.name else None
        calls = [c for c in ix.calls() if limit is None or c.line <= limit]
        by_index = None
        for c in reversed(calls):  # nearest the reporting call first
            if c.target == PROXY_CALL:
                if by_index is None:
                    by_index = proxy_ops(pkg, m.name)
                i = _node_index(c)
                op = by_index[i] if i is not None and 0 <= i < len(by_index) else None
                short = (op or "").split("::")[-1]
                fn = next((f for f in functions if short and short in f), None)
                if fn is not None or (limit is not None and c.line == limit):
                    named.append(AsyncHypothesis(
                        "named_custom_op", LIKELY if res.blocking else POSSIBLE, m.name, op or PROXY_CALL, c.line,
                        tensor_args(c, inputs, constants), fn,
                        (("launch_blocking",) if res.blocking else ()) + ("named_in_log",)))
                else:
                    ops.append(AsyncHypothesis("custom_op", POSSIBLE, m.name, op or PROXY_CALL, c.line,
                                               tensor_args(c, inputs, constants), None,
                                               (("before_report",) if limit is not None else ())
                                               + ("no_bounds_check_known",)))
                res.custom_ops += 1
            elif limit is not None and c.line < limit and not c.target.startswith(ALLOC_OR_COPY_SHIMS):
                res.launches_before += 1
                if len(nearest) < NEAREST_LAUNCHES:
                    nearest.append(AsyncHypothesis("launch", POSSIBLE, m.name, c.target, c.line,
                                                   tensor_args(c, inputs, constants), None, ("before_report",)))
    suspects = suspects or []
    unchecked = [AsyncHypothesis("unchecked_access", POSSIBLE, s.get("model"), s["kernel"], None, (), None,
                                 ("unchecked_index",), suspect=s) for s in suspects]
    cuda = any(m.device == "cuda" for m in models)
    host = None
    if cuda:
        alone = not suspects and not res.custom_ops and not weightless
        host = AsyncHypothesis("host_input", LIKELY if alone else POSSIBLE, None, None, None, (), None,
                               ("no_device_in_log",) + (("no_unchecked_access", "no_custom_op", "weights_in_package")
                                                        if alone else ()))
    cands = []
    if not rep.has("illegal_memory_access") and cuda:  # a cuBLAS error alone may follow an assert whose line is lost
        res.candidates = assert_candidates(pkg, rep, model)
        cands = [AsyncHypothesis("assert_candidate", POSSIBLE, c.model, c.kernel, c.launched_at, (), None,
                                 ("before_report",)) for c in res.candidates]
    if swallowed and not named and ops:  # the nearest unchecked call before the reporting one: a blocking run's
        h = ops.pop(0)
        named.append(AsyncHypothesis("named_custom_op", LIKELY, h.model, h.target, h.line, h.args, None,
                                     ("launch_blocking", "swallowed_before_report")))
    # a custom op handed a model input itself ranks first: a value the caller passed can be out of its range
    ops.sort(key=lambda h: not any(a.input is not None for a in h.args))
    out = list(named)
    if host is not None and host.certainty == LIKELY:
        out.append(host)
    out += ops + unchecked + cands
    if host is not None and host.certainty != LIKELY:
        out.append(host)
    out += nearest
    res.hypotheses = out
    return res
