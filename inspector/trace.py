"""Compatibility: ``from inspector.trace import trace_assert`` keeps working.

The code lives in ``inspector.queries`` (match, walk, fused, trace) and the words in ``inspector.explain``.
"""

from .explain import GUARD_NOTE  # noqa: F401
from .queries.fused import split_fused_name  # noqa: F401
from .queries.trace import TraceMatch, TraceResult, explain, trace_assert  # noqa: F401
from .queries.walk import BoundChain, BoundTerm, IndexOrigin, InputRef  # noqa: F401
