"""Rendering with rich, one module per command drawn (`show`, `trace`, `diagnose`, `check`, `sweep`, `doctor`, `scan`, `locate`) and `common` for what several draw; the HTML report is `inspector.render.html`.
Rendering never parses: it draws the typed results the queries return."""
