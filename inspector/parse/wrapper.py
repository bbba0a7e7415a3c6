"""Index an AOTInductor C++ wrapper (``<hash>.wrapper.cpp``).

A fast scanner walks the lines once and slices the file into regions:

* the constructor facts (``inputs_info_``, ``constants_info_``, ``outputs_info_``,
  ``in_spec_``/``out_spec_``), one statement a line;
* ``check_input_K`` functions: the input guards;
* ``call_triton_<name>`` launchers: their parameters, the Triton source in the
  comment (handed to `inspector.parse.triton`), and the cubin they load;
* ``run_impl``: inputs, symbols, buffers, kernel calls, extern ops and the
  ``// Topologically Sorted Source Nodes`` / ``// [Provenance debug handles]`` comments.

Each statement the scanner keeps goes to the Lark grammar ``grammars/wrapper.lark``
with the start rule its leading word selects.  A statement no rule accepts
is skipped; only the facts found are reported.
"""

from __future__ import annotations

import re

from ..model import (
    BufferDef,
    CallArg,
    CallSite,
    Constant,
    Expr,
    Guard,
    Input,
    Kernel,
    KernelParam,
    Model,
    Output,
    Symbol,
    param_role,
)
from .grammar import ExprTransformer, parse_one
from .triton import parse_triton_source

STARTS = ("declaration", "handle_decl", "assignment", "call", "checked_call", "guard", "launcher_param", "load_kernel")

_SIZE_REF = re.compile(r"^(\w+)_(size|stride)\[(\d+)\]$")
_SOURCE_NODES = re.compile(r"//\s*Topologically Sorted Source Nodes:\s*\[(.*?)\](?:,\s*Original ATen:\s*\[(.*?)\])?")
_PROVENANCE = re.compile(r"//\s*\[Provenance debug handles\]\s*(\S+)")
_TRITON_OPEN = re.compile(r"async_compile\.triton\('(\w+)',\s*'''")
_DTYPE_NAMES = {
    "float32": "float32", "float16": "float16", "bfloat16": "bfloat16", "float64": "float64",
    "int64": "int64", "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2", "complex64": "complex64",
}


class _WrapperTransformer(ExprTransformer):
    """Statements -> small tuples the scanner turns into model facts."""

    def declaration(self, c):
        names = [str(t) for t in c if getattr(t, "type", None) == "NAME"]
        exprs = [e for e in c if isinstance(e, Expr)]
        tail = next((t for t in c if isinstance(t, tuple) and t and t[0] == "tail"), None)
        typ = next(str(t) for t in c if getattr(t, "type", None) == "TYPE")
        return ("decl", typ, names[0], exprs[0], tail[1] if tail else None)

    def tail(self, c):
        return ("tail", c[0])

    def handle_decl(self, c):
        return ("handle", str(c[1]))

    def raii_decl(self, c):
        return ("raii", str(c[1]), str(c[2]))

    def assignment(self, c):
        toks = [str(t) for t in c if not isinstance(t, Expr)]
        return ("assign", toks, c[-1])

    def call(self, c):
        return ("call", str(c[0]), c[1] if len(c) > 1 else [])

    def checked_call(self, c):
        return ("call", str(c[0]), c[1] if len(c) > 1 else [])

    def guard(self, c):
        return c[0]

    def guard_dim_const(self, c):
        return ("guard", str(c[0]), int(c[1]), str(c[2]), int(str(c[3]).rstrip("L")))

    def guard_const_dim(self, c):
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(str(c[1]), str(c[1]))
        return ("guard", str(c[2]), int(c[3]), op, int(str(c[0]).rstrip("L")))

    def launcher_param(self, c):
        return ("param", str(c[-1]), str(c[-2]))

    def load_kernel(self, c):
        strings = [str(t).strip('"') for t in c if getattr(t, "type", None) == "STRING"]
        return ("load_kernel", strings[0], strings[1])


_TRANSFORMER = _WrapperTransformer()


def parse_statement(text: str, start: str):
    """Parse one wrapper statement with the given start rule; None when the grammar does not know it."""
    return parse_one("wrapper", STARTS, _TRANSFORMER, text, start)


def _start_rule(s: str) -> str | None:
    if s.startswith("AOTI_TORCH_ERROR_CODE_CHECK("):
        return "checked_call"
    if s.startswith(("auto", "int64_t", "int32_t", "const ", "static ", "[[maybe_unused]]", "double ", "bool ")):
        return "declaration"
    if s.startswith(("AtenTensorHandle ", "RAIIAtenTensorHandle ")):
        return "handle_decl"
    if s.startswith("output_handles["):
        return "assignment"
    if s.startswith(("call_triton_", "cpp_")) or re.match(r"\w+\(", s):
        return "call"
    return None


class WrapperScanner:
    """One pass over the wrapper lines, filling a `Model`."""

    def __init__(self, model: Model, text: str, member: str):
        self.m = model
        self.member = member
        self.lines = text.split("\n")
        self.m.wrapper_lines = len(self.lines)
        self.cpp_kernels: set[str] = set()
        self.launchers: dict[str, list[KernelParam]] = {}
        self.pending_nodes: tuple[list[str], list[str]] | None = None
        self.pending_provenance: str | None = None
        self.locals: dict[str, Expr] = {}
        self.aliases: dict[str, str] = {}  # run_impl local -> base (var_0 -> buf2)
        self.constant_facts: dict[int, Constant] = {}
        self.input_names: dict[int, str] = {}
        self.size_stride: dict[int, tuple[list, list]] = {}
        self.saw_run_impl = False
        self.guards: dict[int, list[Guard]] = {}

    # -- driver --------------------------------------------------------------
    def scan(self):
        i, n = 0, len(self.lines)
        while i < n:
            s = self.lines[i].strip()
            if s.startswith("static inline void call_triton_"):
                i = self._launcher(i)
                continue
            if s.startswith("AOTI_NOINLINE static void check_input_"):
                i = self._check_input(i)
                continue
            if s.startswith("void AOTInductorModel::run_impl("):
                self.saw_run_impl = True
                i = self._run_impl(i)
                continue
            if s.startswith('extern "C"') and "cpp_" in s:
                m = re.search(r"\b(cpp_\w+)\(", s)
                if m:
                    self.cpp_kernels.add(m.group(1))
            elif s.startswith(("inputs_info_[", "outputs_info_[", "constants_info_[", "in_spec_", "out_spec_")):
                self._constructor_fact(s, i + 1)
            i += 1
        self._finish()

    # -- constructor ---------------------------------------------------------
    def _constructor_fact(self, s: str, line: int):
        r = parse_statement(s, "assignment")
        if not r:
            return
        _, toks, value = r
        target = toks[0]
        idx = int(toks[1]) if len(toks) > 1 and toks[1].isdigit() else None
        attr = toks[-1] if len(toks) > 1 and not toks[-1].isdigit() else None
        val = value.text
        if target == "inputs_info_" and attr == "name":
            self.input_names[idx] = val.strip('"')
        elif target == "outputs_info_" and attr == "name":
            self.m.outputs.append(Output(index=idx, name=val.strip('"')))
        elif target == "constants_info_":
            c = self.constant_facts.setdefault(idx, Constant(name="", index=idx))
            if attr == "name":
                c.name = val.strip('"')
            elif attr == "original_fqn":
                c.fqn = val.strip('"')
            elif attr == "dtype":
                c.dtype = _dtype(val)
            elif attr == "shape":
                c.shape = _int_list(val)
            elif attr == "stride":
                c.stride = _int_list(val)
            elif attr == "data_size":
                c.nbytes = _int(val)
            elif attr == "type":
                k = re.search(r"ConstantType::(\w+)", val)
                c.kind = k.group(1) if k else None
        elif target in ("in_spec_", "out_spec_"):
            spec = val[3:-2] if val.startswith('R"(') else val.strip('"')
            setattr(self.m, target[:-1], spec)

    # -- guards ----------------------------------------------------------------
    def _check_input(self, i: int) -> int:
        k = int(re.search(r"check_input_(\d+)", self.lines[i]).group(1))
        guards: list[Guard] = []
        i += 1
        while i < len(self.lines) and not self.lines[i].startswith("}"):
            s = self.lines[i].strip()
            if s.startswith("if ("):
                r = parse_statement(s, "guard")
                if r:
                    _, ref, dim, op, value = r
                    # `if (x_size[0] < 2)` rejects below 2: the allowed minimum is 2 (and `> 64` a maximum of 64).
                    kind = "stride" if ref.endswith("_stride") else {"<": "min", ">": "max"}.get(op, "eq")
                    guards.append(Guard(input=k, dim=dim, kind=kind, value=value, line=i + 1))
            elif "_expected_dtype = aoti_torch_dtype_" in s:
                m = re.search(r"aoti_torch_dtype_(\w+)\(", s)
                guards.append(Guard(input=k, dim=None, kind="dtype", value=m.group(1), line=i + 1))
            elif "_expected_device_type = " in s:
                m = re.search(r"= (-?\d+);", s)
                dev = {"0": "cpu", "1": "cuda"}.get(m.group(1), m.group(1)) if m else None
                guards.append(Guard(input=k, dim=None, kind="device", value=dev, line=i + 1))
            i += 1
        self.guards[k] = guards
        return i + 1

    # -- Triton launchers ------------------------------------------------------
    def _launcher(self, i: int) -> int:
        name = re.search(r"call_(triton_\w+)\(", self.lines[i]).group(1)
        params: list[KernelParam] = []
        i += 1
        while i < len(self.lines) and not self.lines[i].strip().startswith("){"):
            r = parse_statement(self.lines[i].strip(), "launcher_param")
            if r:
                params.append(KernelParam(name=r[1], position=len(params), role=param_role(r[1]), ctype=r[2]))
            i += 1
        self.launchers[name] = params
        kernel: Kernel | None = None
        while i < len(self.lines) and not self.lines[i].startswith("}"):
            line = self.lines[i]
            if _TRITON_OPEN.search(line):
                start = i
                indent = len(line) - len(line.lstrip())
                j = i + 1
                while j < len(self.lines) and not self.lines[j].lstrip().startswith("''', device_str"):
                    j += 1
                src = [l[indent:] if l[:indent].strip() == "" else l.lstrip() for l in self.lines[start : j + 1]]
                kernel = parse_triton_source(name, src, self.member, first_line=start + 1)
                i = j
            elif "loadKernel(" in line and kernel is not None:
                r = parse_statement(line.strip(), "load_kernel")
                if r:
                    kernel.cubin = r[1]
            i += 1
        if kernel is None:
            self.m.warnings.append(f"launcher call_triton_{name} at wrapper line {i}: no embedded Triton source")
            kernel = Kernel(name=name, kind="triton", flavor=_flavor(name), source_file=self.member)
        if not kernel.params:
            kernel.params = params
        self.m.kernels[name] = kernel
        return i + 1

    # -- run_impl ----------------------------------------------------------------
    def _run_impl(self, i: int) -> int:
        i += 1
        while i < len(self.lines) and not self.lines[i].startswith(") {"):
            i += 1
        i += 1
        while i < len(self.lines) and not self.lines[i].startswith("} // AOTInductorModel::run_impl"):
            s = self.lines[i].strip()
            line = i + 1
            i += 1
            if not s:
                continue
            if s.startswith("//"):
                m = _SOURCE_NODES.search(s)
                if m:
                    self.pending_nodes = (_split_list(m.group(1)), _split_list(m.group(2) or ""))
                m = _PROVENANCE.search(s)
                if m:
                    self.pending_provenance = m.group(1)
                continue
            if s.startswith("if (") and "assert_size_stride(" in s:
                self._size_stride(s[s.index("assert_size_stride("): s.rindex(";") + 1])
                continue
            rule = _start_rule(s)
            if rule is None:
                continue
            r = parse_statement(s, rule)
            if r is None:
                continue
            self._run_stmt(r, line)
        return i + 1

    def _run_stmt(self, r, line: int):
        kind = r[0]
        if kind == "decl":
            _, typ, name, expr, tail = r
            self._declaration(typ, name, expr, line)
        elif kind == "raii":
            _, name, handle = r
            if name not in self.m.buffers:
                self.m.buffers[name] = BufferDef(name=name, line=line, kind="alloc")
        elif kind == "assign":
            _, toks, value = r
            if toks[0] == "output_handles":
                idx = int(toks[1])
                base = self._base(value.names)
                for o in self.m.outputs:
                    if o.index == idx:
                        o.source = base
                        break
                else:
                    self.m.outputs.append(Output(index=idx, name=f"output{idx}", source=base))
        elif kind == "call":
            _, callee, args = r
            self._call(callee, args, line)

    def _size_stride(self, stmt: str):
        """``assert_size_stride(arg3_1, {s23, s27}, {s27, 1L}, "input")``: an input's symbolic shape and stride."""
        r = parse_statement(stmt, "call")
        if not r or len(r[2]) < 3:
            return
        inp = next((x for x in self.m.inputs if x.name == r[2][0].text), None)
        if inp is None:
            return
        self.size_stride[inp.index] = (_dims(r[2][1].text), _dims(r[2][2].text))

    def _declaration(self, typ: str, name: str, expr: Expr, line: int):
        text = expr.text
        m = re.match(r"std::move\(inputs\[(\d+)\]\)$", text)
        if m:
            self.m.inputs.append(Input(index=int(m.group(1)), name=name))
            return
        m = re.match(r"constants_->at\((\d+)\)$", text)
        if m:
            self.m.constant_bindings[name] = int(m.group(1))
            return
        if typ in ("int64_t", "int32_t") and not name.startswith("int_array"):
            m = _SIZE_REF.match(text.replace(" ", ""))
            if m and m.group(2) == "size":
                inp = next((x for x in self.m.inputs if x.name == m.group(1)), None)
                self.m.symbols[name] = Symbol(name=name, line=line, expr=text,
                                              input=inp.index if inp else None, dim=int(m.group(3)))
                return
            if re.fullmatch(r"\w+", text) and text in self.m.symbols:
                self.m.symbols[name] = Symbol(name=name, line=line, expr=text, alias_of=text)
                return
            self.locals[name] = expr
            return
        m = re.match(r"std::move\((\w+)\)$", text)
        if m and name.startswith("buf"):
            self.m.buffers[name] = BufferDef(name=name, line=line, kind="reuse", origin=m.group(1))
            return
        if "reinterpret_tensor_wrapper" in text or "alloc_from_pool" in text:
            base = self._base(expr.names)
            if name.startswith("buf"):
                self.m.buffers[name] = BufferDef(name=name, line=line, kind="view", origin=base)
            elif base:
                self.aliases[name] = base
            return
        if typ == "auto" and expr.names:
            base = self._base(expr.names)
            if base and base != name:
                self.aliases[name] = base

    def _known(self, n: str) -> bool:
        return (n in self.m.buffers or n in self.m.symbols or n in self.m.constant_bindings
                or n in self.locals or n in self.aliases or any(x.name == n for x in self.m.inputs))

    def _base(self, names) -> str | None:
        for n in names:
            if n.endswith("_handle") and n[: -len("_handle")] in self.m.buffers:
                return n[: -len("_handle")]
            if self._known(n):
                return self.aliases.get(n, n)
        return None

    def _call(self, callee: str, args: list[Expr], line: int):
        if callee == "aoti_torch_empty_strided" or callee.startswith("aoti_torch_empty"):
            for a in args:
                for n in a.names:
                    if n.endswith("_handle"):
                        b = n[: -len("_handle")]
                        self.m.buffers[b] = BufferDef(name=b, line=line, kind="alloc")
            return
        if callee.startswith(("aoti_torch_get_", "aoti_torch_delete", "aoti_torch_new_tensor_handle",
                              "aoti_torch_grad_mode", "assert_size_stride", "aoti_torch_check")):
            return
        if callee.startswith("call_triton_"):
            target, kind = callee[len("call_"):], "kernel"
        elif callee in self.cpp_kernels or callee.startswith("cpp_fused") or callee.startswith("cpp_"):
            target, kind = callee, "kernel"
        elif callee.startswith("aoti_torch_") or callee.startswith("aoti_"):
            target, kind = callee, "extern"
        else:
            return
        site = CallSite(target=target, kind=kind, line=line)
        for a in args:
            text = a.text
            out_handle = None
            for n in a.names:
                if n.endswith("_handle") and text.startswith("&"):
                    out_handle = n[: -len("_handle")]
            if out_handle and kind == "extern":
                if out_handle not in self.m.buffers:
                    self.m.buffers[out_handle] = BufferDef(name=out_handle, line=line, kind="extern_out")
                site.writes.append(out_handle)
                site.args.append(CallArg(text=text, base=out_handle, names=a.names))
                continue
            site.args.append(CallArg(text=text, base=self._base(a.names), names=a.names))
        if kind == "extern":
            bases = [x.base for x in site.args if x.base and x.base not in site.writes]
            if callee.endswith("_out") or callee.endswith("_"):
                first = site.args[0].base if site.args else None
                if first:
                    site.writes.insert(0, first)
                    bases = [b for b in bases if b != first] + ([first] if callee.endswith("_") and not callee.endswith("_out") else [])
            site.reads = [b for b in bases if b not in self.m.symbols and b not in self.locals]
        if self.pending_nodes:
            site.source_nodes, site.aten_ops = self.pending_nodes
            self.pending_nodes = None
        if self.pending_provenance and self.pending_provenance.rsplit(":", 1)[0] == target:
            site.provenance = self.pending_provenance
        self.pending_provenance = None
        self.m.calls.append(site)

    # -- after the pass ----------------------------------------------------------
    def _finish(self):
        m = self.m
        if not self.saw_run_impl:
            m.warnings.append("no `void AOTInductorModel::run_impl(` in the wrapper: a dialect this version does not "
                              "know; inputs, symbols and calls may be missing (answers are partial)")
        elif not m.calls:
            m.warnings.append("run_impl holds no kernel or extern call this version recognizes (answers are partial)")
        for inp in m.inputs:
            if not inp.name and inp.index in self.input_names:
                inp.name = self.input_names[inp.index]
        known = {i.index for i in m.inputs}
        for idx, name in sorted(self.input_names.items()):
            if idx not in known:
                m.inputs.append(Input(index=idx, name=name))
        m.inputs.sort(key=lambda x: x.index)
        guards = self.guards
        for inp in m.inputs:
            inp.guards = guards.get(inp.index, [])
            for g in inp.guards:
                if g.kind == "dtype":
                    inp.dtype = str(g.value)
                elif g.kind == "device":
                    inp.device = str(g.value)
        m.constants = [self.constant_facts[k] for k in sorted(self.constant_facts)]
        m.outputs.sort(key=lambda o: o.index)
        # Symbols: resolve aliases and attach the allowed range from the guards.
        for sym in m.symbols.values():
            root = sym
            seen = set()
            while root.alias_of and root.alias_of in m.symbols and root.name not in seen:
                seen.add(root.name)
                root = m.symbols[root.alias_of]
            if sym is not root:
                sym.input, sym.dim = root.input, root.dim
            if sym.input is not None:
                for g in guards.get(sym.input, []):
                    if g.dim == sym.dim and g.kind == "min":
                        sym.min = int(g.value)
                    elif g.dim == sym.dim and g.kind == "max":
                        sym.max = int(g.value)
        # Input shapes: guards give static sizes, symbols give the dynamic ones.
        for inp in m.inputs:
            dims: dict[int, int | str] = {}
            for g in inp.guards:
                if g.kind == "eq" and g.dim is not None:
                    dims[g.dim] = int(g.value)
            for sym in m.symbols.values():
                if sym.input == inp.index and sym.alias_of is None and sym.dim is not None:
                    dims.setdefault(sym.dim, sym.name)
            for g in inp.guards:
                if g.kind in ("min", "max") and g.dim is not None and g.dim not in dims:
                    dims[g.dim] = "?"
            if dims:
                inp.shape = [dims.get(d, "?") for d in range(max(dims) + 1)]
            strides = {g.dim: int(g.value) for g in inp.guards if g.kind == "stride"}
            if strides:
                inp.stride = [strides.get(d, "?") for d in range(max(max(strides) + 1, len(inp.shape)))]
            if inp.index in self.size_stride:  # run_impl's own statement of shape and stride wins
                inp.shape, inp.stride = self.size_stride[inp.index]
        m.locals = dict(self.locals)
        m.launcher_params = dict(self.launchers)


def parse_wrapper(model: Model, text: str, member: str) -> set[str]:
    """Fill ``model`` from the wrapper text.  Returns the CPU kernel names the wrapper declares."""
    sc = WrapperScanner(model, text, member)
    sc.scan()
    return sc.cpp_kernels


# -- small helpers -------------------------------------------------------------


def _dims(text: str) -> list[int | str]:
    """``{s23, 8L}`` -> ["s23", 8]."""
    out: list[int | str] = []
    for x in text.strip("{}").split(","):
        x = x.strip()
        if x:
            v = _int(x)
            out.append(v if v is not None else x.replace(" ", ""))
    return out


def _split_list(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def _int(s: str) -> int | None:
    try:
        return int(s.rstrip("L"))
    except ValueError:
        return None


def _int_list(s: str) -> list[int]:
    return [v for v in (_int(x.strip()) for x in s.strip("{}").split(",") if x.strip()) if v is not None]


def _dtype(s: str) -> str:
    m = re.search(r"dtype_(\w+)", s)
    return _DTYPE_NAMES.get(m.group(1), m.group(1)) if m else s


def _flavor(name: str) -> str:
    for prefix, flavor in (("triton_poi_", "pointwise"), ("triton_red_", "reduction"),
                           ("triton_per_", "persistent_reduction"), ("triton_tem_", "template"),
                           ("triton_for_", "foreach"), ("triton_", "other")):
        if name.startswith(prefix):
            return flavor
    return "cpp"
