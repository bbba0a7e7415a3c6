"""Queries over an indexed package, one module per job.

* ``match``   which assertion (or extern call) a reported failure names;
* ``walk``    graph walks: bound -> symbol -> input dim, index values -> loads -> writers -> input;
* ``fused``   source FX nodes, ATen ops and fused-kernel-name splitting;
* ``trace``   ``trace_assert`` and its typed result;
* ``diagnose`` classify a whole log and answer with next steps;
* ``check``   an input contract check (``pt2-inspect check``).

The words a person reads live in ``inspector.explain``.
"""
