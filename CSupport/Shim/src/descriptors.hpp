// Binary descriptors as the shim stores them: 256 bits in four 64-bit words, contiguous.
#pragma once

#include "csupport.h"

#include <cstdint>
#include <vector>

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

// Writes the Hamming distances from `q` to the eight descriptors of `block` (by the widest
// instructions the processor has).
using BlockDistances = void (*)(const DescriptorBlock &block, const Descriptor &q, int32_t *out);
extern const BlockDistances block_distances;

// Whether the processor counts bits in 512-bit registers (AVX-512 F + VPOPCNTDQ) and the
// environment does not set WAYMARK_NO_AVX512.
bool has_wide_popcount();

} // namespace cs

struct cs_features {
    std::vector<cs_keypoint> keypoints; // shim pixel convention (pixel centres at +0.5)
    std::vector<cs::Descriptor> descriptors;
};
