"""pt2-inspect: read AOTInductor `.pt2` packages and trace their failures, without running them."""

from ._version import __version__

__all__ = ["__version__", "open_package", "Package", "Options", "InspectorError", "NothingFound", "UnreadablePackage", "UsageError"]


def __getattr__(name: str):
    """`inspector.open_package` and friends, imported on first use: `pt2-inspect --version` and the
    CLI's argument parsing never pay for lark, networkx or rich."""
    if name in ("open_package", "Package"):
        from . import package

        return getattr(package, name)
    if name == "Options":
        from .options import Options

        return Options
    if name in ("InspectorError", "NothingFound", "UnreadablePackage", "UsageError"):
        from . import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'inspector' has no attribute {name!r}")


def trace_assert(pkg, log=None, **kw):
    """From a failure's text (or ``line=``/``kernel=``/``message=``) to the kernel, bound and inputs:
    ``inspector.queries.trace.trace_assert``.  ``log``: the log's text (read here, once) or its ``LogReport``; a log
    with no check in it is classified by diagnose on that reading (``inspector.queries.trace_log``): the answer's
    ``log_category`` and first line say what it is, and that no assert fired."""
    from .queries.trace import trace_assert as _trace_assert
    from .queries.trace_log import trace_log

    if log is not None:
        return trace_log(pkg, _read(log), **kw)
    return _trace_assert(pkg, **kw)


def diagnose(pkg, log, **kw):
    """Classify a failure log against an open package: ``inspector.queries.diagnose.diagnose``.  ``log`` (and
    ``against=``): the log's text (read here, once) or its ``LogReport``."""
    from .queries.diagnose import diagnose as _diagnose

    if kw.get("against") is not None:
        kw["against"] = _read(kw["against"])
    return _diagnose(pkg, _read(log), **kw)


def _read(log):
    """A log's text read into its ``LogReport`` (``inspector.logs.parse_log``); a report as it is."""
    from .logs import LogReport, parse_log

    return log if isinstance(log, LogReport) else parse_log(log or "")


def check(pkg, inputs, **kw):
    """Check inputs (``InputSpec``s or ``"1=float32[0,32]@cuda"`` strings) against a package."""
    from .parse.specs import parse_spec
    from .queries.check import check as _check

    return _check(pkg, [parse_spec(x) if isinstance(x, str) else x for x in inputs], **kw)


def repro(pkg, *, inputs=None, **kw):
    """Plan the case that reproduces a failure and write its script (``result.script``):
    ``inspector.queries.repro.repro`` (``log=``, ``line=``, ``kernel=`` or ``inputs=`` as strings or specs)."""
    from .parse.specs import parse_spec
    from .queries.repro import repro as _repro

    specs = [parse_spec(x) if isinstance(x, str) else x for x in inputs] if inputs else None
    return _repro(pkg, inputs=specs, **kw)


def sweep(pkg, **kw):
    """The contract's edge cases, predicted (``run=True``: run in child processes and diagnosed):
    ``inspector.queries.sweep.sweep``."""
    from .queries.sweep import sweep as _sweep

    return _sweep(pkg, **kw)
