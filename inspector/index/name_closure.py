"""The one closure over run_impl's statements by the names they mention (issue 21 §4: the loop was written three
times: a slice's writers, a neighbourhood's declarations, a bound chain's scalar declarations).

``grow(texts, seeds, earlier)`` starts from the statements ``seeds`` (indices into run_impl) and, for every name a
statement mentions, adds the statements ``earlier(name)`` offers that come before it, transitively.  What counts
as a candidate (the declarations of the name, every statement that names it, only scalar declarations) is the
caller's ``earlier``; it returns ``()`` for a name that is not followed."""

from __future__ import annotations

from typing import Callable, Iterable

from ..parse.tokens import NAME


def grow(texts: list[str], seeds: Iterable[int], earlier: Callable[[str], Iterable[int]]) -> set[int]:
    """``texts``: run_impl's statements' texts (`RunColumns.text`)."""
    included = set(seeds)
    work = list(included)
    while work:
        i = work.pop()
        for name in set(NAME.findall(texts[i])):
            for j in earlier(name):
                if j < i and j not in included:
                    included.add(j)
                    work.append(j)
    return included
