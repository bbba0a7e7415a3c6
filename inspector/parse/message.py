"""The message of an Inductor index check: ``index out of bounds: 0 <= tmp10 < ks0``."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .tokens import IDENTIFIER



@dataclass(frozen=True)
class CheckMessage:
    index_var: str
    bound: str  # as written: "ks0", "1000L", "(-1) + ks0"
    lower: str | None  # "0", or None when the check has no lower bound

    @property
    def static_bound(self) -> int | None:
        return static_bound(self.bound)


def static_bound(bound: str) -> int | None:
    """The bound as an integer when it is a constant (``512``, ``64L``); None for ``ks0``, ``(-1) + ks0``."""
    m = re.fullmatch(r"\(?(-?\d+)[Ll]?\)?", bound.strip())
    return int(m.group(1)) if m else None


# Triton wrappers Inductor puts around the index in a check's text (torch_geometric's EdgeConv: `0 <=
# tl.broadcast_to(tmp19, [YBLOCK, XBLOCK]) < ks1`); the value checked is the name inside.
_WRAPPED = re.compile(rf"tl\.(?:broadcast_to|reshape)\(\s*({IDENTIFIER})\s*,\s*\[[^\]]*\]\s*\)"
                      rf"|\(?\b({IDENTIFIER})\)?\.to\(tl\.\w+\)")


def unwrap_index(text: str) -> str:
    """``0 <= tl.broadcast_to(tmp19, [YBLOCK, XBLOCK]) < ks1`` -> ``0 <= tmp19 < ks1`` (and ``tl.reshape``, ``.to(tl.int64)``)."""
    return _WRAPPED.sub(lambda m: m.group(1) or m.group(2), text)


def parse_check_message(text: str) -> CheckMessage | None:
    """Parse the message; None when it is not an index check (other asserts are kept as plain text).  An index
    wrapped in ``tl.broadcast_to`` / ``tl.reshape`` or a cast is read as the name inside (`unwrap_index`)."""
    from lark.exceptions import UnexpectedInput  # lark only when a message is parsed

    from .lark_loader import parser

    text = unwrap_index(text.strip().strip('"'))
    try:
        tree = parser("assert_message", ("message",)).parse(text, start="message")
    except UnexpectedInput:
        return None
    return _transformer().transform(tree)


@dataclass(frozen=True)
class _Lower:
    text: str


@dataclass(frozen=True)
class _Bound:
    text: str


@functools.cache
def _transformer():
    """grammars/assert_message.lark's rules -> `CheckMessage` (lark only when a message is parsed)."""
    from lark import Transformer

    class MessageTransformer(Transformer):
        def lower(self, c):
            return _Lower(str(c[0]))

        def bound(self, c):
            return _Bound(str(c[0]).strip())

        def message(self, c):
            lower = next((x.text for x in c if isinstance(x, _Lower)), None)
            var = next(str(t) for t in c if getattr(t, "type", None) == "NAME")
            bound = next(x.text for x in c if isinstance(x, _Bound))
            return CheckMessage(index_var=var, bound=bound, lower=lower)

    return MessageTransformer()


# A user-defined kernel's own check (`tl.device_assert((idx >= 0) & (idx < rows), "…")`): its message is the
# user's words, so the index and its bound are read from the condition.  Forms: `X < B`, `(X >= 0) & (X < B)`,
# `(0 <= X) & (X < B)`, either order of the two halves.
_NAME = rf"({IDENTIFIER})"
_BOUND = rf"({IDENTIFIER}|\d+)"
_UPPER = re.compile(rf"^\(?\s*{_NAME}\s*<\s*{_BOUND}\s*\)?$")
_LOWER = re.compile(rf"^\(?\s*(?:{_NAME}\s*>=\s*0|0\s*<=\s*{_NAME})\s*\)?$")


def parse_check_condition(condition: str) -> CheckMessage | None:
    """The index and bound a range condition checks (``(idx >= 0) & (idx < rows)`` -> idx < rows, lower 0);
    None for any other condition."""
    parts = [p.strip() for p in unwrap_index(condition.strip()).split("&")]
    if not 1 <= len(parts) <= 2:
        return None
    upper = lower = None
    for p in parts:
        m = _UPPER.match(p)
        if m and upper is None:
            upper = m
            continue
        m = _LOWER.match(p)
        if m and lower is None:
            lower = m.group(1) or m.group(2)
            continue
        return None
    if upper is None or (lower is not None and lower != upper.group(1)):
        return None
    return CheckMessage(index_var=upper.group(1), bound=upper.group(2), lower="0" if lower else None)


_FINITE = re.compile(rf"^\(\s*({IDENTIFIER})\s*==\s*\1\s*\)")


def parse_value_check(condition: str) -> str | None:
    """The value a NaN/Inf check tests (``(tmp1 == tmp1) & (tmp1 != float('inf')) & …`` -> ``tmp1``: only a NaN is
    unequal to itself), or None for any other condition."""
    m = _FINITE.match(condition.strip())
    return m.group(1) if m else None


# The wrapper's NaN/Inf check on a tensor (``AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_check_inf_and_nan("arg2_1",
# arg2_1));``, compiled in with ``aot_inductor.debug_check_inf_and_nan``): the name it prints is the one it checks.
_NAN_CHECK = re.compile(r'\baoti_torch_check_inf_and_nan\(\s*"(?P<buf>\w+)"')


def nan_checks(lines) -> list[tuple[int, str]]:
    """Each NaN/Inf check call of a wrapper's ``lines`` (1-based line, the tensor's name it checks), in order."""
    out = []
    for i, s in enumerate(lines, 1):
        if "aoti_torch_check_inf_and_nan" in s:
            m = _NAN_CHECK.search(s)
            if m:
                out.append((i, m.group("buf")))
    return out
