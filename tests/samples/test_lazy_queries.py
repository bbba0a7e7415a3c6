"""The lazy answers of issue 13 equal the whole parse's, on real samples.

`graph --around` builds its neighbourhood from a lazy model (`inspector.graph.export.neighbourhood_of`), the
illegal-memory-access suspects and `check`'s unchecked loads parse only the kernels whose raw text may hold
one (`inspector.queries.suspects.model_suspects`), and `check`'s bound chains read a light model
(`inspector.index.closure.bounds_model`).  Each is compared with the answer from the whole parse.
"""

from __future__ import annotations

import json

import pytest

import inspector
from inspector.graph.export import neighbourhood, neighbourhood_of, to_json
from inspector.queries.suspects import first_kernel_names, model_suspects, unchecked_indirect

from _paths import S
from _samples import PACKAGES  # noqa: E402  (every AOTI package, the harvest's included)
IDS = [str(p.relative_to(S).parent) for p in PACKAGES]
# Packages whose neighbourhoods cover views of buffers, extern ops filling handles, in_out pointers, two models.
AROUND = ["cuda/jagged", "cpu/jagged", "cpu-2.6/embedding", "cpu-2.15/embedding_bag", "cpu/hf_roberta",
          "cpu/two_models", "cuda/embedding_noassert"]


def _things(g, per_type: int = 6) -> list[str]:
    """A few nodes of every type (ids and bare names), spread over the graph."""
    by_type: dict = {}
    for n, d in g.nodes(data=True):
        by_type.setdefault(d.get("type"), []).append(n)
    out = []
    for nodes in by_type.values():
        step = max(1, len(nodes) // per_type)
        out += nodes[::step][:per_type]
    out += [g.nodes[n]["name"] for n in out if g.nodes[n].get("type") in ("kernel", "buffer", "symbol", "input")]
    return list(dict.fromkeys(out))


@pytest.mark.samples  # one run per sample folder named in AROUND (bare names, so conftest cannot see it)
@pytest.mark.parametrize("where", AROUND)
def test_a_lazy_neighbourhood_equals_the_whole_graphs(where):
    path = next(p for p in PACKAGES if str(p.relative_to(S).parent) == where)
    compared = 0
    with inspector.open_package(path, cache=False) as whole:
        for name in whole.model_names:
            g = whole.graph(name)
            for depth in (1, 2, 3):
                for thing in _things(g):
                    with inspector.open_package(path, cache=False) as lazy:
                        got = to_json(neighbourhood_of(lazy, name, thing, depth))
                        assert not lazy._models, "the lazy neighbourhood parsed the whole model"
                    assert got == to_json(neighbourhood(g, thing, depth)), (thing, depth)
                    compared += 1
    assert compared, f"{where}: no neighbourhood compared"


def test_an_unknown_thing_gets_the_whole_graphs_answer():
    path = S / "cuda/jagged/jagged.pt2"
    with inspector.open_package(path, cache=False) as lazy, pytest.raises(inspector.errors.UsageError) as e:
        neighbourhood_of(lazy, None, "triton_poi_fused_index_99", 2)
    assert "did you mean" in str(e.value)


@pytest.mark.parametrize("pkg_path", PACKAGES, ids=IDS)
def test_suspects_from_the_kernels_whose_text_may_hold_one_equal_the_whole_parses(pkg_path):
    with inspector.open_package(pkg_path, cache=False) as whole:
        names = whole.model_names
        assert names  # a loop over none would compare nothing
        for name in names:
            want = unchecked_indirect(whole.model(name), whole.graph(name))
            firsts = list(whole.model(name).kernels)[:8]
            with inspector.open_package(pkg_path, cache=False) as lazy:
                assert json.dumps(model_suspects(lazy, name)) == json.dumps(want)
                assert first_kernel_names(lazy, name, 8) == firsts
                assert not lazy._models and not lazy.index(name).parsed_whole


def test_the_suspect_sample_has_a_suspect():
    with inspector.open_package(S / "cuda/embedding_noassert/embedding_noassert.pt2", cache=False) as p:
        assert model_suspects(p, "model")


@pytest.mark.parametrize("pkg_path", PACKAGES, ids=IDS)
def test_check_from_the_light_bounds_model_equals_check_from_the_slice(pkg_path, monkeypatch):
    from inspector.queries import check as C
    from inspector.queries import size_failures

    with inspector.open_package(pkg_path, cache=False) as p:
        names = p.model_names
    compared = scalar_only = 0
    for name in names:
        for size in (0, 1, 3):
            with inspector.open_package(pkg_path, cache=False) as p:
                inputs = p.index(name).eager().inputs
            specs = [C.InputSpec(who=str(i.index), shape=[d if isinstance(d, int) else size for d in i.shape])
                     for i in inputs if i.shape]
            if not specs:  # a model of scalar inputs only (harvest's test_assert_async): nothing to check
                scalar_only += 1
                continue
            with inspector.open_package(pkg_path, cache=False) as p:
                light = C.check(p, specs, model=name).to_dict()
            with monkeypatch.context() as mp:
                mp.setattr(size_failures, "_holds_bound_args", lambda m: False)  # the slice of every asserting kernel
                with inspector.open_package(pkg_path, cache=False) as p:
                    sliced = C.check(p, specs, model=name).to_dict()
            assert light == sliced
            compared += 1
    # nothing compared only where every model takes scalars alone (and says so above)
    assert names and (compared or scalar_only == 3 * len(names)), (compared, scalar_only)
