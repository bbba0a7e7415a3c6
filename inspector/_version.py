"""The version, in a module of its own: what the index cache keys on and `--version` prints, importable
without the package root (no import circle through ``inspector/__init__``)."""

__version__ = "0.1.0"
