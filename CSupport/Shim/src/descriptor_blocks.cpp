// Distances to blocks of eight descriptors by the widest instructions the processor has.
#include "descriptors.hpp"

#include <cstdlib>
#include <cstring>

namespace cs {

namespace {

CS_POPCOUNT
void block_distances_scalar(const DescriptorBlock &block, const Descriptor &q, int32_t *out) {
    for (uint32_t lane = 0; lane < DescriptorBlock::kLanes; ++lane) out[lane] = hamming(q, block.get(lane));
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512vpopcntdq")))
void block_distances_avx512(const DescriptorBlock &block, const Descriptor &q, int32_t *out) {
    const __m512i words[4] = {_mm512_set1_epi64(int64_t(q.words[0])), _mm512_set1_epi64(int64_t(q.words[1])),
                              _mm512_set1_epi64(int64_t(q.words[2])), _mm512_set1_epi64(int64_t(q.words[3]))};
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), _mm512_cvtepi64_epi32(distances_avx512(block, words)));
}

__attribute__((target("avx2")))
void block_distances_avx2(const DescriptorBlock &block, const Descriptor &q, int32_t *out) {
    const __m256i words[4] = {_mm256_set1_epi64x(int64_t(q.words[0])), _mm256_set1_epi64x(int64_t(q.words[1])),
                              _mm256_set1_epi64x(int64_t(q.words[2])), _mm256_set1_epi64x(int64_t(q.words[3]))};
    const __m256i in_lane_order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i d = _mm256_permutevar8x32_epi32(distances_avx2_interleaved(block, words), in_lane_order);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), d);
}
#endif

DescriptorKernel choose_kernel() {
#if defined(__x86_64__)
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
    const bool avx2 = __builtin_cpu_supports("avx2");
    const char *asked = std::getenv("WAYMARK_DESCRIPTOR_KERNEL");
    if (asked && std::strcmp(asked, "scalar") == 0) return DescriptorKernel::scalar;
    if (asked && std::strcmp(asked, "avx2") == 0 && avx2) return DescriptorKernel::avx2;
    if (avx512) return DescriptorKernel::avx512;
    if (avx2) return DescriptorKernel::avx2;
#endif
    return DescriptorKernel::scalar;
}

BlockDistances choose_block_distances() {
    switch (descriptor_kernel()) {
#if defined(__x86_64__)
    case DescriptorKernel::avx512: return block_distances_avx512;
    case DescriptorKernel::avx2: return block_distances_avx2;
#endif
    default: return block_distances_scalar;
    }
}

} // namespace

DescriptorKernel descriptor_kernel() {
    static const DescriptorKernel kernel = choose_kernel();
    return kernel;
}

const BlockDistances block_distances = choose_block_distances();

} // namespace cs
