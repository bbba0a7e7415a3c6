"""Parsers: generated text -> plain dataclasses (inspector.model). Never prints, never builds graphs."""

# Statement text -> what it parsed to (`inspector.parse.grammar.parse_one`).  Generated code repeats itself
# (`xoffset = tl.program_id(0) * XBLOCK` in every kernel, the same launcher parameters in every launcher),
# so a statement seen before is not parsed again (it is still counted).  Kept here, not in grammar.py, so
# that opening a package empties it without importing lark (`forget_statements`).
STATEMENTS: dict = {}
# (grammar, start rules, transformer) -> its parser with the transformer inlined (`grammar._inline_parser`)
INLINE_PARSERS: dict = {}


def forget_statements() -> None:
    """Empty the statement memo: each package opened starts afresh (and a patched transformer is seen)."""
    STATEMENTS.clear()
    INLINE_PARSERS.clear()
