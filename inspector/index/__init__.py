"""The index layer: the on-disk cache of indexed models (`inspector.index.cache`)."""
