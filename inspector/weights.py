"""What a weights file holds — names, dtypes, shapes, strides — read without loading a tensor or unpickling.

`read_weights(path)` takes:
- a ``.safetensors`` file: its JSON header (8-byte length, then the header), never the data;
- a folder of ``*.safetensors`` shards (or of ``.pt``/``.bin`` files);
- a ``torch.save`` zip (``.pt``, ``.pth``, ``.bin``): its ``data.pkl`` is walked opcode by opcode with
  `pickletools.genops` by a small stack machine that knows only what a state_dict's pickle does
  (``collections.OrderedDict``, ``torch._utils._rebuild_tensor_v2``, ``torch.<Dtype>Storage`` persistent
  ids). Nothing is imported, called or constructed from the pickle: an unknown global is a value we carry
  by name, never resolve.

`doctor --weights` compares the result with a package's constants: what `load_constants` does not check.
"""

from __future__ import annotations

import json
import pickletools
import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import UsageError
from .naming import SAFETENSORS_DTYPES, STORAGE_DTYPES

MAX_HEADER_BYTES = 100 * 1024 * 1024
MAX_PICKLE_BYTES = 256 * 1024 * 1024
MAX_FILES = 10_000

@dataclass
class TensorInfo:
    name: str
    dtype: str | None
    shape: list[int]
    stride: list[int] | None = None  # None: contiguous by construction (safetensors)
    device: str | None = None
    source: str = ""  # the file (and shard) it was read from

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def to_dict(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "shape": self.shape, "stride": self.stride,
                "device": self.device, "source": self.source}


@dataclass
class WeightsFile:
    path: str
    format: str  # "safetensors" | "torch.save" | "folder"
    tensors: dict[str, TensorInfo] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def contiguous_stride(shape: list[int]) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= max(d, 1)
    return list(reversed(out))


# -- safetensors ---------------------------------------------------------------------------------------

def read_safetensors(path: Path) -> dict[str, TensorInfo]:
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise UsageError(f"--weights {path}: not a safetensors file (shorter than its 8-byte header length)")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER_BYTES:
            raise UsageError(f"--weights {path}: a safetensors header of {n:,} bytes is not a real one")
        raw = f.read(n)
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise UsageError(f"--weights {path}: the safetensors header is not JSON") from None
    if not isinstance(doc, dict):
        raise UsageError(f"--weights {path}: the safetensors header is not a JSON object")
    out = {}
    for name, meta in doc.items():
        if name == "__metadata__" or not isinstance(meta, dict):
            continue
        shape = [int(x) for x in meta.get("shape", []) if isinstance(x, int)]
        out[name] = TensorInfo(name, SAFETENSORS_DTYPES.get(str(meta.get("dtype")), str(meta.get("dtype")).lower()),
                               shape, None, None, path.name)
    return out


# -- torch.save zips, read as pickle opcodes -------------------------------------------------------------

class _Global:
    def __init__(self, module: str, name: str):
        self.module, self.name = module, name


class _Mark:
    pass


class _Storage:
    def __init__(self, dtype: str | None, key: str, device: str | None):
        self.dtype, self.key, self.device = dtype, key, device


class _Call:
    """A REDUCE we did not evaluate: the callable's name and its arguments, kept as data."""

    def __init__(self, fn, args):
        self.fn, self.args = fn, args


def _flat_ints(x) -> list[int] | None:
    if isinstance(x, (tuple, list)) and all(isinstance(v, int) and not isinstance(v, bool) for v in x):
        return list(x)
    return None


def _reduce(fn, args):
    if isinstance(fn, _Global):
        full = f"{fn.module}.{fn.name}"
        if full in ("collections.OrderedDict", "builtins.dict") and args == ():
            return {}
        if full in ("torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor") and isinstance(args, tuple) \
                and len(args) >= 4 and isinstance(args[0], _Storage):
            st, _off, size, stride = args[:4]
            shape, strides = _flat_ints(size), _flat_ints(stride)
            if shape is not None:
                return TensorInfo("", st.dtype, shape, strides, st.device)
        if full == "torch._utils._rebuild_parameter" and isinstance(args, tuple) and args and isinstance(args[0], TensorInfo):
            return args[0]
    return _Call(fn, args)


def read_torch_pickle(data: bytes) -> object:
    """The value a state_dict pickle builds, evaluated symbolically (no import, no call)."""
    stack: list = []
    memo: dict = {}
    for op, arg, _pos in pickletools.genops(data):
        name = op.name
        if name in ("PROTO", "FRAME", "STOP"):
            if name == "STOP":
                break
            continue
        if name in ("GLOBAL",):
            mod, _, attr = arg.partition(" ")
            stack.append(_Global(mod, attr))
        elif name == "STACK_GLOBAL":
            attr, mod = stack.pop(), stack.pop()
            stack.append(_Global(str(mod), str(attr)))
        elif name == "MARK":
            stack.append(_Mark())
        elif name in ("EMPTY_TUPLE",):
            stack.append(())
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            k = int(name[-1])
            items = tuple(stack[-k:])
            del stack[-k:]
            stack.append(items)
        elif name == "TUPLE":
            i = max(j for j, v in enumerate(stack) if isinstance(v, _Mark))
            items = tuple(stack[i + 1:])
            del stack[i:]
            stack.append(items)
        elif name in ("EMPTY_LIST",):
            stack.append([])
        elif name in ("EMPTY_DICT",):
            stack.append({})
        elif name in ("APPEND",):
            v = stack.pop()
            if isinstance(stack[-1], list):
                stack[-1].append(v)
        elif name in ("APPENDS",):
            i = max(j for j, v in enumerate(stack) if isinstance(v, _Mark))
            items = stack[i + 1:]
            del stack[i:]
            if stack and isinstance(stack[-1], list):
                stack[-1].extend(items)
        elif name in ("SETITEM",):
            v, k = stack.pop(), stack.pop()
            if isinstance(stack[-1], dict) and isinstance(k, (str, int)):
                stack[-1][k] = v
        elif name in ("SETITEMS",):
            i = max(j for j, v in enumerate(stack) if isinstance(v, _Mark))
            items = stack[i + 1:]
            del stack[i:]
            if stack and isinstance(stack[-1], dict):
                for k, v in zip(items[::2], items[1::2]):
                    if isinstance(k, (str, int)):
                        stack[-1][k] = v
        elif name in ("BINPERSID", "PERSID"):
            pid = stack.pop() if name == "BINPERSID" else arg
            if isinstance(pid, tuple) and len(pid) >= 4 and pid[0] == "storage":
                cls = pid[1]
                dtype = STORAGE_DTYPES.get(cls.name) if isinstance(cls, _Global) else None
                stack.append(_Storage(dtype, str(pid[2]), str(pid[3])))
            else:
                stack.append(_Call("persistent_id", pid))
        elif name in ("REDUCE",):
            args, fn = stack.pop(), stack.pop()
            stack.append(_reduce(fn, args))
        elif name in ("NEWOBJ",):
            args, cls = stack.pop(), stack.pop()
            stack.append(_reduce(cls, args))
        elif name in ("BUILD",):
            stack.pop()  # the state: an object's __setstate__ is never called
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[arg] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            stack.append(memo.get(arg))
        elif name in ("NEWTRUE", "NEWFALSE", "NONE"):
            stack.append({"NEWTRUE": True, "NEWFALSE": False, "NONE": None}[name])
        elif name in ("POP",):
            stack.pop()
        elif name == "POP_MARK":
            i = max(j for j, v in enumerate(stack) if isinstance(v, _Mark))
            del stack[i:]
        elif name == "DUP":
            stack.append(stack[-1])
        elif op.arg is not None and op.stack_before == [] and len(op.stack_after) == 1:
            stack.append(arg)  # a literal: ints, floats, strings, bytes
        else:
            raise UsageError(f"pickle opcode {name} is not one a state_dict uses")
    return stack[-1] if stack else None


def _tensors_of(value, prefix: str = "") -> dict[str, TensorInfo]:
    """Every tensor of a (possibly nested) dict, by dotted name; a checkpoint's ``state_dict`` key unwrapped."""
    out: dict[str, TensorInfo] = {}
    if isinstance(value, TensorInfo):
        value.name = prefix
        out[prefix] = value
    elif isinstance(value, dict):
        inner = value.get("state_dict") or value.get("model_state_dict") or value.get("model")
        if not prefix and isinstance(inner, dict) and not any(isinstance(v, TensorInfo) for v in value.values()):
            return _tensors_of(inner)
        for k, v in value.items():
            out.update(_tensors_of(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def read_torch_save(path: Path) -> dict[str, TensorInfo]:
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise UsageError(f"--weights {path}: not a torch.save zip (the legacy non-zip format is not read)") from None
    with z:
        pkls = [i for i in z.infolist() if i.filename.endswith("/data.pkl") or i.filename == "data.pkl"]
        if not pkls:
            raise UsageError(f"--weights {path}: a zip without data.pkl is not a torch.save file")
        if pkls[0].file_size > MAX_PICKLE_BYTES:
            raise UsageError(f"--weights {path}: its data.pkl is {pkls[0].file_size:,} bytes; too large to read")
        data = z.read(pkls[0])
    try:
        value = read_torch_pickle(data)
    except (ValueError, IndexError, KeyError, TypeError, struct.error) as e:
        raise UsageError(f"--weights {path}: its pickle could not be read as a state_dict ({type(e).__name__})") from None
    out = _tensors_of(value)
    for t in out.values():
        t.source = path.name
    return out


def read_weights(path: str | Path) -> WeightsFile:
    p = Path(path)
    if p.is_symlink() and not p.exists():
        raise UsageError(f"--weights {p}: a broken link")
    if p.is_dir():
        files = sorted(q for q in p.iterdir() if q.suffix in (".safetensors", ".pt", ".pth", ".bin") and q.is_file())
        if not files:
            raise UsageError(f"--weights {p}: no .safetensors/.pt/.bin file in the folder")
        wf = WeightsFile(str(p), "folder")
        for q in files[:MAX_FILES]:
            one = read_weights(q)
            for k, t in one.tensors.items():
                if k in wf.tensors:
                    wf.notes.append(f"{k} is in both {wf.tensors[k].source} and {t.source}")
                wf.tensors[k] = t
        return wf
    if not p.is_file():
        raise UsageError(f"--weights {p}: no such file or folder")
    with open(p, "rb") as f:
        head = f.read(4)
    if head[:2] == b"PK":
        return WeightsFile(str(p), "torch.save", read_torch_save(p))
    return WeightsFile(str(p), "safetensors", read_safetensors(p))
