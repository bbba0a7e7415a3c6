"""Each wrapper statement a question needs, parsed once: `StatementParser` memoizes the grammar's answer per
statement and counts it in the index's coverage once, whichever models are built from it."""

from __future__ import annotations

from ..model import Coverage


class StatementParser:
    """Parses one wrapper statement once (memoized by region and index) and counts it in coverage once.

    ``remember=False`` (the whole parse, `ModelIndex.full`, which reads each statement exactly once): no memo
    here, nor by text (`inspector.parse.grammar.parse_one`) for run_impl's statements.  A memo keeps every
    statement's parse result alive, where the model keeps only the few strings it files: on the assertion-dense
    20k package that was about a third of what the whole parse added (~300 MB of ~880)."""

    def __init__(self, coverage: dict[str, Coverage], remember: bool = True):
        self.coverage = coverage
        self.memo: dict[tuple, object] | None = {} if remember else None
        self._parse = None  # parse.wrapper.parse_statement, imported on the first statement (it loads lark)

    def cov(self, region: str) -> Coverage:
        return self.coverage.setdefault(region, Coverage())

    def __call__(self, region: str, idx: int, text: str, rule: str, line: int):
        if self._parse is None:  # once, not per statement: an import statement costs ~2 µs of 29,000 calls
            from ..parse.wrapper import parse_statement

            self._parse = parse_statement
        memo = self.memo
        if memo is None:  # run_impl's statements are nearly all distinct texts; a launcher's parameters repeat
            return self._parse(text, rule, self.cov(region), line, remember=region != "run_impl")
        key = (region, idx, rule)
        if key not in memo:
            memo[key] = self._parse(text, rule, self.cov(region), line)
        return memo[key]
