"""`declared_names` (one loop over declarations' texts, an anchored match for handle declarations) says what
`declared_name` says of each declaration, on random statements built from the words that matter."""

import random

from inspector.parse.declared import declared_name, declared_names
from inspector.parse.wrapper_map import RunStatement

from _paths import S

DECLARES = ("declaration", "handle_decl")

WORDS = ["AtenTensorHandle ", "RAIIAtenTensorHandle ", "auto", "x", "y1", "=", ";", "(", ")", "[]", "[[maybe_unused]]",
         "decltype(auto)", " ", "  ", "\t", "&", "*", "buf0", "int64_t", "const", "{", "}", "::", "1", "é", "_9", "[] ", "9a"]


def test_declared_names_equal_declared_name():
    rnd = random.Random(7)
    sts = [RunStatement(1, "".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 8))),
                        rnd.choice(["declaration", "handle_decl", "call", None])) for _ in range(20000)]
    sts.append(RunStatement(2, "RAIIAtenTensorHandle buf0(buf0_handle);", "handle_decl"))
    decls = [st for st in sts if st.kind in DECLARES]
    assert len(decls) > 5000 and declared_names([st.text for st in decls]) == [declared_name(st) for st in decls]
    assert declared_names([sts[-1].text]) == ["buf0"]


def test_declared_names_on_real_wrappers():
    """The same on every run_impl statement of real wrappers (the fast path takes most declarations there)."""

    import inspector
    from inspector.parse.regions import scan_wrapper

    root = S
    seen = 0
    for pkg in ("cuda/hf_t5_encoder/hf_t5_encoder.pt2", "cpu/transformer/transformer.pt2", "cuda/jagged/jagged.pt2"):
        with inspector.open_package(root / pkg, cache=False) as p:
            f = p.files(p.model_names[0])
            run = scan_wrapper(p.archive.read_text(f.wrapper), f.wrapper).run
        decls = [st for st in run if st.kind in DECLARES]
        names = declared_names([st.text for st in decls])
        assert names == [declared_name(st) for st in decls]
        seen += sum(1 for n in names if n)
    assert seen > 100
