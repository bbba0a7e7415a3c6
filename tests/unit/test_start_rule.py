"""`Dialect.start_rule` (each prefix asked only of a statement starting with its letter) says what the plain chain
of `startswith` calls said, on random statements built from every prefix it knows and their look-alikes."""

import random

from _scan_reference import reference_start_rule

from inspector.dialects import DIALECTS, FALLBACK
from inspector.dialects.base import _DECL_WORDS

HEADS = [*_DECL_WORDS, "AtenTensorHandle ", "RAIIAtenTensorHandle ", "output_handles[", "AOTI_TORCH_ERROR_CODE_CHECK(",
         "AOTI_TORCH_ERROR_CODE_CHECK", "A", "R", "o", "a", "[", "d", "call_triton_poi_0(", "aoti_torch_cuda_mm_out(",
         "if (", "//", "}", "", " ", "x", "buf0", " = ", "(", ")", ";", "é", "9"]


def test_start_rule_equals_the_plain_chain():
    rnd = random.Random(11)
    texts = ["".join(rnd.choice(HEADS) for _ in range(rnd.randint(0, 4))) for _ in range(20000)]
    seen = set()
    for d in (*DIALECTS, FALLBACK):
        got = [d.start_rule(t) for t in texts]
        assert got == [reference_start_rule(d, t) for t in texts]
        seen.update(got)
    assert seen == {"checked_call", "declaration", "handle_decl", "assignment", "call", None}
