// Writing a vector of pixels into a row that may end inside it.
#pragma once

#if defined(__x86_64__)
#include <algorithm>
#include <cstdint>

#include <emmintrin.h>

namespace cs {

// Stores the 16 pixels for x...x + 15 of a row `width` pixels long, only those inside it.
inline void store_row_pixels(__m128i pixels, uint8_t *row, int x, int width) {
    if (x + 16 <= width) {
        _mm_storeu_si128(reinterpret_cast<__m128i *>(row + x), pixels);
        return;
    }
    alignas(16) uint8_t last[16];
    _mm_store_si128(reinterpret_cast<__m128i *>(last), pixels);
    std::copy(last, last + (width - x), row + x);
}

} // namespace cs
#endif
