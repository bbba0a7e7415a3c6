"""Moved: the patterns are in ``inspector.logs.patterns``, the reading in ``inspector.logs.parse``.  This name
stays for the modules that import it (queries/match.py, queries/trace.py)."""

from .logs.parse import LogEvent, LogReport, NoticedCall, ReportedAssert, parse_log  # noqa: F401
from .logs.patterns import ATEN_ASSERT, BARE_MSG, CPU_FROM, CPU_MSG, CUDA_ASSERT, NOTICED, PATTERNS, Pattern  # noqa: F401
