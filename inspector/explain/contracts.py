"""The words `show` prints for what the runtime checks do not enforce (issue 34): dims the kernels read by other
inputs' sizes, dims the package computes (a multiple of 16), and the value contracts of the ops it calls
(`inspector.queries.shared_dims`, `inspector.queries.op_calls`, `inspector.dialects.op_contracts`)."""

from __future__ import annotations

from .check import _EFFECT


def dim_contract(c: dict, input_name: str) -> str:
    where = f"input {c['input']} ({input_name}) dim {c['dim']}"
    if c["kind"] == "derived":
        caught = (f"AOTI_RUNTIME_CHECK_INPUTS=1 stops another size (assert_size_stride, wrapper.cpp line {c['line']}); "
                  "without it the kernels read the tensor with the computed size, silently" if c.get("line") else
                  "no runtime check compares it")
        return f"{where} must be a multiple of {c['multiple_of']} (the package computes it as {c['expr']}): {caught}"
    owners = " × ".join(f"input {i} dim {d}" for i, d in c["owners"])
    return (f"{where} must equal {' × '.join(c['symbols'])} ({owners}): kernel {c['kernel']} (wrapper.cpp line "
            f"{c['line']}) reads it by that size, and no runtime check compares them (its guards check only its range)")


def _arg(a: dict) -> str:
    ins = ", ".join(f"input {i['index']} ({i['name']})" for i in a["inputs"])
    if a["direct"] and ins:
        return f"{a['name']} = {ins}"
    if ins:
        return f"{a['name']} = {a['value']} (from {ins})"
    return f"{a['name']} = {a['value']}" if a["value"] is not None else a["name"]


def op_call(c: dict) -> str:
    """``torchvision::roi_align (line 1073): input = buf4 (from input 0 (arg4_1)), rois = input 1 (arg5_1), …``."""
    args = ", ".join(_arg(a) for a in c["args"])
    return f"{c['op']} ({'proxy executor' if c['via'] == 'proxy_executor' else 'extern call'}, wrapper.cpp line {c['line']}): {args}"


def op_contract(u: dict) -> str:
    who = {"op": "the op checks it", "nothing": "NOTHING checks it", "device_assert": "a device-side assert checks it"}.get(
        u["checked_by"], u["checked_by"])
    return f"needs {u['condition']}: {who}; broken: {_EFFECT.get(u['effect'], u['effect'])}"
