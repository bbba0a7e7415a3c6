"""Log text: ``patterns`` (every regular expression over what users paste, named) and ``parse``
(``parse_log`` -> ``LogReport``).  Nothing here knows about a package; no sentence a person reads is here."""

from .parse import LogEvent, LogReport, NoticedCall, PrinterBlock, ReportedAssert, parse_log, printer_blocks  # noqa: F401
