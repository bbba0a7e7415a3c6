"""diagnose: classify a failure from the real log text and answer with next steps that fit this package.

``rules`` holds one rule per category, tried in order (``RULES``; ``CATEGORIES`` is the one list of
categories); ``results`` the typed answer (``Diagnosis``); the log's patterns are in inspector.logs.patterns and
every sentence in inspector.explain.diagnose.  Categories (``Diagnosis.category``), in the order they are tried:

"""

from __future__ import annotations

from ...explain.diagnose import CATEGORY_DOC as _DOC
from .results import Candidate, Diagnosis, Evidence, InputCheck, Step  # noqa: F401
from .rules import CATEGORIES, RULES, diagnose  # noqa: F401

if __doc__:  # None under python -OO
    __doc__ += "\n".join(f"``{c}``{' ' * max(1, 22 - len(c))}{_DOC[c]}" for c in CATEGORIES) + "\n"
