"""The cyclic garbage collector paused while an index is built (`gc_paused`)."""

from __future__ import annotations

import functools
import gc

# Set by the console entry point (`freeze_after_pauses`): a process that answers one command and ends.
_FREEZE = False


def freeze_after_pauses(on: bool = True) -> None:
    """After each outermost pause, move every object the collector tracks to its permanent generation
    (`gc.freeze`) instead of leaving them young.  Only for a process that ends after one command (the
    ``pt2-inspect`` entry point; `main()` called in-process never sets it): the index's objects are then
    never walked again, neither by the first collection after the pause (it walked all of them, ~0.2 s on
    the assertion-dense 20k package) nor by the collection at interpreter exit (~0.6 s there).  Reference
    counting still frees them as usual; only cycles made while paused stay until the process ends."""
    global _FREEZE
    _FREEZE = on


def gc_paused(method):
    """Run ``method`` with Python's cyclic garbage collector paused (and restored after, as it was).  Indexing
    builds hundreds of thousands of small acyclic objects (a statement each, kernels, parse results); each
    collection the allocations trigger walks all of them again and frees nothing: on a 20,010-kernel package
    that was a fifth of a cold trace and a third of `show --full`.  Reference counting still frees everything
    as usual; any cycles left wait for the next collection after the method returns."""

    @functools.wraps(method)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return method(*args, **kwargs)
        gc.disable()
        try:
            return method(*args, **kwargs)
        finally:
            if _FREEZE:
                gc.freeze()
            gc.enable()

    return paused
