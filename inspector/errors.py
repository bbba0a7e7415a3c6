"""Errors with the exit codes the CLI documents.

0 ok · 1 nothing found (or, with --strict, a statement no grammar rule understood) · 2 usage ·
3 unreadable input or not an AOTI package · 4 internal error (a bug in pt2-inspect, not in the package).
Every error carries one line a user can act on; the CLI prints that line, never a traceback
(unless --debug asks for it).
"""


class InspectorError(Exception):
    exit_code = 3


class NothingFound(InspectorError):
    """The query ran and matched nothing."""

    exit_code = 1


class UsageError(InspectorError):
    exit_code = 2


class UnreadablePackage(InspectorError):
    """Not a file, not a zip, a truncated zip, no AOTI model inside, text that is not UTF-8…"""

    exit_code = 3


# Anything else raised while answering (a VisitError from a Transformer, a KeyError…) is a bug in
# pt2-inspect: the CLI exits with this code and asks for a rerun with --debug.
INTERNAL_ERROR_EXIT = 4
STRICT_EXIT = 1
