"""The typed statement tier of a `ModelIndex` (`inspector.index.records`): what queries read of run_impl and the
kernels' raw text instead of the text itself.  A mixin: `ModelIndex` holds the scan these methods read
(``self.wmap``, ``self._name_tables``, ``self._call_index``, ``self.calls``); each answer is made on first use.

* `statements`: run_impl's statements as typed records, in order;
* `call_comments`: what the comments above each call say;
* `array_items`, `view_sizes`, `allocation_sizes`: the sizes a size array, a view or an allocation holds, near
  a wrapper line (the index's name tables find the declaration: nothing walks run_impl);
* `suspect_kernels`, `kernels_writing_nan`, `launcher_parameter_names`, `first_pointer_types`: what the scan's
  kernel regions say before any kernel is parsed.
"""

from __future__ import annotations

from itertools import count

from ..model import Expr
from ..parse.access import cpp_may_index_indirectly, triton_may_index_unchecked
from ..parse.buffers import ARRAY_REACH, allocation, first_pointer_type, int_arrays, launcher_param_names, view_of
from ..parse.tokens import lexed_expr
from .records import CallComment, call_comments, run_records


class TypedTier:
    @property
    def dialect(self):
        """The wrapper's `Dialect` (from the scan, or by the name a cached interface recorded)."""
        if self._wmap is not None:
            return self._wmap.dialect
        from ..dialects import by_name

        return by_name(self.eager().dialect)

    def statements(self) -> list:
        """run_impl's statements as typed records, in order (`records.run_records`: allocations with their sizes,
        views, releases, outputs, calls, size locals, runtime assertions); made once, on first use."""
        if self._records is None:
            run = self.wmap.run
            calls = self.calls() if self._scan_parts.get("calls") is not None else self._calls()
            at = self._line_index()
            self._records = run_records(run, self.wmap.dialect, {at[c.line]: c for c in calls if c.line in at})
        return self._records

    def _declared_before(self, name: str, line: int, reach: int | None = None) -> int | None:
        """The run_impl index of ``name``'s last declaration above wrapper line ``line`` (within ``reach`` lines
        above it, when given), None when there is none."""
        decls = self._name_tables()[0].get(name)
        if not decls:
            return None
        at, best = self.wmap.run.line, None
        for i in decls:
            if at[i] >= line:
                break
            if reach is None or at[i] >= line - reach:
                best = i
        return best

    def array_items(self, name: str, line: int, reach: int | None = None) -> tuple[Expr, ...] | None:
        """The items of size array ``name`` (``int64_t int_array_0[] = {s77, 64L};``) as last declared above wrapper
        line ``line`` (within ``reach`` lines, when given); None when no such declaration is there."""
        i = self._declared_before(name, line, reach)
        if i is None:
            return None
        for n, items in int_arrays(self.wmap.dialect, self.wmap.run.text[i]):
            if n == name:
                return tuple(map(lexed_expr, items))
        return None

    def view_sizes(self, name: str, line: int, reach: int | None = None) -> tuple[Expr, ...] | None:
        """The sizes of the view ``name`` is (``auto tmp_tensor_handle_0 = reinterpret_tensor_wrapper(buf0, 2,
        int_array_0, …);`` declared above wrapper line ``line``, within ``reach`` lines when given), as its size
        array holds them (within ``reach`` lines above the view); None when it is no such view."""
        i = self._declared_before(name, line, reach)
        if i is None:
            return None
        v = view_of(self.wmap.run.text[i])
        return self.array_items(v.sizes, self.wmap.run.line[i], reach) if v is not None and v.sizes else None

    def allocation_sizes(self, buf: str, line: int, reach: int = ARRAY_REACH) -> tuple[Expr, ...] | None:
        """The sizes buffer ``buf``, allocated at wrapper line ``line`` (the allocation may sit up to two lines
        below it), is made with, as written; None when no allocation of it is there or its size array is not
        declared within ``reach`` lines above it (`ARRAY_REACH`: Inductor declares it just before)."""
        at = self._line_index()
        texts, d = self.wmap.run.text, self.wmap.dialect
        for ln in range(line, line - 3, -1):
            i = at.get(ln)
            al = allocation(d, texts[i]) if i is not None else None
            if al and al.buffer == buf:
                return self.array_items(al.sizes, ln, reach)
        return None

    def _line_index(self) -> dict[int, int]:
        """Wrapper line -> its run_impl statement's index (built once)."""
        if self._at_line is None:
            self._at_line = dict(zip(self.wmap.run.line, count()))
        return self._at_line

    def suspect_kernels(self) -> list[str]:
        """The kernels (wrapper order) whose raw text, as the scan holds it, may hold an unchecked indirect access:
        every CPU kernel with an indirect-looking address, the Triton kernels with an address made from a tmp no
        assert certainly checks (`inspector.parse.access`).  No kernel is parsed."""
        out = []
        for name in self.kernel_names():
            if self.kernel_backend(name) == "triton":
                r = self.wmap.launchers.get(name)
                if r is None or r.triton is None:
                    continue
                start, end = r.triton
                if triton_may_index_unchecked(self.wmap.lines[start:end], [j - start for j in r.asserts]):
                    out.append(name)
            else:
                start, end, _ = self.cpp_regions[name]
                if cpp_may_index_indirectly(" ".join(self.cpp_lines[start:end])):
                    out.append(name)
        return out

    def kernels_writing_nan(self) -> list[str]:
        """The Triton kernels (wrapper order) whose source holds a NaN literal (the dialect's `nan_literals`), by
        plain search of the scan's lines: nothing parsed."""
        wm = self.wmap
        return [name for name, r in wm.launchers.items() if r.triton is not None and any(
            n in line for line in wm.lines[r.triton[0]: r.triton[1]] for n in wm.dialect.nan_literals)]

    def launcher_parameter_names(self, kernel: str) -> list[str] | None:
        """The parameter names of a Triton kernel's launcher (``const int64_t xnumel,`` -> ``xnumel``; "" for a line
        that names none), from the scan's lines; None for a kernel with no launcher."""
        r = self.wmap.launchers.get(kernel)
        if r is None:
            return None
        return launcher_param_names(self.wmap.lines[r.start + 1: r.params_end])

    def launch_config(self, kernel: str):
        """What the launcher of Triton ``kernel`` fixes (`inspector.parse.launch.LaunchConfig`: XBLOCK/YBLOCK from its
        grid, num_warps and shared memory from its ``launchKernel``, its pointers' element types); None for a kernel
        with no launcher, or one whose ``launchKernel`` is not there."""
        from ..parse.launch import LaunchConfig, launch_config

        part = f"launch-{kernel}"  # its own cache part: a cached trace names the element without the wrapper's scan
        doc = self._parts.read(part)
        if isinstance(doc, dict) and "config" in doc:
            c = doc["config"]
            try:
                return None if c is None else LaunchConfig(c["kernel"], dict(c["blocks"]), c["num_warps"], c["shared"],
                                                            dict(c["pointer_types"]), tuple(c["lines"]))
            except (KeyError, TypeError):
                pass  # a part of another shape: made again below
        r = self.wmap.launchers.get(kernel)
        found = None if r is None else launch_config(kernel, self.wmap.lines[r.start: r.end + 1], r.start + 1)
        self._parts.write(part, {"config": None if found is None else {
            "kernel": found.kernel, "blocks": found.blocks, "num_warps": found.num_warps, "shared": found.shared,
            "pointer_types": found.pointer_types, "lines": list(found.lines)}})
        return found

    def first_pointer_types(self) -> dict[str, str]:
        """kernel -> Triton's element type (``fp32``) of its first pointer parameter, from the ``'signature'`` of the
        decorator lines the scan located (kernels whose decorator names none are left out)."""
        out = {}
        wm = self.wmap
        for name, r in wm.launchers.items():
            if r.triton is None:
                continue
            t = first_pointer_type(wm.dialect, wm.lines[r.triton[0]: min(r.triton[1], r.triton[0] + 20)])
            if t is not None:
                out[name] = t
        return out

    def call_comments(self) -> dict[int, CallComment]:
        """Wrapper line of each call -> what the comments above it say (its Source Nodes' FX nodes and ATen ops,
        its provenance key): the last of each between the call before it and it.  Made once, on first use."""
        if self._call_comments is None:
            run = self.wmap.run
            idx = [i for i, _t, _k in self._call_index()]
            at = run.line
            self._call_comments = {at[i]: c for i, c in call_comments(run, self.wmap.dialect, idx).items()}
        return self._call_comments


def _branches_of(self):
    """run_impl's inlined subgraphs (`inspector.parse.branches.Branch`: torch.cond's branches, while_loop's cond and
    body), wrapper order; made once, on first use (one look over the statements when there is none)."""
    if getattr(self, "_branches", None) is None:
        from dataclasses import asdict

        from ..parse.branches import Branch, branches

        doc = self._parts.read("branches")  # its own cache part: a cached trace needs no scan of the wrapper
        try:
            if isinstance(doc, dict) and isinstance(doc.get("branches"), list):
                self._branches = [Branch(**{**d, "replaces": tuple(d["replaces"])}) for d in doc["branches"]]
                return self._branches
        except (KeyError, TypeError):
            pass  # a part of another shape: made again
        run = self.wmap.run
        self._branches = branches(run.line, run.text)
        self._parts.write("branches", {"branches": [asdict(x) for x in self._branches]})
    return self._branches


TypedTier.branches = _branches_of
