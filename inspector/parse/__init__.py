"""Parsers: generated text -> plain dataclasses (inspector.model). Never prints, never builds graphs."""
