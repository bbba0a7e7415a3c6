// Triton kernels are embedded as comments in /tmp/aotc_hlijjpeq/cihrs6v2wksegvrbofmis2gyo47qumyfnyaud37w6heycumweabp.wrapper.cpp

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_add_embedding_0(const int64_t* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       float* out_ptr0,
                       float* out_ptr1,
                       const int64_t ks0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(ks0); x0+=static_cast<int64_t>(1L))
        {
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(8L); x1+=static_cast<int64_t>(8L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(8L)))
                    {
                        auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
                        auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1 + 8L*x0), static_cast<int64_t>(8));
                        auto tmp1 = tmp0;
                        auto tmp2 = c10::convert<int64_t>(tmp1);
                        AOTI_TORCH_CHECK((0 <= tmp2) & (tmp2 < 16L), "index out of bounds: 0 <= tmp2 < 16L");
                        auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 8L*tmp0), static_cast<int64_t>(8));
                        auto tmp6 = tmp4 + tmp5;
                        tmp6.store(out_ptr0 + static_cast<int64_t>(x1 + 8L*x0));
                    }
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(8L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(8L)))
                {
                    auto tmp0 = x0;
                    auto tmp1 = c10::convert<int64_t>(tmp0);
                    auto tmp2 = at::vec::VectorizedN<int64_t,2>::arange(tmp1, 1);
                    auto tmp3 = static_cast<int64_t>(4);
                    auto tmp4 = at::vec::VectorizedN<int64_t,2>(tmp3);
                    auto tmp5 = at::vec::VecMask<int64_t,2>(tmp2 < tmp4);
                    auto tmp6 = static_cast<int64_t>(2);
                    auto tmp7 = at::vec::VectorizedN<int64_t,2>(tmp6);
                    auto tmp8 = at::vec::VecMask<int64_t,2>(tmp2 < tmp7);
                    auto tmp9 = static_cast<int64_t>(1);
                    auto tmp10 = at::vec::VectorizedN<int64_t,2>(tmp9);
                    auto tmp11 = at::vec::VecMask<int64_t,2>(tmp2 < tmp10);
                    auto tmp12 = static_cast<float>(-0.2493888884782791);
                    auto tmp13 = static_cast<float>(0.015768442302942276);
                    auto tmp14 = at::vec::Vectorized<float>(tmp12);
                    auto tmp15 = at::vec::Vectorized<float>(tmp13);
                    auto tmp16 = decltype(tmp14)::blendv(tmp15, tmp14, tmp11.template cast<float,1>());
                    auto tmp17 = static_cast<int64_t>(3);
                    auto tmp18 = at::vec::VectorizedN<int64_t,2>(tmp17);
                    auto tmp19 = at::vec::VecMask<int64_t,2>(tmp2 < tmp18);
                    auto tmp20 = static_cast<float>(-0.24923184514045715);
                    auto tmp21 = static_cast<float>(-0.19462554156780243);
                    auto tmp22 = at::vec::Vectorized<float>(tmp20);
                    auto tmp23 = at::vec::Vectorized<float>(tmp21);
                    auto tmp24 = decltype(tmp22)::blendv(tmp23, tmp22, tmp19.template cast<float,1>());
                    auto tmp25 = decltype(tmp16)::blendv(tmp24, tmp16, tmp8.template cast<float,1>());
                    auto tmp26 = static_cast<int64_t>(6);
                    auto tmp27 = at::vec::VectorizedN<int64_t,2>(tmp26);
                    auto tmp28 = at::vec::VecMask<int64_t,2>(tmp2 < tmp27);
                    auto tmp29 = static_cast<int64_t>(5);
                    auto tmp30 = at::vec::VectorizedN<int64_t,2>(tmp29);
                    auto tmp31 = at::vec::VecMask<int64_t,2>(tmp2 < tmp30);
                    auto tmp32 = static_cast<float>(-0.20601749420166016);
                    auto tmp33 = static_cast<float>(0.12082510441541672);
                    auto tmp34 = at::vec::Vectorized<float>(tmp32);
                    auto tmp35 = at::vec::Vectorized<float>(tmp33);
                    auto tmp36 = decltype(tmp34)::blendv(tmp35, tmp34, tmp31.template cast<float,1>());
                    auto tmp37 = static_cast<int64_t>(7);
                    auto tmp38 = at::vec::VectorizedN<int64_t,2>(tmp37);
                    auto tmp39 = at::vec::VecMask<int64_t,2>(tmp2 < tmp38);
                    auto tmp40 = static_cast<float>(-0.21068711578845978);
                    auto tmp41 = static_cast<float>(-0.007713547442108393);
                    auto tmp42 = at::vec::Vectorized<float>(tmp40);
                    auto tmp43 = at::vec::Vectorized<float>(tmp41);
                    auto tmp44 = decltype(tmp42)::blendv(tmp43, tmp42, tmp39.template cast<float,1>());
                    auto tmp45 = decltype(tmp36)::blendv(tmp44, tmp36, tmp28.template cast<float,1>());
                    auto tmp46 = decltype(tmp25)::blendv(tmp45, tmp25, tmp5.template cast<float,1>());
                    tmp46.store(out_ptr1 + static_cast<int64_t>(x0));
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_relu_1(float* in_out_ptr0,
                       const int64_t ks0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L*ks0); x0+=static_cast<int64_t>(8L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(8L*ks0)))
                {
                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(8));
                    auto tmp1 = at::vec::clamp_min(tmp0, decltype(tmp0)(0));
                    tmp1.store(in_out_ptr0 + static_cast<int64_t>(x0));
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

// Compile cmd
// g++ /tmp/aotc_hlijjpeq/cmyc6gqldf6mw5lmwckpbvmdyl7kqa546osxwyj2xekwprgrc3sj.kernel.cpp -D TORCH_INDUCTOR_CPP_WRAPPER -D STANDALONE_TORCH_HEADER -D TORCH_INDUCTOR_PRECOMPILE_HEADERS -D  C10_USING_CUSTOM_GENERATED_MACROS -D CPU_CAPABILITY_AVX2  -O3 -DNDEBUG -fno-omit-frame-pointer -g1 -fno-trapping-math -funsafe-math-optimizations -ffinite-math-only -fno-signed-zeros -fno-finite-math-only -fno-unsafe-math-optimizations -fmath-errno -ffp-contract=off -fexcess-precision=fast -fno-tree-loop-vectorize -fPIC -Wall -std=c++20 -Wno-unused-variable -Wno-unknown-pragmas -pedantic -fopenmp  -include /tmp/torchinductor_root/precompiled_headers/cb6eg4hhek5fq22b2vfotcczmeqhs7sirq64affx3fn52k5us2n5.h -I/root/.pyenv/versions/3.11.7/include/python3.11 -I/work/wt/options/.venv/lib/python3.11/site-packages/torch/include -I/work/wt/options/.venv/lib/python3.11/site-packages/torch/include/torch/csrc/api/include   -mavx2 -mfma -mf16c  -c -o /tmp/aotc_hlijjpeq/cmyc6gqldf6mw5lmwckpbvmdyl7kqa546osxwyj2xekwprgrc3sj.kernel.o
// Link cmd
// g++ /tmp/aotc_hlijjpeq/cihrs6v2wksegvrbofmis2gyo47qumyfnyaud37w6heycumweabp.wrapper.o /tmp/aotc_hlijjpeq/cmyc6gqldf6mw5lmwckpbvmdyl7kqa546osxwyj2xekwprgrc3sj.kernel.o /tmp/aotc_hlijjpeq/cihrs6v2wksegvrbofmis2gyo47qumyfnyaud37w6heycumweabp/ct3bho2nqwhko65wcox6tu3mnpxyp3sfavtixhh6jipghjyotse6.weights.o -D TORCH_INDUCTOR_CPP_WRAPPER -D STANDALONE_TORCH_HEADER -D TORCH_INDUCTOR_PRECOMPILE_HEADERS -D  C10_USING_CUSTOM_GENERATED_MACROS -D CPU_CAPABILITY_AVX2  -O3 -DNDEBUG -fno-omit-frame-pointer -g1 -fno-trapping-math -funsafe-math-optimizations -ffinite-math-only -fno-signed-zeros -fno-finite-math-only -fno-unsafe-math-optimizations -fmath-errno -ffp-contract=off -fexcess-precision=fast -fno-tree-loop-vectorize -shared -fPIC -Wall -std=c++20 -Wno-unused-variable -Wno-unknown-pragmas -pedantic -fopenmp  -I/root/.pyenv/versions/3.11.7/include/python3.11 -I/work/wt/options/.venv/lib/python3.11/site-packages/torch/include -I/work/wt/options/.venv/lib/python3.11/site-packages/torch/include/torch/csrc/api/include   -mavx2 -mfma -mf16c  -o /tmp/aotc_hlijjpeq/model.so  -ltorch -ltorch_cpu -lgomp  -L/root/.pyenv/versions/3.11.7/lib -L/work/wt/options/.venv/lib/python3.11/site-packages/torch/lib 
