// UTF-16 to UTF-8 with 512-bit registers (AVX-512BW + VBMI2's byte compress): 16 units per step,
// each widened to a 32-bit lane holding its 1, 2 or 3 UTF-8 bytes, the unused bytes squeezed out
// with one vpcompressb. Steps holding a surrogate go one character at a time (pairs are rare in
// web pages; emoji mostly). Compiled with portable flags: the function carries the target
// attribute and is reached only when the CPU reports VBMI2 (utf16_utf8.cc).
#include "ssr_native/utf16_utf8.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_*() and then warn about it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ssr_native {
namespace utf16_utf8_internal {

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt"))) size_t Utf16ToUtf8Avx512(
    const char16_t* in, size_t n, uint8_t* out) {
  constexpr size_t kStep = 16;
  uint8_t* o = out;
  size_t i = 0;
  const __m256i not_ascii = _mm256_set1_epi16(static_cast<short>(0xFF80));
  const __m256i surrogate_bits = _mm256_set1_epi16(static_cast<short>(0xF800));
  const __m256i surrogate = _mm256_set1_epi16(static_cast<short>(0xD800));
  const __m512i low6 = _mm512_set1_epi32(0x3F);
  const __m512i continuation = _mm512_set1_epi32(0x80);
  // Whole 64-byte stores: only while the input left guarantees the room (out has 3 * n bytes).
  while (i + kStep <= n && static_cast<size_t>(o - out) + 64 <= 3 * n) {
    const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    if (_mm256_testz_si256(u, not_ascii)) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_cvtepi16_epi8(u));
      o += kStep;
      i += kStep;
      continue;
    }
    if (_mm256_cmpeq_epi16_mask(_mm256_and_si256(u, surrogate_bits), surrogate) != 0) {
      for (const size_t stop = i + kStep; i < stop;) i += EncodeCharacter(in, i, n, &o);
      continue;
    }
    const __m512i c = _mm512_cvtepu16_epi32(u);
    const __mmask16 two_or_more = _mm512_cmpge_epu32_mask(c, _mm512_set1_epi32(0x80));
    const __mmask16 three = _mm512_cmpge_epu32_mask(c, _mm512_set1_epi32(0x800));
    // Lead byte: c (ASCII), 0xC0 | c >> 6 (2 bytes) or 0xE0 | c >> 12 (3 bytes).
    const __m512i lead2 = _mm512_or_si512(_mm512_srli_epi32(c, 6), _mm512_set1_epi32(0xC0));
    const __m512i lead3 = _mm512_or_si512(_mm512_srli_epi32(c, 12), _mm512_set1_epi32(0xE0));
    const __m512i lead =
        _mm512_mask_blend_epi32(two_or_more, c, _mm512_mask_blend_epi32(three, lead2, lead3));
    // Second byte: 0x80 | the next 6 bits down (c for 2 bytes, c >> 6 for 3); third: 0x80 | c's
    // low 6 bits. Zero where the character has no such byte, so its bit 7 says "keep".
    const __m512i second_bits = _mm512_mask_blend_epi32(three, c, _mm512_srli_epi32(c, 6));
    const __m512i second = _mm512_maskz_mov_epi32(
        two_or_more, _mm512_or_si512(_mm512_and_si512(second_bits, low6), continuation));
    const __m512i third =
        _mm512_maskz_mov_epi32(three, _mm512_or_si512(_mm512_and_si512(c, low6), continuation));
    const __m512i lanes = _mm512_or_si512(
        lead, _mm512_or_si512(_mm512_slli_epi32(second, 8), _mm512_slli_epi32(third, 16)));
    // Keep every lead byte, and the second and third bytes where they are continuations.
    const __mmask64 keep = _mm512_movepi8_mask(lanes) | 0x1111111111111111ull;
    _mm512_storeu_si512(o, _mm512_maskz_compress_epi8(keep, lanes));
    o += kStep + static_cast<size_t>(_mm_popcnt_u32(two_or_more) + _mm_popcnt_u32(three));
    i += kStep;
  }
  return static_cast<size_t>(o - out) + Utf16ToUtf8Portable(in + i, n - i, o);
}

}  // namespace utf16_utf8_internal
}  // namespace ssr_native

#else

namespace ssr_native {
namespace utf16_utf8_internal {
size_t Utf16ToUtf8Avx512(const char16_t* in, size_t n, uint8_t* out) {
  return Utf16ToUtf8Portable(in, n, out);
}
}  // namespace utf16_utf8_internal
}  // namespace ssr_native

#endif
