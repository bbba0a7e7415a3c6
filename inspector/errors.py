"""Errors with the exit codes the CLI documents.

0 ok · 1 nothing found · 2 usage · 3 unreadable input or not an AOTI package.
Every error carries one line a user can act on; the CLI prints that line, never a traceback.
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
