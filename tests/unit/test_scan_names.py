"""`declared_names` (one loop, an anchored match for handle declarations) says what `declared_name` says of
each statement, on random statements built from the words that matter."""

import random

from inspector.parse.regions import RunStatement, declared_name, declared_names

WORDS = ["AtenTensorHandle ", "RAIIAtenTensorHandle ", "auto", "x", "y1", "=", ";", "(", ")", "[]", "[[maybe_unused]]",
         "decltype(auto)", " ", "  ", "\t", "&", "*", "buf0", "int64_t", "const", "{", "}", "::", "1", "é"]


def test_declared_names_equal_declared_name():
    rnd = random.Random(7)
    sts = [RunStatement(1, "".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 8))),
                        rnd.choice(["declaration", "handle_decl", "call", None])) for _ in range(20000)]
    sts.append(RunStatement(2, "RAIIAtenTensorHandle buf0(buf0_handle);", "handle_decl"))
    assert declared_names(sts) == [declared_name(st) for st in sts]
    assert declared_names(sts[-1:]) == ["buf0"]
