"""What a person types about a run, parsed once for the CLI, the API twin (``inspector.check``/``repro``) and the
MCP tools (which call the CLI): an input spec (``check --input 1=float32[0,32]@cuda``, ``--inputs-json``), a
device string (``cuda:1``: ``--device``, a spec's ``@DEVICE``) and a source line (``locate --source
model.py:84``).  Every device string pt2-inspect reads is split here (`Device`), never by ``split(":")`` at
the reader.  Not generated code: a bad spec is a usage error (exit 2) that says what was expected.

    >>> parse_spec("1=float32[0,32]@cuda:1")
    InputSpec(who='1', dtype='float32', shape=[0, 32], stride=None, device='cuda:1')
    >>> Device.of("cuda:1"), device_type("cuda:1"), device_index("cuda")
    (Device(type='cuda', index=1), 'cuda', 0)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..errors import UsageError
from ..naming import TORCH_DTYPES, dtype_name, known_dtype

# The devices a tensor of a package can be on (torch.device's types an AOTI package is built for); anything else
# (`@tpu`, `@gpu`) is a typo, refused as a usage error rather than checked as a device mismatch.
DEVICE_TYPES = ("cpu", "cuda", "xpu", "mps", "meta")
GPU_TYPES = ("cuda", "xpu")  # the types whose index picks a GPU (`aoti_load_package(…, device_index=N)`)
_DEVICE = re.compile(r"^(?P<type>cpu|cuda|xpu|mps|meta)(?::(?P<index>\d+))?$")
_SPEC = re.compile(r"^\s*(?P<who>[^=\s]+)\s*=\s*(?P<dtype>[A-Za-z][\w.]*)?\s*(?:\[(?P<shape>[^\]]*)\])?"
                   r"\s*(?:stride\s*\[(?P<stride>[^\]]*)\])?\s*(?:@\s*(?P<device>[\w:]+))?\s*$")
_INT = re.compile(r"-?\d+")
_SOURCE_LINE = re.compile(r"(.+):(\d+)")


@dataclass(frozen=True)
class Device:
    """A device string split: ``cuda:1`` -> (cuda, 1); ``cuda`` -> (cuda, None)."""

    type: str
    index: int | None = None

    @classmethod
    def of(cls, text: str | None) -> "Device | None":
        """The device ``text`` names, or None when it names none (no check: see `parse_device`)."""
        if not text:
            return None
        head, sep, tail = text.strip().partition(":")
        return cls(head, int(tail) if sep and tail.isdigit() else None)

    @property
    def gpu_index(self) -> int | None:
        """The GPU this device is: ``cuda:1`` -> 1, ``cuda`` -> 0 (the current device, 0 unless set), cpu -> None."""
        if self.type not in GPU_TYPES:
            return None
        return self.index if self.index is not None else 0

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


def device_type(dev: str | None) -> str:
    """``cuda:1`` -> ``cuda``; None or "" -> ""."""
    d = Device.of(dev)
    return d.type if d else ""


def device_index(dev: str | None) -> int | None:
    """The GPU index a device names: ``cuda:1`` -> 1, ``cuda`` -> 0 (the current device, 0 unless set), cpu -> None."""
    d = Device.of(dev)
    return d.gpu_index if d else None


def parse_device(text: str | None, where: str) -> str | None:
    """``cuda`` / ``cuda:1`` / ``cpu``, checked; a device index only on a GPU type."""
    if text is None:
        return None
    m = _DEVICE.match(text.strip())
    if not m or (m.group("index") is not None and m.group("type") in ("cpu", "meta")):
        raise UsageError(f"{where}: unknown device {text!r}; one of cpu, cuda, cuda:N (N a device index, e.g. cuda:1), "
                         "xpu, xpu:N, mps, meta")
    return text.strip()


def is_int(text) -> bool:
    """Whether ``text`` (a size as a package or a user writes it) is a plain integer: ``64``, ``-1``."""
    return isinstance(text, int) or bool(_INT.fullmatch(str(text)))


@dataclass
class InputSpec:
    who: str  # position, wrapper name or user name, as given
    dtype: str | None = None
    shape: list[int] | None = None
    stride: list[int] | None = None
    device: str | None = None

    @property
    def position(self) -> int | None:
        """The input position ``who`` gives (``1``), or None when it is a name."""
        return int(self.who) if self.who.isdecimal() else None


def _ints(text: str | None, what: str, spec: str) -> list[int] | None:
    if text is None:
        return None
    try:
        vals = [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise UsageError(f"--input {spec!r}: {what} must be integers, e.g. [0,32]") from None
    _non_negative(vals, what, f"--input {spec!r}")
    return vals


def _non_negative(vals, what: str, where: str) -> None:
    neg = [v for v in vals if v < 0]
    if neg:
        raise UsageError(f"{where}: {what} cannot be negative ({neg[0]}): a tensor's {what} are 0 or more")


def _known(dtype: str | None, where: str) -> None:
    if not known_dtype(dtype):
        raise UsageError(f"{where}: unknown dtype {dtype!r}; one of {', '.join(TORCH_DTYPES)} (torch.int64, long, half… "
                         "are accepted too)")


def parse_spec(text: str) -> InputSpec:
    """``POSITION_OR_NAME=DTYPE[d0,d1,…]stride[s0,…]@DEVICE``; every part after ``=`` is optional."""
    m = _SPEC.match(text)
    if not m:
        raise UsageError(f"--input {text!r}: expected POSITION_OR_NAME=DTYPE[d0,d1,...]@DEVICE, e.g. 1=float32[0,32]@cuda")
    dtype = dtype_name(m.group("dtype"))
    _known(dtype, f"--input {text!r}")
    return InputSpec(who=m.group("who"), dtype=dtype, shape=_ints(m.group("shape"), "sizes", text),
                     stride=_ints(m.group("stride"), "strides", text),
                     device=parse_device(m.group("device"), f"--input {text!r}"))


def parse_inputs_json(text: str) -> list[InputSpec]:
    """``[{"input": 1 | "name", "dtype": "float32", "shape": [0, 32], "stride": [...], "device": "cuda"}, …]``
    or ``{"name": {...}, …}``."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"--inputs-json: not JSON ({e.msg} at line {e.lineno})") from None
    items = [dict(v, input=k) for k, v in doc.items()] if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise UsageError("--inputs-json: expected a list of {input, dtype, shape, stride, device} objects")
    out = []
    for i, x in enumerate(items):
        if not isinstance(x, dict):
            raise UsageError(f"--inputs-json: item {i} is not an object")
        _known(dtype_name(x.get("dtype")), f"--inputs-json: item {i}")
        who = str(x.get("input", x.get("name", i)))
        if who in [o.who for o in out]:
            raise UsageError(f"--inputs-json: input {who} is given twice (items {[o.who for o in out].index(who)} and {i})")
        try:
            out.append(InputSpec(who=who,
                                 dtype=dtype_name(x.get("dtype")),
                                 shape=[int(v) for v in x["shape"]] if x.get("shape") is not None else None,
                                 stride=[int(v) for v in x["stride"]] if x.get("stride") is not None else None,
                                 device=parse_device(x.get("device"), f"--inputs-json: item {i}")))
        except (TypeError, ValueError):
            raise UsageError(f"--inputs-json: item {i}: shape and stride must be lists of integers") from None
        _non_negative(out[-1].shape or [], "sizes", f"--inputs-json: item {i}")
        _non_negative(out[-1].stride or [], "strides", f"--inputs-json: item {i}")
    return out


@dataclass(frozen=True)
class SourceLine:
    """``model.py:84``: a file (its name or a path suffix) and a line of the user's code."""

    file: str
    line: int


def parse_source_line(spec: str, where: str = "--source") -> SourceLine:
    """``model.py:84`` -> SourceLine("model.py", 84); a usage error otherwise."""
    m = _SOURCE_LINE.fullmatch(spec.strip())
    if not m:
        raise UsageError(f"{where} {spec!r}: give FILE:LINE, e.g. model.py:84 (the file's name or a path suffix)")
    return SourceLine(m.group(1), int(m.group(2)))
