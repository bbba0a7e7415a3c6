"""The cyclic garbage collector paused while an index is built (`gc_paused`)."""

from __future__ import annotations

import functools
import gc


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
            gc.enable()

    return paused
