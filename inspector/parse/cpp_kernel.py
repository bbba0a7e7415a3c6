"""Index Inductor's CPU kernels (``<hash>.kernel.cpp``).

The scanner walks the file once: it joins the multi-line ``extern "C"``
signatures and the vectorized lambda definitions (``auto tmp2 =`` / ``[&]`` /
``{ … return …; }`` / ``()`` / ``;``), gives each loop nest a scope number (the
same ``tmpN`` is defined again in every nest of a kernel), and hands single
statements to ``grammars/cpp_kernel.lark``.  Line numbers are kernel.cpp's, the
numbering ``Exception raised from <kernel> at …kernel.cpp:N`` uses.
"""

from __future__ import annotations

import re

from ..model import AccUpdate, Assertion, Coverage, Expr, Kernel, KernelParam, Store, TmpDef, param_role
from .grammar import STARTS as GRAMMAR_STARTS, ExprTransformer, parse_one
from .message import parse_check_message
from .kernel_scan import scan_kernel_cpp
from .statements import AccAssign, CppCheck, CppParam, CppSignature, CppTmp, ScalarStore, VecStore
from .tokens import NAME_OR_SUFFIX

STARTS = GRAMMAR_STARTS["cpp_kernel"]
# `tmp_acc0 = …;` / `tmp_acc0_vec = …;` (not `tmp_acc0_arr[i] = …`, not `==`): an accumulator's update
_ACC_UPDATE = re.compile(r"tmp_acc\d+\w*\s*=(?!=).*;$").match


class _CppTransformer(ExprTransformer):
    """Statements -> the dataclasses of `inspector.parse.statements`."""

    def signature(self, c):
        return CppSignature(str(c[1]), tuple(p for p in c[2:] if isinstance(p, CppParam)))

    def cparam(self, c):
        kinds = [t.type for t in c]
        names = [str(t) for t in c if t.type == "NAME"]
        ctype = "::".join(names[:-1])  # `at::BFloat16`
        return CppParam(names[-1], ctype + ("*" if "STAR" in kinds else ""), "CONST" in kinds)

    def helper_signature(self, c):
        return CppSignature(str(c[0]), tuple(p for p in c[1:] if isinstance(p, CppParam)), helper=True)

    def hparam(self, c):
        return self.cparam([t for t in c if t.type != "RESTRICT"])

    def tmp_def(self, c):
        return CppTmp(str(c[0]), _joined(c[1]))

    def check(self, c):
        args = c[1]
        if len(args) < 2 or not args[-1].text.startswith('"'):
            return None  # a check without a message: not a shape we read (counted as skipped)
        return CppCheck(_joined(args[:-1]), args[-1].text.strip('"'))

    def vec_store(self, c):
        args = next((p for p in c[1:] if isinstance(p, list)), [])  # after `[i]` (an Expr) when it has one
        return VecStore(Expr(str(c[0]), (str(c[0]),)), tuple(args))

    def vec_store_expr(self, c):
        args = c[1] if len(c) > 1 else []
        return VecStore(_joined(c[0]), tuple(args))

    def scalar_store(self, c):
        return ScalarStore(str(c[0]), c[1], c[2])

    def acc_update(self, c):
        return AccAssign(str(c[0]), _joined(c[1]))


def _joined(parts: list[Expr]) -> Expr:
    return Expr(", ".join(p.text for p in parts), tuple(n for p in parts for n in p.names))


_TRANSFORMER = _CppTransformer()


def parse_cpp_statement(text: str, start: str, cov: Coverage | None = None, line: int = 0):
    return parse_one("cpp_kernel", STARTS, _TRANSFORMER, text, start, cov, line)


def _lambda_value(body: list[str]) -> str:
    """The value a ``[&] { … }()`` lambda stands for: its return expressions, joined."""
    rets = [re.sub(r"^return\s+", "", l.strip()).rstrip(";") for l in body if l.strip().startswith("return ")]
    return " , ".join(rets) if rets else " ".join(l.strip() for l in body)


def parse_kernel_cpp(text: str, member: str, cov: Coverage | None = None) -> dict[str, Kernel]:
    """Every ``extern "C"`` kernel of the file, with its tmps, checks and stores."""
    lines = text.split("\n")
    out: dict[str, Kernel] = {}
    for name, (start, end, _) in scan_kernel_cpp(lines).items():
        k = parse_kernel_region(lines, start, end, member, cov)
        if k is not None:
            out[k.name] = k
    return out


def parse_kernel_region(lines: list[str], start: int, end: int, member: str, cov: Coverage | None = None) -> Kernel | None:
    """The kernel whose signature is at ``lines[start]`` (its region ends before ``end``), with its tmps,
    checks and stores.

    Each statement records its block path (the ids of the ``{`` blocks around it, counted from the
    kernel's first), so a use of ``tmp2`` resolves to the nearest earlier definition in the same or
    an enclosing block, as C++ scoping does.
    """
    kernels: dict[str, Kernel] = {}
    cur: Kernel | None = None
    stack: list[int] = []
    next_block = 0
    i, n = start, end
    while i < n:
        s = lines[i].strip()
        line = i + 1
        if s == 'extern "C"' and i + 1 < n and "(" in lines[i + 1]:
            # max_autotune's CPP GEMM template writes `extern "C"` on a line of its own, the signature below it
            s = s + " " + lines[i + 1].strip()
            i += 1
        helper = cur is None and s.startswith("inline void ") and "(" in s
        if (s.startswith('extern "C"') and "(" in s) or helper:  # a signature, not an `extern "C" {` block
            j, sig = i, s
            while ")" not in sig and j + 1 < n:
                j += 1
                sig += " " + lines[j].strip()
            opened = helper and sig.endswith("{")  # `) {`: the helper's body opens on its signature's last line
            r = parse_cpp_statement(sig.rstrip("{ "), "helper_signature" if helper else "signature", cov, line)
            if isinstance(r, CppSignature):
                name = r.name
                cur = Kernel(name=name, backend="cpp", heuristic="cpp", source_file=member, first_line=line,
                             line_base=1, source=lines, source_count=len(lines),
                             params=[KernelParam(name=p.name, position=k, role=param_role(p.name, p.ctype, p.const),
                                                 ctype=p.ctype) for k, p in enumerate(r.params)])
                kernels[name] = cur
                stack = []
                if opened:
                    next_block += 1
                    stack.append(next_block)
            i = j + 1
            continue
        if cur is None:
            i += 1
            continue
        scope = tuple(stack)
        if s.startswith("auto ") and s.endswith("="):
            # Vectorized lambda: `auto tmp2 =` / `[&]` / `{` … `}` / `()` / `;`
            name = s[len("auto "):-1].strip()
            j, body, d, started = i + 1, [], 0, False
            while j < n:
                t = lines[j].strip()
                d += t.count("{") - t.count("}")
                started = started or "{" in t
                body.append(t)
                if started and d <= 0:
                    break
                j += 1
            while j + 1 < n and lines[j + 1].strip() in ("()", ";", "();"):
                j += 1
            # The value is what the lambda returns, but it reads every tmp its body names
            # (`tmpbuf[i] = static_cast<int64_t>(tmp1[i]);` before `return …loadu(tmpbuf…)`).
            value = _lambda_value(body)
            expr = Expr(value, tuple(dict.fromkeys(NAME_OR_SUFFIX.findall(" ".join(body)))))
            cur.tmps.append(TmpDef(name=name, expr=expr, line=line, scope=scope))
            i = j + 1
            continue
        if s.startswith("auto tmp"):
            r = parse_cpp_statement(s, "tmp_def", cov, line)
            if isinstance(r, CppTmp):
                cur.tmps.append(TmpDef(name=r.name, expr=r.value, line=line, scope=scope))
        elif s.startswith(("AOTI_TORCH_CHECK(", "TORCH_CHECK(")):
            while not s.endswith(";") and i + 1 < n:  # a check over several lines (the CPP GEMM template's)
                i += 1
                s += " " + lines[i].strip()
            r = parse_cpp_statement(s, "check", cov, line)
            if isinstance(r, CppCheck):
                msg = r.message
                cm = parse_check_message(msg)
                cur.assertions.append(Assertion(
                    kernel=cur.name, line=line, message=msg, index_var=cm.index_var if cm else None,
                    bound_expr=cm.bound if cm else None, lower_bound=cm.lower if cm else None,
                    condition=r.condition.text, scope=scope))
        elif ".store(" in s:
            r = parse_cpp_statement(s, "vec_store", cov, line)
            if isinstance(r, VecStore) and r.args:
                ptr = next((x for x in r.args[0].names if "ptr" in x), None)
                if ptr:
                    cur.stores.append(Store(ptr=ptr, value=r.value, line=line, scope=scope))
        elif re.match(r"(out_ptr|in_out_ptr)\d+\[", s):
            r = parse_cpp_statement(s, "scalar_store", cov, line)
            if isinstance(r, ScalarStore):
                cur.stores.append(Store(ptr=r.ptr, value=r.value, line=line, scope=scope))
        elif s.startswith("tmp_acc") and _ACC_UPDATE(s):
            # `tmp_acc0 = tmp_acc0 + tmp5;`: no coverage count (the kernels' figures stay what they were)
            r = parse_cpp_statement(s, "acc_update", None, line)
            if isinstance(r, AccAssign):
                cur.acc_updates.append(AccUpdate(acc=r.acc, value=r.value, line=line, scope=scope))
        for ch in s:
            if ch == "{":
                next_block += 1
                stack.append(next_block)
            elif ch == "}" and stack:
                stack.pop()
                if not stack:
                    cur = None  # the kernel's body closed
                    break
        if cur is None and kernels:
            break
        i += 1
    return next(iter(kernels.values()), None)
