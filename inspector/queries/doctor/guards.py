"""``checks``: what the build compiled in (input guards, NaN/Inf checks, the intermediate value printer), what runs
unchecked (indirect loads with no bounds assert, extern calls with no error check), and kernels that store a NaN
constant.  ``custom_op``: ops called through the proxy executor and what the serving process needs for them."""

from __future__ import annotations

from ...dialects.proxy_executor import PROXY_CALL  # noqa: F401 - one place (re-exported for the rules)
from ...errors import InspectorError
from ...naming import ALLOC_OR_COPY_SHIMS, PROXY_CALL  # noqa: F401  (PROXY_CALL: its old home, read by rules)
from .base import Check, Here, Subject

# the C-shim calls whose presence in the wrapper says a check or the printer was compiled in
NAN_CHECK = "aoti_torch_check_inf_and_nan"
PRINTER_CALLS = ("aoti_torch_print_tensor_handle", "aoti_torch_save_tensor_handle")


class CompiledChecks(Check):
    name = "compiled_checks"

    def run(self, m: Subject, here: Here):
        w = m.wrapper
        guards = m.dialect is not None and m.dialect.check_input_start in w  # a check_input_K is compiled in
        nan = NAN_CHECK in w
        printer = any(call in w for call in PRINTER_CALLS)
        m.readings.update(input_guards=guards, nan_checks=nan, value_printer=printer)
        out = []
        if not guards:
            out.append(m.finding("checks", "warn", "no_input_guards"))
        if nan:
            out.append(m.finding("checks", "info", "nan_checks"))
        if printer:
            out.append(m.finding("checks", "warn", "value_printer"))
        return out


class Unchecked(Check):
    """Loads through an index with no bounds assert (built with assert_indirect_indexing=False, or an extern op
    Inductor cannot check), and extern ATen calls made without an error check."""

    name = "unchecked"

    def run(self, m: Subject, here: Here):
        from ..suspects import model_suspects

        out = []
        sus = model_suspects(m.pkg, m.name)
        m.readings["unchecked_indirect"] = len(sus)
        if sus:
            out.append(m.finding("checks", "warn", "unchecked_indirect", count=len(sus),
                                 sites=[(x["kernel"], x["line"]) for x in sus]))
        bare = [(c.target, c.line) for c in m.pkg.index(m.name).calls()
                if c.kind == "extern" and not c.checked and not c.target.startswith(ALLOC_OR_COPY_SHIMS)]
        m.readings["unchecked_extern"] = len(bare)
        if bare:
            out.append(m.finding("checks", "info", "unchecked_extern", count=len(bare), calls=bare))
        return out


class CustomOps(Check):
    """Ops the package calls through the proxy executor (``<hash>.wrapper.json``): a Python ``custom_op`` needs its
    registration in the serving process (seen for real: `Could not find schema for hvlib::scale_shift`)."""

    name = "custom_ops"

    def run(self, m: Subject, here: Here):
        out = []
        jsons = [x for x in m.files.other if x.endswith(".wrapper.json")]
        calls = [c.line for c in m.pkg.index(m.name).calls() if c.target == PROXY_CALL]
        if calls and not jsons:  # seen for real (torch 2.11): `Unable to find a proxy executor to run custom ops`
            out.append(m.finding("custom_op", "error", "no_proxy_executor", lines=calls))
        for member in jsons:
            try:
                doc = m.pkg.archive.read_json(member)
            except InspectorError:  # not JSON, not UTF-8: the loader will say so; not our finding
                continue
            for n in (doc or {}).get("nodes", []):
                node = n.get("node") or {}
                op = node.get("target")
                if not op:
                    continue
                py = (node.get("metadata") or {}).get("torch_library_custom_op") == "1"
                m.readings.setdefault("custom_ops", []).append(op)
                out.append(m.finding("custom_op", "warn" if py else "info", "custom_op", op=op, python=py,
                                     member=member))
        return out


class ConstantNan(Check):
    """Kernels that read no tensor and store a NaN constant (seen for real, torch 2.11: a user-defined Triton kernel
    taking TMA descriptors was dropped at export, and the relu after it stored NaN: every output NaN)."""

    name = "constant_nan"

    def run(self, m: Subject, here: Here):
        from ..nan_constants import constant_nan_kernels

        try:
            hits = constant_nan_kernels(m.pkg, m.name)
        except InspectorError:  # a kernel member unreadable: no answer is a missing fact, not a failed doctor
            return []
        if hits:
            m.readings["constant_nan_kernels"] = [k for k, _ in hits]
        return [m.finding("checks", "error", "constant_nan", kernel=k, line=line) for k, line in hits]
