"""The wrap of negative indices (inspector/queries/wraps.py), read from typed trees in every form inductor writes.

The texts are the real kernels' lines (the sample each comes from is named); the crafted ones sit beside them and
say so.  Before the matcher read a mask through its casts, trace said "does not wrap: -1 already fails" for every
vectorized wrap (cpu/take, cpu/adv_index_2d, cpu-2.8/gather_dynamic, cpu/neg_vec), while the real runs of
cpu/neg_vec read rows counted from the end with no error."""

from __future__ import annotations

from inspector.model import Expr, TmpDef
from inspector.parse import expr_tree as E
from inspector.queries import wraps as W


def defs(**texts):
    return {n: TmpDef(n, Expr(t, E.names(E.parse_expr(t))), i) for i, (n, t) in enumerate(texts.items())}


# cpu/take (torch 2.13), kernel.cpp lines 19-27: the vectorized wrap, its mask cast by `.template cast<…>()`
VEC_213 = dict(
    tmp0="at::vec::VectorizedN<int64_t,2>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(8))",
    tmp1="ks1*ks2", tmp2="c10::convert<int64_t>(tmp1)", tmp3="at::vec::VectorizedN<int64_t,2>(tmp2)",
    tmp4="tmp0 + tmp3", tmp5="static_cast<int64_t>(0)", tmp6="at::vec::VectorizedN<int64_t,2>(tmp5)",
    tmp7="at::vec::VecMask<int64_t,2>(tmp0 < tmp6)",
    tmp8="decltype(tmp4)::blendv(tmp0, tmp4, tmp7.template cast<int64_t,2>())")
# cpu-2.15/take (torch 2.15), kernel.cpp line 27: the same wrap, its mask cast by inductor_vec_mask_cast
VEC_215 = dict(VEC_213, tmp8="decltype(tmp4)::blendv(tmp0, tmp4, inductor_vec_mask_cast<int64_t,2>(tmp7))")


# an int32 index (x.index_select(1, cols.int()), built with torch 2.13 CPU, AVX2, for this test; not stored): converted
# to int64 first, then the same wrap
VEC_I32 = dict(
    tmp0="at::vec::Vectorized<int32_t>::loadu(in_ptr0 + static_cast<int64_t>(x1), static_cast<int64_t>(8))",
    tmp1="ks2", tmp2="c10::convert<int64_t>(tmp1)", tmp3="at::vec::convert<int64_t,2,int32_t,1>(tmp0)",
    tmp4="at::vec::VectorizedN<int64_t,2>(tmp2)", tmp5="tmp3 + tmp4", tmp6="static_cast<int64_t>(0)",
    tmp7="at::vec::VectorizedN<int64_t,2>(tmp6)", tmp8="at::vec::VecMask<int64_t,2>(tmp3 < tmp7)",
    tmp9="decltype(tmp5)::blendv(tmp3, tmp5, tmp8.template cast<int64_t,2>())")


def test_an_int32_index_is_converted_then_wrapped():
    d = defs(**VEC_I32)
    assert W.wrap_in(d, d["tmp9"].expr.tree) == E.Name("tmp3")


def test_vectorized_wraps_with_a_cast_mask_are_wraps():
    for texts in (VEC_213, VEC_215):
        d = defs(**texts)
        assert W.wrap_in(d, d["tmp8"].expr.tree) == E.Name("tmp0")
        assert W.negative_test(d, E.Name("tmp7")) == E.Name("tmp0")  # through VecMask<…>(tmp0 < tmp6), tmp6 = 0
        assert W._is_zero(d, E.Name("tmp6")) and not W._is_zero(d, E.Name("tmp3"))


def test_every_mask_conversion_is_read_through():
    """`.template cast<…>()`, `inductor_vec_mask_cast<…>(m)`, `VecMask<…>(m)`, `VecMask<…>::from(m)` (crafted
    from those real spellings), the test inline too."""
    for mask in ("tmp7.template cast<int64_t,2>()", "inductor_vec_mask_cast<int64_t,2>(tmp7)",
                 "at::vec::VecMask<int64_t,2>::from(tmp7)", "at::vec::VecMask<int64_t,2>(tmp0 < tmp6)",
                 "inductor_vec_mask_cast<int64_t,2>(at::vec::VecMask<int64_t,2>(tmp0 < tmp6))"):
        d = defs(**dict(VEC_213, tmp8=f"decltype(tmp4)::blendv(tmp0, tmp4, {mask})"))
        assert W.wrap_in(d, d["tmp8"].expr.tree) == E.Name("tmp0"), mask


def test_scalar_and_triton_wraps_are_wraps():
    # cpu/neg_index (torch 2.13): `tmp4 ? tmp3 : tmp0` with tmp4 = tmp0 < 0
    d = defs(tmp0="in_ptr0[static_cast<int64_t>(x0)]", tmp1="ks1", tmp2="c10::convert<int64_t>(tmp1)",
             tmp3="tmp0 + tmp2", tmp4="tmp0 < 0", tmp5="tmp4 ? tmp3 : tmp0")
    assert W.wrap_in(d, d["tmp5"].expr.tree) == E.Name("tmp0")
    # torch 2.6 CPU writes it inline: `tmp0 < 0 ? tmp0 + 64L : tmp0`
    assert W.wrap_in({}, E.parse_expr("tmp0 < 0 ? tmp0 + 64L : tmp0")) == E.Name("tmp0")
    # cuda/gather_dynamic (Triton): tl.where(tmp3, tmp2, tmp0), tmp3 = tmp0 < 0, tmp2 = tmp0 + ks0
    t = defs(tmp0="tl.load(in_ptr0 + (x0), xmask)", tmp1="ks0", tmp2="tmp0 + tmp1", tmp3="tmp0 < 0",
             tmp4="tl.where(tmp3, tmp2, tmp0)")
    assert W.wrap_in(t, t["tmp4"].expr.tree) == E.Name("tmp0")


def test_selects_that_are_no_wrap_are_not():
    # cpu/bucketize_index: a binary search's blendv on a float comparison (no x < 0, no x + N)
    d = defs(tmp5="at::vec::Vectorized<float>(0)", tmp11="tmp9 < tmp10", tmp14="tmp12 + tmp13", tmp15="tmp12",
             tmp16="decltype(tmp14)::blendv(tmp15, tmp14, tmp11.template cast<float,1>())")
    assert W.wrap_in(d, d["tmp16"].expr.tree) is None
    # a floor division's sign test (Triton), crafted beside the real wraps
    f = defs(tmp0="tl.load(in_ptr0 + (x0), xmask)", tmp6="tl.full([1], 4, tl.int64)",
             tmp8="tl.where((tmp0 < 0) != (tmp6 < 0), tmp0 // tmp6 - 1, tmp0 // tmp6)")
    assert W.wrap_in(f, f["tmp8"].expr.tree) is None
    # the mask tests another value, or the raw value is not the one kept (crafted)
    v = defs(**dict(VEC_213, tmp7="at::vec::VecMask<int64_t,2>(tmp3 < tmp6)"))
    assert W.wrap_in(v, v["tmp8"].expr.tree) is None
    v = defs(**dict(VEC_213, tmp8="decltype(tmp4)::blendv(tmp4, tmp0, tmp7.template cast<int64_t,2>())"))
    assert W.wrap_in(v, v["tmp8"].expr.tree) is None  # negatives kept, the others moved: no wrap
    v = defs(**dict(VEC_213, tmp5="static_cast<int64_t>(1)"))
    assert W.wrap_in(v, v["tmp8"].expr.tree) is None  # x < 1 is no sign test
