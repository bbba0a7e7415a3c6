"""`show`'s tables drawn as plain lines (inspector.render._Table) are byte-identical to rich's drawing of the
same table, whenever the plain path is taken (no colour, every cell printable ASCII, nothing to wrap)."""

import io
import random
import string

import pytest
from rich.console import Console

from inspector.render.common import _Table

ALPHABET = string.ascii_letters + string.digits + " _[],.-()#:;"


def _draw(t: _Table, width: int, plain: bool) -> str:
    f = io.StringIO()
    c = Console(file=f, width=width, highlight=False, soft_wrap=False)
    if plain:
        if t._plain_lines(c) is None:  # e.g. a title wider than its table: rich wraps it
            return None
        t.print(c)
    else:
        t._plain_lines = lambda console: None  # rich's own drawing
        t.print(c)
    return f.getvalue()


def _cell(rnd: random.Random, alphabet: str = ALPHABET) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(rnd.choice([0, 1, 2, 5, 12, 40])))


@pytest.mark.parametrize("seed", range(80))
def test_plain_table_equals_rich(seed):
    rnd = random.Random(seed)
    ncols = rnd.randint(1, 6)
    cols = [_cell(rnd, ALPHABET.replace("[", "")) for _ in range(ncols)]  # (rich reads headers as markup)
    mins = {0: rnd.randint(0, 50)} if rnd.random() < 0.5 else {}
    rows = [[_cell(rnd) for _ in range(ncols)] for _ in range(rnd.choice([0, 1, 3, 10]))]
    title = _cell(rnd, ALPHABET.replace("[", ""))[:8]

    def make():
        t = _Table(title, cols, min_widths=mins)
        for r in rows:
            t.add(*r)
        return t

    plain = _draw(make(), 100_000, True)
    if plain is not None:  # (declining is always right: rich draws it)
        assert plain == _draw(make(), 100_000, False)


def test_plain_path_declines_what_rich_must_draw():
    t = _Table("t", ["a"])
    t.add("é")  # not ASCII: cell widths are rich's business
    assert t._plain_lines(Console(file=io.StringIO(), width=100)) is None
    t = _Table("t", ["a"])
    t.add("x" * 200)  # wider than the console: rich wraps it
    assert t._plain_lines(Console(file=io.StringIO(), width=80)) is None
    assert _Table("[b]t[/b]", ["a"])._plain_lines(Console(file=io.StringIO(), width=80)) is None  # markup
    t = _Table("t", ["a"])
    t.add("x")
    assert t._plain_lines(Console(file=io.StringIO(), width=80, force_terminal=True, color_system="standard")) is None
