"""Parsers: generated text -> plain dataclasses (inspector.model). Never prints, never builds graphs."""

# Statement text -> what it parsed to (`inspector.parse.grammar.parse_one`).  Generated code repeats itself
# (`xoffset = tl.program_id(0) * XBLOCK` in every kernel, the same launcher parameters in every launcher),
# so a statement seen before is not parsed again (it is still counted).  Kept here, not in grammar.py, so
# that opening a package empties it without importing lark (`forget_statements`).
STATEMENTS: dict = {}
# (grammar, start rules, transformer) -> its parser with the transformer inlined (`grammar._inline_parser`)
INLINE_PARSERS: dict = {}


def install_tree_parser() -> None:
    """Give `inspector.model` its expression parser (`model.parse_expr`, what `Expr.tree` calls), without an
    import of parse/ from model.py: here, a stand-in that imports `expr_tree` on the first tree asked for and
    puts the real function in its place, so that a command reading no tree (a cached `show`) never builds
    that module's 20 node classes (dataclasses cost ~1 ms each to create)."""
    import inspector.model as model

    def first_tree(text: str):
        from .expr_tree import parse_expr

        model.parse_expr = parse_expr
        return parse_expr(text)

    if model.parse_expr.__module__ == model.__name__:  # not installed yet
        model.parse_expr = first_tree


install_tree_parser()


def forget_statements() -> None:
    """Empty the statement memo: each package opened starts afresh (and a patched transformer is seen)."""
    STATEMENTS.clear()
    INLINE_PARSERS.clear()
