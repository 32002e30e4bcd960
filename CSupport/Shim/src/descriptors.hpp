// Binary descriptors as the shim stores them: 256 bits in four 64-bit words, contiguous.
#pragma once

#include "csupport.h"

#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cs {

struct Descriptor {
    uint64_t words[4];
};
static_assert(sizeof(Descriptor) == 32, "ORB descriptors are 32 bytes");

// Debian builds for the x86-64 baseline, which lacks the popcnt instruction that makes
// Hamming distances ~7x faster. The hot loops are compiled for it (target attribute: no
// package-wide flags), and the entry points that reach them check the processor first with
// require_popcount (every x86-64 processor since 2008 has it).
#if defined(__x86_64__) && !defined(__POPCNT__)
#define CS_POPCOUNT __attribute__((target("popcnt")))
#else
#define CS_POPCOUNT
#endif

inline int hamming(const Descriptor &a, const Descriptor &b) {
    return __builtin_popcountll(a.words[0] ^ b.words[0]) + __builtin_popcountll(a.words[1] ^ b.words[1]) +
           __builtin_popcountll(a.words[2] ^ b.words[2]) + __builtin_popcountll(a.words[3] ^ b.words[3]);
}

void require_popcount();

// Eight descriptors, word-major (words[w][lane]): one 512-bit register holds word w of all
// eight, so their eight distances to a query take four XORs and four population counts.
// Blocks are 64-byte aligned.
struct alignas(64) DescriptorBlock {
    static constexpr uint32_t kLanes = 8;
    uint64_t words[4][kLanes];

    Descriptor get(uint32_t lane) const {
        return {{words[0][lane], words[1][lane], words[2][lane], words[3][lane]}};
    }
    void set(uint32_t lane, const Descriptor &d) {
        for (int w = 0; w < 4; ++w) words[w][lane] = d.words[w];
    }
};

// How blocks are compared: eight descriptors per instruction with AVX-512 (F + VPOPCNTDQ),
// four by byte-table popcounts with AVX2, or one at a time with popcnt. All give the same
// distances. The widest the processor has, unless WAYMARK_DESCRIPTOR_KERNEL=scalar|avx2|avx512
// asks for another it has (to compare them, or to time a smaller processor).
enum class DescriptorKernel { scalar, avx2, avx512 };
DescriptorKernel descriptor_kernel();

// Writes the Hamming distances from `q` to the eight descriptors of `block`, lane by lane.
using BlockDistances = void (*)(const DescriptorBlock &block, const Descriptor &q, int32_t *out);
extern const BlockDistances block_distances;

#if defined(__x86_64__)
// The eight distances of a block as 64-bit lanes, in lane order; q holds each query word
// broadcast.
__attribute__((target("avx512f,avx512vpopcntdq"))) inline __m512i distances_avx512(const DescriptorBlock &block,
                                                                                   const __m512i q[4]) {
    __m512i d = _mm512_setzero_si512();
    for (int w = 0; w < 4; ++w)
        d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_load_si512(block.words[w]), q[w])));
    return d;
}

// The eight distances of a block as 32-bit lanes holding lanes 0, 4, 1, 5, 2, 6, 3, 7 (the
// two halves' sums interleaved); bits counted by a nibble table, bytes summed by SAD.
__attribute__((target("avx2"))) inline __m256i distances_avx2_interleaved(const DescriptorBlock &block,
                                                                           const __m256i q[4]) {
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2,
                                           2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    __m256i halves[2];
    for (int h = 0; h < 2; ++h) {
        __m256i bytes = _mm256_setzero_si256();
        for (int w = 0; w < 4; ++w) {
            __m256i x = _mm256_xor_si256(
                _mm256_load_si256(reinterpret_cast<const __m256i *>(&block.words[w][4 * h])), q[w]);
            bytes = _mm256_add_epi8(bytes, _mm256_shuffle_epi8(table, _mm256_and_si256(x, low)));
            bytes = _mm256_add_epi8(bytes, _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x, 4), low)));
        }
        halves[h] = _mm256_sad_epu8(bytes, _mm256_setzero_si256());
    }
    return _mm256_or_si256(halves[0], _mm256_slli_epi64(halves[1], 32));
}
#endif

} // namespace cs

struct cs_features {
    std::vector<cs_keypoint> keypoints; // shim pixel convention (pixel centres at +0.5)
    std::vector<cs::Descriptor> descriptors;
};
