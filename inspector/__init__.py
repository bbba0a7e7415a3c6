"""pt2-inspect: read AOTInductor `.pt2` packages and trace their failures, without running them."""

__version__ = "0.1.0"

from .errors import InspectorError, NothingFound, UnreadablePackage, UsageError  # noqa: E402
from .package import Package, open_package  # noqa: E402

__all__ = ["__version__", "open_package", "Package", "InspectorError", "NothingFound", "UnreadablePackage", "UsageError"]


def diagnose(pkg, log: str, **kw):
    """Classify a failure log against an open package: ``inspector.queries.diagnose.diagnose``."""
    from .queries.diagnose import diagnose as _diagnose

    return _diagnose(pkg, log, **kw)


def check(pkg, inputs, **kw):
    """Check inputs (``InputSpec``s or ``"1=float32[0,32]@cuda"`` strings) against a package."""
    from .queries.check import check as _check, parse_spec

    return _check(pkg, [parse_spec(x) if isinstance(x, str) else x for x in inputs], **kw)
