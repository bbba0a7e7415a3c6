"""The version, in a module of its own: the package root imports the library lazily, so a module that needs
only the version (the index cache's key, `--version`) imports this and never the root."""

__version__ = "0.1.0"
