// Distances to blocks of eight descriptors, with AVX-512 where the processor has it.
#include "descriptors.hpp"

#include <cstdlib>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cs {

namespace {

CS_POPCOUNT
void block_distances_scalar(const DescriptorBlock &block, const Descriptor &q, int32_t *out) {
    for (uint32_t lane = 0; lane < DescriptorBlock::kLanes; ++lane) out[lane] = hamming(q, block.get(lane));
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512vpopcntdq")))
void block_distances_avx512(const DescriptorBlock &block, const Descriptor &q, int32_t *out) {
    __m512i d = _mm512_setzero_si512();
    for (int w = 0; w < 4; ++w)
        d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_load_si512(block.words[w]),
                                                                     _mm512_set1_epi64(int64_t(q.words[w])))));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), _mm512_cvtepi64_epi32(d));
}
#endif

} // namespace

bool has_wide_popcount() {
#if defined(__x86_64__)
    // WAYMARK_NO_AVX512=1 takes the scalar path anyway (to compare the two; results are equal).
    static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") &&
                                  std::getenv("WAYMARK_NO_AVX512") == nullptr;
    return available;
#else
    return false;
#endif
}

const BlockDistances block_distances =
#if defined(__x86_64__)
    has_wide_popcount() ? block_distances_avx512 :
#endif
                        block_distances_scalar;

} // namespace cs
