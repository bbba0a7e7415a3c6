"""Index one Triton kernel as Inductor embeds it in the wrapper's comment.

The lines handed in start with ``async_compile.triton('<name>', '''`` — that
line is line 1 of the kernel's ``.py`` file as the device assert counts it
(seen on torch 2.11: an assert on the 35th line after the opening is
reported as line 36).  Statements go to ``grammars/triton.lark``.
"""

from __future__ import annotations

import functools
import re

from ..model import Assertion, Coverage, Kernel, KernelParam, Store, TmpDef, param_role
from ..naming import is_kernel_def
from . import STATEMENTS
from .grammar import STARTS as GRAMMAR_STARTS, ExprTransformer, parse_one
from .message import parse_check_condition, parse_check_message, parse_value_check
from .kernel_scan import _DECORATOR, kernel_heuristic
from .statements import Annotation, Control, TritonAssign, TritonCall, TritonDef, TritonParam
from .tokens import NAME_OR_SUFFIX

STARTS = GRAMMAR_STARTS["triton"]
_CONTROL = ("if ", "elif ", "else:", "for ", "while ", "return", "pass", "break", "continue")
_MUTATED = re.compile(r"'mutated_arg_names':\s*\[([^\]]*)\]")


class _TritonTransformer(ExprTransformer):
    """Statements -> the dataclasses of `inspector.parse.statements`."""

    def def_stmt(self, c):
        return TritonDef(str(c[0]), tuple(p for p in c[1:] if isinstance(p, TritonParam)))

    def param(self, c):
        # `BLOCK_SIZE: "tl.constexpr" = 64`: the annotation (quotes dropped) is the parameter's type; a default
        # value is no graph fact.
        ann = next((x.text for x in c[1:] if isinstance(x, Annotation)), None)
        return TritonParam(str(c[0]), ann)

    def annotation(self, c):
        return Annotation(".".join(str(t) for t in c).strip("\"'"))

    def assign_stmt(self, c):
        value = c[-1]
        annotation = next((x for x in c if isinstance(x, Annotation)), None)
        targets = tuple(str(t) for t in c if getattr(t, "type", None) == "NAME")
        op = next((str(t) for t in c if getattr(t, "type", None) == "AUGOP"), None)
        # `R0_BLOCK: tl.constexpr = 1024` defines its first name only
        return TritonAssign(targets, value, annotation is not None, op)

    def assign_annotation(self, c):
        return Annotation(".".join(str(t) for t in c))

    def call_stmt(self, c):
        callee = ".".join(str(t) for t in c if getattr(t, "type", None) == "NAME")
        args = next((x for x in c if isinstance(x, list)), [])
        return TritonCall(callee, tuple(args))

    def control_stmt(self, c):
        return Control(str(c[0]))  # the rule keeps its tokens: the first is the keyword


_TRANSFORMER = _TritonTransformer()


def parse_triton_statement(text: str, start: str, cov: Coverage | None = None, line: int = 0):
    return parse_one("triton", STARTS, _TRANSFORMER, text, start, cov, line)


_ASSIGN = re.compile(r"^[A-Za-z_][\w, ]*(?::[^=]*)?=(?!=)")
_END = "'''"  # the line closing the embedded source


def _open_parens(s: str) -> int:
    """How many (, [ and { the line leaves open (strings ignored)."""
    if "'" not in s and '"' not in s:  # most lines: counted by str.count, not char by char
        return (s.count("(") + s.count("[") + s.count("{")) - (s.count(")") + s.count("]") + s.count("}"))
    depth, quote = 0, None
    for ch in s:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth


def _join(lines: list[str], idx: int, s: str) -> tuple[str, int]:
    """The statement opening at ``lines[idx]`` (``s``, stripped) joined with the lines that close its brackets,
    and the index of its last line (never past the source's closing quotes)."""
    j, depth = idx, _open_parens(s)
    while depth > 0 and j + 1 < len(lines) and not lines[j + 1].strip().startswith(_END):
        j += 1
        s += " " + lines[j].strip()
        depth = _open_parens(s)
    return s, j


def parse_triton_source(name: str, lines: list[str], source_file: str, first_line: int,
                        line_base: int = 1, cov: Coverage | None = None) -> Kernel:
    """``lines[0]`` is the ``async_compile.triton(`` line at wrapper line ``first_line``; it is kernel line
    ``line_base`` (the wrapper dialect says how the ``.py`` a device assert names is numbered)."""
    heuristic = "other"
    k = Kernel(name=name, backend="triton", heuristic=heuristic, source_file=source_file,
               first_line=first_line, source=list(lines), line_base=line_base,
               source_count=len(lines))
    in_def = False
    joined_until = -1
    for idx, raw in enumerate(lines):
        kline = idx + line_base
        if idx <= joined_until:  # a line of a statement spread over several (joined at its first line)
            continue
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        # `a, b, c = triton_helpers.welford_reduce(` ... `)`, and a user kernel's `def add_kernel(` with its
        # parameters one a line: one statement
        if (in_def or s.startswith("def ")) and _open_parens(s) > 0:
            s, joined_until = _join(lines, idx, s)
        m = _DECORATOR.search(s)
        if m and not in_def:
            k.heuristic = m.group(1)
            continue
        m = _MUTATED.search(s)
        if m:
            k.mutated = [x.strip().strip("'\"") for x in m.group(1).split(",") if x.strip()]
        if s.startswith("def ") and not in_def:
            r = parse_triton_statement(s, "def_stmt", cov, first_line + idx)
            if isinstance(r, TritonDef) and is_kernel_def(r.name, name):
                k.params = [KernelParam(name=p.name, position=i, role=param_role(p.name, p.annotation),
                                        ctype=p.annotation) for i, p in enumerate(r.params)]
                in_def = True
            continue
        if not in_def or s.startswith("'''"):
            continue
        if s.startswith("tl.device_assert(") or s.startswith("tl.store(") or s.startswith("tl.atomic_"):
            r = parse_triton_statement(s, "call_stmt", cov, first_line + idx)
            if not isinstance(r, TritonCall):
                continue
            callee, args = r.callee, r.args
            if callee == "tl.device_assert" and len(args) >= 2:
                msg = args[1].text.strip("\"'")
                cm = _check_message(msg) or parse_check_condition(args[0].text)
                value = None if cm else parse_value_check(args[0].text)
                k.assertions.append(Assertion(
                    kernel=name, line=kline, message=msg, checks="finite" if value else "index",
                    index_var=cm.index_var if cm else value, bound_expr=cm.bound if cm else None,
                    lower_bound=cm.lower if cm else None, condition=args[0].text,
                    wrapper_line=first_line + idx))
            elif args:
                ptr = next((n for n in args[0].names if "ptr" in n), None) or next(
                    (n for n in args[0].names if any(p.name == n for p in k.params)), None)
                if ptr and len(args) > 1:
                    k.stores.append(Store(ptr=ptr, value=args[1], line=kline))
            continue
        if s.startswith(_CONTROL):  # template control flow: understood, no graph fact
            parse_triton_statement(s, "control_stmt", cov, first_line + idx)
            continue
        if s.startswith("tl.") and not _ASSIGN.match(s):  # `tl.assume(pid_m >= 0)`, `tl.debug_barrier()`
            parse_triton_statement(s, "call_stmt", cov, first_line + idx)
            continue
        if "=" in s:
            r = parse_triton_statement(s, "assign_stmt", cov, first_line + idx)
            if isinstance(r, TritonAssign):
                # `tmp2_val, tmp2_idx = triton_helpers.max_with_index(…)` (argmax) defines every name on the left;
                # `R0_BLOCK: tl.constexpr = 1024` only the first.
                for n in r.targets[:1] if r.annotated else r.targets:
                    # An augmented `acc += tl.dot(a, b)` (templates) was kept under the name "acc +" (the text left of
                    # its `=`); kept so, as the answers have it, until a query needs the update.
                    k.tmps.append(_tmp(n if r.op is None else f"{n} {r.op}", r.value, kline, s))
    if k.heuristic == "other":
        k.heuristic = kernel_heuristic(name, None)
    _roles_from_use(k)
    return k


def _tmp(name: str, expr, line: int, text: str) -> TmpDef:
    """One TmpDef per (statement text, kernel line, name) in a package: the same statement at the same line of
    many kernels (`x0 = xindex` on line 24 of most pointwise kernels; every look-alike kernel's whole body) is
    one object, as its parse already is (nobody mutates a TmpDef).  Kept in the statement memo, which is
    emptied per package."""
    key = (_TMP, text, line, name)
    t = STATEMENTS.get(key)
    if t is None:
        t = STATEMENTS[key] = TmpDef(name=name, expr=expr, line=line)
    return t


_TMP = "triton TmpDef"


def _load_address_names(text: str) -> set[str]:
    """The names in the address of each ``tl.load(<address>, mask=…)`` in ``text`` (not the mask's)."""
    out: set[str] = set()
    for m in re.finditer(r"tl\.load\(", text):
        depth, i = 0, m.end()
        while i < len(text) and not (depth == 0 and text[i] in ",)"):
            if text[i] in "([":
                depth += 1
            elif text[i] in ")]":
                depth -= 1
            i += 1
        out.update(NAME_OR_SUFFIX.findall(text[m.end():i]))
    return out


def _roles_from_use(k: Kernel) -> None:
    """A parameter Inductor's naming says nothing of (a user-defined kernel's `tab_ptr`, `rows`): written when
    a store's pointer names it, read when a load's does, else a scalar the kernel uses as a size."""
    todo = [p for p in k.params if p.role == "other" and not (p.ctype and "constexpr" in p.ctype)]
    if not todo:
        return
    stored = {st.ptr for st in k.stores}
    loaded = {n for t in k.tmps for n in _load_address_names(t.expr.text)}
    for p in todo:
        p.role = "out" if p.name in stored else "in" if p.name in loaded else "size"




_PLACEHOLDER = "__pt2_inspect_kernel__"


@functools.lru_cache(maxsize=4096)
def _def_params(text: str) -> tuple | None:
    r = parse_triton_statement(text, "def_stmt")
    return tuple((p.name, p.annotation) for p in r.params) if isinstance(r, TritonDef) and r.name == _PLACEHOLDER else None


@functools.lru_cache(maxsize=4096)
def _assert_call(text: str):
    r = parse_triton_statement(text, "call_stmt")
    if not isinstance(r, TritonCall) or r.callee != "tl.device_assert" or len(r.args) < 2:
        return None
    return r.args[0].text, r.args[1].text.strip("\"'")


_check_message = functools.lru_cache(maxsize=4096)(parse_check_message)  # look-alike kernels share messages (frozen)


def parse_triton_contract(name: str, lines: list[str], source_file: str, first_line: int, assert_at,
                          line_base: int = 1) -> Kernel:
    """The parameters and assertions of one Triton kernel, as `parse_triton_source` reads them, and nothing
    else (no tmps, stores or loads): what a bound chain needs (`check` on 20,000 kernels).  ``assert_at``:
    indices into ``lines`` of its ``tl.device_assert(`` lines (the scan knows them).  Statements are read
    by text (a kernel's name is replaced in its ``def`` line), so look-alike kernels parse once."""
    k = Kernel(name=name, backend="triton", heuristic=kernel_heuristic(name, None), source_file=source_file,
               first_line=first_line, line_base=line_base, source_count=len(lines))
    def_at = None
    for idx, raw in enumerate(lines):
        s = raw.strip()
        if s.startswith("def "):
            def_name = s[4:].split("(", 1)[0].strip()
            if not is_kernel_def(def_name, name):
                continue
            if _open_parens(s) > 0:  # parameters one a line
                s, _ = _join(lines, idx, s)
            r = _def_params(s.replace(def_name, _PLACEHOLDER, 1))
            if r is not None:
                k.params = [KernelParam(name=p, position=i, role=param_role(p, ann), ctype=ann)
                            for i, (p, ann) in enumerate(r)]
                def_at = idx
                break
    if def_at is None:
        return k
    for idx in assert_at:
        if idx <= def_at:
            continue
        s = lines[idx].strip()
        if s.startswith("'''") or not s.startswith("tl.device_assert("):
            continue
        r = _assert_call(s)
        if r is None:
            continue
        condition, msg = r
        cm = _check_message(msg) or parse_check_condition(condition)
        value = None if cm else parse_value_check(condition)
        k.assertions.append(Assertion(
            kernel=name, line=idx + line_base, message=msg, checks="finite" if value else "index",
            index_var=cm.index_var if cm else value, bound_expr=cm.bound if cm else None,
            lower_bound=cm.lower if cm else None, condition=condition, wrapper_line=first_line + idx))
    return k
