"""Index an AOTInductor C++ wrapper (``<hash>.wrapper.cpp``).

A fast scanner walks the lines once and slices the file into regions:

* the constructor facts (``inputs_info_``, ``constants_info_``, ``outputs_info_``,
  ``in_spec_``/``out_spec_``), one statement a line;
* ``check_input_K`` functions: the input guards;
* ``call_triton_<name>`` launchers: their parameters, the Triton source in the
  comment (handed to `inspector.parse.triton`), and the cubin they load;
* ``run_impl``: inputs, symbols, buffers, kernel calls, extern ops and the
  ``// Topologically Sorted Source Nodes`` / ``// [Provenance debug handles]`` comments.

Each statement the scanner keeps goes to the Lark grammar ``grammars/wrapper.lark`` with the start rule its
leading word selects (`inspector.parse.wrapper_statements`: the statement read as its typed record); here,
`WrapperScanner` files those records into the `Model`.  A statement no rule accepts is skipped; only the facts
found are reported.
"""

from __future__ import annotations

import re
from sys import intern

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
from ..dialects import embedded_source
from ..dialects import proxy_executor as PX
from . import STATEMENTS
from .buffers import braced_items
from .comments import provenance_key, source_nodes_and_ops
from .wrapper_map import LauncherRegion, WrapperMap
from .statements import (
    Assign, CallStmt, ConstantSlot, Decl, GuardDim, InputSlot, LauncherParam, LoadKernel, Moved, RaiiDecl, SizeOf, View,
)
from .triton import kernel_heuristic, parse_triton_source
from .wrapper_statements import parse_statement


_MISSING = object()


class WrapperScanner:
    """Files parsed wrapper statements into a `Model`, in wrapper order.

    The regions come from `scan_wrapper`; ``parse(region, index, text, rule, line)`` parses one statement
    (memoized by the caller, so a statement is parsed and counted in coverage once however many models
    are built from the same scan).  `read_interface` reads the constructor and guards, `run_statements` any subset
    of run_impl's statements (a subset closed under the definitions its names need gives the same facts
    for those names as the whole), `finish` ties inputs, symbols and shapes together."""

    def __init__(self, model: Model, wmap: WrapperMap, parse=None):
        self.m = model
        self.w = wmap
        self.d = wmap.dialect
        self.m.dialect = self.d.name
        self.member = wmap.member
        self.lines = wmap.lines
        self.m.wrapper_lines = len(self.lines)
        self.cpp_kernels = wmap.cpp_kernels
        self.launchers = wmap.launchers
        self.parse = parse or (lambda region, idx, text, rule, line: parse_statement(text, rule, self.m.cov(region), line))
        self.pending_nodes: tuple[list[str], list[str]] | None = None
        self.pending_provenance: str | None = None
        self.locals: dict[str, Expr] = {}
        self.aliases: dict[str, str] = {}  # run_impl local -> base (var_0 -> buf2)
        self.constant_infos: dict[int, Constant] = {}
        self.input_names: dict[int, str] = {}
        self.size_stride: dict[int, tuple[list, list, int]] = {}
        self.guards: dict[int, list[Guard]] = {}
        self._node_memo: dict[str, tuple[list[str], list[str]] | None] = {}

    def read_interface(self, constants=None):
        """The model's interface: the constructor's info statements and the input guards.  ``constants``: the ``constants_info_`` indices to
        read (None: all; a model with thousands of constants parses them only when asked)."""
        for idx, ((line, s), k) in enumerate(zip(self.w.constructor, self.w.constant_of())):
            if k is None or constants is None or k in constants:
                self._constructor_info(idx, s, line)
        for k, start, end in self.w.check_inputs:
            self._check_input(k, start, end)

    def read_constants(self, indices=None) -> None:
        """The ``constants_info_`` facts of these constant indices (None: all), after `read_interface(constants=...)`
        skipped them."""
        for idx, ((line, s), k) in enumerate(zip(self.w.constructor, self.w.constant_of())):
            if k is not None and (indices is None or k in indices):
                self._constructor_info(idx, s, line)

    def run_statements(self, indices) -> None:
        run = self.w.run
        kinds, texts, lines = run.kind, run.text, run.line  # (`RunColumns`: no object made per statement)
        for idx in indices:
            kind = kinds[idx]
            if kind == "comment":
                text = texts[idx]
                nodes = self._nodes(text)
                if nodes is not None:
                    self.pending_nodes = nodes  # shared by the calls under the same text (nobody mutates them)
                key = provenance_key(self.d, text)
                if key is not None:
                    self.pending_provenance = key
                continue
            if kind == "size_stride":
                self._size_stride(idx, texts[idx], lines[idx])
                continue
            if kind is None:
                continue
            line = lines[idx]
            r = self.parse("run_impl", idx, texts[idx], kind, line)
            if r is not None:
                self._run_stmt(r, line)

    def _nodes(self, text: str):
        """``source_nodes_and_ops`` of a comment, read once per text: the same `// Topologically Sorted Source
        Nodes: [...]` recurs above many calls, and their names are then one set of strings for all."""
        hit = self._node_memo.get(text, _MISSING)
        if hit is _MISSING:
            hit = self._node_memo[text] = source_nodes_and_ops(self.d, text)
        return hit

    # -- constructor ---------------------------------------------------------
    def _constructor_info(self, idx: int, s: str, line: int):
        r = self.parse("constructor", idx, s, "assignment", line)
        if not isinstance(r, Assign):
            return
        target, idx, attr, val = r.target, r.index, r.attr, r.value.text
        if target == "inputs_info_" and attr == "name":
            self.input_names[idx] = val.strip('"')
        elif target == "outputs_info_" and attr == "name":
            self.m.outputs.append(Output(index=idx, name=val.strip('"')))
        elif target == "constants_info_":
            c = self.constant_infos.get(idx)
            if c is None:  # not setdefault: that built a Constant for each of a constant's ten statements
                c = self.constant_infos[idx] = Constant(name="", index=idx)
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
    def _check_input(self, k: int, start: int, end: int) -> None:
        guards: list[Guard] = []
        for i, line in enumerate(self.lines[start:end], start):  # (one slice of `WrapperLines`)
            s = line.strip()
            if s.startswith("if ("):
                r = self.parse("check_input", i, s, "guard", i + 1)
                if isinstance(r, GuardDim):
                    ref, dim, op, value = r.ref, r.dim, r.op, r.value
                    # `if (x_size[0] < 2)` rejects below 2: the allowed minimum is 2 (and `> 64` a maximum of 64).
                    kind = "stride" if ref.endswith("_stride") else {"<": "min", ">": "max"}.get(op, "eq")
                    guards.append(Guard(input=k, dim=dim, kind=kind, value=value, line=i + 1))
            elif self.d.guard_dtype_marker in s:
                m = self.d.guard_dtype.search(s)
                guards.append(Guard(input=k, dim=None, kind="dtype", value=m.group(1), line=i + 1))
            elif self.d.guard_device_marker in s:
                m = self.d.guard_device.search(s)
                dev = dict(self.d.device_type_codes).get(m.group(1), m.group(1)) if m else None
                guards.append(Guard(input=k, dim=None, kind="device", value=dev, line=i + 1))
        self.guards[k] = guards

    # -- run_impl ----------------------------------------------------------------
    def _run_stmt(self, r, line: int):
        match r:
            case Decl():
                self._declaration(r.type, r.name, r.value, line)
            case RaiiDecl(name=name, handle=handle):
                if handle in self.aliases:  # RAIIAtenTensorHandle x_raii(x) where x is a view of a buffer
                    self.aliases[name] = self.aliases[handle]
                elif name not in self.m.buffers:
                    self.m.buffers[name] = BufferDef(name=name, line=line, kind="alloc")
            case Assign(target="output_handles", index=int() as idx, value=value):
                base = self._base(value.names)
                for o in self.m.outputs:
                    if o.index == idx:
                        o.source = base
                        break
                else:
                    self.m.outputs.append(Output(index=idx, name=f"output{idx}", source=base))
            case CallStmt():
                self._call(r.callee, r.args, line, r.checked)

    def _size_stride(self, idx: int, stmt: str, line: int):
        """``assert_size_stride(arg3_1, {s23, s27}, {s27, 1L}, "input")``: an input's symbolic shape and stride."""
        r = self.parse("run_impl", idx, stmt, "call", line)
        if not isinstance(r, CallStmt) or len(r.args) < 3:
            return
        inp = next((x for x in self.m.inputs if x.name == r.args[0].text), None)
        if inp is None:
            return
        self.size_stride[inp.index] = (_dims(r.args[1].text), _dims(r.args[2].text), line)

    def _declaration(self, typ: str, name: str, value, line: int):
        if isinstance(value, InputSlot):
            self.m.inputs.append(Input(index=value.index, name=name))
            return
        if isinstance(value, ConstantSlot):
            self.m.constant_bindings[name] = value.index
            return
        if isinstance(value, Moved):
            if name.startswith("buf"):
                if value.name in self.aliases:  # 2.6: `decltype(auto) buf0 = std::move(tmp_tensor_handle_0_raii);`
                    self.m.buffers[name] = BufferDef(name=name, line=line, kind="view", origin=self.aliases[value.name])
                else:
                    self.m.buffers[name] = BufferDef(name=name, line=line, kind="reuse", origin=value.name)
            return
        if isinstance(value, SizeOf):
            if typ in ("int64_t", "int32_t") and value.kind == "size":
                inp = next((x for x in self.m.inputs if x.name == value.tensor), None)
                self.m.symbols[name] = Symbol(name=name, line=line, expr=value.text,
                                              input=inp.index if inp else None, dim=value.dim)
            else:
                self.locals[name] = Expr(value.text, (f"{value.tensor}_{value.kind}",))
            return
        if isinstance(value, View):
            base = self._base((value.base,))
            if name.startswith("buf"):
                self.m.buffers[name] = BufferDef(name=name, line=line, kind="view", origin=base)
            elif base:
                self.aliases[name] = base
            return
        expr = value
        text = expr.text
        if typ in ("int64_t", "int32_t") and not name.startswith("int_array"):
            if len(expr.names) == 1 and text == expr.names[0] and text in self.m.symbols:
                self.m.symbols[name] = Symbol(name=name, line=line, expr=text, alias_of=text)
                return
            self.locals[name] = expr
            return
        if "alloc_from_pool" in text:  # not seen in a real package yet: read as a view of the first known name
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

    def _call(self, callee: str, args: list[Expr], line: int, checked: bool = False):
        if callee.startswith(self.d.allocation_prefix):
            for a in args:
                for n in a.names:
                    if n.endswith("_handle"):
                        b = n[: -len("_handle")]
                        self.m.buffers[b] = BufferDef(name=b, line=line, kind="alloc")
            return
        tk = self.d.call_target(callee, self.cpp_kernels, self.launchers)
        if tk is None:
            return
        target, kind = tk
        site = CallSite(target=target, kind=kind, line=line, checked=checked)
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
        if kind == "extern" and callee == PX.PROXY_CALL:
            self._proxy_reads_writes(site, args)
        elif kind == "extern":
            bases = [x.base for x in site.args if x.base and x.base not in site.writes]
            if (callee.endswith("_out") or callee.endswith("_")) and callee not in self.d.assign_calls:
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

    def _proxy_reads_writes(self, site: CallSite, args: list[Expr]) -> None:
        """A proxy-executor call hands the op every tensor in one list (`inspector.dialects.proxy_executor`): the
        handles made just for it by ``aoti_torch_new_uninitialized_tensor`` are its outputs, the rest its inputs."""
        from .proxy_call import proxy_args

        pa = proxy_args(tuple(args))
        if pa is None:
            return
        fresh = {b for c in self.m.calls if c.target == PX.NEW_HANDLE for b in c.writes}
        for t in pa.tensors:
            b = self.aliases.get(t, t) if self._known(t) else None
            if b is None or b in self.m.symbols or b in self.locals:
                continue
            (site.writes if b in fresh else site.reads).append(b)

    # -- after the pass ----------------------------------------------------------
    def finish(self):
        m = self.m
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
        m.constants = [self.constant_infos[k] for k in sorted(self.constant_infos)]
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
                inp.shape, inp.stride, inp.size_stride_line = self.size_stride[inp.index]
        m.locals = dict(self.locals)


def parse_launcher(wm: WrapperMap, r: LauncherRegion, parse) -> tuple[Kernel, list[KernelParam]]:
    """One Triton kernel from its launcher region: the launcher's parameters, the embedded Triton source and
    the cubin it loads.  ``parse(region, index, text, rule, line)`` parses one wrapper statement."""
    d, lines = wm.dialect, wm.lines
    params: list[KernelParam] = []
    for i, line in enumerate(lines[r.start + 1: r.params_end], r.start + 1):  # (one slice of `WrapperLines`)
        p = parse("launcher", i, line.strip(), "launcher_param", i + 1)
        if isinstance(p, LauncherParam):
            params.append(_launcher_param(p.name, len(params), p.ctype))
    if r.triton is None:
        kernel = Kernel(name=r.name, backend="triton", heuristic=kernel_heuristic(r.name, None), source_file=wm.member)
    else:
        start, end = r.triton
        # interned: look-alike kernels (and the template lines every kernel has) share their lines' strings
        source = [intern(x) for x in embedded_source(lines, start, end)]
        kernel = parse_triton_source(r.name, source, wm.member, first_line=start + 1,
                                     line_base=d.triton_line_base, cov=parse.cov("triton"))
    if r.load_line is not None:
        p = parse("launcher", r.load_line, lines[r.load_line].strip(), "load_kernel", r.load_line + 1)
        if isinstance(p, LoadKernel) and p.member is not None:
            kernel.cubin = p.member
    if not kernel.params:
        kernel.params = params
    return kernel, params


def _launcher_param(name: str, position: int, ctype: str) -> KernelParam:
    """One KernelParam per (name, position, C type) in a package: every launcher's ``int64_t xnumel,`` at the
    same place is one object (nobody changes a launcher's parameters; `parse.triton._roles_from_use` sets roles
    on the kernel's own ``def`` parameters only).  Kept in the statement memo, emptied per package."""
    key = (_LAUNCHER_PARAM, name, position, ctype)
    kp = STATEMENTS.get(key)
    if kp is None:
        kp = STATEMENTS[key] = KernelParam(name=name, position=position, role=param_role(name), ctype=ctype)
    return kp


_LAUNCHER_PARAM = "launcher KernelParam"


def _dims(text: str) -> list[int | str]:
    """``{s23, 8L}`` -> ["s23", 8] (an item's own commas, ``std::max(1L, s27)``, stay in it)."""
    out: list[int | str] = []
    for x in braced_items(text):
        if x:
            v = _int(x)
            out.append(v if v is not None else x.replace(" ", ""))
    return out


def _int(s: str) -> int | None:
    try:
        return int(s.rstrip("L"))
    except ValueError:
        return None


def _int_list(s: str) -> list[int]:
    return [v for v in (_int(x.strip()) for x in s.strip("{}").split(",") if x.strip()) if v is not None]


def _dtype(s: str) -> str:
    m = re.search(r"dtype_(\w+)", s)
    return m.group(1) if m else s  # aoti_torch_dtype_<torch's name>
