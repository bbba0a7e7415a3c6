"""`python -m inspector.cli`: the same as `pt2-inspect`."""

from . import entry

entry()
