"""How Inductor names things in the code it generates, read in one place so that no query spells it: the
loop indices of a kernel (``x0``, ``xindex``, ``r0_1``), the numbered names of one build (``tmp9``, ``ks0``) and
the C++ integer suffix (``64L``), as a check's text is compared with a log's."""

from __future__ import annotations

import re

_INT_SUFFIX = re.compile(r"(\d+)L\b")
_NUMBERED = re.compile(r"\b(tmp|ks|s|u|x|y|r)\d+\b")
_LOOP_INDEX = re.compile(r"[xyzr]\d*(_\w+)?")
_RANGE_INDEX = re.compile(r"([xyzr])index")
_TMP = re.compile(r"\btmp\d+\b")


def text_key(text: str) -> str:
    """A check's text as compared with a log's: C++ ``64L`` read as ``64``, spaces dropped."""
    return _INT_SUFFIX.sub(r"\1", text).replace(" ", "")


def message_key(message: str) -> str:
    """A check message as compared with a log's (`text_key`, without the quotes a paste may carry)."""
    return text_key(message.strip().strip("`\"'"))


def numbering_shape(message: str) -> str:
    """`message_key` with the numbered names of one build made one (``tmp9``/``tmp12`` -> ``tmp#``, ``ks0`` ->
    ``ks#``): the same check compiled by another torch or config."""
    return _NUMBERED.sub(lambda m: m.group(1) + "#", message_key(message))


def is_loop_index(name: str | None) -> bool:
    """``x0``, ``y1``, ``r0_1``, ``xindex``: a kernel's own loop index (or one Inductor derives from it)."""
    return bool(name) and _LOOP_INDEX.fullmatch(name) is not None


def range_index(name: str) -> str | None:
    """``x`` for a Triton kernel's ``xindex`` (``y``, ``z``, ``r`` likewise): the range tree it runs over, whose
    size parameter is ``xnumel``; None for any other name."""
    m = _RANGE_INDEX.fullmatch(name)
    return m.group(1) if m else None


def is_tmp(name: str) -> bool:
    """``tmp12``: a value Inductor computes in a kernel (not ``tmp_acc0``, ``tmp5_idx`` or a loop index)."""
    return _TMP.fullmatch(name) is not None


def tmp_names(text: str) -> list[str]:
    """The ``tmpN`` a kernel's text names, in order (a vectorized definition's lambda body spans lines the
    expression grammar does not read)."""
    return _TMP.findall(text)


_ACC = re.compile(r"tmp_acc\d+\w*")


def is_accumulator(name: str) -> bool:
    """``tmp_acc0``, ``tmp_acc0_vec``: a CPU reduction's accumulator."""
    return _ACC.fullmatch(name) is not None


_PTR = re.compile(r"\b(?:in_out_ptr|in_ptr|out_ptr)\d+\b")
_FIRST_ASSIGN = re.compile(r"(?<![=<>!])=(?!=)")


def names_a_pointer(text: str) -> bool:
    """``text`` names a kernel pointer parameter (``in_ptr0``, ``out_ptr1``, ``in_out_ptr0``)."""
    return _PTR.search(text) is not None


def tmps_assigned(line: str) -> set[str]:
    """The tmps a raw line may define: those it names before its first ``=`` (over-counting is safe)."""
    m = _FIRST_ASSIGN.search(line)
    return set(_TMP.findall(line, 0, m.start())) if m else set()
