"""Log text: ``patterns`` (every regular expression over what users paste, named), ``parse`` (``parse_log``: the
one reading of a log -> ``LogReport``) and ``facts`` (what the reading found, typed, each with its line).  Queries
read a ``LogReport``, never the text.  Nothing here knows about a package; no sentence a person reads is here."""

from .facts import (AtenAssert, BareMessage, CheckFailure, CudaError, DeviceAssert, ExceptionLine, FailedCall,  # noqa: F401
                    FailureLine, InputCheck, LogEvent, NativeFrame, OpError, OutOfMemory, PrinterBlock, PythonFrame,
                    ReportedAssert, SymbolicAssert)
from .parse import LogReport, parse_log, read_op_error, says_nan_inf, stack_frames, stated_failure  # noqa: F401
