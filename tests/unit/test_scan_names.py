"""`declared_names` (one loop, an anchored match for handle declarations) says what `declared_name` says of
each statement, on random statements built from the words that matter."""

import random

from inspector.parse.regions import RunStatement, declared_name, declared_names

WORDS = ["AtenTensorHandle ", "RAIIAtenTensorHandle ", "auto", "x", "y1", "=", ";", "(", ")", "[]", "[[maybe_unused]]",
         "decltype(auto)", " ", "  ", "\t", "&", "*", "buf0", "int64_t", "const", "{", "}", "::", "1", "é", "_9", "[] ", "9a"]


def test_declared_names_equal_declared_name():
    rnd = random.Random(7)
    sts = [RunStatement(1, "".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 8))),
                        rnd.choice(["declaration", "handle_decl", "call", None])) for _ in range(20000)]
    sts.append(RunStatement(2, "RAIIAtenTensorHandle buf0(buf0_handle);", "handle_decl"))
    assert declared_names(sts) == [declared_name(st) for st in sts]
    assert declared_names(sts[-1:]) == ["buf0"]


def test_declared_names_on_real_wrappers():
    """The same on every run_impl statement of real wrappers (the fast path takes most declarations there)."""
    from pathlib import Path

    import inspector
    from inspector.parse.regions import scan_wrapper

    root = Path(__file__).resolve().parents[2] / "sample_packages"
    seen = 0
    for pkg in ("cuda/hf_t5_encoder/hf_t5_encoder.pt2", "cpu/transformer/transformer.pt2", "cuda/jagged/jagged.pt2"):
        with inspector.open_package(root / pkg, cache=False) as p:
            f = p.files(p.model_names[0])
            run = scan_wrapper(p.archive.read_text(f.wrapper), f.wrapper).run
        names = declared_names(run)
        assert names == [declared_name(st) for st in run]
        seen += sum(1 for n in names if n)
    assert seen > 100
