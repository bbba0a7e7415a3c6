"""pt2-inspect: read AOTInductor `.pt2` packages and trace their failures, without running them."""

__version__ = "0.1.0"

from .errors import InspectorError, NothingFound, UnreadablePackage, UsageError  # noqa: E402
from .package import Package, open_package  # noqa: E402

__all__ = ["__version__", "open_package", "Package", "InspectorError", "NothingFound", "UnreadablePackage", "UsageError"]
