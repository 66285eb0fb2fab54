// Latin-1 to UTF-8 with 512-bit registers (AVX-512BW + VBMI2's byte compress): 32 characters per
// step, widened to one 16-bit pair each (lead byte, continuation byte), the continuation bytes of
// ASCII characters squeezed out with one vpcompressb. Compiled with portable flags: the function
// carries the target attribute and is reached only when the CPU reports VBMI2 (latin1_utf8.cc).
#include "ssr_native/latin1_utf8.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cstring>

// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_*() and then warn about it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ssr_native {
namespace latin1_utf8_internal {

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt"))) size_t ExpandLatin1Avx512(
    const uint8_t* in, size_t n, uint8_t* out) {
  uint8_t* o = out;
  size_t i = 0;
  const __m512i low6 = _mm512_set1_epi16(0x3F);
  const __m512i lead_bits = _mm512_set1_epi16(0xC0);
  const __m512i continuation_bits = _mm512_set1_epi16(0x80);
  // Whole 64-byte stores: only while the input left guarantees the room (out has 2 * n bytes).
  for (; i + 32 <= n && static_cast<size_t>(o - out) + 64 <= 2 * n; i += 32) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __mmask32 high = _mm256_movepi8_mask(bytes);
    if (high == 0) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), bytes);
      o += 32;
      continue;
    }
    const __m512i c = _mm512_cvtepu8_epi16(bytes);
    // Characters of 0x80 and up: lead 0xC0 | c >> 6 (C2 or C3), continuation 0x80 | c & 0x3F.
    const __m512i lead = _mm512_or_si512(_mm512_srli_epi16(c, 6), lead_bits);
    const __m512i first = _mm512_mask_blend_epi16(high, c, lead);
    const __m512i second =
        _mm512_maskz_mov_epi16(high, _mm512_or_si512(_mm512_and_si512(c, low6), continuation_bits));
    const __m512i pairs = _mm512_or_si512(first, _mm512_slli_epi16(second, 8));
    // Keep every first byte, and a second byte where it is a continuation (bit 7 set).
    const __mmask64 keep = _mm512_movepi8_mask(pairs) | 0x5555555555555555ull;
    _mm512_storeu_si512(o, _mm512_maskz_compress_epi8(keep, pairs));
    o += 32 + static_cast<size_t>(_mm_popcnt_u32(high));
  }
  return static_cast<size_t>(o - out) + ExpandLatin1Portable(in + i, n - i, o);
}

}  // namespace latin1_utf8_internal
}  // namespace ssr_native

#else

namespace ssr_native {
namespace latin1_utf8_internal {
size_t ExpandLatin1Avx512(const uint8_t* in, size_t n, uint8_t* out) {
  return ExpandLatin1Portable(in, n, out);
}
}  // namespace latin1_utf8_internal
}  // namespace ssr_native

#endif
