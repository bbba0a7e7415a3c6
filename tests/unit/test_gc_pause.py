"""The collector pause of index builds: the console entry point freezes what a pause built; in-process calls
(`main()`, the tests, tools/snapshot.py) never do, so their cycles are still collected."""

import gc

from inspector.index import gc_pause


def _build():
    return [[i] for i in range(1000)]


def test_pause_leaves_objects_young_by_default():
    gc.unfreeze()
    assert not gc_pause._FREEZE
    out = gc_pause.gc_paused(_build)()
    assert len(out) == 1000 and gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_entry_mode_freezes_after_the_outermost_pause():
    gc.unfreeze()
    gc_pause.freeze_after_pauses()
    try:
        inner_counts = []

        @gc_pause.gc_paused
        def outer():
            x = gc_pause.gc_paused(_build)()  # nested: the collector is already paused, nothing frozen yet
            inner_counts.append(gc.get_freeze_count())
            return x

        out = outer()
        assert inner_counts == [0]
        assert gc.get_freeze_count() >= len(out) and gc.isenabled()
    finally:
        gc_pause.freeze_after_pauses(False)
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


def test_main_in_process_never_freezes(tmp_path):
    from inspector.cli import main

    gc.unfreeze()
    assert main(["--version"]) == 0
    assert not gc_pause._FREEZE and gc.get_freeze_count() == 0
